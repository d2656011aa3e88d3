#!/bin/sh
# v4l2-compliance on every vivpoll device with n_devs=2. A run passes iff
# each of its summary lines says "Failed: 0, Warnings: 0": any warning
# fails it, a dropped frame ("got sequence number B, expected A+1") too.
#
# The streaming tests (-s) run in the format the node had when
# v4l2-compliance started (it stores it and puts it back before each
# input's streaming tests): each node is set up to 320x240 YUYV, a frame
# well under a millisecond to fill. Their rate is not the node's: right
# before them, both 1.22.1 and 1.32.0 set the fastest interval the node
# offers (VIDIOC_G_PARM, then VIDIOC_S_PARM 1/60 before the first
# STREAMON, seen with the node's dev_debug, also with the intervals
# enumerated slowest first), and put the old one back when they exit. So
# they stream at 60 fps with two buffers: a frame every 16.7 ms, which is
# how late v4l2-compliance may be to queue a buffer back. (The 5 fps set
# here before 2026-12-05 changed nothing: every run streamed at 60 fps.)
# FPS below is that fastest rate, read from the node.
#
# VIVPOLL_TIER=quick (make check): streaming on all inputs (-s FRAMES -a),
# the two devices in parallel; the runs of the full tier are SKIPs that
# say so (tests/skips.txt lists them for the quick tier).
# VIVPOLL_TIER=full (make check-full, the default when run by hand): first
# all formats (-s -f), which streams one second for each format x size x
# interval (7 x 4 x 7 = 196 combinations, about 250 s per device under TCG;
# the devices in parallel keep it near 400 s), then -s -a on each device.
# On a slower guest (VIVPOLL_SCALE > 1, the debug kernel: KASAN under TCG,
# where that takes over 1000 s) -f 2: two frames per combination.
# The full tier then runs the v4l2-compliance of the newest v4l-utils in
# Debian's archive (/opt/v4l-utils, at least 1.32; 1.22.1 is Debian 12's)
# with -s -f -a on both devices at once: all formats on both inputs (about
# 500 s of the suite's 965 s in the full tier on a loaded machine). It passes
# on the same terms: no failure and no warning in its summary. A guest
# packed without it (/opt/v4l-utils.none: the archive could not give one)
# SKIPs those runs with the reason.
#
# A failure tolerated as API drift (compliance-drift-X.Y.txt for 1.22.1 on
# Linux X.Y, compliance-drift-1.32-X.Y.txt for 1.32; none for 6.1) is not a
# pass: the run is an expected failure (not ok ... # TODO, listed with its
# reason and not counted as passed), and only if the streaming tests after
# it ran and passed (a "test MMAP ...: OK" line, no other failure, no
# warning); on every kernel vivpoll-bufs runs on each device what
# testReqBufs() checks after the line 6.12 trips on (REQBUFS/CREATE_BUFS/
# QUERYBUF for MMAP, USERPTR and DMABUF).
#
# Time is the guest's own: tools/check.sh runs this suite in the guest on
# QEMU's instruction counter, whose clocks advance by the instructions it
# runs, so a host that stops QEMU takes no frame slot from it. A dropped
# frame is the driver's, or the client's: any warning fails the run.
#
# VIVPOLL_FAULT=compliance-drop (tools/check-harness.sh): while frames
# stream (not in the other tests: see the stopper below), at least 0.5 s
# apart, a SCHED_FIFO busy loop for 0.7 s starves the client and the
# engine alike (42 frame slots at 60 fps, more than the engine catches up),
# and each -s test streams 20 frames: the driver must drop frames and the
# run must fail on the dropped frame's warning.
. /vivpoll/lib.sh
out=/tmp/50-compliance
scale=${VIVPOLL_SCALE:-1}
kver=$(uname -r | cut -d. -f1,2)
v4l=/opt/v4l-utils
frames=10
[ "${VIVPOLL_FAULT:-}" != compliance-drop ] || frames=20

plan 9
reload n_devs=2 || bail "modprobe vivpoll n_devs=2"
devs=$(vivpoll_nodes)
ndev=$(echo "$devs" | grep -c .)
check "n_devs=2 gives 2 vivpoll devices" "$([ "$ndev" = 2 ] || echo "got $ndev")"

# setup DEV: the format the streaming tests will use
setup() {
	v4l2-ctl -d "$1" --set-fmt-video=width=320,height=240,pixelformat=YUYV > /dev/null 2>&1
}

# the rate they stream at: the fastest interval of that format (whole fps)
fps=$(v4l2-ctl -d "$(echo "$devs" | head -1)" \
	--list-frameintervals width=320,height=240,pixelformat=YUYV 2> /dev/null |
	sed -n 's/.*(\([0-9]*\)\.[0-9]* fps).*/\1/p' | sort -n | tail -1)
case "$fps" in ''|0|*[!0-9]*) bail "no frame interval for 320x240 YUYV: '$fps'" ;; esac
ival=$((1000 / fps))

# comply DEV OUT ARGS...: one run of $tool (default: 1.22.1) into OUT
tool=v4l2-compliance
comply() {
	dev=$1 o=$2; shift 2
	echo "${tool_what:-$tool} -d $dev $* -C never" > "$o.what"
	echo "$drift" > "$o.drift"
	setup "$dev"
	timeout "$tmo" "$tool" -d "$dev" "$@" -C never > "$o" 2>&1
	echo $? > "$o.rc"
}

# report OUT: one TAP line for a finished run
report() {
	o=$1
	what="$(cat "$o.what") (streaming at ${fps} fps, the node's fastest)"
	dl=$(cat "$o.drift")
	totals=$(grep '^Total' "$o")
	if [ -z "$totals" ]; then
		not_ok "$what # no summary (exit $(cat "$o.rc"))"
		tail -20 "$o" | diag
		return
	fi
	echo "$totals" | diag
	nf=$(echo "$totals" | sed -n 's/.*Failed: \([0-9]*\).*/\1/p' | awk '{ s += $1 } END { print s + 0 }')
	nw=$(echo "$totals" | sed -n 's/.*Warnings: \([0-9]*\).*/\1/p' | awk '{ s += $1 } END { print s + 0 }')
	# API drift: on a kernel with a drift list for the tool ($dl: none
	# for 6.1), the failures listed there. Each list is shown once.
	fl=
	if [ -f "$dl" ]; then
		case " $drift_shown " in *" $dl "*) ;; *)
			{ echo "v4l2-compliance failures tolerated on $(uname -r) (${dl##*/}):"; grep -v '^#' "$dl"; } | diag
			drift_shown="$drift_shown $dl" ;; esac
		fl=$(awk -v drift="$dl" 'BEGIN { while ((getline l < drift) > 0) if (l !~ /^#/ && (i = index(l, " -- "))) tol[substr(l, 1, i - 1)] = 1 }
			/fail: / { t = substr($0, index($0, "fail: ") + 6); print ((t in tol) ? "tolerated: " : "not tolerated: ") t }' "$o")
	fi
	# drift_ok: every failure (if any) is tolerated drift and the streaming
	# tests after it ran; nnot: the failure lines the drift does not cover
	ntol=$(echo "$fl" | grep -c '^tolerated: ')
	nnot=$(($(grep -c 'fail: ' "$o") - ntol))
	drift_ok=
	[ "$nf" = 0 ] || { [ "$nnot" = 0 ] && [ "$ntol" -ge "$nf" ] && grep -q 'test MMAP.*: OK' "$o"; } &&
		drift_ok=1
	drift_too=
	[ "$ntol" = 0 ] || drift_too=" and $ntol failure line(s) of API drift (${dl##*/}), tolerated on $(uname -r)"
	if [ "$nf" = 0 ] && [ "$nw" = 0 ]; then
		ok "$what"
	elif [ "$nw" = 0 ] && [ "$nf" -gt 0 ] && [ -n "$drift_ok" ]; then
		# the tolerated failure stopped one test, not the streaming
		# ones after it: an expected failure, not a pass
		todo "$what" "$nf failure(s) of API drift (${dl##*/}), tolerated on $(uname -r); streaming tests after them: $(grep -c 'test \(MMAP\|USERPTR\|DMABUF\).*: OK' "$o") OK"
		echo "$fl" | diag
	elif [ "$nw" = 0 ] && [ "$ntol" -gt 0 ] && [ "$nnot" = 0 ]; then
		not_ok "$what # $nf failure(s) tolerated as API drift, but no streaming test ran after them (no 'test MMAP ...: OK')"
		grep -E 'fail:|FAIL|test MMAP|test USERPTR|test DMABUF' "$o" | head -20 | diag
	else
		fw=$(grep -m1 -oE 'warn: .*' "$o") ff=$(grep -m1 -oE 'fail: .*' "$o")
		not_ok "$what # $nf failure(s), $nw warning(s)${fw:+; the first warning: $fw}${ff:+; the first failure: $ff}"
		grep -oE '(fail|warn): .*|.*(FAIL|WARN).*' "$o" | head -40 | diag
	fi
}

# run_parallel TAG ARGS...: one run per device at once, then their reports
run_parallel() {
	tag=$1
	shift
	i=0 pids=
	for dev in $devs; do
		i=$((i + 1))
		comply "$dev" "$out.$tag$i" "$@" &
		pids="$pids $!"
	done
	# these runs only: the fault drill's stopper runs until they are done
	wait $pids
	i=0
	for dev in $devs; do
		i=$((i + 1))
		report "$out.$tag$i"
	done
}

# streaming: every run of the fault drill still going is receiving frames
# now (the last line of its output is a "Frame #N" one)
streaming() {
	n=0
	for f in $out.a[0-9]; do
		[ -f "$f" ] && [ ! -f "$f.rc" ] || continue
		tail -c 256 "$f" | tr '\r' '\n' | tail -n 1 | grep -q 'Frame #' || return 1
		n=$((n + 1))
	done
	[ "$n" -gt 0 ]
}

# the fault drill: the client and the engine starved now and then while
# frames stream, and only then: a stall during v4l2-compliance 1.22.1's
# blocking-wait test ends it with "pure virtual method called" (exit 134,
# no summary: its two threads were not done within the test's 100 and
# 250 ms, and were destroyed before they ran), not with a dropped frame
if [ "${VIVPOLL_FAULT:-}" = compliance-drop ]; then
	touch $out.stopper
	while [ -f $out.stopper ]; do
		sleep 0.05
		streaming || continue
		hogs=
		for c in $(seq 0 $(($(nproc) - 1))); do
			taskset -c $c chrt -f 50 sh -c 'while :; do :; done' &
			hogs="$hogs $!"
		done
		chrt -f 60 sh -c "sleep 0.7; kill $hogs"
		wait $hogs 2> /dev/null
		sleep 0.5
	done &
fi

drift=/vivpoll/compliance-drift-$kver.txt
if [ "${VIVPOLL_TIER:-full}" = quick ]; then
	tmo=$((120 * scale))
	for dev in $devs; do
		skip "v4l2-compliance -d $dev -s -f (every format, size and interval)" "quick tier (make check-full runs it)"
	done
	run_parallel a -s $frames -a
	for dev in $devs; do
		skip "v4l2-compliance of Debian's archive (>= 1.32) -d $dev -s -f -a" "quick tier (make check-full runs it)"
	done
else
	tmo=$((500 * scale))
	if [ "$scale" -gt 1 ]; then
		run_parallel f -s -f 2
	else
		run_parallel f -s -f
	fi
	i=0
	for dev in $devs; do
		i=$((i + 1))
		comply "$dev" "$out.a$i" -s $frames -a
		report "$out.a$i"
	done
	# the archive's v4l2-compliance, named by its version ("1.32.0") and
	# Debian's; its drift list by major.minor (compliance-drift-1.32-X.Y.txt)
	tool=$v4l/bin/v4l2-compliance
	up=$("$tool" --version 2> /dev/null | sed -n 's/^v4l2-compliance \([0-9.]*\).*/\1/p')
	deb=$(sed -n 's/^Package: v4l-utils Version: //p' "$v4l/versions" 2> /dev/null)
	tool_what="v4l2-compliance $up (Debian's v4l-utils $deb, $v4l)"
	drift=/vivpoll/compliance-drift-$(echo "$up" | cut -d. -f1,2)-$kver.txt tmo=$((1500 * scale))
	if [ -f "$v4l.none" ]; then
		for dev in $devs; do
			skip "v4l2-compliance of Debian's archive (>= 1.32) -d $dev -s -f -a" "not in this guest: $(cat "$v4l.none")"
		done
	elif [ ! -x "$tool" ] || [ -z "$up" ] || [ -z "$deb" ]; then
		for dev in $devs; do
			not_ok "v4l2-compliance of Debian's archive -d $dev in the guest ($tool missing, or no version: '$up', '$deb')"
		done
	elif [ "$scale" -gt 1 ]; then
		run_parallel n -s -f 2 -a
	else
		run_parallel n -s -f -a
	fi
fi
rm -f $out.stopper
wait

# What testReqBufs() checks after the first failure, for every memory type:
# on 6.12 its tolerated drift failure stops it before any of this.
for dev in $devs; do
	if timeout "$((60 * scale))" vivpoll-bufs --device "$dev" > "$out.bufs" 2>&1; then
		ok "vivpoll-bufs --device $dev: REQBUFS/CREATE_BUFS/QUERYBUF for MMAP, USERPTR, DMABUF"
	else
		not_ok "vivpoll-bufs --device $dev: REQBUFS/CREATE_BUFS/QUERYBUF for MMAP, USERPTR, DMABUF # $(grep -m1 '^not ok' "$out.bufs" || tail -1 "$out.bufs")"
	fi
	diag < "$out.bufs"
done

reload
finish
