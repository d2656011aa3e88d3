#!/bin/sh
# Write udev's database entries for every V4L2 node, as udev does with
# 60-persistent-v4l.rules (v4l_id for ID_V4L_*, path_id for ID_PATH and the
# /dev/v4l/by-path links), so libudev users such as GStreamer's v4l2 device
# provider find the nodes. Run again after a module is loaded or unloaded.
set -eu
db=/run/udev/data
mkdir -p "$db" /dev/v4l/by-path
rm -f "$db"/c81:* /dev/v4l/by-path/*
now=$(awk '{ printf "%d", $1 * 1000000 }' /proc/uptime)
for s in /sys/class/video4linux/*; do
	[ -f "$s/dev" ] || continue
	node=${s##*/}
	mm=$(cat "$s/dev")
	# path_id on a platform device: platform-<device name>
	bus=$(basename "$(readlink -f "$s/device/subsystem")")
	path=$bus-$(basename "$(readlink -f "$s/device")")
	link=v4l/by-path/$path-video-index$(cat "$s/index")
	{
		echo "S:$link"
		echo "I:$now"
		/usr/lib/udev/v4l_id "/dev/$node" | sed 's/^/E:/'
		echo "E:ID_PATH=$path"
		echo "E:ID_PATH_TAG=$(echo "$path" | tr -c 'A-Za-z0-9\n' _)"
		echo "G:uaccess"
		echo "Q:uaccess"
		echo "V:1"
	} > "$db/c$mm.tmp"
	mv "$db/c$mm.tmp" "$db/c$mm"
	ln -sfn "../../$node" "/dev/$link"
done
