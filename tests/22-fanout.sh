#!/bin/sh
# Fan-out (make bench's, as a correctness check, no timing verdict): 1, 16,
# 256 and 1024 waiter processes, each with its own file of one vivpoll
# node, wait for its control events alone (select() exceptfds, poll()
# POLLPRI, epoll_wait() EPOLLPRI); every waiter must wake for every event
# with POLLPRI and no POLLIN and take exactly that event, and the engine
# must neither start nor make a frame. vivpoll-bench fanout checks each
# wake-up and the engine's counters; each run here is one result. The
# quick tier (make check) leaves 1024 waiters out, a SKIP for each API
# (tests/skips.txt): forking them is most of the suite's time under TCG.
n=0 fails=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $*"; }
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }
scale=${VIVPOLL_SCALE:-1}
events=${VIVPOLL_FANOUT_EVENTS:-3}
out=/tmp/22-fanout.out
sysctl=/proc/sys/fs/poll_legacy_null_table

# field NAME: a number of the run's JSON object
field() { sed -n "s/.*\"$1\":\([0-9-]*\).*/\1/p" "$out" | head -1; }

counts="1 16 256 1024" apis="select poll epoll"
echo "TAP version 13"
echo "1..$(($(echo $counts | wc -w) * $(echo $apis | wc -w)))"
echo "# $events events for $counts waiters in $apis"
[ -e "$sysctl" ] && echo 0 > "$sysctl"
for w in $counts; do
	for api in $apis; do
		d="$api, $w waiter(s), $events events: every waiter woken for every event with POLLPRI alone, 0 engine starts, 0 frames"
		if [ "$w" = 1024 ] && [ "${VIVPOLL_TIER:-full}" = quick ]; then
			skip "$d" "quick tier (make check-full runs it)"
			continue
		fi
		timeout $((120 * scale)) vivpoll-bench fanout --kind vivpoll --api "$api" \
			--waiters "$w" --events "$events" --warmup 0 --timeout $((20 * scale)) \
			> "$out" 2> "$out.err"
		rc=$?
		woke=$(field wakeups) want=$(field wakeups_expected)
		starts=$(field engine_starts) frames=$(field frames) wrong=$(field wrong)
		if [ "$rc" = 0 ] && [ -n "$want" ] && [ "$woke" = "$want" ] &&
			[ "$want" = $((w * events)) ] && [ "$starts" = 0 ] &&
			[ "$frames" = 0 ] && [ "$wrong" = 0 ]; then
			ok "$d"
		else
			why=$(sed -n 's/.*"error":"\([^"]*\)".*/\1/p' "$out" | head -1)
			[ -n "$why" ] || why="status $rc; woken $woke of ${want:-?} (want $((w * events))), wrong $wrong, engine starts $starts, frames $frames"
			not_ok "$d # $why"
			sed 's/^/# /' "$out.err" | head -5
		fi
	done
done
[ "$fails" = 0 ]
