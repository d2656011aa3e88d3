#!/bin/sh
# 87-media-selftest: the kernel selftest the series adds,
# tools/testing/selftests/media_tests/video_poll_test (source:
# selftests/media_tests/), as the guest kernel tree's kselftest builds and
# installs it (make -C tools/testing/selftests TARGETS=media_tests install:
# tests/Makefile), run by what kselftest installs with it.
#
# The runner (run_kselftest.sh -t media_tests:video_poll_test, the test
# without arguments: every node of a test driver) on vivid alone and on
# vivpoll alone, fs.poll_legacy_null_table off and on. Off (today): every
# case passes, the runner says ok. On (the pre-v3.4 core): exactly the cases
# the matrix's expectations say start streaming (vivpoll-prove --expect=on,
# from apps/prove-expect.c) fail, each with the selftest's own "started
# streaming" message naming that driver's node; the others pass; the runner
# says not ok. So the selftest fails on a kernel that regresses, on the
# in-tree driver as well as on vivpoll.
#
# Then the installed program itself:
#  - without -d, with vivid, vivpoll and vimc loaded and vivpoll's node
#    standing in for a real camera's (tests/fake-driver.c: its sysfs
#    driver link and VIDIOC_QUERYCAP say uvcvideo): that node is named as
#    left alone, and the kernel's own log of it (the V4L2 core's
#    dev_debug: ioctls, open, release, poll) shows nothing at all, not even
#    an open, while the same log shows the runner's run on it opening it,
#    polling and requesting buffers; vivid's capture node is tested, its
#    other nodes and vimc's are named as not tested;
#  - the same with only VIDIOC_QUERYCAP saying uvcvideo (sysfs: vivpoll):
#    the node is opened, and named as not tested with both names;
#  - -d on vimc's capture node (no read()) and on vivid's video output
#    node: the whole test skips (exit 4) saying why;
#  - on vivid, switch on, where a wait for POLLIN cannot start streaming
#    (S-Video input, V4L2_FIELD_ALTERNATE, which vivid's read() refuses):
#    every POLLPRI-only case skips saying so, instead of passing because
#    nothing could start; every POLLIN case fails (no read() started);
#  - on vivid, switch on, after its "Inject VIDIOC_STREAMON Error" button
#    (the next start_streaming fails, once): the first case, a POLLPRI-only
#    one, skips saying so; the others are as the matrix expects.
set -u
sysctl=/proc/sys/fs/poll_legacy_null_table
ksft=/vivpoll/kselftest/media
bin=$ksft/media_tests/video_poll_test
shim=/vivpoll/kselftest/fake-driver.so
scale=${VIVPOLL_SCALE:-1}
. /vivpoll/lib.sh
# the switch off, vivid and vimc unloaded, vivpoll with its defaults; then
# the verdict
end() {
	[ -w "$sysctl" ] && echo 0 > "$sysctl"
	rmmod vivid vimc vivpoll 2> /dev/null
	modprobe vivpoll
	finish
}
# the nodes, the runner on 2 drivers x 2 switch settings, vimc and vivid's
# output skipped, the stand-in left alone, sysfs and VIDIOC_QUERYCAP
# disagreeing, no start possible, a failed start
plan 11
for f in "$bin" "$ksft/run_kselftest.sh" "$shim" /vivpoll/kselftest/coreutils/timeout; do
	[ -x "$f" ] || [ -f "$f" ] || { not_ok "$f missing"; end; }
done
[ -w "$sysctl" ] || { not_ok "$sysctl missing"; end; }

# node NAME: the /dev node of the video device called NAME in sysfs
node() {
	for s in /sys/class/video4linux/video*; do
		[ "$(cat "$s/name")" = "$1" ] && echo "/dev/${s##*/}" && return
	done
}

# load MODULE...: only these of vivid, vivpoll, vimc (default parameters,
# loaded afresh); sets vd (vivid's video capture node), vo (vivid's video
# output), vp (vivpoll's), vm (vimc's Raw Capture 0), each if loaded
load() {
	rmmod vivid vivpoll vimc 2> /dev/null
	for m in "$@"; do
		modprobe "$m" || return 1
	done
	vd=$(node vivid-000-vid-cap) vo=$(node vivid-000-vid-out)
	vp=$(node vivpoll-0) vm=$(node "Raw Capture 0")
	return 0
}
if ! load vivid vivpoll vimc || [ -z "$vd" ] || [ -z "$vo" ] || [ -z "$vp" ] || [ -z "$vm" ]; then
	not_ok "modprobe vivid vivpoll vimc: vivid-000-vid-cap '$vd', vivid-000-vid-out '$vo', vivpoll-0 '$vp', vimc Raw Capture 0 '$vm'"
	end
fi
ok "nodes: vivid video capture $vd, video output $vo, vivpoll $vp, vimc Raw Capture 0 $vm"

if ! vivpoll-prove --expect=off > /tmp/vpt.expect.off ||
	! vivpoll-prove --expect=on > /tmp/vpt.expect.on; then
	not_ok "vivpoll-prove --expect: the matrix's expectations"
	end
fi

# judge OUT EXPECT NODE [PFX]: the selftest's output OUT (each line behind
# PFX: the runner's "# "), one line a case in run order: NAME RESULT
# (pass|fail|skip) WANTED (by EXPECT: a POLLPRI case passes iff nothing
# starts, a POLLIN case iff the read() emulator starts) right|WRONG, then
# "reason-ok" if a failure says "started streaming" or "started no read()"
# of NODE, else "-", then a skip's reason.
judge() {
	awk -v expfile="$2" -v node="$3: " -v pfx="${4:-}" '
		BEGIN { while ((getline l < expfile) > 0) { split(l, a, " "); ex[a[1]] = a[2] } }
		{ l = $0 }
		pfx != "" { if (substr(l, 1, length(pfx)) != pfx) next; l = substr(l, length(pfx) + 1) }
		l ~ /^#  RUN +video_poll\.[a-z_]+\.wait / {
			split(l, a, "."); cur = a[2]; got[++m] = cur; next
		}
		l ~ /^# [^ ]*:[0-9]+:wait:/ && (index(l, node "") > 0) && l ~ /started (streaming|no read)/ { why[cur] = 1 }
		l ~ /^(not )?ok [0-9]+( |$)/ && cur != "" {
			r[cur] = l ~ /# SKIP/ ? "skip" : l ~ /^ok/ ? "pass" : "fail"
			s = l; sub(/.*# SKIP /, "", s); reason[cur] = r[cur] == "skip" ? s : ""
			cur = ""
		}
		END { for (i = 1; i <= m; i++) { t = got[i]
			if (!(t in ex)) e = "unknown"
			else if (t ~ /_in$/) e = ex[t] == "started" ? "pass" : "fail"
			else e = ex[t] == "idle" ? "pass" : "fail"
			print t, (t in r) ? r[t] : "none", e, (r[t] == e ? "right" : "WRONG"),
				(why[t] ? "reason-ok" : "-"), reason[t] } }' "$1"
}

# The runner calls /usr/bin/timeout --foreground, which busybox's timeout
# has not: in its own mount namespace, /usr/bin is a copy of the guest's
# with coreutils' timeout in it; nothing else changes, for it or the rest.
rm -rf /tmp/vpt.usrbin && cp -a /usr/bin /tmp/vpt.usrbin &&
	rm -f /tmp/vpt.usrbin/timeout && cp /vivpoll/kselftest/coreutils/timeout /tmp/vpt.usrbin/
# On a slower kernel (VIVPOLL_SCALE), the runner's own limit (45 s) scaled,
# as kselftest's settings file sets it.
[ "$scale" -gt 1 ] && echo "timeout=$((45 * scale))" > "$ksft/media_tests/settings"

# runner DRIVER NODE SWITCH: run_kselftest.sh with only DRIVER loaded
runner() {
	[ "$3" = 1 ] && what=on || what=off
	out=/tmp/vpt.runner.$1.$what
	echo "$3" > "$sysctl"
	t0=$(date +%s)
	# through a pipe: the runner writes each test's output to /dev/stdout
	# opened anew (>>), which on a file lands at its end, and its own
	# lines then overwrite it
	{
		unshare -m sh -c "mount --bind /tmp/vpt.usrbin /usr/bin && cd $ksft &&
			exec ./run_kselftest.sh -t media_tests:video_poll_test" 2>&1
		echo $? > "$out.st"
	} | cat > "$out"
	st=$(cat "$out.st")
	echo 0 > "$sysctl"
	judge "$out" "/tmp/vpt.expect.$what" "$2" "# " > "$out.res"
	plan=$(sed -n 's/^# 1\.\.\([0-9]*\)$/\1/p' "$out")
	got=$(grep -c . "$out.res")
	wrong=$(awk '$4 != "right" { printf "%s%s (%s, expected %s)", s, $1, $2, $3; s = ", " }' "$out.res")
	failed=$(awk '$2 == "fail" { printf "%s%s", s, $1; s = " " }' "$out.res")
	nofail=$(awk '$2 == "fail" { n++ } END { print n + 0 }' "$out.res")
	noreason=$(awk '$2 == "fail" && $5 != "reason-ok" { printf "%s%s", s, $1; s = " " }' "$out.res")
	if [ -n "$failed" ]; then
		verdict="not ok 1 selftests: media_tests: video_poll_test # exit=1" want_st=1
	else
		verdict="ok 1 selftests: media_tests: video_poll_test" want_st=0
	fi
	# The runner's exit status says whether a test failed only since it has
	# -f (7.2; 6.1's and 6.12's exit 0): there its verdict line alone.
	grep -q ERROR_ON_FAIL "$ksft/run_kselftest.sh" || want_st=0
	what_="run_kselftest.sh -t media_tests:video_poll_test, $1 loaded ($2), switch $what ($(($(date +%s) - t0)) s)"
	if [ -z "$plan" ] || [ "$got" != "$plan" ] || [ "$plan" = 0 ]; then
		not_ok "$what_: $got results for plan '${plan}'"
		sed 's/^/# /' "$out" | tail -20
	elif [ -n "$wrong" ]; then
		not_ok "$what_: $got cases, not as the matrix expects: $wrong"
		grep -E '^# # .*:[0-9]+:|SKIP' "$out" | head -10
	elif [ -n "$noreason" ]; then
		not_ok "$what_: failed without saying it started streaming on $2: $noreason"
		grep -E '^# # .*:[0-9]+:' "$out" | head -10
	elif ! grep -qx "$verdict" "$out" || [ "$st" != "$want_st" ]; then
		not_ok "$what_: every case as expected, but the runner did not say '$verdict' and exit $want_st (exit $st)"
		tail -3 "$out" | sed 's/^/# /'
	else
		ok "$what_: all $got cases as the matrix expects; $nofail failed as expected${failed:+ ($failed)}; runner: $verdict"
		# the first failure in the selftest's words
		grep -m1 -E '^# # .*:[0-9]+:.*started streaming' "$out"
	fi
}

# klog_mark NAME / klog_since NAME: the kernel log after a mark
klog_mark() { echo "vpt: mark $1" > /dev/kmsg; }
klog_since() { dmesg | sed -n "/vpt: mark $1\$/,\$p"; }
# node_log NODE: what the V4L2 core logged of NODE (dev_debug): the word
# after "videoN:" (open, release, poll, VIDIOC_...), one a line; "?" for
# a line cut short (an ioctl's name comes in a continuation line)
node_log() {
	awk -v v="${1#/dev/}:" '{ for (i = 1; i <= NF; i++) if ($i == v) {
		w = i < NF ? $(i + 1) : "?"; sub(/:$/, "", w); print w; break } }'
}

: > /tmp/vpt.tested.log
for drv in vivid vivpoll; do
	if ! load "$drv"; then
		not_ok "modprobe $drv: the runner on it, switch off"
		not_ok "modprobe $drv: the runner on it, switch on"
		continue
	fi
	[ "$drv" = vivid ] && dev=$vd || dev=$vp
	# vivpoll, switch off: the kernel's log of its node, as the positive
	# control of the left-alone check below (ioctls, open, release, poll)
	if [ "$drv" = vivpoll ]; then
		echo 0x15 > "/sys/class/video4linux/${vp#/dev/}/dev_debug"
		klog_mark runner
	fi
	runner "$drv" "$dev" 0
	if [ "$drv" = vivpoll ]; then
		echo 0 > "/sys/class/video4linux/${vp#/dev/}/dev_debug"
		klog_since runner | node_log "$vp" | sort | uniq -c | sort -rn > /tmp/vpt.tested.log
	fi
	runner "$drv" "$dev" 1
done

if ! load vivid vivpoll vimc; then
	not_ok "modprobe vivid vivpoll vimc"
	end
fi

# skip_all DESCRIPTION NODE REASON: the whole test skips with REASON, exit 4
skip_all() {
	out=/tmp/vpt.skip
	"$bin" -d "$2" > "$out" 2>&1
	st=$?
	if [ "$st" = 4 ] && grep -q "^1\.\.0 # SKIP $2 $3" "$out" && ! grep -qE '^(not )?ok ' "$out"; then
		# the reason without its "# SKIP": this check passed, it is no skip
		ok "video_poll_test -d $2 ($1): the whole test skips, exit 4, saying why: $(sed -n 's/^1\.\.0 # SKIP //p' "$out")"
	else
		not_ok "video_poll_test -d $2 ($1): exit $st, not a whole-test skip with '$2 $3'"
		sed 's/^/# /' "$out" | head -5
	fi
}
skip_all "vimc's Raw Capture 0, no read()" "$vm" "(vimc): no V4L2_CAP_READWRITE"
skip_all "vivid's video output" "$vo" "(vivid): not a video capture node"

# Without -d, vivpoll's node standing in for a real camera's: left alone,
# never opened (the test reads its driver from sysfs).
dbg=/sys/class/video4linux/${vp#/dev/}/dev_debug
echo 0x15 > "$dbg"
klog_mark standin
out=/tmp/vpt.standin
FAKE_DRIVER_NODE=$vp FAKE_DRIVER_NAME=uvcvideo LD_PRELOAD=$shim "$bin" > "$out" 2>&1
st=$?
echo 0 > "$dbg"
klog_since standin | node_log "$vp" | sort | uniq -c | sort -rn > /tmp/vpt.standin.log
plan=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' "$out")
pass=$(grep -cE '^ok [0-9]+ video_poll\.[a-z_]+\.wait$' "$out")
touched=$(awk '{ printf "%s%s x%s", s, $2, $1; s = ", " }' /tmp/vpt.standin.log)
tested=$(awk '$2 == "open" || $2 == "poll" || $2 == "VIDIOC_REQBUFS" { printf "%s%s x%s", s, $2, $1; s = ", " }' /tmp/vpt.tested.log)
what_="video_poll_test without -d, $vp standing in for a uvcvideo node (LD_PRELOAD fake-driver.so: sysfs and VIDIOC_QUERYCAP), switch off"
why=
[ "$st" = 0 ] && [ -n "$plan" ] && [ "$pass" = "$plan" ] ||
	why="$why exit $st, $pass of '$plan' cases passed;"
grep -q "^# left alone (.*): $vp (uvcvideo)\$" "$out" || why="$why $vp not named as left alone;"
[ -z "$touched" ] || why="$why the kernel logged $touched on $vp, which the test was to leave unopened;"
for w in open poll VIDIOC_REQBUFS; do
	grep -q " $w\$" /tmp/vpt.tested.log ||
		why="$why the kernel's log of $vp shows no $w for the runner's run on it either: the check cannot see a tested node;"
done
grep -q "^# not tested: .*$vo (vivid): not a video capture node.*$vm (vimc): no V4L2_CAP_READWRITE" "$out" ||
	why="$why $vo and $vm not named as not tested;"
if [ -n "$why" ]; then
	not_ok "$what_:$why"
	grep -E '^not ok|^# .*:[0-9]+:|left alone|not tested' "$out" | head -5 | sed 's/^/# /'
else
	ok "$what_: all $plan cases pass on $vd; $vp left alone: the kernel logged nothing on it, not even an open (the runner's run on it: $tested, ...); $vo and $vm named as not tested"
fi

# sysfs says vivpoll, VIDIOC_QUERYCAP uvcvideo: opened, then not tested.
out=/tmp/vpt.mismatch
FAKE_DRIVER_ONLY=querycap FAKE_DRIVER_NODE=$vp FAKE_DRIVER_NAME=uvcvideo LD_PRELOAD=$shim "$bin" > "$out" 2>&1
st=$?
what_="video_poll_test without -d, VIDIOC_QUERYCAP of $vp saying uvcvideo (LD_PRELOAD fake-driver.so), sysfs vivpoll"
plan=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' "$out")
pass=$(grep -cE '^ok [0-9]+ video_poll\.[a-z_]+\.wait$' "$out")
if [ "$st" = 0 ] && [ -n "$plan" ] && [ "$pass" = "$plan" ] && ! grep -q "left alone" "$out" &&
	grep -q "^# not tested: .*$vp (vivpoll): VIDIOC_QUERYCAP names driver uvcvideo" "$out"; then
	ok "$what_: $vp named as not tested ($(sed -n "s|^# not tested: .*\($vp (vivpoll): [^;]*\).*|\1|p" "$out")), all $plan cases pass on $vd"
else
	not_ok "$what_: exit $st, $vp not named as not tested with both drivers"
	grep -E '^not ok|^# .*:[0-9]+:|left alone|not tested' "$out" | head -5 | sed 's/^/# /'
fi

# where_start_fails DESCRIPTION FILE: the selftest's output on vivid with
# the switch on, where a POLLIN wait cannot start streaming
where_start_fails() {
	echo 1 > "$sysctl"
	"$bin" -d "$vd" > "$2" 2>&1
	st=$?
	echo 0 > "$sysctl"
	judge "$2" /tmp/vpt.expect.on "$vd" > "$2.res"
}

# vivid's S-Video input with V4L2_FIELD_ALTERNATE: read() cannot stream
# (vivid's queue_setup refuses the read() emulator): nothing can start.
if v4l2-ctl -d "$vd" -i 2 > /dev/null && v4l2-ctl -d "$vd" -v field=alternate &&
	[ "$(v4l2-ctl -d "$vd" -V | sed -n 's/^[[:space:]]*Field[[:space:]]*: //p')" = Alternating ]; then
	what_="video_poll_test -d $vd, vivid S-Video input, field alternate (no read()), switch on"
	where_start_fails "$what_" /tmp/vpt.alternate
	res=/tmp/vpt.alternate.res
	pri_bad=$(awk '$1 ~ /_pri$/ && !($2 == "skip" && /a wait for POLLIN starts no streaming here/) { printf "%s%s %s", s, $1, $2; s = ", " }' "$res")
	in_bad=$(awk '$1 ~ /_in$/ && $2 != "fail" { printf "%s%s %s", s, $1, $2; s = ", " }' "$res")
	pri=$(awk '$1 ~ /_pri$/' "$res" | grep -c .) in=$(awk '$1 ~ /_in$/' "$res" | grep -c .)
	if [ "$pri" = 0 ] || [ -n "$pri_bad" ] || [ -n "$in_bad" ] || [ "$st" != 1 ] ||
		! grep -q 'for POLLIN started no read()' /tmp/vpt.alternate; then
		not_ok "$what_: ${pri_bad:+POLLPRI-only cases not skipped: $pri_bad; }${in_bad:+POLLIN cases not failed: $in_bad; }exit $st"
		grep -E 'SKIP|^# .*:[0-9]+:' /tmp/vpt.alternate | head -5 | sed 's/^/# /'
	else
		ok "$what_: all $pri POLLPRI-only cases skip ($(awk '$1 ~ /_pri$/ { $1 = $2 = $3 = $4 = $5 = ""; sub(/^ +/, ""); print; exit }' "$res")), all $in POLLIN cases fail (no read() started), exit 1"
	fi
else
	not_ok "vivid: S-Video input with field alternate: v4l2-ctl could not set it"
fi
load vivid vivpoll vimc

# vivid's "Inject VIDIOC_STREAMON Error": the next start_streaming fails.
if v4l2-ctl -d "$vd" -c inject_vidioc_streamon_error=1; then
	what_="video_poll_test -d $vd after vivid's Inject VIDIOC_STREAMON Error (once), switch on"
	where_start_fails "$what_" /tmp/vpt.strerr
	res=/tmp/vpt.strerr.res
	first=$(head -1 "$res")
	wrong=$(sed 1d "$res" | awk '$4 != "right" { printf "%s%s (%s, expected %s)", s, $1, $2, $3; s = ", " }')
	if [ "$(echo "$first" | cut -d' ' -f1-2)" != "select_wake_pri skip" ] ||
		! echo "$first" | grep -q 'a wait for POLLIN starts no streaming here' || [ -n "$wrong" ]; then
		not_ok "$what_: first case '$first'${wrong:+; the others not as the matrix expects: $wrong}"
	else
		ok "$what_: the first case skips ($(echo "$first" | cut -d' ' -f6-)), the $(($(grep -c . "$res") - 1)) others as the matrix expects"
	fi
else
	not_ok "vivid: v4l2-ctl -c inject_vidioc_streamon_error=1 failed"
fi
end
