#!/usr/bin/env bash
# With CONFIG_POLL_LEGACY_NULL_TABLE off, the patched fs/select.c and
# fs/eventpoll.c compile to the instructions of the unpatched ones (issue
# 25: "with the option off the patched kernel must be the unpatched one").
# One TAP line per object, for KVER. Uses the built default kernel of the
# cache (tools/build-kernel.sh: configured and prepared), copied to a scratch
# folder: the option turned off there, the two objects built from the
# patched sources, then from the pristine tree's (the option's Kconfig
# entry and fs/internal.h's heading with them), and `objdump -d` of each
# compared. GCC names a static function's clones after what it did to them
# (.constprop.0, .isra.0), which a change of its callers can change: the
# suffixes are dropped before comparing, the instructions and their bytes
# are not. Takes a few minutes (the copy and two single-object builds);
# builds no kernel image.
set -eu
. "$(dirname "$0")/lib.sh"
cd "$TOP"

kdir=$(KCONFIG=default tools/build-kernel.sh)
pristine=$(pristine_tree)
files=(fs/select.c fs/eventpoll.c fs/internal.h fs/Kconfig)
objs=(fs/select.o fs/eventpoll.o)
scratch=$(mktemp -d "${TMPDIR:-/tmp}/vivpoll-noknob-objects.XXXXXX")
trap 'rm -rf "$scratch"' EXIT

say "check-noknob-objects: copying $kdir"
cp -a "$kdir" "$scratch/tree"
cd "$scratch/tree"
mk() { make -s -j"$(nproc)" CC="ccache gcc" HOSTCC="ccache gcc" "$@"; }
scripts/config --disable POLL_LEGACY_NULL_TABLE
mk olddefconfig
! grep -q '^CONFIG_POLL_LEGACY_NULL_TABLE=y' .config ||
	die "CONFIG_POLL_LEGACY_NULL_TABLE stayed on in the scratch tree"
# the section headers name the object's path: dump from a fixed name
dump() { # dump OBJ OUT: instructions with bytes, clone suffixes dropped
	cp "$1" "$scratch/obj.o"
	objdump -d "$scratch/obj.o" | tail -n +3 |
		sed -E 's/\.(constprop|isra|part|cold)\.[0-9]+//g' > "$2"
}
rm -f "${objs[@]}"
mk "${objs[@]}"
for o in "${objs[@]}"; do dump "$o" "$scratch/patched-${o##*/}.txt"; done
for f in "${files[@]}"; do cp "$pristine/$f" "$f"; done
mk olddefconfig
rm -f "${objs[@]}"
mk "${objs[@]}"
for o in "${objs[@]}"; do dump "$o" "$scratch/pristine-${o##*/}.txt"; done

echo "1..2"
fail=0
for o in "${objs[@]}"; do
	n=${o##*/}
	what="$KVER: $o with the option off has the unpatched tree's instructions (objdump -d)"
	if cmp -s "$scratch/patched-$n.txt" "$scratch/pristine-$n.txt"; then
		echo "ok - $what, $(grep -c '^ ' "$scratch/pristine-$n.txt") instructions"
	else
		fail=1
		echo "not ok - $what"
		diff "$scratch/pristine-$n.txt" "$scratch/patched-$n.txt" | head -20 | sed 's/^/# /'
	fi
done
exit "$fail"
