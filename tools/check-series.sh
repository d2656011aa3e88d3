#!/usr/bin/env bash
# make check-series: the generated series applies with `git am` to a pristine
# extracted tree (after patches/), the kernel builds with the driver in-tree
# (CONFIG_VIDEO_VIVPOLL=m, vivid off: vivpoll's Kconfig alone brings in its
# fonts) and the driver with W=1 without a warning, the kernel selftest
# media_tests/video_poll_test builds with kselftest's make, and checkpatch
# --strict is clean on every patch. The build is cached by key.
set -eu
. "$(dirname "$0")/lib.sh"

series=$BUILD/series
ident=$(git_ident)
name=${ident% <*}
email=${ident##*<}
email=${email%>}
SERIES_DIR=$series tools/make-series.sh
pristine=$(pristine_tree)
# The tree is keyed by patches/ and the config; a new series is applied
# on top of the "base" tag (pristine + patches/) and built incrementally.
key=$({ patch_files | xargs -r cat; cat "$TOP/guest/kconfig/base.config" "$0"; } |
	sha256sum | cut -c1-12)
shash=$(cat "$series"/0*.patch | sha256sum | cut -c1-16)
dir=$VIVPOLL_CACHE/intree-$KVER-$key

fail=0
for p in $(patch_files) "$series"/0*.patch; do
	case "$p" in */0000-cover-letter.patch) continue ;; esac
	# UNKNOWN_COMMIT_ID: see tools/host-checks.sh (a tarball has no history)
	if out=$(cd "$pristine" && perl scripts/checkpatch.pl --strict --no-tree --terse \
		--ignore UNKNOWN_COMMIT_ID "$p" | grep -E 'ERROR|WARNING|CHECK'); then
		echo "not ok - checkpatch --strict $(basename "$p")"
		echo "$out" | sed 's/^/# /'
		fail=1
	else
		echo "ok - checkpatch --strict $(basename "$p")"
	fi
done

if [ "$(cat "$dir/.vivpoll-built" 2> /dev/null)" != "$shash" ]; then
	exec 9>"$VIVPOLL_CACHE/.kernel-build.lock"
	flock 9
	start=$(date +%s)
	stage() { say "check-series: [$(($(date +%s) - start))s] $*"; }
	# git am commits as whoever runs this (make-series.sh has checked
	# there is an identity).
	g() { git -C "$dir" -c user.name="$name" -c user.email="$email" "$@"; }
	if [ ! -f "$dir/.vivpoll-base" ]; then
		rm -rf "$dir" && mkdir -p "$dir"
		stage "extracting and committing a pristine tree"
		tar -xf "$(kernel_tarball)" -C "$dir" --strip-components=1
		# Debian's .gitignore ignores the whole top level: add with -f.
		g init -q && g add -f -A . && g commit -q -m pristine
		for p in $(patch_files); do
			stage "git am $(basename "$p")"
			g am -q "$p" || die "git am $(basename "$p") failed"
		done
		g tag -f base > /dev/null
		touch "$dir/.vivpoll-base"
	fi
	g reset -q --hard base
	for p in $(sed "s|^|$series/|" "$series/series"); do
		stage "git am $(basename "$p")"
		g am -q "$p" || { g am --abort; die "git am $(basename "$p") failed"; }
	done
	cd "$dir"
	mk() { make -j"$(nproc)" CC="ccache gcc" HOSTCC="ccache gcc" "$@"; }
	# base.config without vivid, the one driver there that selects the
	# fonts vivpoll draws with (FONT_SUPPORT, FONT_8x16), so that only
	# vivpoll's Kconfig can bring them in: configured once without
	# vivpoll (.vivpoll-without.config, where they must be off), then
	# with it (.config).
	printf '# CONFIG_VIDEO_VIVID is not set\n' > .vivpoll-novivid.config
	printf 'CONFIG_VIDEO_VIVPOLL=m\nCONFIG_VIDEO_VIVPOLL_KUNIT_TEST=m\n' > .vivpoll-intree.config
	configure() {
		mk tinyconfig &&
			scripts/kconfig/merge_config.sh -m .config "$TOP/guest/kconfig/base.config" \
				.vivpoll-novivid.config "$@" && mk olddefconfig
	}
	stage "configuring without vivid and without vivpoll"
	configure > .vivpoll-build.log 2>&1 || die "configuring failed (log: $dir/.vivpoll-build.log)"
	cp .config .vivpoll-without.config
	stage "configuring without vivid, with CONFIG_VIDEO_VIVPOLL=m"
	configure .vivpoll-intree.config >> .vivpoll-build.log 2>&1 || die "configuring failed (log: $dir/.vivpoll-build.log)"
	grep -qx 'CONFIG_VIDEO_VIVPOLL=m' .config || die "CONFIG_VIDEO_VIVPOLL=m did not stick"
	rm -f .vivpoll-build-failed
	stage "building bzImage and modules (log: $dir/.vivpoll-build.log)"
	if mk bzImage modules >> .vivpoll-build.log 2>&1; then
		stage "rebuilding drivers/media/test-drivers/vivpoll with W=1"
		rm -f drivers/media/test-drivers/vivpoll/*.o
		mk W=1 drivers/media/test-drivers/vivpoll/ > .vivpoll-w1.log 2>&1 || true
		# The selftest as kselftest builds it: headers installed first
		# (KHDR_INCLUDES), then the media_tests target, from scratch.
		stage "make headers; make -C tools/testing/selftests TARGETS=media_tests"
		rm -f tools/testing/selftests/media_tests/video_poll_test
		{ mk headers && make -C tools/testing/selftests TARGETS=media_tests; } \
			> .vivpoll-selftest.log 2>&1 || echo "error: make failed" >> .vivpoll-selftest.log
		echo "$shash" > .vivpoll-built
	else
		tail -30 .vivpoll-build.log >&2
		grep -m3 -E 'ERROR: |error: ' .vivpoll-build.log > .vivpoll-build-failed || echo "make failed" > .vivpoll-build-failed
	fi
	stage done
fi

# The fonts: off without vivpoll, on with it, vivid off in both.
sym() { sed -n "s/^CONFIG_$1=//p" "$2" | grep . || echo n; }
why=
for c in "$dir/.vivpoll-without.config" "$dir/.config"; do
	[ "$(sym VIDEO_VIVID "$c")" = n ] || why="$why ${c##*/} has CONFIG_VIDEO_VIVID=$(sym VIDEO_VIVID "$c");"
done
without="FONT_SUPPORT=$(sym FONT_SUPPORT "$dir/.vivpoll-without.config") FONT_8x16=$(sym FONT_8x16 "$dir/.vivpoll-without.config")"
with="FONT_SUPPORT=$(sym FONT_SUPPORT "$dir/.config") FONT_8x16=$(sym FONT_8x16 "$dir/.config")"
[ "$without" = "FONT_SUPPORT=n FONT_8x16=n" ] || why="$why without vivpoll $without: something else selects the fonts;"
case "$with" in FONT_SUPPORT=[ym]\ FONT_8x16=y) ;; *) why="$why with vivpoll $with: VIDEO_VIVPOLL does not select them;" ;; esac
if [ -n "$why" ]; then
	echo "not ok - the fonts vivpoll draws with come from its Kconfig (vivid off) #$why"
	fail=1
else
	echo "ok - the fonts vivpoll draws with come from its Kconfig (vivid off: without vivpoll $without, with it $with)"
fi
if [ -f "$dir/.vivpoll-build-failed" ]; then
	echo "not ok - in-tree build of the series (vivid off) # $(head -1 "$dir/.vivpoll-build-failed")"
	sed 's/^/# /' "$dir/.vivpoll-build-failed"
	fail=1
elif grep -qE 'warning|error' "$dir/.vivpoll-w1.log" || [ ! -f "$dir/drivers/media/test-drivers/vivpoll/vivpoll.ko" ]; then
	echo "not ok - in-tree build of the series with W=1"
	grep -E 'warning|error' "$dir/.vivpoll-w1.log" | head -10 | sed 's/^/# /'
	fail=1
else
	echo "ok - series applies with git am and builds in-tree (CONFIG_VIDEO_VIVPOLL=m, vivid off, W=1, no warning)"
fi
# The selftest: built from the series' tree by kselftest's own make, no
# warning from it, and run on the host against a node that is no V4L2 node:
# the whole test skips, exit 4 (its verdicts need the guest: tests/87-*).
st=$dir/tools/testing/selftests/media_tests/video_poll_test
if [ ! -x "$st" ] || grep -E 'video_poll_test.*(warning|error)|^error' "$dir/.vivpoll-selftest.log" > /dev/null; then
	echo "not ok - make -C tools/testing/selftests TARGETS=media_tests builds video_poll_test"
	grep -E 'warning|error' "$dir/.vivpoll-selftest.log" | head -10 | sed 's/^/# /'
	fail=1
elif out=$("$st" -d /dev/null 2>&1); [ $? = 4 ] && echo "$out" | grep -q '^1\.\.0 # SKIP /dev/null: not a V4L2 node'; then
	echo "ok - make -C tools/testing/selftests TARGETS=media_tests builds video_poll_test in-tree, no warning; on /dev/null the whole test skips, exit 4"
else
	echo "not ok - in-tree video_poll_test -d /dev/null: not a whole-test skip with exit 4"
	echo "$out" | tail -5 | sed 's/^/# /'
	fail=1
fi
exit $fail
