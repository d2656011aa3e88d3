#!/usr/bin/env bash
# make check: host-side checks, then every guest suite in one boot; prints
# each failure with its reason and "N passed, N failed"; non-zero on failure.
set -eu
. "$(dirname "$0")/lib.sh"

out=$BUILD/check
rm -rf "$out" && mkdir -p "$out"
start=$(date +%s)

say "check: host-side checks"
tools/host-checks.sh | tee "$out/host.tap"

say "check: booting the guest for the suites"
HOSTDIR=${HOSTDIR:-$TOP/out}
mkdir -p "$HOSTDIR/check"
# The debug kernel runs the same suites, longer.
[ "$KCONFIG" = debug ] && scale=${STRESS_SCALE:-2} || scale=${STRESS_SCALE:-1}
case "${SUITES:-}" in *[!0-9a-z\ -]*) die "SUITES wants test name prefixes such as '00 50-compliance', not '$SUITES'" ;; esac
case "$scale" in ''|*[!0-9]*|0) die "STRESS_SCALE wants a positive whole number, not '$scale'" ;; esac
set +e
tools/qemu-run.sh --timeout "${VIVPOLL_CHECK_TIMEOUT:-$((3000 * scale))}" --log "$out/guest.log" \
	"VIVPOLL_SUITES='${SUITES:-}' VIVPOLL_SCALE=$scale VIVPOLL_TEST_TIMEOUT=$((600 * scale)) /vivpoll/check.sh"
grc=$?
set -e
if [ "$grc" != 0 ] && ! grep -q '^# ===== kernel log' "$out/guest.log"; then
	echo "not ok - guest run did not complete (status $grc; see $out/guest.log)" >> "$out/host.tap"
fi
say "check: done in $(($(date +%s) - start))s; logs in $out"
tools/tap-summary.sh "$out/host.tap" "$out/guest.log"
