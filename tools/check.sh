#!/usr/bin/env bash
# make check / make check-full: host-side checks, then the guest suites;
# prints each failure, skip, expected failure and flake with its reason and
# ends with "N passed, N failed, N skipped"; non-zero on failure.
#
# TIER=quick (make check): every suite in its short version, split over two
# guests booted side by side (LANES=2), so that a warm run stays under a minute.
# TIER=full (make check-full, and the debug kernel): the long versions (full
# v4l2-compliance -s -f, stress for its whole length) in one guest.
#
# The verdict counts what ran against what should have run: every suite in
# tests/ (or those SUITES names) must report from the guest that was given
# it, every guest must exit 0 and say "ok - guest finished", every check's
# plan must match its results, and the guests' kernel logs are scanned here
# too. VIVPOLL_FAULT injects a deliberate fault (tools/check-harness.sh).
set -eu -o pipefail
. "$(dirname "$0")/lib.sh"

[ "$KCONFIG" = debug ] && tier=${TIER:-full} || tier=${TIER:-quick}
# Each test's bound: the full tier's 50-compliance runs two versions of
# v4l2-compliance over all formats (965 s on a loaded machine).
case "$tier" in quick) lanes=${LANES:-2} test_timeout=600 ;; full) lanes=${LANES:-1} test_timeout=1800 ;;
*) die "TIER wants quick or full, not '$tier'" ;; esac
case "$lanes" in 1|2) ;; *) die "LANES wants 1 or 2, not '$lanes'" ;; esac
# The debug kernel runs the same suites, longer.
[ "$KCONFIG" = debug ] && scale=${STRESS_SCALE:-2} || scale=${STRESS_SCALE:-1}
case "${SUITES:-}" in *[!0-9a-z\ -]*) die "SUITES wants test name prefixes such as '00 50-compliance', not '$SUITES'" ;; esac
case "$scale" in ''|*[!0-9]*|0) die "STRESS_SCALE wants a positive whole number, not '$scale'" ;; esac
# A subset chosen with SUITES runs in one guest.
[ -z "${SUITES:-}" ] || lanes=1
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
# when the guest kernel has them all (=y), and is not run, nor expected,
# nor counted, elsewhere: no SKIP line in every run of the configs it is
# not for. Naming it in SUITES on such a config is an error.
kconfig=$(kernel_dir)/.config
[ -f "$kconfig" ] || die "no $kconfig: the guest kernel is not built (make kernel)"
unmet() {
	local f=$TOP/tests/$1 o
	[ -f "$f" ] || f=$f.c
	for o in $(sed -n 's/.*vivpoll-needs: *//p' "$f" | head -1); do
		grep -qx "$o=y" "$kconfig" || echo "$o"
	done
}
left_out=
for s in $all_suites; do
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
# The second guest's suites: about half of the quick tier's time, none of
# them sharing state with the first guest's (each guest has its own module).
# Both run the kernel's epoll selftests (88), the first with the legacy
# switch off, the second with it on: the host compares the two; and both
# end with the health check (99), after their stress tests.
lane2="20 30 50 80 82 84 92"
both="88 99"
if [ "$lanes" = 2 ]; then
	run2=$(pick "$lane2 $both")
	run1=$(for s in $all_suites; do
		case " $(echo $run2) " in *" $s "*)
			case " $both " in *" ${s%%-*} "*) ;; *) continue ;; esac ;;
		esac
		echo "$s"; done)
elif [ -n "${SUITES:-}" ]; then
	run1=$(pick "$SUITES")
else
	run1=$all_suites
fi

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

say "check: host-side checks"
set +e
tools/host-checks.sh > "$out/host.tap" 2> "$out/host.err"
rc=$?
set -e
cat "$out/host.tap"
[ "$rc" = 0 ] || sed 's/^/# /' "$out/host.err" | tail -10 >> "$out/host.tap"
checked "host checks" "$rc" "$out/host.tap" | tee -a "$out/host.tap"
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

# guest NAME SUITES [EPOLL_MODES]: one guest running /vivpoll/check.sh
guest() {
	local log=$out/$1.log rc
	set +e
	tools/qemu-run.sh --timeout "${VIVPOLL_CHECK_TIMEOUT:-$((3000 * scale))}" --log "$log" \
		"VIVPOLL_RUN='$(echo $2)' VIVPOLL_REQUIRE='$require' ${3:+VIVPOLL_EPOLL_MODES=$3 }VIVPOLL_TIER=$tier VIVPOLL_SCALE=$scale VIVPOLL_TEST_TIMEOUT=$((test_timeout * scale)) ${VIVPOLL_FAULT:+VIVPOLL_FAULT=$VIVPOLL_FAULT }/vivpoll/check.sh" \
		> "$out/$1.out" 2>&1
	rc=$?
	set -e
	echo "$rc" > "$out/$1.rc"
	[ "$lanes" = 1 ] || [ "$rc" = 0 ] || tail -40 "$out/$1.out" >&2
}

say "check: $tier tier, $lanes guest(s), scale $scale${left_out:+; not for this kernel:$left_out}"
if [ "$lanes" = 2 ]; then
	guest guest1 "$run1" 0 &
	g1=$!
	guest guest2 "$run2" 1 &
	wait "$g1" $!
	names=(guest1 guest2)
else
	guest guest "$run1" "" &
	g1=$!
	# one guest: its output as it comes
	tail -s 0.5 -F --pid "$g1" "$out/guest.out" 2> /dev/null || true
	wait "$g1"
	names=(guest)
fi

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
		[ "$g" = guest2 ] && expect=$run2 || expect=$run1
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

# The epoll selftests ran with the switch off in one guest and on in the
# other: same result, test by test (tests/88-epoll-selftests.sh prints them).
: > "$out/epoll.tap"
if [ "$lanes" = 2 ] && case " $(echo $run2) " in *" 88-epoll-selftests.sh "*) true ;; *) false ;; esac; then
	res() { tr -d '\r' < "$1" | sed -n "s/^# epoll result, switch $2: //p" | sort; }
	res "$out/guest1.log" off > "$out/epoll.off"
	res "$out/guest2.log" on > "$out/epoll.on"
	if [ ! -s "$out/epoll.off" ] || [ ! -s "$out/epoll.on" ]; then
		echo "not ok - epoll selftests: switch on gives the same results as off # a guest reported none ($(wc -l < "$out/epoll.off") off, $(wc -l < "$out/epoll.on") on)"
	elif cmp -s "$out/epoll.off" "$out/epoll.on"; then
		echo "ok - epoll selftests: switch on gives the same results as off, test by test ($(wc -l < "$out/epoll.off") tests, two guests)"
	else
		echo "not ok - epoll selftests: switch on gives the same results as off, test by test"
		diff "$out/epoll.off" "$out/epoll.on" | grep '^[<>]' | sed 's/^/# /'
	fi > "$out/epoll.tap"
fi

set +e
wait "$runpid"
rc=$?
set -e
checked "make run's check (tools/check-run.sh)" "$rc" "$out/run.tap" >> "$out/run.tap"
cat "$out/run.tap"
for g in "${names[@]}"; do cat "$out/$g.host.tap"; done
cat "$out/epoll.tap"
# One line per test with its time, from the guests' own timing lines.
grep -h '^# ----- ' "$out"/*.log | sed 's/^# ----- /check:   /' >&2 || true
# Per real client (tests/45-clients): frames, valid, distinct, warnings, vivpoll vs vivid.
grep -h '^# clients: ' "$out"/*.log | sed 's/^# clients: /check: client /' >&2 || true
say "check: done in $(($(date +%s) - start))s; logs in $out"
logs=("$out/host.tap" "$out/run.tap" "$out/epoll.tap")
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
tools/tap-summary.sh "${logs[@]}"
