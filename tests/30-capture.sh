#!/bin/sh
# vivpoll-capture: N frames via mmap + poll(POLLIN) and via read(), selected
# frames written as PNG (RGB24 through libv4lconvert), each PNG decoded with
# libpng (vivpoll-pngcheck) and checked for the configured size.
. /vivpoll/lib.sh
out=/tmp/30-capture.out
scale=${VIVPOLL_SCALE:-1}

plan 20
reload || bail "modprobe vivpoll"
if [ -d /host ] && touch /host/.w 2> /dev/null; then
	rm -f /host/.w
	top=/host/check-frames
else
	top=/tmp/check-frames
fi
rm -rf "$top"
mkdir -p "$top"
echo "# PNG files go to $top"

# capture IO COUNT SIZE FORMAT FPS PNGOPT...: run one capture into $top/NAME
capture() {
	name=$1 io=$2 count=$3 size=$4 fmt=$5 fps=$6
	shift 6
	dir=$top/$name
	timeout $((120 * scale)) vivpoll-capture --io "$io" --count "$count" --size "$size" \
		--format "$fmt" --fps "$fps" --out "$dir" --quiet "$@" > "$out" 2>&1
	rc=$?
	diag < "$out"
	expect "$name: vivpoll-capture --io $io $count frames $fmt $size exits 0" [ "$rc" = 0 ]
	expect "$name: $count frames reported" grep -q "^frames=$count " "$out"
	pngs=$(sed -n 's/^png: //p' "$out")
	npng=$(echo "$pngs" | grep -c .)
	expect "$name: $want_png PNG files written (got $npng)" [ "$npng" = "$want_png" ]
	if [ -n "$pngs" ]; then
		# shellcheck disable=SC2086
		vivpoll-pngcheck --size "$size" --not-flat $pngs > "$out" 2>&1
		rc=$?
		diag < "$out"
		expect "$name: every PNG decodes and is $size" [ "$rc" = 0 ]
	else
		not_ok "$name: every PNG decodes and is $size (none written)"
	fi
}

want_png=4
capture mmap-yuyv mmap 30 640x480 YUYV 30 --png 4
want_png=4
capture read-yuyv read 30 640x480 YUYV 30 --png 4
want_png=2
capture mmap-rgb24 mmap 10 320x240 RGB3 15 --png-every 5
want_png=2
capture read-grey read 10 1280x720 GREY 10 --png-every 5

# sequence numbers via mmap: no gaps at a rate TCG keeps up with
timeout $((60 * scale)) vivpoll-capture --io mmap --count 30 --size 320x240 --format YUYV --fps 15 --quiet > "$out" 2>&1
rc=$?
diag < "$out"
expect "mmap capture without PNGs reports no sequence gaps" \
	sh -c "[ $rc = 0 ] && grep -q '^frames=30 drops=0 ' $out"

# errors
vivpoll-capture --io carrier-pigeon > "$out" 2>&1
rc=$?
expect "--io with a bad method is a usage error (exit 2)" [ "$rc" = 2 ]
vivpoll-capture --size 641x480 --count 1 > "$out" 2>&1
rc=$?
diag < "$out"
expect "an unsupported size fails cleanly (exit 1)" [ "$rc" = 1 ]
vivpoll-pngcheck /proc/version > "$out" 2>&1
rc=$?
expect "vivpoll-pngcheck rejects a non-PNG file" [ "$rc" = 1 ]

rmmod vivpoll 2> /dev/null; modprobe vivpoll
finish
