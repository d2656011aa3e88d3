#!/bin/sh
# 87-media-selftest: the kernel selftest the series adds,
# tools/testing/selftests/media_tests/video_poll_test (source:
# selftests/media_tests/), on vivid's video capture node (default module
# parameters) and on vivpoll, with fs.poll_legacy_null_table off and on.
#
# Off (today): every case passes on both drivers. On (the pre-v3.4 core):
# exactly the cases the matrix's expectations say start streaming
# (vivpoll-prove --expect=on, from apps/prove-expect.c) fail, on both
# drivers, each with the selftest's own "started streaming" message; the
# others pass. So the selftest is seen failing on a kernel that regresses,
# on the in-tree driver as well as on vivpoll.
#
# It must skip with the reason and exit 0 on a capture node without read()
# (vivpoll no_read=1) and on a node that is not a video capture node
# (vivid's video output), and with no node named it tests every video
# capture node it finds.
set -u
. /vivpoll/lib.sh
sysctl=/proc/sys/fs/poll_legacy_null_table
bin=/vivpoll/kselftest/video_poll_test
# the switch off, vivid unloaded, vivpoll with its defaults; then the verdict
end() {
	[ -w "$sysctl" ] && echo 0 > "$sysctl"
	rmmod vivid 2> /dev/null
	rmmod vivpoll 2> /dev/null
	modprobe vivpoll
	finish
}
# the nodes, 2 drivers x 2 switch settings, vivid's output, no -d, no_read=1
plan 10
if [ ! -x "$bin" ] || [ ! -w "$sysctl" ]; then
	not_ok "$bin or $sysctl missing"
	end
fi

# node NAME: the /dev node of the video device called NAME in sysfs
node() {
	for s in /sys/class/video4linux/video*; do
		[ "$(cat "$s/name")" = "$1" ] && echo "/dev/${s##*/}" && return
	done
}

# load VIVPOLL_PARAMS: vivid (default parameters, loaded afresh: another
# suite may have left it with its own) and vivpoll; sets the nodes vd
# (vivid's video capture), vo (vivid's video output), vp (vivpoll)
rmmod vivid 2> /dev/null
load() {
	rmmod vivpoll 2> /dev/null
	lsmod | grep -q '^vivid ' || modprobe vivid || return 1
	modprobe vivpoll "$@" || return 1
	vd=$(node vivid-000-vid-cap) vo=$(node vivid-000-vid-out) vp=$(node vivpoll-0)
	[ -n "$vd" ] && [ -n "$vo" ] && [ -n "$vp" ]
}
if ! load; then
	not_ok "modprobe vivid, vivpoll: nodes vivid-000-vid-cap '$vd', vivid-000-vid-out '$vo', vivpoll-0 '$vp'"
	end
fi
ok "nodes: vivid video capture $vd, vivid video output $vo, vivpoll $vp"

if ! vivpoll-prove --expect=off > /tmp/vpt.expect.off ||
	! vivpoll-prove --expect=on > /tmp/vpt.expect.on; then
	not_ok "vivpoll-prove --expect: the matrix's expectations"
	end
fi

# judge TAP EXPECT: one line a case of the selftest's output TAP, judged
# against the expectations EXPECT (NAME started|idle): a POLLPRI case must
# pass iff nothing starts streaming, a POLLIN case iff the read() emulator
# starts. NAME pass|fail|skip expected-pass|expected-fail right|WRONG
# reason-ok|-, reason-ok when a failure says "started streaming".
judge() {
	awk -v expfile="$2" '
		BEGIN { while ((getline l < expfile) > 0) { split(l, a, " "); ex[a[1]] = a[2] } }
		/^# .*:[0-9]+:[a-z_]+:.*started streaming/ { split($2, a, ":"); why[a[3]] = 1 }
		/^(not )?ok [0-9]+ / {
			k = ($1 == "ok") ? 3 : 4; split($k, a, "."); t = a[2]
			res = /# SKIP/ ? "skip" : ($1 == "ok") ? "pass" : "fail"
			want = (t ~ /_in$/) ? (ex[t] == "started") : (ex[t] == "idle")
			if (!(t in ex)) want = -1
			got[++m] = t; r[t] = res; w[t] = want
		}
		END { for (i = 1; i <= m; i++) { t = got[i]
			e = w[t] == 1 ? "pass" : w[t] == 0 ? "fail" : "unknown"
			print t, r[t], e, (r[t] == e ? "right" : "WRONG"), (why[t] ? "reason-ok" : "-") } }' "$1"
}

# run DRIVER NODE SWITCH: the selftest on NODE with the switch at 0 or 1
run() {
	[ "$3" = 1 ] && what=on || what=off
	out=/tmp/vpt.$1.$what
	echo "$3" > "$sysctl"
	t0=$(date +%s)
	"$bin" -d "$2" > "$out" 2>&1
	st=$?
	echo 0 > "$sysctl"
	judge "$out" "/tmp/vpt.expect.$what" > "$out.res"
	plan=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' "$out")
	got=$(grep -c . "$out.res")
	wrong=$(awk '$4 != "right" { printf "%s%s (%s, expected %s)", s, $1, $2, $3; s = ", " }' "$out.res")
	failed=$(awk '$2 == "fail" { printf "%s%s", s, $1; s = " " }' "$out.res")
	nofail=$(awk '$2 == "fail" { n++ } END { print n + 0 }' "$out.res")
	noreason=$(awk '$2 == "fail" && $5 != "reason-ok" { printf "%s%s", s, $1; s = " " }' "$out.res")
	[ -n "$failed" ] && want_st=1 || want_st=0
	what_="video_poll_test on $1 $2, switch $what ($(($(date +%s) - t0)) s)"
	if [ -z "$plan" ] || [ "$got" != "$plan" ] || [ "$plan" = 0 ]; then
		not_ok "$what_: $got results for plan '${plan}'"
		sed 's/^/# /' "$out" | tail -20
	elif [ -n "$wrong" ]; then
		not_ok "$what_: $got cases, not as the matrix expects: $wrong"
		grep -E '^# .*:[0-9]+:' "$out" | head -10
	elif [ -n "$noreason" ]; then
		not_ok "$what_: failed without saying it started streaming: $noreason"
		grep -E '^# .*:[0-9]+:' "$out" | head -10
	elif [ "$st" != "$want_st" ]; then
		not_ok "$what_: every case as expected, but the harness exited $st, not $want_st"
	else
		ok "$what_: all $got cases as the matrix expects; $nofail failed as expected${failed:+ ($failed)}; harness exit $st"
		# the first failure in the selftest's words
		grep -m1 -E '^# .*:[0-9]+:.*started streaming' "$out"
	fi
}

for sw in 0 1; do
	run vivid "$vd" $sw
	run vivpoll "$vp" $sw
done

# skip DESCRIPTION NODE REASON: every case skips with REASON, exit status 0
skip() {
	out=/tmp/vpt.skip
	"$bin" -d "$2" > "$out" 2>&1
	st=$?
	plan=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' "$out")
	skips=$(grep -cE "^ok [0-9]+ .*# SKIP .*$3" "$out")
	if [ "$st" = 0 ] && [ -n "$plan" ] && [ "$plan" != 0 ] && [ "$skips" = "$plan" ]; then
		# the reason without its "# SKIP": this check passed, it is no skip
		ok "video_poll_test on $1 $2: all $plan cases skip, exit 0, saying why: $(grep -m1 -o '# SKIP .*' "$out" | sed 's/^# SKIP //')"
	else
		not_ok "video_poll_test on $1 $2: exit $st, $skips of '$plan' cases skip with '$3'"
		sed 's/^/# /' "$out" | grep -E 'SKIP|ok' | head -5
	fi
}
skip "vivid's video output" "$vo" "not a video capture node"

# Without -d: every video capture node, vivid's and vivpoll's, the others
# named as not tested.
out=/tmp/vpt.all
"$bin" > "$out" 2>&1
st=$?
pass=$(grep -cE '^ok [0-9]+ video_poll\.[a-z_]+$' "$out")
plan=$(sed -n 's/^1\.\.\([0-9]*\)$/\1/p' "$out")
if [ "$st" = 0 ] && [ -n "$plan" ] && [ "$pass" = "$plan" ] &&
	grep -q "^# .*:not tested: .*$vo: not a video capture node" "$out"; then
	ok "video_poll_test without -d, switch off: all $plan cases pass on every capture node; $(grep -m1 -o 'not tested: .*' "$out")"
else
	not_ok "video_poll_test without -d, switch off: exit $st, $pass of '$plan' passed, or $vo not named as not tested"
	grep -E '^not ok|^# .*:[0-9]+:|not tested' "$out" | head -5 | sed 's/^/# /' 
fi

if load no_read=1; then
	skip "vivpoll no_read=1" "$vp" "no V4L2_CAP_READWRITE"
	if dd if="$vp" of=/dev/null bs=4096 count=1 2>&1 | grep -q 'Invalid argument'; then
		ok "read() on vivpoll no_read=1 fails with EINVAL"
	else
		not_ok "read() on vivpoll no_read=1 does not fail with EINVAL"
	fi
	# A node without read() is still a correct one (G_PARM's readbuffers 0):
	# no warning, no failure but those tests/50-compliance.sh tolerates on
	# this kernel as API drift (compliance-drift-X.Y.txt). Without -s: the
	# streaming tests are 50-compliance's, and under load they can warn
	# (2 warnings, not recorded, once on 6.12 in a loaded make check).
	o=/tmp/vpt.compliance
	v4l2-compliance -d "$vp" > "$o" 2>&1
	total=$(grep '^Total' "$o")
	drift=/vivpoll/compliance-drift-$(uname -r | cut -d. -f1,2).txt
	bad=$(grep -E 'fail: |warn: ' "$o" | sed 's/^[[:space:]]*//' | while read -r l; do
		t=${l#fail: }
		[ "$t" != "$l" ] && [ -f "$drift" ] && grep -qF "$t -- " "$drift" && continue
		echo "$l"
	done)
	if [ -n "$total" ] && [ -z "$bad" ] && [ -f "$drift" ] && grep -q 'fail: ' "$o"; then
		# tolerated drift is an expected failure, not a pass
		todo "v4l2-compliance on vivpoll no_read=1: $total" "failures tolerated as API drift on $(uname -r) (${drift##*/})"
	elif [ -n "$total" ] && [ -z "$bad" ]; then
		ok "v4l2-compliance on vivpoll no_read=1: $total"
	else
		not_ok "v4l2-compliance on vivpoll no_read=1: ${total:-no total}"
		echo "$bad" | head -10 | sed 's/^/# /'
	fi
else
	not_ok "modprobe vivpoll no_read=1"
fi
end
