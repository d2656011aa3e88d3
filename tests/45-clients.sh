#!/bin/sh
# Real applications, unmodified from Debian's packages (the bundle at
# /opt/clients), against every vivpoll node and, run the same way at the
# same time in the same guest, against vivid (its video capture node), 30
# frames each:
#   gst-<io>:    gst-launch-1.0 v4l2src io-mode=<io> ! <caps> ! videoconvert !
#                pngenc ! multifilesink, io-mode mmap, userptr, dmabuf, rw
#   gst-auto:    v4l2src without caps (it negotiates), scaled for the PNGs
#   gst-mmap-default: mmap at the driver's default size
#   gst-monitor: gst-device-monitor-1.0 Video/Source lists the node with
#                every format, size and rate v4l2-ctl lists (each driver
#                alone: the monitor probes every node)
#   ff-<fmt>:    ffmpeg -f v4l2 -input_format <fmt> to PNG, every pixel
#                format ffmpeg lists for the vivpoll node
#   v4l2-ctl:    --stream-mmap --stream-count=30 --stream-to=<file>
# A vivpoll run passes with 30 frames, all valid (vivpoll-pngcheck; the raw
# file: 30 x sizeimage), consecutive frames differing, and no client
# warning at all but those listed below, each with its name and reason:
# one of those is an expected failure (not ok ... # TODO), listed apart
# and never counted as a pass; any other warning fails, whether vivid
# gives it too or not. GStreamer runs with GST_DEBUG=2 (its warnings),
# ffmpeg with -loglevel warning. Each vivpoll run gives two results: its
# frames and unlisted warnings, and its listed warnings. Both drivers'
# warnings are TAP comments; one "# clients:" summary line per client and
# node. Every stream runs at FPS frames per second (the default-size and
# auto pipelines too: they asked for nothing and got the driver's 30), a
# rate the emulated CPU keeps with GStreamer's two buffers while each frame
# goes through videoconvert and pngenc: at 30, at 15 and at 10 beside the
# other guest of make check, GStreamer lost frames ("lost frames detected", a
# warning like any other: gst-mmap-default, gst-auto and gst-dmabuf in make
# check-full KVER=7.2, gst-mmap in an idle make check KVER=7.2, 2026-12-05).
# Forced caps use the driver's smallest size: GStreamer and ffmpeg are slow
# under TCG (ffmpeg takes 3 s to start: 215 libraries).
# VIVPOLL_TIER=quick: gst-monitor and gst-mmap, n_devs=1, and a SKIP for
# each client it leaves out (tests/skips.txt lists them); full: every
# client, n_devs=2.
# set -u only: a failing client is a result to report, not a reason to stop
set -u
. /vivpoll/lib.sh
scale=${VIVPOLL_SCALE:-1}
tmo=$((90 * scale))
w=/tmp/45-clients
count=30 fps=5

# The warnings vivpoll gives that are listed, one a line: a name, the
# normalized warning (see warnings(), grep -E), the reason.
known='crop	^WARN v4l2 gst_v4l2_object_get_crop_rect: VIDIOC_CROPCAP failed$	vivpoll has no selection API (no cropping, as uvcvideo): v4l2src asks for the crop rectangle, finds neither VIDIOC_G_SELECTION nor VIDIOC_CROPCAP, and says so on every pipeline'

[ "${VIVPOLL_TIER:-full}" = quick ] && ndevs=1 || ndevs=2
# each client: two results per vivpoll node, one for vivid; then the nodes,
# and in the full tier ffmpeg's names: every io-mode, auto, default size,
# one ffmpeg run per pixel format the driver lists, v4l2-ctl
if [ "${VIVPOLL_TIER:-full}" = quick ]; then
	nclients=2
else
	nclients=$((7 + 7 + 1))
fi
per=$((2 * ndevs + 1))
# the quick tier's SKIPs: five GStreamer clients, ffmpeg, v4l2-ctl, the names
quick_left="gst-userptr gst-dmabuf gst-rw gst-auto gst-mmap-default"
[ "${VIVPOLL_TIER:-full}" = quick ] && plan $((nclients * per + 1 + 8)) || plan $((nclients * per + 2))
for c in gst-launch-1.0 gst-device-monitor-1.0 ffmpeg v4l2-ctl vivpoll-pngcheck; do
	command -v "$c" > /dev/null || bail "$c is in the guest (the /opt/clients share)"
done
rm -rf "$w"
mkdir -p "$w"

driver() { v4l2-ctl -d "$1" --info 2> /dev/null | awk -F': ' '/Driver name/ { print $2; exit }'; }
# load MODULE...: exactly these of vivpoll and vivid loaded, udev data
# written; sets vp (the vivpoll nodes) and vd (the vivid node)
load() {
	for m in vivpoll vivid; do
		case " $* " in *" $m "*) ;; *) rmmod $m 2> /dev/null ;; esac
	done
	for m in "$@"; do
		case $m in
		vivpoll) lsmod | grep -q '^vivpoll ' || modprobe vivpoll n_devs=$ndevs || return 1 ;;
		vivid) lsmod | grep -q '^vivid ' || modprobe vivid n_devs=1 node_types=0x1 || return 1 ;;
		esac
	done
	/vivpoll/udev-v4l.sh
	vp="" vd=""
	for d in /dev/video*; do
		case "$(driver "$d")" in
		vivpoll) vp="$vp $d" ;;
		vivid) vd=$d ;;
		esac
	done
	vp=${vp# }
}

# smallest DEV FOURCC: the driver's smallest discrete size, WxH
smallest() { v4l2-ctl -d "$1" --list-framesizes="$2" | awk '/Discrete/ { print $3; exit }'; }

# warnings KIND LOG: the client's warnings, one a line, with what differs
# from run to run (times, pids, addresses, numbers, the node) taken out.
# gst: its debug log's WARN and ERROR lines, gst-launch's WARNING/ERROR and
# GLib's g_warning/g_critical lines;
# ff: every line (-loglevel warning); ctl: every line but the progress.
# A driver without cropping has no crop rectangle, and v4l2src says so in
# gst_v4l2_object_get_crop_rect() by the ioctl that failed: vivid answers
# G_SELECTION with ENODATA ("Failed to get default crop rectangle with
# VIDIOC_G_SELECTION: No data available"); vivpoll (no selection API, as
# uvcvideo) answers it with ENOTTY, and then CROPCAP fails too ("VIDIOC_CROPCAP
# failed"): only that one is listed, so that any other error of
# G_SELECTION (EIO, EINVAL) is a warning like any other.
# VIVPOLL_FAULT=crop-eio (tools/check-harness.sh): each GStreamer log of a
# vivpoll node gets such a warning with EIO.
warnings() {
	case "$1" in
	gst) sed -n -E -e 's/^[0-9]+:[0-9:.]+ +[0-9]+ +0x[0-9a-f]+ +(WARN|ERROR) +([^ ]+) +[^ :]+:[0-9]+:([^:]+):(<[^>]*> )?/\1 \2 \3: /p' \
		-e '/^(WARNING|ERROR)/p' -e '/-(WARNING|CRITICAL) \*\*/p' "$2" ;;
	ff) grep . "$2" ;;
	ctl) sed -E -e 's/^[<>]+//' -e '/^ *[0-9.]+ fps/d' -e '/^ *$/d' "$2" ;;
	esac | sed -E -e 's#/dev/video[0-9]+#/dev/videoN#g' -e 's/0x[0-9a-f]+/0x?/g' -e 's/\b[0-9]+\b/N/g' | sort -u
}

# distinct FILE...: 1 + how many files differ from the one before (md5sum)
distinct() { md5sum "$@" | awk '$1 != p { n++ } { p = $1 } END { print n + 0 }'; }

# frames DIR WxH: sets nf (PNG files), nv (valid: vivpoll-pngcheck, of
# that size) and nd (distinct)
frames() {
	nf=$(ls "$1" 2> /dev/null | grep -c '\.png$') nv=0 nd=0
	[ "$nf" = 0 ] && return
	nv=$(vivpoll-pngcheck --size "$2" --not-flat "$1"/*.png | grep -c '^valid ')
	nd=$(distinct "$1"/*.png)
}

# raw FILE SIZEIMAGE: the same for a raw stream: nf whole frames, nv = nf
# when the size is a multiple of SIZEIMAGE, nd distinct
raw() {
	bytes=$(stat -c %s "$1" 2> /dev/null || echo 0)
	nf=$((bytes / $2)) nv=0 nd=0
	[ "$nf" = 0 ] && return
	[ $((nf * $2)) = "$bytes" ] && nv=$nf
	i=0
	while [ $i -lt "$nf" ]; do
		dd if="$1" of="$1.$((i + 10))" bs="$2" skip=$i count=1 2> /dev/null
		i=$((i + 1))
	done
	nd=$(distinct "$1".??)
}

# run_gst DEV DIR IO CAPS...: 30 frames through v4l2src to PNG in DIR
# (-v: the negotiated caps are in the log)
run_gst() {
	mkdir -p "$2"
	GST_DEBUG=2 GST_DEBUG_NO_COLOR=1 timeout "$tmo" gst-launch-1.0 -v \
		v4l2src device="$1" io-mode="$3" num-buffers=$count ! $4 ! videoconvert ! \
		pngenc compression-level=1 ! multifilesink location="$2/%02d.png"
}

# run_ff DEV DIR FMT WxH: 30 frames through ffmpeg to PNG in DIR
run_ff() {
	mkdir -p "$2"
	timeout "$tmo" ffmpeg -nostdin -hide_banner -nostats -loglevel warning -f v4l2 \
		-input_format "$3" -video_size "$4" -framerate $fps -i "$1" -frames:v $count \
		-fps_mode passthrough -compression_level 1 "$2/%02d.png"
}

# run_ctl DEV DIR WxH: 30 YUYV frames with v4l2-ctl --stream-mmap to DIR/raw
run_ctl() {
	mkdir -p "$2"
	v4l2-ctl -d "$1" --set-fmt-video=width="${3%x*}",height="${3#*x}",pixelformat=YUYV &&
	timeout "$tmo" v4l2-ctl -d "$1" --stream-mmap --stream-count=$count --stream-to="$2/raw"
}

# run_monitor DEV DIR: gst-device-monitor-1.0 Video/Source, then its entry
# for DEV against v4l2-ctl --list-formats-ext, the formats GStreamer and
# vivpoll share: nf (format x size pairs v4l2-ctl lists), nv (the monitor
# lists them), nd (with every frame rate); what is missing goes to DIR/why.
# A vivpoll format without a GStreamer name here counts as missing.
run_monitor() {
	mkdir -p "$2"
	GST_DEBUG=2 GST_DEBUG_NO_COLOR=1 timeout "$tmo" gst-device-monitor-1.0 Video/Source > "$2/mon" 2>&1
	rc=$?
	cat "$2/mon"
	# the caps of the entry whose device.path is DEV, one structure a line
	awk -v dev="$1" '/^Device found:/ { if (p == dev) printf "%s", c; c = p = ""; inc = 0; next }
		/^\tcaps *:/ { inc = 1; sub(/^\tcaps *: */, ""); c = c $0 "\n"; next }
		inc && /^\t +[a-z]+\/[a-z-]+/ { sub(/^\t +/, ""); c = c $0 "\n"; next }
		{ inc = 0 }
		/^\t\tdevice.path = / { p = $3 }
		END { if (p == dev) printf "%s", c }' "$2/mon" > "$2/caps"
	v4l2-ctl -d "$1" --list-formats-ext > "$2/ext"
	[ "$(driver "$1")" = vivpoll ] && strict=1 || strict=0
	set -- $(awk -v why="$2/why" -v strict=$strict 'BEGIN { split("YUYV YUY2 UYVY UYVY RGB3 RGB BGR3 BGR XR24 BGRx RGBP RGB16 GREY GRAY8", m, " ")
			for (i = 1; i < 14; i += 2) gst[m[i]] = m[i + 1] }
		function val(k, s) { return match(s, k "=[^,]+") ? substr(s, RSTART + length(k) + 1, RLENGTH - length(k) - 1) : "" }
		FNR == NR {
			if ($0 ~ /^video\/x-raw\(/) next	# the interlaced variants
			k = val("format", $0) "|" val("width", $0) "x" val("height", $0)
			have[k] = 1
			r = $0; sub(/.*framerate=/, "", r)
			if (r ~ /^\{/) sub(/\}.*/, "", r); else sub(/,.*/, "", r)
			while (match(r, /[0-9]+\/[0-9]+/)) {
				split(substr(r, RSTART, RLENGTH), q, "/")
				rate[k "|" sprintf("%.3f", q[1] / q[2])] = 1
				r = substr(r, RSTART + RLENGTH)
			}
			next
		}
		/\[[0-9]+\]:/ { split($0, a, "\047"); f = (a[2] in gst) ? gst[a[2]] : ""
			if (f == "" && strict) { f = "?" a[2]; print "no GStreamer name here for " a[2] > why } }
		f != "" && /Size: Discrete/ { k = f "|" $3; n++
			listed[k] = 1; if (k in have) found++; else print "monitor lacks " k > why }
		f != "" && /Interval:/ { fps = $(NF - 1); sub(/^\(/, "", fps)
			if (!((k "|" fps) in rate)) { bad[k] = 1; print "monitor lacks " fps " fps for " k > why } }
		END { for (k in listed) if ((k in have) && !(k in bad)) good++; print n + 0, found + 0, good + 0 }' "$2/caps" "$2/ext")
	nf=$1 nv=$2 nd=$3
	return $rc
}

# one CLIENT DEV: run CLIENT on DEV into $w/CLIENT/DRIVER-NODE: log, warn
# (its warnings), res (rc nf nv nd good res sum, shell assignments), report
one() {
	drv=$(driver "$2")
	o=$w/$1/$drv-${2##*/}
	mkdir -p "$o"
	t1=$(date +%s)
	sz=$(smallest "$2" YUYV)
	kind=gst caps=
	case "$1" in
	gst-mmap|gst-userptr|gst-dmabuf|gst-rw)
		run_gst "$2" "$o/f" "${1#gst-}" "video/x-raw,format=YUY2,width=${sz%x*},height=${sz#*x},framerate=$fps/1" > "$o/log" 2>&1
		rc=$?; frames "$o/f" "$sz" ;;
	gst-mmap-default)
		sz=$(v4l2-ctl -d "$2" --get-fmt-video | awk -F': *' '/Width\/Height/ { sub("/", "x", $2); print $2 }')
		run_gst "$2" "$o/f" mmap "video/x-raw,format=YUY2,width=${sz%x*},height=${sz#*x},framerate=$fps/1" > "$o/log" 2>&1
		rc=$?; frames "$o/f" "$sz" ;;
	gst-auto)
		run_gst "$2" "$o/f" auto "video/x-raw,framerate=$fps/1 ! videoscale ! video/x-raw,width=320,height=240" > "$o/log" 2>&1
		rc=$?; frames "$o/f" 320x240
		caps=$(grep -m1 'v4l2src0.GstPad:src: caps = ' "$o/log" | sed 's/.*caps = /negotiated: /') ;;
	gst-monitor)
		run_monitor "$2" "$o" > "$o/log" 2>&1
		rc=$? ;;
	ff-*)
		kind=ff
		run_ff "$2" "$o/f" "${1#ff-}" "$sz" > "$o/log" 2>&1
		rc=$?; frames "$o/f" "$sz" ;;
	v4l2-ctl)
		kind=ctl
		run_ctl "$2" "$o/f" "$sz" > "$o/log" 2>&1
		rc=$?
		raw "$o/f/raw" "$(v4l2-ctl -d "$2" --get-fmt-video | awk -F': *' '/Size Image/ { print $2 }')" ;;
	esac
	[ "${VIVPOLL_FAULT:-}" != crop-eio ] || [ "$kind" != gst ] || [ "$drv" != vivpoll ] ||
		echo "0:00:00.100000000   100 0x55d0c0 WARN                    v4l2 gstv4l2object.c:4534:gst_v4l2_object_get_crop_rect:<v4l2src0:src> Failed to get default crop rectangle with VIDIOC_G_SELECTION: Input/output error" >> "$o/log"
	warnings "$kind" "$o/log" > "$o/warn"
	rm -rf "$o/f"
	if [ "$1" = gst-monitor ]; then
		res="$nf format x size pairs, $nv listed, $nd with every rate"
		sum="pairs=$nf listed=$nv rates=$nd"
		good=$([ "$rc" = 0 ] && [ "$nf" -gt 0 ] && [ "$nv" = "$nf" ] && [ "$nd" = "$nf" ] && echo 1)
	else
		res="$nf frames, $nv valid, $nd distinct"
		sum="frames=$nf valid=$nv distinct=$nd"
		good=$([ "$rc" = 0 ] && [ "$nf" = $count ] && [ "$nv" = $count ] && [ "$nd" = $count ] && echo 1)
	fi
	sum="$sum warnings=$(grep -c . "$o/warn")"
	printf "rc=%s nf=%s nv=%s nd=%s good='%s' res='%s' sum='%s'\n" "$rc" "$nf" "$nv" "$nd" "$good" "$res" "$sum" > "$o/res"
	{
		[ -z "$caps" ] || echo "$caps"
		echo "$1 on $drv $2: $res, status $rc, $(($(date +%s) - t1))s; warnings:"
		sed 's/^/    /' "$o/warn"
		[ "$good" = 1 ] || { head -20 "$o/why" 2> /dev/null; grep -v '^	' "$o/log" | tail -8; }
	} | diag > "$o/report"
}

# verdict CLIENT: TAP lines and "clients:" summaries for the runs of CLIENT
# on vivid ($vd) and every vivpoll node ($vp), which are done
verdict() {
	r=$w/$1/vivid-${vd##*/}
	cat "$r/report"
	. "$r/res"
	vdrc=$rc vdnf=$nf vdnv=$nv vdsum=$sum vdres=$res
	for d in $vp; do
		o=$w/$1/vivpoll-${d##*/}
		cat "$o/report"
		. "$o/res"
		# each warning: listed (its name) or not
		: > "$o/listed"
		cp "$o/warn" "$o/only"
		echo "$known" | while IFS='	' read -r name re why; do
			if grep -Eq "$re" "$o/only"; then
				echo "$name: $why" >> "$o/listed"
				grep -Ev "$re" "$o/only" > "$o/tmp"
				mv "$o/tmp" "$o/only"
			fi
		done
		only=$(grep -c . "$o/only")
		echo "clients: $1: vivpoll $d $sum ($only not listed) | vivid $vdsum" | diag
		if [ "$good" = 1 ] && [ "$only" = 0 ]; then
			ok "$1 on vivpoll $d: $res, no warning but the listed ones"
		elif [ "$good" = 1 ]; then
			not_ok "$1 on vivpoll $d: $res; $only warning(s): $(sed '$!s/$/;/' "$o/only" | tr '\n' ' ')"
		else
			not_ok "$1 on vivpoll $d: $res (status $rc)"
		fi
		if [ -s "$o/listed" ]; then
			todo "$1 on vivpoll $d gives no listed warning" "$(sed '$!s/$/;/' "$o/listed" | tr '\n' ' ')"
		else
			ok "$1 on vivpoll $d gives no listed warning"
		fi
	done
	# The reference must run, not be perfect: vivid repeats a frame now and then.
	if [ "$vdrc" = 0 ] && [ "$vdnf" -gt 0 ] && [ "$vdnv" = "$vdnf" ] &&
	   { [ "$1" = gst-monitor ] || [ "$vdnf" = $count ]; }; then
		ok "$1 on vivid $vd (the reference) runs: $vdres"
	else
		not_ok "$1 on vivid $vd (the reference) runs: $vdres (status $vdrc)"
	fi
}

# client CLIENT: on vivid in the background, on each vivpoll node in turn
client() {
	one "$1" "$vd" &
	bg=$!
	for d in $vp; do
		one "$1" "$d"
	done
	wait $bg
	verdict "$1"
}

t0=$(date +%s)
# gst-monitor: each driver alone, vivpoll first
load
load vivpoll || bail "modprobe vivpoll n_devs=$ndevs"
[ "$(echo $vp | wc -w)" = "$ndevs" ] || bail "n_devs=$ndevs gives $ndevs vivpoll nodes (got '$vp')"
# the GStreamer registry (GST_REGISTRY, /tmp) first, outside any run
gst-inspect-1.0 coreelements > /dev/null 2>&1
for d in $vp; do
	one gst-monitor "$d"
done
mvp=$vp
load vivid || bail "modprobe vivid n_devs=1 node_types=0x1"
[ -n "$vd" ] || bail "vivid gives a video capture node"
one gst-monitor "$vd"
load vivpoll vivid || bail "modprobe vivpoll n_devs=$ndevs with vivid"
[ "$(echo $vp | wc -w)" = "$ndevs" ] && [ -n "$vd" ] || bail "vivpoll nodes '$vp', vivid '$vd'"
cur=$vp vp=$mvp
verdict gst-monitor
vp=$cur
ok "nodes: vivpoll $vp, vivid $vd"

if [ "${VIVPOLL_TIER:-full}" = quick ]; then
	clients="gst-mmap"
	echo "quick tier: gst-monitor $clients (VIVPOLL_TIER=full: every io-mode, negotiation, every ffmpeg format)" | diag
	for c in $quick_left; do
		skip "$c on vivpoll and vivid" "quick tier (make check-full runs it)"
	done
	skip "ffmpeg names each pixel format of vivpoll" "quick tier (make check-full runs it)"
	skip "ffmpeg on vivpoll and vivid, each pixel format" "quick tier (make check-full runs it)"
	skip "v4l2-ctl on vivpoll and vivid" "quick tier (make check-full runs it)"
else
	first=${vp%% *}
	clients="gst-mmap gst-userptr gst-dmabuf gst-rw gst-auto gst-mmap-default"
	# every pixel format the driver lists, as ffmpeg names it
	ffs=$(ffmpeg -hide_banner -f v4l2 -list_formats raw -i "$first" 2>&1 |
		awk -F' *: *' '/Raw/ && $2 != "Unsupported" { printf " ff-%s", $2 }')
	nfmt=$(v4l2-ctl -d "$first" --list-formats 2> /dev/null | grep -cE '^[[:space:]]*\[[0-9]+\]:')
	if [ "$nfmt" = 7 ] && [ "$(echo $ffs | wc -w)" = "$nfmt" ]; then
		ok "ffmpeg names each of the $nfmt pixel formats of $first:$ffs"
	else
		not_ok "ffmpeg names each of the 7 pixel formats of $first (the driver lists $nfmt, ffmpeg:${ffs:- none})"
	fi
	clients="$clients$ffs v4l2-ctl"
fi
for c in $clients; do
	client "$c"
done
echo "clients done in $(($(date +%s) - t0))s" | diag

ndevs=1
load
load vivpoll
finish
