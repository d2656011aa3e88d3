#!/usr/bin/env bash
# make check-harness: the fault drills. make check (tools/check.sh) is run
# on a short suite list with one deliberate fault at a time (VIVPOLL_FAULT,
# read by guest/init, guest/check.sh, tools/host-checks.sh,
# tools/check-run.sh, tests/lib.sh and tests/lib.c, and the suites 50, 70
# and 88); each must turn it red and name the cause. A run without a fault
# must be green, so that red means the fault. TAP, then "N passed, N
# failed, N skipped".
set -eu -o pipefail
. "$(dirname "$0")/lib.sh"

out=$BUILD/check-harness
rm -rf "$out" && mkdir -p "$out"
tap=$out/harness.tap
: > "$tap"
n=0
# has FILE WANT: a line of FILE has WANT, whose parts between " ... " may
# stand apart on it (a kernel time stamp, a count), in that order
has() {
	local f=$1 want=$2 p
	p=$(mktemp)
	cp "$f" "$p"
	while [ -n "$want" ]; do
		grep -F -- "${want%% ... *}" "$p" > "$p.n" || { rm -f "$p" "$p.n"; return 1; }
		sed -i "s/^.*$(printf '%s' "${want%% ... *}" | sed 's/[][\/.*^$]/\\&/g')//" "$p.n"
		mv "$p.n" "$p"
		case "$want" in *" ... "*) want=${want#* ... } ;; *) want= ;; esac
	done
	rm -f "$p"
}
# wants FILE WANT: has FILE for each part of WANT, parts apart by " &&& "
wants() {
	local w=$2
	while :; do
		has "$1" "${w%% &&& *}" || return 1
		case "$w" in *" &&& "*) w=${w#* &&& } ;; *) return 0 ;; esac
	done
}
# drill NAME FAULT SUITES WANT [RUNCHECK]: make check with FAULT on SUITES
# is red (or green for WANT=green) and its output has WANT
drill() {
	local name=$1 fault=$2 suites=$3 want=$4 runcheck=${5:-0} rc t0
	[ -z "${DRILLS:-}" ] || case " $DRILLS " in *" $name "*) ;; *) return 0 ;; esac
	n=$((n + 1))
	t0=$(date +%s)
	set +e
	local tier=quick stops=
	case "$fault" in
	# every QEMU of the check stopped from the host for 0.3 s every
	# 0.5 s from boot to the end (at least 20 times), while frames
	# stream: the verdict must not change
	host-stops) stops="0.3 0.2" ;;
	# the full tier's, for 1.2 s (longer than epoll60's 1000 ms
	# deadline) every 2 s
	host-stops-full) stops="1.2 0.8" tier=full ;;
	esac
	if [ -n "$stops" ]; then
		# shellcheck disable=SC2086
		tools/stop-qemu.sh 2 $stops 1000 > "$out/$name.stops" 2>&1 &
		stopper=$!
		fault=
	fi
	(cd "$TOP" && VIVPOLL_FAULT=$fault VIVPOLL_RUNCHECK=$runcheck SUITES=$suites \
		TIER=$tier tools/check.sh) > "$out/$name.out" 2>&1
	rc=$?
	if [ -n "${stopper:-}" ]; then
		kill "$stopper" 2> /dev/null
		wait "$stopper"
		stopper=
		sed 's/^/# /' "$out/$name.stops" | tail -1 >> "$out/$name.out"
	fi
	set -e
	cp -r "$BUILD/check" "$out/$name.check" 2> /dev/null || true
	local t=$(($(date +%s) - t0))
	if [ "$want" = green ]; then
		what="no fault: make check is green"
		[ "$name" = control ] || what="$name: make check is green, every skip listed"
		# at least 20 stops must have come while it ran
		if [ -s "$out/$name.stops" ] && [ "$(grep -c '^stop-qemu.sh: stop' "$out/$name.stops")" -lt 20 ]; then
			echo "not ok $n - $what # only $(grep -c '^stop-qemu.sh: stop' "$out/$name.stops") host stops came while it ran, not 20"
		elif [ "$rc" = 0 ] && grep -qE '^[0-9]+ passed, 0 failed' "$out/$name.out"; then
			echo "ok $n - $what (${t}s$([ ! -s "$out/$name.stops" ] || echo "; $(grep -c '^stop-qemu.sh: stop' "$out/$name.stops") host stops"))"
		else
			echo "not ok $n - $what # status $rc: $(grep -m1 'FAIL:' "$out/$name.out" || tail -1 "$out/$name.out")"
		fi
	elif [ "$rc" != 0 ] && wants "$out/$name.out" "$want"; then
		first=${want%% &&& *}
		# the quoted line loses its '#': a directive of its own (a
		# quoted "# SKIP") would make this result a skip
		echo "ok $n - $name: make check is red and says why ($(grep -m1 -F -- "${first%% ... *}" "$out/$name.out" | sed 's/^ *//; s/#/:/g' | cut -c1-160); ${t}s)"
	else
		echo "not ok $n - $name: make check is red and says why # status $rc; wanted '$want', failures: $(grep 'FAIL:' "$out/$name.out" | head -3 | tr '\n#' ' :')"
		tail -5 "$out/$name.out" | sed 's/^/# /'
	fi | tee -a "$tap"
}

say "check-harness: the fault drills, each a make check of a short list ($out)"
# DRILLS="NAME...": only these drills (each name must be one of them)
all_drills=$(sed -n 's/^drill \([a-z-]*\) .*/\1/p' "$0")
for d in ${DRILLS:-}; do
	echo "$all_drills" | grep -qx -- "$d" || die "DRILLS: no drill '$d' (drills: $(echo $all_drills))"
done
echo "1..$(echo ${DRILLS:-$all_drills} | wc -w)"
drill control "" 00 green 1
drill panic-at-end panic-at-end 00 "the kernel crashed after the command exited with status 0"
drill drop-suite drop-suite "00 99" "00-smoke.sh did not run: /vivpoll/tests/00-smoke.sh is not in the initramfs"
drill half-plan half-plan 00 "00-smoke.sh reports as many results as its plan # 5 results for a plan of 11"
drill splat-at-modprobe splat-at-modprobe 00 "kernel log clean at boot (before the first suite) # [ ... ] WARNING: CPU: 0 PID: 1 at guest/init: fault drill"
drill require-kmemleak require-kmemleak 00 "kmemleak is required on this config and missing"
drill checkpatch-crash checkpatch-crash 00 "checkpatch --strict drivers/vivpoll # checkpatch exited with status 255"
drill host-check-dies host-check-dies 00 "the series checks exited with status 3"
drill host-checks-exit host-checks-exit 00 "host checks exited with status 4"
drill run-check-dies run-check-dies 00 "make run's check (tools/check-run.sh) exited with status 2" 1
drill suites-typo "" 00-smok3 "'00-smok3' names no suite in tests/"
# the holes of issue 26, each drilled on the suite it concerns
drill splat-flood splat-flood 00 "guest time1's kernel log is clean (read on the host) # ... lines match guest/splat.ere, the first: ... fault drill, splat flood line 0"
drill hang-at-end hang-at-end 00 "the command exited with status 0 and then the guest hung"
# (in the race guest: on the instruction counter the 6 s of spinning with
# RCU held cost 6e9 instructions, 211 s of the host's time, 2026-12-07)
drill rcu-stall rcu-stall 80 "kernel log clean after 80-stress # [ ... ] rcu: INFO: ... stall"
drill hung-task hung-task 42 "kernel log clean after 42-sequence # [ ... ] INFO: task modprobe: ... blocked for more than"
drill epoll-flaky-on epoll-flaky-on 88 "epoll selftest epoll16, switch on: fail &&& FAIL: epoll selftests: switch on gives the same result as off"
drill compliance-drop compliance-drop 50 "FAIL: v4l2-compliance -d ... warning(s); the first warning: ... got sequence number"
drill kunit-skip kunit-skip 70 "FAIL: KUnit suite vivpoll: every case passed, none failed or skipped # ... skip:1 ... SKIP fault drill"
drill short-plan short-plan "20 42" "20-events.sh reports as many results as its plan # 10 results for a plan of 11 &&& 42-sequence reports as many results as its plan # 16 results for a plan of 17"
# the holes of issue 35: each red against the code before it
drill todo-exit todo-exit 20 "20-events.sh exited with status 3"
drill needs-typo needs-typo 00 "vivpoll-needs names CONFIG_VIVPOLL_TYPO, which no config fragment of guest/kconfig sets to y"
drill crop-eio crop-eio 45 "  FAIL: gst-mmap on vivpoll ... warning(s): WARN v4l2 gst_v4l2_object_get_crop_rect: Failed to get default crop rectangle with VIDIOC_G_SELECTION: Input/output error"
drill klog-unreadable klog-unreadable 42 "FAIL: the kernel log has no splat # cannot read the kernel log"
drill dmesg-fails dmesg-fails 00 "FAIL: kernel log clean at boot (before the first suite) # dmesg -c failed"
drill warn-after-scan warn-after-scan 00 "a splat in the kernel log after the guest's last scan of it (on the console): ... fault drill, a splat after the last scan"
drill unlisted-skip unlisted-skip 00 "FAIL: unlisted skip (not in tests/skips.txt for quick/ ... # SKIP fault drill"
# the suites that judge what patch 1's documentation says the switch does
# (12, 14, 16): with every switch they set written the other way round,
# each is red
drill switch-inverted switch-inverted "12 14 16" "FAIL: nest.epoll_off.follows_the_switch &&& FAIL: nest.select_on.flipped_while_it_sleeps &&& FAIL: uring.switch_on.epoll_ctl_add &&& FAIL: keys.switch_off_busy_poll.exceptfds_alone"
# time is the guest's own: host stops during streaming change nothing
drill host-stops host-stops "40 42 43 50 84" green
# and the full tier's epoll selftests, whose epoll60 fails when its waiters
# have not woken in 1000 ms of the guest's clock: stops of 1.2 s change
# nothing either (VIVPOLL_ICOUNT=off, the guest on the host's clock, fails)
drill host-stops-full host-stops-full 88 green
tools/tap-summary.sh "$tap" > "$out/summary" || true
grep -A20 -E '^(Failures|Skipped)' "$out/summary" || true
tail -1 "$out/summary"
grep -qE '^[0-9]+ passed, 0 failed' "$out/summary"
