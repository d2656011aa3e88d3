#!/usr/bin/env bash
# make check / make check-full: host-side checks, then the guest suites;
# prints each failure, skip, expected failure and flake with its reason and
# ends with "N passed, N failed, N skipped"; non-zero on failure.
#
# Three guests side by side, by the clock a suite's verdict needs:
# - two time guests run on QEMU's instruction counter (qemu-run.sh:
#   VIVPOLL_ICOUNT, default shift 0), one vCPU each: their clocks advance
#   by the instructions they run and their idle time is skipped, so a host
#   that does not run QEMU (a stop, a busy machine) takes no time from them:
#   frame sequences, FRAME_SYNC, rates and latencies are judged there;
# - the race guest (the suites that exist for races: stress, unbind under
#   load, the switch toggled under waiters, the fuzzer; RACE_SUITES below)
#   runs on two vCPUs and the host's clock (QEMU 7.2 hangs bringing up a
#   second vCPU under -icount), and its verdicts judge no time.
# Both end with the health check (99).
#
# TIER=quick (make check): every suite in its short version; TIER=full
# (make check-full, and the debug kernel): the long versions (full
# v4l2-compliance -s -f, stress for its whole length).
#
# The verdict counts what ran against what should have run: every suite in
# tests/ (or those SUITES names) must report from the guest that was given
# it, every guest must exit 0 and say "ok - guest finished", every check's
# plan must match its results, and the guests' kernel logs are scanned here
# too. A skip or an expected failure is green only where tests/skips.txt
# lists it for this tier (tools/tap-summary.sh). VIVPOLL_FAULT injects a
# deliberate fault (tools/check-harness.sh).
set -eu -o pipefail
. "$(dirname "$0")/lib.sh"

[ "$KCONFIG" = debug ] && tier=${TIER:-full} || tier=${TIER:-quick}
# Each test's bound: the full tier's 50-compliance runs two versions of
# v4l2-compliance over all formats (965 s on a loaded machine).
case "$tier" in quick) test_timeout=600 ;; full) test_timeout=1800 ;;
*) die "TIER wants quick or full, not '$tier'" ;; esac
[ -z "${LANES:-}" ] || die "LANES is gone: the suites run in two time guests and a race guest (see the top of tools/check.sh)"
# VIVPOLL_ICOUNT=off: the time guests on the host's clock too (one vCPU),
# as before issue 35: a deliberate fault, against which check-harness's
# host-stops drill must be red
icount=${VIVPOLL_ICOUNT:-0}
case "$icount" in [0-9]|10) ;; off) icount= ;; *) die "VIVPOLL_ICOUNT wants a shift of 0 to 10, or off, not '$icount'" ;; esac
# The debug kernel runs the same suites, longer.
[ "$KCONFIG" = debug ] && scale=${STRESS_SCALE:-2} || scale=${STRESS_SCALE:-1}
case "${SUITES:-}" in *[!0-9a-z\ -]*) die "SUITES wants test name prefixes such as '00 50-compliance', not '$SUITES'" ;; esac
case "$scale" in ''|*[!0-9]*|0) die "STRESS_SCALE wants a positive whole number, not '$scale'" ;; esac
# What must be there on this config (guest/check.sh checks it).
require=
[ "$KCONFIG" != debug ] || require=kmemleak

out=$BUILD/check
rm -rf "$out" && mkdir -p "$out"
start=$(date +%s)

# The suites this tree builds, by the names the guest runs them under
# (tests/Makefile: NN-name.c becomes NN-name, NN-name.sh stays).
all_suites=$(cd "$TOP/tests" && ls [0-9][0-9]-*.c [0-9][0-9]-*.sh 2> /dev/null |
	sed 's/\.c$//' | sort)
# A suite that tests what only some kernels have says so in its source
# ("vivpoll-needs: CONFIG_A CONFIG_B"): it is one of this config's suites
# when the guest kernel has them all (=y). Elsewhere it is not run, and says
# so: a SKIP line, green only where tests/skips.txt lists it for that
# config. Each option it names must be one a config fragment of guest/kconfig
# sets to y (a typo, or an =m, is an error, not a suite left out). Naming
# it in SUITES on a config that lacks them is an error.
kconfig=$(kernel_dir)/.config
[ -f "$kconfig" ] || die "no $kconfig: the guest kernel is not built (make kernel)"
needs() {
	local f=$TOP/tests/$1
	[ -f "$f" ] || f=$f.c
	sed -n 's/.*vivpoll-needs: *//p' "$f" | head -1
	# the drill needs-typo: a misspelt option in the first suite's line
	[ "${VIVPOLL_FAULT:-}" != needs-typo ] || [ "$1" != "$(echo "$all_suites" | head -1)" ] ||
		echo CONFIG_VIVPOLL_TYPO
}
unmet() {
	local o
	for o in $(needs "$1"); do
		grep -qx "$o=y" "$kconfig" || echo "$o"
	done
}
left_out=
for s in $all_suites; do
	for o in $(needs "$s"); do
		grep -qhx "$o=y" "$TOP"/guest/kconfig/*.config "$TOP"/guest/kconfig/*/*.config ||
			die "tests/$s: vivpoll-needs names $o, which no config fragment of guest/kconfig sets to y (a typo?)"
	done
	[ -z "$(unmet "$s")" ] || left_out="$left_out $s"
done
all_suites=$(for s in $all_suites; do
	case " $left_out " in *" $s "*) ;; *) echo "$s" ;; esac; done)
for p in ${SUITES:-}; do
	case " $(echo $all_suites)" in *" $p"*) continue ;; esac
	for s in $left_out; do
		case "$s" in "$p"*) die "$s needs $(echo $(unmet "$s")), which the $KVER $KCONFIG kernel lacks (make check KCONFIG=debug runs it)" ;; esac
	done
done
# pick PREFIXES: the suites whose names start with one of them; a prefix
# that names no suite is an error (a typo must not run nothing)
pick() {
	local p s hit
	for p in $1; do
		hit=0
		for s in $all_suites; do
			case "$s" in "$p"*) hit=1 ;; esac
		done
		[ "$hit" = 1 ] || die "'$p' names no suite in tests/ (suites: $(echo $all_suites))"
	done
	for s in $all_suites; do
		for p in $1; do
			case "$s" in "$p"*) echo "$s"; break ;; esac
		done
	done
}
# The race guest's suites; every other suite runs in a time guest: two of
# them, side by side (one vCPU each, so two host cores), the second taking
# TIME2_SUITES, about half of their time. The health check (99) ends every
# guest (of make check: SUITES runs just what it names).
RACE_SUITES="80 82 84 86"
TIME2_SUITES="10 20 30 46 50 87 88 92 94"
# The full tier's epoll selftests (the kernel's) include three that spin
# and judge time: epoll59's main thread spins until the emitter has run
# (100000 times), epoll60's until its waiters have woken, or fails after
# 1000 ms of the guest's clock, and epoll61 waits 1000 timers. On the
# host's clock a host that stops the guest's second vCPU fails epoll60
# (make check-full, 2026-12-07, beside a kernel build); on one counted
# vCPU at shift 0, where a spin lasts a scheduler tick of 4 ms, 4 million
# instructions, the suite had not ended after 12 minutes. So they run in
# a guest of their own on the instruction counter with a coarse shift
# (SPIN_ICOUNT, 2^8 ns an instruction, a guest of about 4 MIPS): a spin
# costs 16000 instructions a tick, all 64 tests both settings take about
# a minute of the host, and no host stop reaches their deadlines. epoll59
# alone takes about 870 s of that guest's clock a setting (two ticks a
# wake-up on one vCPU), so the suite's limit there is four times the
# tier's (the epoll tests' own: tests/Makefile's EPOLL_LIMIT).
SPIN_SUITES=
[ "$tier" != full ] || SPIN_SUITES="88"
spin_icount=${SPIN_ICOUNT:-8}
case "$spin_icount" in [0-9]|10) ;; *) die "SPIN_ICOUNT wants a shift of 0 to 10, not '$spin_icount'" ;; esac
[ -n "$icount" ] || spin_icount=
if [ -n "${SUITES:-}" ]; then
	chosen=$(pick "$SUITES")
else
	chosen=$all_suites
fi
is_in() { case " $2 " in *" ${1%%-*} "*) true ;; *) false ;; esac; }
health=$(for s in $all_suites; do ! is_in "$s" 99 || echo "$s"; done)
run1=$(for s in $chosen; do is_in "$s" "$RACE_SUITES $TIME2_SUITES $SPIN_SUITES" || echo "$s"; done)
run2=$(for s in $chosen; do ! is_in "$s" "$TIME2_SUITES" || is_in "$s" "$RACE_SUITES $SPIN_SUITES" || echo "$s"; done)
run3=$(for s in $chosen; do ! is_in "$s" "$RACE_SUITES" || echo "$s"; done)
run4=$(for s in $chosen; do ! is_in "$s" "$SPIN_SUITES" || echo "$s"; done)
[ -n "${SUITES:-}" ] || run2="$run2 $health" run3="$run3 $health"
[ -n "${SUITES:-}" ] || [ -z "$run4" ] || run4="$run4 $health"
run1=$(echo $run1) run2=$(echo $run2) run3=$(echo $run3) run4=$(echo $run4)

# checked NAME RC FILE: the results of a host-side check, with a result of
# its own for its exit status and its plan ("1..N" and N results)
checked() {
	local n p
	n=$(grep -cE '^(not )?ok( |$)' "$3" || true)
	p=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' "$3" | head -1)
	if [ "$2" != 0 ]; then
		echo "not ok - $1 exited with status $2 (after $n results)"
	elif [ -z "$p" ] || [ "$n" != "$p" ]; then
		echo "not ok - $1 reports as many results as its plan # $n results for a plan of ${p:-none}"
	else
		echo "ok - $1 exited 0 with all $p planned results"
	fi
}

# the suites this kernel lacks what they need for: a SKIP each, saying what
for s in $left_out; do
	[ -z "${SUITES:-}" ] || continue
	echo "ok - $s # SKIP not for this kernel: it needs $(echo $(unmet "$s")), which the $KVER $KCONFIG kernel lacks"
done > "$out/left-out.tap"

# The host-side checks, beside the guests (the time guest's clock does not
# see the load; the race guest judges no time).
say "check: host-side checks, beside the guests"
(
	set +e
	t0=$SECONDS
	tools/host-checks.sh > "$out/host.tap" 2> "$out/host.err"
	echo $? > "$out/host.rc"
	echo "$((SECONDS - t0))" > "$out/host.wall"
) &
hostpid=$!
# make run's quoting, in a small guest of its own beside the suites' guests
# (left out, as a listed skip, only by the harness's own drills)
if [ "${VIVPOLL_RUNCHECK:-1}" = 0 ]; then
	printf '1..1\nok - make run passes CMD and its output byte for byte # SKIP VIVPOLL_RUNCHECK=0 (tools/check-harness.sh)\n' > "$out/run.tap"
	true &
else
	tools/check-run.sh > "$out/run.tap" 2>&1 &
fi
runpid=$!

HOSTDIR=${HOSTDIR:-$TOP/out}
mkdir -p "$HOSTDIR/check"

# guest NAME SUITES ICOUNT [LIMIT]: one guest running /vivpoll/check.sh, on
# the instruction counter (shift ICOUNT) or, for '', on two vCPUs; each
# suite's limit LIMIT seconds of the guest's clock (default test_timeout)
guest() {
	local log=$out/$1.log rc t0=$SECONDS
	set +e
	VIVPOLL_ICOUNT=$3 tools/qemu-run.sh --timeout "${VIVPOLL_CHECK_TIMEOUT:-$((3000 * scale))}" --log "$log" \
		"VIVPOLL_RUN='$(echo $2)' VIVPOLL_REQUIRE='$require' VIVPOLL_TIER=$tier VIVPOLL_SCALE=$scale VIVPOLL_TEST_TIMEOUT=$((${4:-$test_timeout} * scale)) ${VIVPOLL_FAULT:+VIVPOLL_FAULT=$VIVPOLL_FAULT }/vivpoll/check.sh" \
		> "$out/$1.out" 2>&1
	rc=$?
	set -e
	echo "$rc" > "$out/$1.rc"
	echo "$((SECONDS - t0))" > "$out/$1.wall"
	[ "$rc" = 0 ] || tail -40 "$out/$1.out" >&2
}

clock="on the host clock: VIVPOLL_ICOUNT=off"
[ -z "$icount" ] || clock="instruction counter, shift $icount"
say "check: $tier tier, scale $scale; time guests ($clock):$(echo ${run1:- none}) |$(echo ${run2:- none})${run4:+ |$run4 (shift ${spin_icount:-off})}; race guest (2 vCPUs):$(echo ${run3:- none})${left_out:+; not for this kernel:$left_out}"
names=() pids=()
[ -z "$run1" ] || { guest time1 "$run1" "$icount" & pids+=($!); names+=(time1); }
[ -z "$run2" ] || { guest time2 "$run2" "$icount" & pids+=($!); names+=(time2); }
[ -z "$run3" ] || { guest race "$run3" "" & pids+=($!); names+=(race); }
[ -z "$run4" ] || { guest spin "$run4" "$spin_icount" $((4 * test_timeout)) & pids+=($!); names+=(spin); }
wait "${pids[@]}"

# What the host knows of each guest: its exit status, whether it finished,
# every suite it was given, and its kernel log.
splat_re=$(cat "$TOP/guest/splat.ere")
for g in "${names[@]}"; do
	log=$out/$g.log
	[ -f "$log" ] || : > "$log"
	rc=$(cat "$out/$g.rc")
	{
		if [ "$rc" = 0 ]; then
			echo "ok - guest $g exited with status 0"
		else
			echo "not ok - guest $g exited with status $rc: $(grep -m1 '^guest: ' "$out/$g.out" || echo 'no reason given')"
			grep -A8 '^guest: FAILED' "$out/$g.out" | sed 's/^/# /' || true
		fi
		tr -d '\r' < "$log" | tail -1 | grep -qx 'ok - guest finished' ||
			echo "not ok - guest $g did not finish (its last line is not 'ok - guest finished')"
		case "$g" in time1) expect=$run1 ;; time2) expect=$run2 ;; spin) expect=$run4 ;; *) expect=$run3 ;; esac
		for s in $expect; do
			grep -qE "^(# ----- $s: |not ok - $s did not run)" "$log" ||
				echo "not ok - $s did not run (guest $g reported nothing for it)"
		done
		# every matching line is counted (no pipe that a flood could
		# break), and a scan that fails is not a clean log
		nsplat=$(grep -cE "$splat_re" "$log.dmesg" 2> /dev/null) && grc=0 || grc=$?
		if [ ! -s "$log.dmesg" ]; then
			echo "not ok - guest $g's kernel log came back to the host"
		elif [ "$grc" = 0 ]; then
			echo "not ok - guest $g's kernel log is clean (read on the host) # $nsplat lines match guest/splat.ere, the first: $(grep -m1 -E "$splat_re" "$log.dmesg")"
		elif [ "$grc" != 1 ]; then
			echo "not ok - guest $g's kernel log is clean (read on the host) # grep failed with status $grc"
		else
			echo "ok - guest $g's kernel log is clean (read on the host, $(wc -l < "$log.dmesg") lines)"
		fi
	} > "$out/$g.host.tap"
done

wait "$hostpid"
rc=$(cat "$out/host.rc")
cat "$out/host.tap"
[ "$rc" = 0 ] || sed 's/^/# /' "$out/host.err" | tail -10 >> "$out/host.tap"
checked "host checks" "$rc" "$out/host.tap" | tee -a "$out/host.tap"
set +e
wait "$runpid"
rc=$?
set -e
checked "make run's check (tools/check-run.sh)" "$rc" "$out/run.tap" >> "$out/run.tap"
cat "$out/run.tap"
for g in "${names[@]}"; do cat "$out/$g.host.tap"; done
# One line per test with its time, from the guests' own timing lines.
grep -h '^# ----- ' "$out"/*.log | sed 's/^# ----- /check:   /' >&2 || true
# Per real client (tests/45-clients): frames, valid, distinct, warnings, vivpoll vs vivid.
grep -h '^# clients: ' "$out"/*.log | sed 's/^# clients: /check: client /' >&2 || true
say "check: done in $(($(date +%s) - start))s (host checks $(cat "$out/host.wall")s$(for g in "${names[@]}"; do printf ', guest %s %ss' "$g" "$(cat "$out/$g.wall")"; done), beside each other); logs in $out"
logs=("$out/host.tap" "$out/run.tap" "$out/left-out.tap")
# The full tier: make demo in a guest of its own, and its page in headless
# Chromium (tools/check-page.sh).
if [ "$tier" = full ] && [ -z "${SUITES:-}" ]; then
	set +e
	tools/check-page.sh --demo "$out/demo" > "$out/page.tap" 2>&1
	rc=$?
	set -e
	checked "make demo and its page (tools/check-page.sh --demo)" "$rc" "$out/page.tap" >> "$out/page.tap"
	cat "$out/page.tap"
	logs+=("$out/page.tap")
fi
for g in "${names[@]}"; do logs+=("$out/$g.log" "$out/$g.host.tap"); done
tools/tap-summary.sh --skips "$TOP/tests/skips.txt" --where "$tier/$KCONFIG/$KVER" "${logs[@]}"
