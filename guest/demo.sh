#!/bin/sh
# The vivpoll story, run in the guest by `make demo` (tools/demo.sh). The
# terminal gets the story, the matrix once (compact) and one line or two per
# step; the raw results (TAP, logs, tracepoint traces) land in /host/demo/,
# from which the host draws out/matrix.png, out/timeline.png and
# out/index.html. Each step adds a line to /host/demo/demo.tap. Exit 0 when
# every step passed.
out=/host/demo
t=/sys/kernel/debug/tracing
mkdir -p "$out" /host/frames
tap=$out/demo.tap
: > "$tap"
n=0
fails=0
sec=0
# section TITLE: a numbered heading on the terminal
section() {
	sec=$((sec + 1))
	echo
	echo "== $sec. $*"
}
# step RC WHAT: one TAP line for a step of the demo
step() {
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n - $2" >> "$tap"
	else
		echo "not ok $n - $2 # exit status $1" >> "$tap"
		fails=$((fails + 1))
		echo "   FAILED: $2 (exit status $1)"
	fi
}
dev=$(for d in /dev/video*; do
	v4l2-ctl -d "$d" --info 2> /dev/null | grep -q 'Driver name *: vivpoll' && echo "$d"
done | head -1)
ctrl() { v4l2-ctl -d "$dev" -C "$1" | awk '{ print $2 }'; }
printf 'kernel=%s\ndevice=%s\n' "$(uname -r)" "$dev" > "$out/meta"

cat <<'TXT'
== vivpoll: a POLLPRI-only wait no longer starts streaming ==
Before Linux 3.4, select() and poll() handed a driver's ->poll() a NULL table on
every pass after the first (epoll a key of ~0), so it could not tell what the
caller waited for. vb2 took that for POLLIN and started streaming, even for a
select() waiting only for V4L2 events on exceptfds (POLLPRI). v3.4's
poll_requested_events() (Hans Verkuil, 626cf2366085) made the request exact.
This kernel's demo-only sysctl fs.poll_legacy_null_table brings the old tables
back, so both run on one boot; vivpoll, a virtual capture driver, counts its
engine starts and traces every poll call.
TXT

# 1. The matrix: every wait API x situation x request, switch off and on.
section "did the wait start streaming? (- idle, S started, ! not as predicted)"
vivpoll-prove --switch=both --tap-only > "$out/prove.tap" 2>&1
prc=$?
awk '
	function out(l) { sub(/ +$/, "", l); print l }
	/^(not )?ok [0-9]+ - [a-z_-]+ [a-z-]+ [A-Z|]+ switch=(on|off)/ {
		bad = /^not ok/; sub(/^(not )?ok [0-9]+ - /, "")
		api = $1; sit = $2; req = $3; sw = $4
		sub(/^switch=/, "", sw); sub(/:$/, "", sw)
		st = /start=YES/ ? "S" : /start=no/ ? "-" : "?"
		c[api, req, sit, sw] = st (bad ? "!" : "")
		if (!((api, req) in seen)) { seen[api, req] = 1; rows[++nr] = api SUBSEP req }
		if (!(sit in sseen)) { sseen[sit] = 1; sits[++ns] = sit }
	}
	END {
		l = sprintf("%-18s", "wait API, request")
		for (s = 1; s <= ns; s++) l = l sprintf("%-14s", sits[s])
		out(l)
		l = sprintf("%-18s", "")
		for (s = 1; s <= ns; s++) l = l sprintf("%-14s", "off  on")
		out(l)
		for (r = 1; r <= nr; r++) {
			split(rows[r], k, SUBSEP)
			l = sprintf("%-10s %-7s", (k[1] == last ? "" : k[1]), k[2])
			last = k[1]
			for (s = 1; s <= ns; s++)
				l = l sprintf(" %-4s %-8s", c[k[1], k[2], sits[s], "off"], c[k[1], k[2], sits[s], "on"])
			out(l)
		}
	}' "$out/prove.tap"
cells=$(grep -cE '^(not )?ok [0-9]+ - [a-z_-]+ [a-z-]+ [A-Z|]+ switch=' "$out/prove.tap")
bad=$(grep -cE '^not ok' "$out/prove.tap")
echo "$cells cells, $bad not as apps/prove-expect.c predicts from the kernel sources; $(grep -c '^ok .* claim:' "$out/prove.tap") claims hold"
grep -E '^not ok' "$out/prove.tap" | head -5 | sed 's/^/   /'
step "$prc" "the wait-API matrix, switch off and on ($cells cells)"

# 2. An event watcher on exceptfds only: events arrive, the engine stays idle.
section "an event watcher on exceptfds only (vivpoll-events --self-test)"
vivpoll-events --self-test > "$out/events.log" 2>&1
erc=$?
grep -E '^(self-test: [a-z_]+\(|engine:)' "$out/events.log" | sed 's/^/   /'
step "$erc" "vivpoll-events --self-test: every event arrives, the engine never runs"

# 3. The same watcher traced, switch off and on (out/timeline.png).
# scene NAME SWITCH: the watcher waits 2.5 s; brightness changes at 0.6 and
# 1.4 s; the vivpoll tracepoints record each poll call, engine start and
# stop, vb2's each buffer done, with CLOCK_MONOTONIC time stamps.
events="vivpoll/vivpoll_poll vivpoll/vivpoll_engine_start vivpoll/vivpoll_engine_stop vb2/vb2_buf_done"
trace_on() {
	echo 0 > "$t/tracing_on"
	echo mono > "$t/trace_clock"
	echo > "$t/trace"
	for e in $events; do
		echo 1 > "$t/events/$e/enable"
	done
	echo 1 > "$t/tracing_on"
}
trace_off() {
	echo 0 > "$t/tracing_on"
	for e in $events; do
		echo 0 > "$t/events/$e/enable"
	done
	cat "$t/trace" > "$1"
}
mark() { echo "$1" > "$t/trace_marker"; }
scene() {
	s0=$(ctrl engine_starts)
	echo "$2" > /proc/sys/fs/poll_legacy_null_table
	trace_on
	mark "scene: exceptfds-only watcher, fs.poll_legacy_null_table=$2"
	vivpoll-events -d "$dev" --shared --timeout 2.5 > "$out/watch-$1.log" 2>&1 &
	wpid=$!
	sleep 0.6
	mark "raise: brightness 90"
	v4l2-ctl -d "$dev" -c brightness=90
	sleep 0.8
	mark "raise: brightness 128"
	v4l2-ctl -d "$dev" -c brightness=128
	rc=0
	wait $wpid || rc=$?
	echo 0 > /proc/sys/fs/poll_legacy_null_table
	trace_off "$out/trace-$1.txt"
	s1=$(ctrl engine_starts)
	awk -v sw="$2" -v s="$((s1 - s0))" '
		/vivpoll_poll:/ && $1 ~ /^vivpoll-events-/ { n++; for (i = 1; i <= NF; i++) if ($i ~ /^req=/) m[substr($i, 5)]++ }
		/vivpoll_engine_start:/ { by = $1; sub(/-[0-9]+$/, "", by) }
		END { for (k in m) ms = ms " " k
			printf "   switch %-3s the watcher polled %d times, asking%s; the engine %s\n",
				sw ? "on:" : "off:", n, ms, s ? "started " s " time(s), by " by : "never started" }' "$out/trace-$1.txt"
	return $rc
}
section "that watcher traced (tracepoints vivpoll_poll, _engine_start/_stop, vb2_buf_done)"
src=0
scene off 0 || src=$?
step "$src" "traced scene: exceptfds-only watcher, switch off"
src=0
scene on 1 || src=$?
step "$src" "traced scene: exceptfds-only watcher, switch on"
# The verdict of the scenes: off never starts the engine, on does.
voff=$(grep -c 'vivpoll_engine_start:' "$out/trace-off.txt")
von=$(grep -c 'vivpoll_engine_start:' "$out/trace-on.txt")
[ "$voff" = 0 ] && [ "$von" -gt 0 ]
step $? "the watcher starts the engine with the switch on only ($voff off, $von on)"

# 4. Streaming for real: our own client.
section "streaming for real: vivpoll-capture, mmap + poll(POLLIN), 30 frames"
rm -f /host/frames/frame-*.png
vivpoll-capture -d "$dev" --io mmap --count 30 --png 5 --out /host/frames -q > "$out/capture.log" 2>&1
crc=$?
tail -1 "$out/capture.log" | sed 's/^/   /'
step "$crc" "vivpoll-capture: 30 frames, 5 written as PNG"

# 5. The kernel's own selftest the series adds, on vivid (the in-tree
# driver every distribution ships), switch off and on side by side.
section "the kernel selftest media_tests/video_poll_test on vivid, switch off | on"
/vivpoll/demo-selftest.sh > "$out/selftest.txt" 2>&1
strc=$?
sed 's/^/   /' "$out/selftest.txt"
step "$strc" "video_poll_test on vivid passes with the switch off and fails with it on"

# 6. Real clients: GStreamer and ffmpeg, the watcher beside GStreamer.
section "real clients: GStreamer and ffmpeg to PNG, the watcher beside GStreamer"
/vivpoll/demo-clients.sh "$dev" "$out" > /tmp/clients.sum 2>&1
rrc=$?
sed 's/^/   /' /tmp/clients.sum
step "$rrc" "real clients: GStreamer and ffmpeg 30 frames each, the watcher never asks for POLLIN"

echo "1..$n" >> "$tap"
echo
echo "$((n - fails)) of $n demo steps passed"
[ "$fails" = 0 ]
