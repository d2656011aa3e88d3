#!/bin/sh
# make demo, part 2: the kernel selftest the series adds,
# media_tests/video_poll_test, once on vivid's video capture node (default
# module parameters) with fs.poll_legacy_null_table off and once with it
# on, the two results side by side: one row per wait API, one column per
# situation (POLLPRI only, then POLLIN), each cell "off | on" (epoll has
# no ready-eventfd cases: epoll_wait() polls only what is ready). The
# program is the one the guest kernel tree's kselftest built and installed
# (tests/Makefile).
sysctl=/proc/sys/fs/poll_legacy_null_table
bin=/vivpoll/kselftest/media/media_tests/video_poll_test
lsmod | grep -q '^vivid ' || modprobe vivid || { echo "modprobe vivid failed"; exit 1; }
vd=
for s in /sys/class/video4linux/video*; do
	[ "$(cat "$s/name")" = vivid-000-vid-cap ] && vd=/dev/${s##*/}
done
[ -n "$vd" ] || { echo "vivid gives no video capture node"; exit 1; }
for sw in 0 1; do
	echo "$sw" > "$sysctl"
	"$bin" -d "$vd" > "/tmp/demo-st.$sw" 2>&1
	echo "$?" > "/tmp/demo-st.$sw.rc"
done
echo 0 > "$sysctl"
rmmod vivid
awk '
	FNR == 1 { col = (FILENAME ~ /\.1$/) }
	/^(not )?ok [0-9]+ video_poll\./ {
		k = ($1 == "ok") ? 3 : 4; split($k, a, "."); t = a[2]
		r[t, col] = /# SKIP/ ? "SKIP" : ($1 == "ok") ? "ok" : "FAIL"
		pass[col] += (r[t, col] == "ok"); n[col]++
	}
	END {
		split("select pselect poll ppoll epoll_add epoll_mod", api, " ")
		split("wake_pri zero_timeout_pri ready_before_pri ready_after_pri zero_timeout_in", sit, " ")
		printf "%-10s %-12s %-12s %-12s %-12s | %s\n", "POLLPRI:", "woken", "zero timeout",
			"ready before", "ready after", "POLLIN: zero t."
		for (i = 1; i <= 6; i++) {
			line = sprintf("%-10s", api[i])
			for (j = 1; j <= 5; j++) {
				t = api[i] "_" sit[j]
				if (api[i] ~ /^epoll/ && sit[j] ~ /^ready/)
					c = "-"
				else
					c = sprintf("%s | %s", (t, 0) in r ? r[t, 0] : "?", (t, 1) in r ? r[t, 1] : "?")
				line = line sprintf(j == 5 ? " | %s" : " %-12s", c)
			}
			print line
		}
		printf "%s (vivid): switch off %d of %d passed, on %d of %d (FAIL: the wait started streaming, or for POLLIN did not)\n",
			dev, pass[0], n[0], pass[1], n[1]
	}' dev="$vd" /tmp/demo-st.0 /tmp/demo-st.1
# The demo passes when the test passes with the switch off and fails with it on.
[ "$(cat /tmp/demo-st.0.rc)" = 0 ] && [ "$(cat /tmp/demo-st.1.rc)" != 0 ]
