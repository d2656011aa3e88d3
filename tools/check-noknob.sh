#!/usr/bin/env bash
# The knob's Kconfig option off (KCONFIG=noknob: guest/kconfig/noknob.config
# after base.config): the patched kernel boots without
# fs.poll_legacy_null_table, and vivpoll loads and streams on it. TAP;
# non-zero on failure. Builds (or reuses) that kernel and its guest.
set -eu
export KCONFIG=noknob
unset BUILD
. "$(dirname "$0")/lib.sh"
cd "$TOP"

echo "1..3"
fail=0
tools/build-guest.sh >&2
cfg=$(tools/build-kernel.sh)/.config
if grep -qx 'CONFIG_POLL_LEGACY_NULL_TABLE=y' "$cfg"; then
	fail=1
	echo "not ok - $KVER noknob kernel is built without CONFIG_POLL_LEGACY_NULL_TABLE # it is set in $cfg"
else
	echo "ok - $KVER noknob kernel is built without CONFIG_POLL_LEGACY_NULL_TABLE"
fi
set +e
out=$(tools/qemu-run.sh --timeout 300 -- '
	if [ -e /proc/sys/fs/poll_legacy_null_table ]; then echo knob: present; else echo knob: absent; fi
	echo "fs sysctls: $(ls /proc/sys/fs | tr "\n" " ")"
	v4l2-ctl -d /dev/video0 --stream-mmap --stream-count=3 > /dev/null 2>&1 && echo capture: ok || echo capture: failed' 2>&1)
rc=$?
set -e
echo "$out" | sed 's/^/# /'
if [ "$rc" = 0 ] && echo "$out" | grep -qx 'knob: absent'; then
	echo "ok - $KVER noknob kernel: /proc/sys/fs/poll_legacy_null_table does not exist"
else
	fail=1
	echo "not ok - $KVER noknob kernel: /proc/sys/fs/poll_legacy_null_table does not exist # guest status $rc, $(echo "$out" | grep '^knob:' || echo 'no answer')"
fi
if [ "$rc" = 0 ] && echo "$out" | grep -qx 'capture: ok'; then
	echo "ok - $KVER noknob kernel: vivpoll loads and v4l2-ctl captures 3 frames"
else
	fail=1
	echo "not ok - $KVER noknob kernel: vivpoll loads and v4l2-ctl captures 3 frames # guest status $rc"
fi
exit $fail
