#!/bin/sh
# make demo, real clients: demo-clients.sh DEVICE OUTDIR. GStreamer and
# ffmpeg write PNG frames to /host/frames; the event watcher (vivpoll-events,
# select() on exceptfds only) runs on the same device while GStreamer
# streams from another fd. The vivpoll tracepoints (OUTDIR/trace-clients.txt)
# say which task asked for what and who started the engine; the whole story
# is in OUTDIR/clients.log, a summary on stdout. Exit 0 when the clients
# wrote their frames, the watcher got its events, never asked for POLLIN,
# and the engine was started by GStreamer, not by the watcher.
set -eu
dev=$1
dir=$2
t=/sys/kernel/debug/tracing
out=/host/frames
log=$dir/clients.log
# the driver's counters are controls
ctrl() { v4l2-ctl -d "$dev" -C "$1" | awk '{ print $2 }'; }
starts() { ctrl engine_starts; }
mark() { echo "$1" > "$t/trace_marker"; }
bright() { mark "raise: brightness $1"; v4l2-ctl -d "$dev" -c brightness="$1"; }
events="vivpoll/vivpoll_poll vivpoll/vivpoll_engine_start vivpoll/vivpoll_engine_stop vb2/vb2_buf_done"
mkdir -p "$out"
rm -f "$out"/gst-*.png "$out"/ffmpeg-*.png
exec 3>&1 > "$log" 2>&1

echo 0 > "$t/tracing_on"
echo mono > "$t/trace_clock"
echo > "$t/trace"
for e in $events; do
	echo 1 > "$t/events/$e/enable"
done
echo 1 > "$t/tracing_on"
mark "scene: the exceptfds-only watcher beside GStreamer, fs.poll_legacy_null_table=0"
echo "engine_starts before: $(starts)"
echo "watcher: vivpoll-events -d $dev --shared (exceptfds only), in the background"
vivpoll-events -d "$dev" --shared --timeout 120 > /tmp/watch.log 2>&1 &
wpid=$!
sleep 1
bright 100
sleep 1
echo "a brightness event while idle; engine_starts: $(starts)"
echo "GStreamer: v4l2src device=$dev num-buffers=30 ! 640x480 at 30 fps ! videoconvert ! pngenc ! multifilesink $out/gst-%02d.png"
gst-launch-1.0 -q v4l2src device="$dev" num-buffers=30 ! video/x-raw,width=640,height=480,framerate=30/1 ! \
	videoconvert ! pngenc ! multifilesink location="$out/gst-%02d.png" > /tmp/gst.log 2>&1 &
gpid=$!
i=0
while [ "$(ctrl engine_running)" != 1 ] && [ $i -lt 100 ]; do
	sleep 0.2
	i=$((i + 1))
done
bright 160
echo "a brightness event while GStreamer streams; engine_starts: $(starts)"
grc=0
wait $gpid || grc=$?
bright 128
sleep 1
kill -TERM $wpid
wrc=0
wait $wpid || wrc=$?
echo 0 > "$t/tracing_on"
for e in $events; do
	echo 0 > "$t/events/$e/enable"
done
cat "$t/trace" > "$dir/trace-clients.txt"
echo "GStreamer exited $grc; engine_starts after: $(starts)"
[ "$grc" = 0 ] || tail -5 /tmp/gst.log
echo "--- the watcher's output (it counts every engine start on the device, GStreamer's too: who"
echo "    started it is in the trace below), but for the counter events the stream raises:"
grep -v -E '\((Frames Produced|Frames Dropped)\)' /tmp/watch.log
echo "    and $(grep -c -E '\((Frames Produced|Frames Dropped)\)' /tmp/watch.log || true) Frames Produced/Dropped events"
echo "--- the trace: poll calls per task with the masks they asked for, and who started the engine"
grep -E 'vivpoll_(poll|engine_start|engine_stop):' "$dir/trace-clients.txt" | awk '
	{ task = $1; sub(/-[0-9]+$/, "", task) }
	/vivpoll_poll:/ { for (i = 1; i <= NF; i++) if ($i ~ /^req=/) m = substr($i, 5)
		n[task]++; if (!((task, m) in seen)) { seen[task, m] = 1; masks[task] = masks[task] " " m } }
	/vivpoll_engine_start:/ { print "  engine_start by " task }
	/vivpoll_engine_stop:/ { print "  engine_stop  by " task ": " $NF }
	END { for (k in n) printf "  %-16s %4d poll calls, requested masks:%s\n", k, n[k], masks[k] }' | tee /tmp/trace.sum
echo "  (0x01 POLLIN, 0x02 POLLPRI, 0x04 POLLOUT, 0x08 POLLERR, 0x10 POLLHUP, 0x20 POLLNVAL)"
echo "ffmpeg: -f v4l2 -input_format yuyv422 -video_size 640x480 -i $dev -frames:v 30 $out/ffmpeg-%02d.png"
frc=0
ffmpeg -nostdin -hide_banner -loglevel warning -f v4l2 -input_format yuyv422 -video_size 640x480 \
	-i "$dev" -frames:v 30 -fps_mode passthrough "$out/ffmpeg-%02d.png" || frc=$?

# count FILES...: how many of the glob's files exist
count() { [ -e "$1" ] && echo $# || echo 0; }
ngst=$(count "$out"/gst-*.png)
nff=$(count "$out"/ffmpeg-*.png)
nev=$(sed -n 's/^events: //p' /tmp/watch.log)
nbright=$(grep -c '(Brightness)' /tmp/watch.log || true)
# the watcher's requests: never POLLIN (0x1) or POLLRDNORM (0x40)
wpolls=$(grep -E '^ +vivpoll-events ' /tmp/trace.sum || true)
inpoll=$(echo "$wpolls" | grep -oE '0x[0-9a-f]{8}' | while read -r m; do
	[ $((m & 0x41)) = 0 ] || echo "$m"
done)
starter=$(sed -n 's/^  engine_start by //p' /tmp/trace.sum | sort -u | tr '\n' ' ')
gpolls=$(grep -E '^ +v4l2src' /tmp/trace.sum | sed 's/.*masks: *//' | head -1)
{
	echo "GStreamer: $ngst PNG frames (exit $grc), its streaming thread asked $gpolls; ffmpeg: $nff PNG frames (exit $frc)"
	echo "watcher beside them: $nev events, $nbright of them the 3 brightness changes (exit $wrc), asked:$(echo "$wpolls" | sed 's/.*masks://')${inpoll:+; POLLIN asked: $inpoll}"
	echo "engine started by: ${starter:-nobody}"
} | tee -a "$log" >&3
[ "$grc" = 0 ] && [ "$frc" = 0 ] && [ "$wrc" = 0 ] && [ "$ngst" = 30 ] && [ "$nff" = 30 ] && [ "$nbright" = 3 ] &&
	[ -n "$wpolls" ] && [ -z "$inpoll" ] && [ -n "$starter" ] && ! echo "$starter" | grep -q vivpoll-events
