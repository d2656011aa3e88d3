#!/bin/sh
# The poll_requested_events() matrix: every wait API x situation x request,
# with fs.poll_legacy_null_table off and on, each cell checked by
# vivpoll-prove against the expectations derived from the kernel sources.
# A missing sysctl is a failure (vivpoll-prove reports the switch=on column
# as "not ok"), never a silent skip.
sysctl=/proc/sys/fs/poll_legacy_null_table

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

# bounded: the worst case (every wake cell timing out) is about 4 minutes
timeout 500 vivpoll-prove --tap-only --switch=both
rc=$?
[ "$rc" = 143 ] && echo "not ok - vivpoll-prove killed after 500 s"

# leave the switch off whatever happened
[ -e "$sysctl" ] && echo 0 > "$sysctl"
exit $rc
