#!/bin/sh
# Boot smoke test: the guest runs the patched kernel (6.1, 6.12, 7.2 or 7.3), the driver and the
# comparison modules load, /dev, debugfs and the host share are usable.
. /vivpoll/lib.sh
plan 11
try "kernel is 6.1, 6.12, 7.2 or 7.3, the one whose modules the guest holds ($(uname -r))" \
	sh -c 'uname -r | grep -Eq "^(6\.1|6\.12|7\.[23])\." && [ -f "/lib/modules/$(uname -r)/modules.dep" ]'
try "legacy poll switch exists and is off" sh -c '[ "$(cat /proc/sys/fs/poll_legacy_null_table)" = 0 ]'
try "vivpoll is loaded" sh -c 'grep -q "^vivpoll " /proc/modules'
try "vivid loads and unloads" sh -c 'modprobe vivid n_devs=1 && rmmod vivid'
try "a /dev/video node exists" sh -c 'ls /dev/video* > /dev/null'
try "debugfs is mounted" sh -c 'grep -q " /sys/kernel/debug debugfs " /proc/mounts'
# bad module parameters: refused with a message, and nothing is left behind
try "vivpoll refuses n_devs=0" sh -c 'rmmod vivpoll && ! modprobe vivpoll n_devs=0 && dmesg | grep -q "0'"'"' invalid for parameter .n_devs"'
try "vivpoll refuses n_devs=9" sh -c '! modprobe vivpoll n_devs=9 && ! grep -q "^vivpoll " /proc/modules'
try "vivpoll refuses n_devs=-1" sh -c '! modprobe vivpoll n_devs=-1 && ! grep -q "^vivpoll " /proc/modules'
try "vivpoll loads again with its defaults" sh -c 'modprobe vivpoll && [ -e /sys/bus/platform/devices/vivpoll.0 ]'
try "/host is writable" sh -c 'echo smoke > /host/.smoke && [ "$(cat /host/.smoke)" = smoke ] && rm /host/.smoke'
finish
