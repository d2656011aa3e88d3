#!/usr/bin/env bash
# Build what goes into the guest against the cached kernel: the vivpoll
# module, apps, tests, then the initramfs. Never rebuilds the kernel itself
# unless its cache key changed.
set -eu
. "$(dirname "$0")/lib.sh"

KDIR=$(tools/build-kernel.sh)
mkdir -p "$BUILD"
cd "$TOP"

# module SRC DIR: the out-of-tree module(s) of SRC built in a copy, DIR
# under $BUILD, so no Kbuild output lands in the source folder (cp -pu
# keeps unchanged files' times: make stays incremental).
module() {
	local src=$1 dir=$BUILD/$2 stamp ko
	[ -f "$src/Kbuild" ] || return 0
	mkdir -p "$dir"
	find "$src" -maxdepth 1 \( -name '*.[ch]' ! -name '*.mod.c' -o -name Kbuild \) \
		-exec cp -pu {} "$dir/" \;
	stamp=$dir/.kdir	# the kernel tree it was built against
	ko=$dir/.built
	# Kbuild's dependencies are relative to the kernel tree: objects built
	# against another tree (another config) look up to date. Start clean.
	if [ "$(cat "$stamp" 2>/dev/null)" != "$KDIR" ] || [ "$KDIR/Module.symvers" -nt "$ko" ]; then
		make -s -C "$KDIR" M="$dir" clean
		rm -f "$stamp"
	fi
	# Kbuild's own no-op run takes seconds: skip it when the modules are
	# newer than their sources.
	if [ ! -f "$ko" ] || [ ! -f "$stamp" ] ||
		[ -n "$(find "$dir" -maxdepth 1 \( -name '*.[ch]' ! -name '*.mod.c' -o -name Kbuild \) -newer "$ko")" ]; then
		say "module: ${src#"$TOP"/} (built in $dir)"
		make -s -C "$KDIR" M="$dir" W=1 modules
		echo "$KDIR" > "$stamp"
		touch "$ko"
	fi
}
module "$TOP/drivers/vivpoll" module
# the KUnit suite with a skipped case, for the fault drills only
module "$TOP/tests/drill" drill-module
# platform devices with resources on request, for 93-faults only
module "$TOP/tests/kmod" pdev-test-module
st=$(selftests_tree "$KDIR")
for d in apps tests; do
	if [ -f "$d/Makefile" ]; then
		# a line only when there is something to build
		make -q -s -C "$d" O="$BUILD/$d" KSRC="$KDIR" KSELFTESTS_FILTER="$st" 2> /dev/null ||
			say "$d: building into $BUILD/$d"
		make -s -C "$d" O="$BUILD/$d" KSRC="$KDIR" KSELFTESTS_FILTER="$st"
	fi
done
tools/build-initramfs.sh "$KDIR"
# GStreamer and ffmpeg: a bundle shared read-only into the guest, not packed.
ln -sfn "$(tools/build-clients.sh)" "$BUILD/clients"
