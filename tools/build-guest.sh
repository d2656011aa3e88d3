#!/usr/bin/env bash
# Build what goes into the guest against the cached kernel: the vivpoll
# module, apps, tests, then the initramfs. Never rebuilds the kernel itself
# unless its cache key changed.
set -eu
. "$(dirname "$0")/lib.sh"

KDIR=$(tools/build-kernel.sh)
mkdir -p "$BUILD"
cd "$TOP"

if [ -f drivers/vivpoll/Kbuild ]; then
	say "module: drivers/vivpoll"
	make -s -C "$KDIR" M="$TOP/drivers/vivpoll" W=1 modules
fi
for d in apps tests; do
	if [ -f "$d/Makefile" ]; then
		say "$d: building into $BUILD/$d"
		make -s -C "$d" O="$BUILD/$d" KSRC="$KDIR"
	fi
done
tools/build-initramfs.sh "$KDIR"
