#!/usr/bin/env bash
# make check-series: the generated series applies with `git am` to a pristine
# extracted tree (after patches/), the kernel builds with the driver in-tree
# (CONFIG_VIDEO_VIVPOLL=m) and the driver with W=1 without a warning, and
# checkpatch --strict is clean on every patch. The build is cached by key.
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
	if out=$(cd "$pristine" && perl scripts/checkpatch.pl --strict --no-tree --terse "$p" | grep -E 'ERROR|WARNING|CHECK'); then
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
		tar -xf "/usr/src/linux-source-$KVER.tar.xz" -C "$dir" --strip-components=1
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
	stage "configuring with CONFIG_VIDEO_VIVPOLL=m"
	printf 'CONFIG_VIDEO_VIVPOLL=m\nCONFIG_VIDEO_VIVPOLL_KUNIT_TEST=m\n' > .vivpoll-intree.config
	mk tinyconfig > .vivpoll-build.log 2>&1
	scripts/kconfig/merge_config.sh -m .config "$TOP/guest/kconfig/base.config" .vivpoll-intree.config >> .vivpoll-build.log 2>&1
	mk olddefconfig >> .vivpoll-build.log 2>&1
	grep -qx 'CONFIG_VIDEO_VIVPOLL=m' .config || die "CONFIG_VIDEO_VIVPOLL=m did not stick"
	stage "building bzImage and modules (log: $dir/.vivpoll-build.log)"
	mk bzImage modules >> .vivpoll-build.log 2>&1 || { tail -30 .vivpoll-build.log >&2; die "in-tree build failed"; }
	stage "rebuilding drivers/media/test-drivers/vivpoll with W=1"
	rm -f drivers/media/test-drivers/vivpoll/*.o
	mk W=1 drivers/media/test-drivers/vivpoll/ > .vivpoll-w1.log 2>&1 || true
	echo "$shash" > .vivpoll-built
	stage done
fi
if grep -qE 'warning|error' "$dir/.vivpoll-w1.log" || [ ! -f "$dir/drivers/media/test-drivers/vivpoll/vivpoll.ko" ]; then
	echo "not ok - in-tree build of the series with W=1"
	grep -E 'warning|error' "$dir/.vivpoll-w1.log" | head -10 | sed 's/^/# /'
	fail=1
else
	echo "ok - series applies with git am and builds in-tree (CONFIG_VIDEO_VIVPOLL=m, W=1, no warning)"
fi
exit $fail
