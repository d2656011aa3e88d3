#!/bin/sh
# The poll_requested_events() matrix: every wait API x situation x request,
# with fs.poll_legacy_null_table off and on, each cell checked by
# vivpoll-prove against the expectations derived from the kernel sources.
# A missing sysctl is a failure (vivpoll-prove reports the switch=on column
# as "not ok"), never a silent skip. VIVPOLL_SCALE (guest/check.sh; 2 on
# the debug kernel) runs the matrix that many times, each with a longer
# time budget.
sysctl=/proc/sys/fs/poll_legacy_null_table
scale=${VIVPOLL_SCALE:-1}

# fresh counters, default parameters
rmmod vivpoll 2> /dev/null
if ! modprobe vivpoll; then
	echo "TAP version 13"
	echo "not ok 1 - modprobe vivpoll"
	echo "1..1"
	exit 1
fi
if [ ! -e "$sysctl" ]; then
	echo "# $sysctl is missing: the switch=on column fails"
fi

# bounded: a run takes about 15 s; the worst case (every wake cell timing
# out) about 4 minutes
rc=0 i=1
while [ "$i" -le "$scale" ]; do
	[ "$scale" -gt 1 ] && echo "# run $i of $scale"
	timeout $((500 * scale)) vivpoll-prove --tap-only --switch=both
	r=$?
	[ "$r" = 143 ] && echo "not ok - vivpoll-prove killed after $((500 * scale)) s"
	[ "$r" = 0 ] || rc=$r
	i=$((i + 1))
done

# leave the switch off whatever happened
[ -e "$sysctl" ] && echo 0 > "$sysctl"
exit $rc
