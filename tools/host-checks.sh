#!/usr/bin/env bash
# Host-side checks, printed as TAP: checkpatch --strict on the driver and the
# patches, and a W=1 + sparse (C=2) build of the module with no warning.
# These are static and deterministic: a clean result is remembered under
# $VIVPOLL_CACHE/checks by the hash of everything the check reads (the files,
# checkpatch.pl, the kernel tree or headers), so an unchanged input is not
# checked twice; a failure is never remembered and always shown.
set -eu
. "$(dirname "$0")/lib.sh"

KDIR=$(tools/build-kernel.sh)
pristine=$(pristine_tree)
# Run checkpatch outside any git work tree: the patches name upstream
# commits that a tarball tree cannot look up. Outside git, checkpatch calls
# every "commit <id>" unknown (UNKNOWN_COMMIT_ID): that one check is left
# to a tree with history; the form of the reference (GIT_COMMIT_ID) is checked.
checkpatch() { (cd "$pristine" && perl scripts/checkpatch.pl --strict --no-tree --terse --ignore UNKNOWN_COMMIT_ID "$@"); }

stamps=$VIVPOLL_CACHE/checks
mkdir -p "$stamps"
# clean NAME FILE...: true if this check passed before on these exact inputs
clean() {
	local name=$1
	shift
	key=$( { echo "$name"; cat "$@" "$pristine/scripts/checkpatch.pl"; } | sha256sum | cut -c1-24)
	[ -f "$stamps/$key" ]
}
remember() { touch "$stamps/$key"; } # after clean(): its inputs passed

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
	: > "$tmp/cp"
	# shellcheck disable=SC2086
	if ! clean checkpatch-f-oot $srcs; then
		# shellcheck disable=SC2086
		checkpatch -f $srcs | grep -E 'ERROR|WARNING|CHECK' > "$tmp/cp" || true
		[ -s "$tmp/cp" ] || remember
	fi
	result "checkpatch --strict drivers/vivpoll" "$tmp/cp"

	# W=1 and sparse see only what gets compiled: build a copy from scratch,
	# and remember a clean result per source hash.
	# shellcheck disable=SC2086
	hash=$( { echo "$KDIR"; cat $srcs "$TOP/drivers/vivpoll/Kbuild"; } | sha256sum | cut -c1-16)
	stamp=$stamps/warncheck-$hash
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
	: > "$tmp/pp"
	if ! clean checkpatch "$p"; then
		checkpatch "$p" | grep -E 'ERROR|WARNING|CHECK' > "$tmp/pp" || true
		[ -s "$tmp/pp" ] || remember
	fi
	result "checkpatch --strict patches/$(basename "$p")" "$tmp/pp"
done

# The upstream-style series (make series): generated, and checkpatch-clean,
# and its identity checked; a clean run of all three is remembered by what
# they read, and replayed while that is unchanged.
series_checks() {
	# Checked as the runner when they have a git identity; a machine without
	# one (a fresh CI box) checks the same series under a local placeholder,
	# which only lands in this temporary folder (make series itself refuses).
	ident=(env)
	git -C "$TOP" -c user.useConfigOnly=true var GIT_AUTHOR_IDENT > /dev/null 2>&1 ||
		ident=(env GIT_AUTHOR_NAME="make check" GIT_AUTHOR_EMAIL="make-check@localhost")
	if SERIES_DIR=$tmp/series "${ident[@]}" tools/make-series.sh > "$tmp/gen" 2>&1; then
		echo "ok - make series generates the in-tree series"
		for p in "$tmp"/series/0*.patch; do
			case "$p" in */0000-cover-letter.patch) continue ;; esac
			: > "$tmp/sp"
			if ! clean checkpatch "$p"; then
				checkpatch "$p" | grep -E 'ERROR|WARNING|CHECK' > "$tmp/sp" || true
				[ -s "$tmp/sp" ] || remember
			fi
			result "checkpatch --strict series/$(basename "$p")" "$tmp/sp"
		done
	else
		echo "not ok - make series generates the in-tree series # $(tail -1 "$tmp/gen")"
	fi
	# its identity: the runner's git identity, or no series
	tools/check-series-ident.sh
}
if [ -f "$TOP/drivers/vivpoll/Kconfig" ]; then
	me=$(git -C "$TOP" -c user.useConfigOnly=true var GIT_AUTHOR_IDENT 2>/dev/null | sed 's/> .*/>/')
	if clean "series $KVER $pristine $me" "$TOP"/tools/make-series.sh \
		"$TOP"/tools/check-series-ident.sh "$TOP"/tools/lib.sh "$TOP"/drivers/vivpoll/* \
		"$TOP"/selftests/media_tests/* \
		$(find "$TOP/patches" -type f | sort); then
		sed 's/$/ (remembered: its inputs are unchanged)/' "$stamps/$key"
	else
		series_key=$key
		series_checks > "$tmp/series.tap"
		cat "$tmp/series.tap"
		grep -q '^not ok' "$tmp/series.tap" || cp "$tmp/series.tap" "$stamps/$series_key"
	fi
fi

# DKMS: the module builds for the installed Debian kernel's headers.
[ -f "$TOP/drivers/vivpoll/dkms.conf" ] && tools/check-dkms.sh
