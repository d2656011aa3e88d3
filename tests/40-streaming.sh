#!/bin/sh
# Streaming with v4l2-ctl: 60 frames by mmap at 640x480 YUYV, 30 fps; the
# sequence numbers are consecutive and the rate (buffer timestamps) is within
# 10% of the configured one; the wall clock agrees. On a slower guest
# (VIVPOLL_SCALE > 1, the debug kernel: KASAN under TCG) 30 frames at
# 320x240 and 15 fps, a rate it keeps up with.
n=0 fails=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $*"; }
expect() { d=$1; shift; if "$@"; then ok "$d"; else not_ok "$d"; fi; }
diag() { sed 's/^/# /'; }
out=/tmp/40-streaming.out
fps=30 count=60
scale=${VIVPOLL_SCALE:-1}
if [ "$scale" -gt 1 ]; then w=320 h=240 fps=15 count=30; else w=640 h=480; fi
size=$((w * h * 2))

echo "TAP version 13"
rmmod vivpoll 2> /dev/null
modprobe vivpoll || { not_ok "modprobe vivpoll"; echo "1..$n"; exit 1; }
dev=$(for d in /dev/video*; do
	v4l2-ctl -d "$d" --info 2> /dev/null | grep -q 'Driver name *: vivpoll' && echo "$d" && break
done)
[ -n "$dev" ] || { not_ok "a vivpoll device exists"; echo "1..$n"; exit 1; }

uptime_cs() { awk '{ printf "%d\n", $1 * 100 }' /proc/uptime; }

t0=$(uptime_cs)
timeout $((60 * scale)) v4l2-ctl -d "$dev" \
	--set-fmt-video=width=$w,height=$h,pixelformat=YUYV --set-parm=$fps \
	--stream-mmap --stream-count=$count --verbose > "$out" 2>&1
rc=$?
t1=$(uptime_cs)
grep -v 'dqbuf\|seq:' "$out" | tail -20 | diag
expect "v4l2-ctl --stream-mmap --stream-count=$count exits 0" [ "$rc" = 0 ]
expect "frame interval set to 1/$fps" grep -q "Frame rate set to $fps.000 fps" "$out"

# one line per dequeued buffer: "... seq: S bytesused: B ts: T ..."
awk '/ seq: / && / ts: / {
	for (i = 1; i < NF; i++) {
		if ($i == "seq:") s = $(i + 1)
		if ($i == "ts:") t = $(i + 1)
		if ($i == "bytesused:") b = $(i + 1)
	}
	print s, t, b
}' "$out" > "$out.frames"
frames=$(wc -l < "$out.frames")
expect "$count buffers dequeued (got $frames)" [ "$frames" = "$count" ]
head -3 "$out.frames" | sed 's/^/seq ts bytesused: /' | diag

gaps=$(awk 'NR > 1 && $1 != prev + 1 { g++ } { prev = $1 } END { print g + 0 }' "$out.frames")
expect "sequence numbers are consecutive ($gaps gaps)" [ "$gaps" = 0 ]
first=$(awk 'NR == 1 { print $1 }' "$out.frames")
expect "the first sequence number is 0 (got $first)" [ "$first" = 0 ]
sizes=$(awk -v s=$size '$3 != s { b++ } END { print b + 0 }' "$out.frames")
expect "every buffer has ${w}x${h}x2 = $size bytes" [ "$sizes" = 0 ]

rate=$(awk 'NR == 1 { f = $2 } { l = $2; n++ }
	END { if (n > 1 && l > f) printf "%.2f\n", (n - 1) / (l - f); else print 0 }' "$out.frames")
echo "# rate from buffer timestamps: $rate fps (configured $fps)"
expect "rate $rate fps is within 10% of $fps fps" \
	awk -v r="$rate" -v f=$fps 'BEGIN { exit !(r >= f * 0.9 && r <= f * 1.1) }'

# wall clock: 60 frames at 30 fps take at least ~2 s (timestamps are not
# invented), and not absurdly long
wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f\n", (b - a) / 100 }')
echo "# wall clock: $wall s for $count frames"
expect "wall clock $wall s is consistent with $count frames at $fps fps" \
	awk -v w="$wall" -v n=$count -v f=$fps 'BEGIN { exit !(w >= (n - 1) / f * 0.9 && w <= (n - 1) / f * 1.1 + 10) }'

rmmod vivpoll 2> /dev/null; modprobe vivpoll
echo "1..$n"
[ "$fails" = 0 ]
