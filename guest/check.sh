#!/bin/sh
# Run the suites in /vivpoll/tests, each bounded in time, and print their
# TAP. The host names the suites this guest must run (VIVPOLL_RUN, file
# names in order); one that is missing or not executable is a failure, not
# a silence. Without VIVPOLL_RUN (by hand, in make shell), every executable
# there runs.
#
# Per suite: a result for its exit status, its plan ("1..N" before the
# first result, and N results), and the kernel log it left (read and cleared after
# every suite, kept whole in /tmp/kernel.log for guest/init to hand to the
# host). The boot log is scanned before the first suite. The last line is
# "ok - guest finished": a guest whose log lacks it did not finish.
#
# VIVPOLL_REQUIRE: what must be there on this kernel and config (kmemleak on
# the debug kernel); VIVPOLL_FAULT: a deliberate fault for the harness's
# own drills (tools/check-harness.sh), never set by make check.
per_test=${VIVPOLL_TEST_TIMEOUT:-600}
export VIVPOLL_SCALE=${VIVPOLL_SCALE:-1}
export VIVPOLL_TIER=${VIVPOLL_TIER:-full}
fault=${VIVPOLL_FAULT:-}
kmemleak=/sys/kernel/debug/kmemleak
splat_re=$(cat /vivpoll/splat.ere)
klog=/tmp/kernel.log

# klog_scan WHEN: move the kernel log into $klog, a result for what was new
klog_scan() {
	# a log that cannot be read is not a clean one
	if ! dmesg -c > /tmp/klog.new || [ "$fault" = dmesg-fails ]; then
		echo "not ok - kernel log clean $1 # dmesg -c failed: the log was not read"
		return
	fi
	cat /tmp/klog.new >> $klog
	# every matching line counts; a scan that fails is not a clean log
	nsplat=$(grep -cE "$splat_re" /tmp/klog.new)
	case $? in
	0)
		echo "not ok - kernel log clean $1 # $(grep -m1 -E "$splat_re" /tmp/klog.new)"
		echo "# $nsplat lines match /vivpoll/splat.ere, the first five:"
		grep -m5 -E "$splat_re" /tmp/klog.new | sed 's/^/# /' ;;
	1)
		echo "ok - kernel log clean $1" ;;
	*)
		echo "not ok - kernel log clean $1 # grep failed" ;;
	esac
}

# The boot (init's modprobe) before anything else clears the log.
klog_scan "at boot (before the first suite)"
# kmemleak (debug kernel): no automatic scans, which under TCG + KASAN take
# minutes and stall a vCPU; the tests and the end of this script scan.
[ "$fault" = require-kmemleak ] && VIVPOLL_REQUIRE="${VIVPOLL_REQUIRE:-} kmemleak"
for r in ${VIVPOLL_REQUIRE:-}; do
	case "$r" in
	kmemleak) [ -f $kmemleak ] && echo "ok - kmemleak is there (required on this config)" ||
		echo "not ok - kmemleak is required on this config and missing: $kmemleak" ;;
	*) echo "not ok - VIVPOLL_REQUIRE names '$r', which this script does not know" ;;
	esac
done
if [ -f $kmemleak ]; then
	echo scan=off > $kmemleak
	echo clear > $kmemleak
fi

if [ -n "${VIVPOLL_RUN:-}" ]; then
	suites=$VIVPOLL_RUN
else
	suites=$(cd /vivpoll/tests && for t in *; do [ -x "$t" ] && echo "$t"; done)
fi
[ "$fault" = drop-suite ] && rm -f "/vivpoll/tests/${suites%% *}"
# Drills: a CPU that stalls RCU, and a task stuck in D state, each for 6 s
# with the detector's limit lowered to 3 s and 2 s (lib/test_lockup.c;
# loading it always fails with EAGAIN once the lockup is over): the first
# suite's kernel log must show them
case "$fault" in
rcu-stall)
	stall=/sys/module/rcupdate/parameters/rcu_cpu_stall_timeout
	old=$(cat $stall)
	echo 3 > $stall
	modprobe test_lockup time_secs=6 lock_rcu=1 2> /dev/null
	echo "$old" > $stall ;;
hung-task)
	hung=/proc/sys/kernel/hung_task_timeout_secs
	old=$(cat $hung)
	echo 2 > $hung
	modprobe test_lockup time_secs=6 state=D 2> /dev/null
	echo "$old" > $hung ;;
esac
# busy [SINCE]: the time the CPUs spent busy (user, nice, system, irq,
# softirq), in ticks of 1/100 s; with SINCE, the seconds since that count.
# On QEMU's instruction counter this is the guest's instructions (1 ns
# each at shift 0), which is where the host's time goes: the skipped idle
# time of the suite's own seconds costs it nothing.
busy() {
	awk -v since="${1:-}" '/^cpu / { b = $2 + $3 + $4 + $7 + $8
		if (since == "") print b; else printf "%.2f\n", (b - since) / 100 }' /proc/stat
}
first=1
for name in $suites; do
	t=/vivpoll/tests/$name
	if [ ! -f "$t" ] || [ ! -x "$t" ]; then
		[ -f "$t" ] && why="is not executable" || why="is not in the initramfs"
		echo "not ok - $name did not run: $t $why"
		continue
	fi
	echo "# ===== $name"
	out=/tmp/$name.out
	t0=$(date +%s)
	b0=$(busy)
	timeout "$per_test" "$t" > "$out" 2>&1
	rc=$?
	if [ "$fault" = half-plan ] && [ "$first" = 1 ]; then
		# the suite stops after half its results and exits 0
		half=$(($(grep -cE '^(not )?ok( |$)' "$out") / 2))
		awk -v h="$half" '/^(not )?ok( |$)/ && ++n > h { exit } { print }' "$out" > "$out.cut"
		mv "$out.cut" "$out"
		rc=0
	fi
	first=0
	cat "$out"
	echo "# ----- $name: $(($(date +%s) - t0))s, busy $(busy "$b0")s, status $rc"
	# whatever it printed (an expected failure is "not ok ... # TODO" too)
	if [ "$rc" != 0 ]; then
		[ "$rc" = 143 ] && why="killed after ${per_test}s" || why="exited with status $rc"
		echo "not ok - $name $why"
	fi
	# a suite that runs a program N times (VIVPOLL_SCALE) prints N plans:
	# their sum is its plan; the first comes before any result
	results=$(grep -cE '^(not )?ok( |$)' "$out")
	plans=$(grep -cE '^1\.\.[0-9]+$' "$out")
	plan=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' "$out" | awk '{ s += $1 } END { print s + 0 }')
	first=$(grep -E '^(1\.\.[0-9]+|(not )?ok( .*)?)$' "$out" | head -1)
	if [ "$plans" = 0 ]; then
		echo "not ok - $name prints a plan (1..N) # it printed none, and $results results"
	elif [ "${first#1..}" = "$first" ]; then
		echo "not ok - $name states its plan before its results # its first result comes first: $first"
	elif [ "$results" != "$plan" ]; then
		echo "not ok - $name reports as many results as its plan # $results results for a plan of $plan"
	else
		echo "ok - $name reports as many results as its plan ($plan)"
	fi
	klog_scan "after $name"
done

if [ -f $kmemleak ]; then
	echo scan > $kmemleak; sleep 5; echo scan > $kmemleak
	leaks=$(grep -c '^unreferenced object' $kmemleak)
	if [ "$leaks" != 0 ]; then
		echo "not ok - kmemleak finds no leak # $leaks unreferenced objects"
		head -40 $kmemleak | sed 's/^/# /'
	else
		echo "ok - kmemleak finds no leak"
	fi
	klog_scan "after the kmemleak scan"
fi
echo "ok - guest finished"
