#!/bin/sh
# v4l2-compliance on every vivpoll device with n_devs=2: streaming (-s),
# all formats (-f), and streaming on all inputs (-a). A run passes iff each
# of its summary lines says "Failed: 0, Warnings: 0"; failing lines are
# printed as TAP diagnostics.
#
# Plain -f streams one second for each format x size x interval (7 x 4 x 7
# = 196 combinations): about 250 s per device under TCG. The -f runs of the
# devices go in parallel (each reports to its own file), which keeps the
# test near 400 s. VIVPOLL_COMPLIANCE_QUICK=1 streams 2 frames per
# combination instead (-f 2), for a faster edit-test loop; make check runs
# the full command.
n=0 fails=0
ok() { n=$((n + 1)); echo "ok $n - $*"; }
not_ok() { n=$((n + 1)); fails=$((fails + 1)); echo "not ok $n - $*"; }
diag() { sed 's/^/# /'; }
out=/tmp/50-compliance
scale=${VIVPOLL_SCALE:-1}

echo "TAP version 13"
rmmod vivpoll 2> /dev/null
modprobe vivpoll n_devs=2 || { not_ok "modprobe vivpoll n_devs=2"; echo "1..$n"; exit 1; }
devs=$(for d in /dev/video*; do
	v4l2-ctl -d "$d" --info 2> /dev/null | grep -q 'Driver name *: vivpoll' && echo "$d"
done)
ndev=$(echo "$devs" | grep -c .)
if [ "$ndev" = 2 ]; then ok "n_devs=2 gives 2 vivpoll devices"; else not_ok "n_devs=2 gives 2 vivpoll devices (got $ndev)"; fi

# comply DEV OUT ARGS...: one v4l2-compliance run into OUT
comply() {
	dev=$1 o=$2; shift 2
	echo "v4l2-compliance -d $dev $* -C never" > "$o.what"
	timeout "$tmo" v4l2-compliance -d "$dev" "$@" -C never > "$o" 2>&1
	echo $? > "$o.rc"
}

# report OUT: one TAP line for a finished run
report() {
	o=$1
	what=$(cat "$o.what")
	totals=$(grep '^Total' "$o")
	if [ -z "$totals" ]; then
		not_ok "$what # no summary (exit $(cat "$o.rc"))"
		tail -20 "$o" | diag
		return
	fi
	echo "$totals" | diag
	if echo "$totals" | grep -qv 'Failed: 0, Warnings: 0'; then
		not_ok "$what # $(echo "$totals" | grep -v 'Failed: 0, Warnings: 0' | head -1)"
		grep -E 'fail:|warn:|FAIL|WARN' "$o" | head -40 | diag
	else
		ok "$what"
	fi
}

if [ "${VIVPOLL_COMPLIANCE_QUICK:-0}" = 1 ]; then
	fopt="-f 2" tmo=$((240 * scale))
else
	fopt="-f" tmo=$((500 * scale))
fi
i=0
for dev in $devs; do
	i=$((i + 1))
	# shellcheck disable=SC2086
	comply "$dev" "$out.f$i" -s $fopt &
done
wait
i=0
for dev in $devs; do
	i=$((i + 1))
	report "$out.f$i"
	comply "$dev" "$out.a$i" -s -a
	report "$out.a$i"
done

rmmod vivpoll 2> /dev/null; modprobe vivpoll
echo "1..$n"
[ "$fails" = 0 ]
