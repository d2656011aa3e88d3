#!/usr/bin/env bash
# Host-side checks, printed as TAP: checkpatch --strict on the driver and the
# patches, and a W=1 + sparse (C=2) build of the module with no warning.
set -eu
. "$(dirname "$0")/lib.sh"

KDIR=$(tools/build-kernel.sh)
pristine=$(pristine_tree)
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

# The upstream-style series (make series): generated, and checkpatch-clean.
if [ -f "$TOP/drivers/vivpoll/Kconfig" ]; then
	if SERIES_DIR=$tmp/series tools/make-series.sh > "$tmp/gen" 2>&1; then
		echo "ok - make series generates the in-tree series"
		for p in "$tmp"/series/0*.patch; do
			case "$p" in */0000-cover-letter.patch) continue ;; esac
			checkpatch "$p" | grep -E 'ERROR|WARNING|CHECK' > "$tmp/sp" || true
			result "checkpatch --strict series/$(basename "$p")" "$tmp/sp"
		done
	else
		echo "not ok - make series generates the in-tree series # $(tail -1 "$tmp/gen")"
	fi
fi

# DKMS: the module builds for the installed Debian kernel's headers.
[ -f "$TOP/drivers/vivpoll/dkms.conf" ] && tools/check-dkms.sh
