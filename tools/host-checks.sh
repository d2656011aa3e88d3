#!/usr/bin/env bash
# Host-side checks, printed as TAP: checkpatch --strict on the driver and the
# patches (the in-tree series' within 80 columns, as make check-series), and
# a W=1 + sparse (C=2) build of the module with no warning.
# These are static and deterministic: a clean result is remembered under
# $VIVPOLL_CACHE/checks by the hash of everything the check reads (the files,
# checkpatch.pl, the kernel tree or headers), so an unchanged input is not
# checked twice; a failure is never remembered and always shown.
#
# Every checkpatch run must exit 0 and print its "total: 0 errors,
# 0 warnings, 0 checks" line for each file it read: one that crashes prints
# no complaint and is not clean. The plan ("1..N", first) is what the
# repository has to check, counted before anything runs: two results for
# the driver's sources, two for each patch of patches/ (checkpatch, and
# tools/check-patch-warnings.sh: what -Wmaybe-uninitialized finds in the C
# files it touches that it does not in the pristine ones), five for make series
# and its identity and one for each of the three patches it writes (driver,
# admin-guide page, selftest), one for DKMS; a check that dies part-way, or
# a series short of a patch, leaves fewer: tools/check.sh fails it.
set -eu -o pipefail
. "$(dirname "$0")/lib.sh"

KDIR=$(tools/build-kernel.sh)
pristine=$(pristine_tree)
# Run checkpatch outside any git work tree: the patches name upstream
# commits that a tarball tree cannot look up. Outside git, checkpatch calls
# every "commit <id>" unknown (UNKNOWN_COMMIT_ID): that one check is left
# to a tree with history; the form of the reference (GIT_COMMIT_ID) is checked.
# VIVPOLL_FAULT=checkpatch-crash (tools/check-harness.sh): a checkpatch that
# dies at once.
checkpatch_pl=scripts/checkpatch.pl
if [ "${VIVPOLL_FAULT:-}" = checkpatch-crash ]; then
	checkpatch_pl=$(mktemp --suffix=.pl)
	echo 'die "checkpatch fault drill: crashed\n";' > "$checkpatch_pl"
fi
# checkpatch [-f] FILE...: its complaints on stdout, and a line for a run
# that did not end cleanly (non-zero status, or a file without its clean
# total line)
checkpatch() {
	local f o rc=0
	o=$(mktemp)
	(cd "$pristine" && perl "$checkpatch_pl" --strict --no-tree --show-types --ignore UNKNOWN_COMMIT_ID "$@") > "$o" 2>&1 || rc=$?
	grep -E '^(ERROR|WARNING|CHECK)|: (ERROR|WARNING|CHECK):' "$o" || true
	totals=$(grep -c '^total: ' "$o" || true)
	clean=$(grep -c '^total: 0 errors, 0 warnings, 0 checks, ' "$o" || true)
	files=0
	for f in "$@"; do [ ! -f "$f" ] || files=$((files + 1)); done
	if [ "$rc" != 0 ] || [ "$totals" != "$files" ] || [ "$clean" != "$files" ]; then
		echo "checkpatch exited with status $rc, $clean clean totals for $files files: $(grep -v '^$' "$o" | tail -1)"
	fi
	rm -f "$o"
}
# the plan, from what there is to check (see above)
plan=$(($(find "$TOP/drivers/vivpoll" -maxdepth 1 -name '*.[ch]' ! -name '*.mod.c' | grep -q . && echo 2 || echo 0) +
	2 * $(patch_files | grep -c . || true) +
	$([ -f "$TOP/drivers/vivpoll/Kconfig" ] && echo $((5 + 3)) || echo 0) +
	$([ -f "$TOP/drivers/vivpoll/dkms.conf" ] && echo 1 || echo 0)))
echo "1..$plan"

stamps=$VIVPOLL_CACHE/checks
mkdir -p "$stamps"
# clean NAME FILE...: true if this check passed before on these exact inputs
clean() {
	local name=$1
	shift
	key=$( { echo "$name ${VIVPOLL_FAULT:-}"; cat "$@" "$pristine/scripts/checkpatch.pl"; } | sha256sum | cut -c1-24)
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
trap 'rm -rf "$tmp"; [ "$checkpatch_pl" = scripts/checkpatch.pl ] || rm -f "$checkpatch_pl"' EXIT

# The driver's sources: what Kbuild generates (*.mod.c) is not ours.
srcs=$(find "$TOP/drivers/vivpoll" -maxdepth 1 -name '*.[ch]' ! -name '*.mod.c' | sort)
if [ -n "$srcs" ]; then
	# shellcheck disable=SC2086
	: > "$tmp/cp"
	# shellcheck disable=SC2086
	if ! clean checkpatch-f-oot $srcs; then
		# shellcheck disable=SC2086
		checkpatch -f $srcs > "$tmp/cp"
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
	if ! clean checkpatch "$p" "$TOP/tools/lib.sh"; then
		# shellcheck disable=SC2046 # the options, one word each
		checkpatch $(checkpatch_ignores "$p") "$p" > "$tmp/pp"
		[ -s "$tmp/pp" ] || remember
	fi
	result "checkpatch --strict patches/$(basename "$p")" "$tmp/pp"
	# the C files it touches, compiled as the kernel compiles them with
	# -Wmaybe-uninitialized: no warning the pristine files do not have
	: > "$tmp/pw"
	if ! clean "maybe-uninitialized $KDIR" "$p" "$TOP/tools/check-patch-warnings.sh"; then
		tools/check-patch-warnings.sh "$KDIR" "$pristine" "$p" > "$tmp/pw" 2>&1 ||
			[ -s "$tmp/pw" ] || echo "tools/check-patch-warnings.sh failed" > "$tmp/pw"
		[ -s "$tmp/pw" ] || remember
	fi
	result "patches/$(basename "$p"): the C files it touches gain no warning with -Wmaybe-uninitialized (GCC, the kernel's own command)" "$tmp/pw"
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
			# 80 columns, as the media subsystem's profile asks
			# (and make check-series checks)
			if ! clean checkpatch-80 "$p"; then
				checkpatch --max-line-length=80 "$p" > "$tmp/sp"
				[ -s "$tmp/sp" ] || remember
			fi
			result "checkpatch --strict --max-line-length=80 series/$(basename "$p")" "$tmp/sp"
		done
	else
		echo "not ok - make series generates the in-tree series # $(tail -1 "$tmp/gen")"
	fi
	# its identity: the runner's git identity, or no series
	tools/check-series-ident.sh
	[ "${VIVPOLL_FAULT:-}" != host-check-dies ] || exit 3
}
if [ -f "$TOP/drivers/vivpoll/Kconfig" ]; then
	# make series (1), its identity checks (4), a result a patch it writes
	me=$(git -C "$TOP" -c user.useConfigOnly=true var GIT_AUTHOR_IDENT 2>/dev/null | sed 's/> .*/>/')
	if clean "series $KVER $pristine $me" "$0" "$TOP"/tools/make-series.sh \
		"$TOP"/tools/check-series-ident.sh "$TOP"/tools/lib.sh "$TOP"/drivers/vivpoll/* \
		"$TOP"/selftests/media_tests/* \
		$(find "$TOP/patches" -type f | sort); then
		sed 's/^\(\(not \)\{0,1\}ok .*\)$/\1 (remembered: its inputs are unchanged)/' "$stamps/$key" > "$tmp/series.tap"
	else
		series_key=$key
		# in a subshell: one that dies part-way keeps what it printed
		set +e
		(series_checks) > "$tmp/series.tap"
		rc=$?
		set -e
		if [ "$rc" != 0 ]; then
			echo "not ok - the series checks exited with status $rc" >> "$tmp/series.tap"
		fi
		grep -q '^not ok' "$tmp/series.tap" || cp "$tmp/series.tap" "$stamps/$series_key"
	fi
	cat "$tmp/series.tap"
fi

# DKMS: the module builds for the installed Debian kernel's headers.
if [ -f "$TOP/drivers/vivpoll/dkms.conf" ]; then
	tools/check-dkms.sh
fi
[ "${VIVPOLL_FAULT:-}" != host-checks-exit ] || exit 4
