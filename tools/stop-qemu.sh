#!/usr/bin/env bash
# stop-qemu.sh [DELAY [STOP [GAP [N]]]]: stop the guests' QEMUs from the
# host (SIGSTOP to every QEMU of this machine at once) for STOP seconds, N
# times, GAP seconds apart, once a QEMU has run DELAY whole seconds: what a
# host that does not run its guests looks like from inside. Defaults: 4 0.3
# 0.3 20. A guest on the instruction counter (make check's time guest)
# sees none of it. Run it in the background, then the check, e.g.
#	tools/stop-qemu.sh 4 & make check
# Only QEMUs started after it are stopped (not another check's). It ends
# after its N stops, or when no such QEMU has run for 60 s.
set -eu
delay=${1:-4} stop=${2:-0.3} gap=${3:-0.3} n=${4:-20}
case "$delay$n" in *[!0-9]*|'') echo "stop-qemu.sh: DELAY and N want whole numbers" >&2; exit 2 ;; esac
SECONDS=0
# scan: the QEMUs of this machine started since this script did (pids),
# and the age in seconds of the oldest of them (age, '' for none), from
# one ps: under load, a ps per QEMU made a stop come every 1.8 s
scan() {
	local pid t
	pids='' age=''
	while read -r pid t; do
		[ "$t" -le "$SECONDS" ] || continue
		pids="$pids $pid"
		if [ -z "$age" ] || [ "$t" -gt "$age" ]; then age=$t; fi
	done < <(ps -C qemu-system-x86_64 -o pid=,etimes=,args= 2> /dev/null |
		awk '$3 == "qemu-system-x86_64" && $4 == "-machine" && $5 == "q35" { print $1, $2 }')
	return 0
}
# killed (the drills end it when their check ends) between a stop and its
# continue, it must not leave a QEMU stopped: continue them on the way out
pids=''
# shellcheck disable=SC2086
trap 'kill -CONT $pids 2> /dev/null || true' EXIT
trap 'exit 143' TERM INT
idle=0 done=0
while [ "$done" -lt "$n" ]; do
	scan
	if [ -z "$age" ] || [ "$age" -lt "$delay" ]; then
		[ -n "$age" ] && idle=0 || idle=$((idle + 1))
		[ "$idle" -lt 600 ] || break
		sleep 0.1
		continue
	fi
	# shellcheck disable=SC2086
	kill -STOP $pids 2> /dev/null || true
	sleep "$stop"
	# shellcheck disable=SC2086
	kill -CONT $pids 2> /dev/null || true
	done=$((done + 1))
	echo "stop-qemu.sh: stop $done of $n, $stop s: QEMU$pids"
	sleep "$gap"
done
