#!/bin/sh
# 94-params: vivpoll's module parameter. A bad value (n_devs not a number
# or out of 1-8) makes modprobe fail with a kernel log line naming the
# parameter and the value, and leaves nothing registered: no module, no
# vivpoll.N platform device, no debugfs folder, no video node (the driver
# makes no debugfs folder: one would be a leftover); the message is the
# module loader's, as param_set_uint_minmax() leaves it. n_devs=8, the
# documented maximum, gives 8 working devices. A registration that fails
# part-way (the second device finds no free video minor: vivid takes all
# but one first) unwinds the first device as well.
#
# Ends with vivpoll loaded with its defaults, as the guest boots it.
. /vivpoll/lib.sh
sysv4l=/sys/class/video4linux

# what vivpoll left registered, on one line; empty if nothing
leftovers() {
	grep -q '^vivpoll ' /proc/modules && printf 'module loaded; '
	for d in /sys/bus/platform/devices/vivpoll.*; do
		[ -e "$d" ] && printf 'platform device %s; ' "${d##*/}"
	done
	[ -e /sys/kernel/debug/vivpoll ] &&
		printf 'debugfs %s; ' "$(ls /sys/kernel/debug/vivpoll | tr '\n' ' ')"
	for s in $sysv4l/*; do
		# read, not cat: vivid's 255 nodes, a fork each, take seconds
		[ -f "$s/name" ] && read -r name < "$s/name" || continue
		case $name in
		vivpoll*) printf 'video node %s (%s); ' "${s##*/}" "$name" ;;
		esac
	done
}

# the kernel log since the last mark()
mark() { echo "vivpoll-test 94-params: $1" > /dev/kmsg; last_mark="vivpoll-test 94-params: $1"; }
log_since_mark() { dmesg | sed -n "\\|$last_mark|,\$p" | sed 1d; }

# refused PARAMS REGEX: modprobe fails, the log matches REGEX (a line that
# names the parameter and its value), nothing is left behind
refused() {
	params=$1 re=$2 why=
	rmmod vivpoll 2> /dev/null
	mark "modprobe vivpoll $params"
	if out=$(modprobe vivpoll $params 2>&1); then
		why="modprobe succeeded; "
	fi
	log=$(log_since_mark)
	echo "$log" | grep -Eq "$re" ||
		why="${why}no kernel log line matching '$re' (log: $(echo "$log" | tr '\n' '|')); "
	why="$why$(leftovers)"
	check "modprobe vivpoll $params is refused with a reason, nothing registered" "$why"
	[ -z "$out" ] || echo "$out" | sed 's/^/#   modprobe: /'
	echo "$log" | sed 's/^/#   log: /'
	rmmod vivpoll 2> /dev/null
}

plan 10
echo "# 94-params: vivpoll's module parameter"
rmmod vivpoll 2> /dev/null
check "vivpoll unloads, nothing left" "$(leftovers)"

refused "n_devs=abc" "n_devs.*abc|abc.*n_devs"
refused "n_devs=9" "9' invalid for parameter .n_devs"
refused "n_devs=0" "0' invalid for parameter .n_devs"
refused "n_devs=-1" "[-]1' invalid for parameter .n_devs"

# n_devs=8: the documented maximum works, and unloads without a trace
why=
if ! out=$(modprobe vivpoll n_devs=8 2>&1); then
	why="modprobe failed: $out; "
else
	for i in 0 1 2 3 4 5 6 7; do
		[ -e /sys/bus/platform/drivers/vivpoll/vivpoll.$i ] || why="${why}vivpoll.$i not bound; "
		grep -qx "vivpoll-$i" $sysv4l/*/name || why="${why}no video node vivpoll-$i; "
	done
fi
[ ! -e /sys/kernel/debug/vivpoll ] || why="${why}a debugfs folder vivpoll (the driver makes none); "
check "n_devs=8 gives 8 bound devices with their video nodes (and no debugfs folder)" "$why"

rmmod vivpoll 2> /dev/null
check "vivpoll with n_devs=8 unloads, nothing left" "$(leftovers)"

# A registration that fails part-way: vivid takes every video minor but
# one (VIDEO_NUM_DEVICES is 256; a vivid instance with its default node
# types has 10 nodes, with node_types=0x1 one), so vivpoll.0 registers and
# vivpoll.1 finds no free minor. Nothing of vivpoll.0 may stay.
why=
used=$(ls $sysv4l | wc -l)
free=$((256 - used - 1))
if grep -q '^vivid ' /proc/modules; then
	why="vivid is already loaded"
elif [ "$free" -lt 1 ]; then
	why="only $((256 - used)) video minors are free"
else
	big=$((free / 10)) small=$((free % 10)) types=
	i=0
	while [ $i -lt $((big + small)) ]; do
		[ $i -lt $big ] && t=0xe1d3d || t=0x1
		types=${types:+$types,}$t
		i=$((i + 1))
	done
	t0=$(date +%s)
	if ! out=$(modprobe vivid n_devs=$((big + small)) node_types=$types 2>&1); then
		why="modprobe vivid n_devs=$((big + small)): $out"
	elif [ "$(ls $sysv4l | wc -l)" != 255 ]; then
		why="vivid left $((256 - $(ls $sysv4l | wc -l))) minors free, not 1"
	fi
	echo "# vivid: $((big + small)) instances, $free nodes, loaded in $(($(date +%s) - t0)) s"
fi
if [ -n "$why" ]; then
	not_ok "a registration that fails part-way is unwound # cannot set it up: $why"
else
	refused "n_devs=2" "vivpoll\\.1"
fi
t0=$(date +%s)
rmmod vivid 2> /dev/null
check "vivid unloads" "$(grep -q '^vivid ' /proc/modules && echo "still loaded")"
echo "# vivid unloaded in $(($(date +%s) - t0)) s"

why=
modprobe vivpoll || why="modprobe vivpoll failed; "
[ -e /sys/bus/platform/drivers/vivpoll/vivpoll.0 ] || why="${why}vivpoll.0 is not bound; "
check "vivpoll loads again with its defaults" "$why"
finish
