#!/usr/bin/env bash
# Host-side checks, printed as TAP: checkpatch --strict on the driver and the
# patches, and a W=1 + sparse (C=2) build of the module with no warning.
set -eu
. "$(dirname "$0")/lib.sh"

KDIR=$(tools/build-kernel.sh)
pristine=$VIVPOLL_CACHE/pristine-$KVER
if [ ! -x "$pristine/scripts/checkpatch.pl" ]; then
	rm -rf "$pristine.tmp"
	mkdir -p "$pristine.tmp"
	tar -xf "/usr/src/linux-source-$KVER.tar.xz" -C "$pristine.tmp" --strip-components=1
	mv "$pristine.tmp" "$pristine"
fi
# Run checkpatch outside any git work tree: the patches name upstream
# commits that a tarball tree cannot look up.
checkpatch() { (cd "$pristine" && perl scripts/checkpatch.pl --strict --no-tree --terse "$@"); }

result() { # result NAME OUTPUT-FILE: ok if the file is empty
	if [ -s "$2" ]; then
		echo "not ok - $1 # $(head -1 "$2")"
		sed 's/^/# /' "$2" | head -20
	else
		echo "ok - $1"
	fi
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The driver's sources: what Kbuild generates (*.mod.c) is not ours.
srcs=$(find "$TOP/drivers/vivpoll" -maxdepth 1 -name '*.[ch]' ! -name '*.mod.c' | sort)
if [ -n "$srcs" ]; then
	# shellcheck disable=SC2086
	checkpatch -f $srcs | grep -E 'ERROR|WARNING|CHECK' > "$tmp/cp" || true
	result "checkpatch --strict drivers/vivpoll" "$tmp/cp"

	# W=1 and sparse see only what gets compiled: build a copy from scratch,
	# and remember a clean result per source hash.
	# shellcheck disable=SC2086
	hash=$(cat $srcs "$TOP/drivers/vivpoll/Kbuild" | sha256sum | cut -c1-16)
	stamp=$BUILD/warncheck-$hash.ok
	if [ ! -f "$stamp" ]; then
		w=$BUILD/warncheck
		rm -rf "$w" && mkdir -p "$w"
		# shellcheck disable=SC2086
		cp $srcs "$TOP/drivers/vivpoll/Kbuild" "$w/"
		make -C "$KDIR" M="$w" W=1 C=2 modules > "$tmp/w.log" 2>&1 || echo "error: build failed" >> "$tmp/w.log"
		grep -E 'warning|error' "$tmp/w.log" > "$tmp/warn" || true
		[ -s "$tmp/warn" ] || touch "$stamp"
	fi
	: > "$tmp/empty"
	result "drivers/vivpoll builds with W=1 C=2 without a warning" "${tmp}/$( [ -f "$stamp" ] && echo empty || echo warn)"
fi

for p in $(patch_files); do
	checkpatch "$p" | grep -E 'ERROR|WARNING|CHECK' > "$tmp/pp" || true
	result "checkpatch --strict patches/$(basename "$p")" "$tmp/pp"
done
