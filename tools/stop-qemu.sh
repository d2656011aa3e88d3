#!/usr/bin/env bash
# stop-qemu.sh [DELAY [STOP [GAP [N]]]]: stop the guest's QEMU from the host
# (SIGSTOP) for STOP seconds, N times, GAP seconds apart, once a guest has
# run DELAY whole seconds: what a host that does not run the guest looks
# like from inside (tests/50-compliance.sh tells a drop it causes from one
# of the driver's by tests/stallmon.c's log). Defaults: 4 0.3 0.3 14. Run
# it in the background, then the check, e.g.
#	tools/stop-qemu.sh 4 & make check SUITES=50
set -eu
delay=${1:-4} stop=${2:-0.3} gap=${3:-0.3} n=${4:-14}
case "$delay$n" in *[!0-9]*|'') echo "stop-qemu.sh: DELAY and N want whole numbers" >&2; exit 2 ;; esac
while :; do
	for pid in $(pgrep -f '^qemu-system-x86_64 -machine q35' || true); do
		age=$(ps -o etimes= -p "$pid" 2> /dev/null | tr -d ' ')
		[ -n "$age" ] && [ "$age" -ge "$delay" ] && break 2
	done
	sleep 0.1
done
echo "stop-qemu.sh: QEMU $pid, $n stops of $stop s"
for _ in $(seq "$n"); do
	kill -STOP "$pid" 2> /dev/null || exit 0
	sleep "$stop"
	kill -CONT "$pid"
	sleep "$gap"
done
