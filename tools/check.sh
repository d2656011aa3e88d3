#!/usr/bin/env bash
# make check / make check-full: host-side checks, then the guest suites;
# prints each failure with its reason and "N passed, N failed"; non-zero on
# failure.
#
# TIER=quick (make check): every suite in its short version, split over two
# guests booted side by side (LANES=2), so that a warm run stays under a minute.
# TIER=full (make check-full, and the debug kernel): the long versions (full
# v4l2-compliance -s -f, stress for its whole length) in one guest.
set -eu
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

out=$BUILD/check
rm -rf "$out" && mkdir -p "$out"
start=$(date +%s)

say "check: host-side checks"
tools/host-checks.sh | tee "$out/host.tap"
# make run's quoting, in a small guest of its own beside the suites' guests
tools/check-run.sh > "$out/run.tap" 2>&1 &
runpid=$!

HOSTDIR=${HOSTDIR:-$TOP/out}
mkdir -p "$HOSTDIR/check"
# The second guest's suites: about half of the quick tier's time, none of
# them sharing state with the first guest's (each guest has its own module).
# Both run the kernel's epoll selftests (88), the first with the legacy
# switch off, the second with it on.
lane2="20 30 50 80 82 84"

# guest NAME SUITES EXCLUDE [EPOLL_MODES]: one guest running /vivpoll/check.sh
guest() {
	local log=$out/$1.log rc
	set +e
	tools/qemu-run.sh --timeout "${VIVPOLL_CHECK_TIMEOUT:-$((3000 * scale))}" --log "$log" \
		"VIVPOLL_SUITES='$2' VIVPOLL_EXCLUDE='$3' ${4:+VIVPOLL_EPOLL_MODES=$4 }VIVPOLL_TIER=$tier VIVPOLL_SCALE=$scale VIVPOLL_TEST_TIMEOUT=$((test_timeout * scale)) /vivpoll/check.sh" \
		2>&1 | if [ "$lanes" = 1 ]; then tee "$out/$1.out"; else cat > "$out/$1.out"; fi
	rc=${PIPESTATUS[0]}
	set -e
	if [ "$rc" != 0 ] && ! grep -q '^# ===== kernel log' "$log"; then
		echo "not ok - guest $1 did not complete (status $rc): $(grep -m1 '^guest: ' "$out/$1.out")" >> "$log"
		[ "$lanes" = 1 ] || tail -40 "$out/$1.out" >&2
	fi
}

say "check: $tier tier, $lanes guest(s), scale $scale"
if [ "$lanes" = 2 ]; then
	guest guest1 "" "$lane2" 0 &
	g1=$!
	guest guest2 "$lane2 88" "" 1 &
	wait "$g1" $!
	logs=("$out/guest1.log" "$out/guest2.log")
else
	guest guest "${SUITES:-}" ""
	logs=("$out/guest.log")
fi
wait "$runpid" || true
cat "$out/run.tap"
# One line per test with its time, from the guests' own timing lines.
grep -h '^# ----- ' "${logs[@]}" | sed 's/^# ----- /check:   /' >&2 || true
# Per real client (tests/45-clients): frames, valid, distinct, warnings, vivpoll vs vivid.
grep -h '^# clients: ' "${logs[@]}" | sed 's/^# clients: /check: client /' >&2 || true
say "check: done in $(($(date +%s) - start))s; logs in $out"
tools/tap-summary.sh "$out/host.tap" "$out/run.tap" "${logs[@]}"
