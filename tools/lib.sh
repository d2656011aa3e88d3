# Shared settings for the host scripts (sourced, not run).
# shellcheck shell=bash
KVER=${KVER:-6.1}
KCONFIG=${KCONFIG:-default}
VIVPOLL_CACHE=${VIVPOLL_CACHE:-$HOME/.cache/vivpoll}
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$TOP/build/$KVER-$KCONFIG}
export CCACHE_DIR=${CCACHE_DIR:-$VIVPOLL_CACHE/ccache}

say() { printf '%s\n' "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# The identity of whoever runs a script, "Name <email>", taken as git
# format-patch and git commit take it: GIT_AUTHOR_NAME and GIT_AUTHOR_EMAIL,
# else user.name and user.email of the repository's configuration (local,
# global, system), never guessed from the host name. Dies without one.
git_ident() {
	local id
	id=$(git -C "$TOP" -c user.useConfigOnly=true var GIT_AUTHOR_IDENT 2> /dev/null) ||
		die "no git identity: set user.name and user.email (git config user.name 'Your Name'; git config user.email you@your.domain): a series needs a real author and Signed-off-by"
	echo "${id% * *}"
}

# The config fragments for a KCONFIG variant: base, then the variant's own,
# each followed by its guest/kconfig/$KVER/ counterpart when a kernel needs one.
kconfig_fragments() {
	local k=$TOP/guest/kconfig f
	for f in base $([ "$KCONFIG" = default ] || echo "$KCONFIG"); do
		[ -f "$k/$f.config" ] ||
			die "unknown KCONFIG=$KCONFIG (no guest/kconfig/$f.config)"
		echo "$k/$f.config"
		[ ! -f "$k/$KVER/$f.config" ] || echo "$k/$KVER/$f.config"
	done
}

# The patch files of the series for $KVER, in order, one path a line:
# patches/$KVER/series when that kernel needs its own port, else patches/series.
patch_dir() {
	if [ -f "$TOP/patches/$KVER/series" ]; then
		echo "$TOP/patches/$KVER"
	else
		echo "$TOP/patches"
	fi
}
patch_files() {
	local d s p
	d=$(patch_dir)
	s=$d/series
	[ -f "$s" ] || return 0
	while read -r p; do
		case "$p" in ''|'#'*) continue ;; esac
		[ -f "$d/$p" ] || die "${s#"$TOP"/} names $p, which is missing"
		echo "$d/$p"
	done < "$s"
}

# Cache key: kernel source package, patches, fragments, the build recipe.
kernel_key() {
	local tarball=/usr/src/linux-source-$KVER.tar.xz
	{
		dpkg-query -W -f='${Version}\n' "linux-source-$KVER" 2>/dev/null || true
		stat -c '%s %Y' "$tarball"
		patch_files | xargs -r cat
		kconfig_fragments | xargs cat
		cat "$TOP/tools/build-kernel.sh"
	} | sha256sum | cut -c1-12
}

kernel_dir() { echo "$VIVPOLL_CACHE/linux-$KVER-$KCONFIG-$(kernel_key)"; }

# The harness and epoll selftests of linux-source-6.12, extracted once. Its
# harness can leave tests out (-T); 6.1's cannot. The epoll test file is the
# same in both trees. make check's short tier uses it (tests/88-*).
selftests_tree() {
	local d=$VIVPOLL_CACHE/selftests-6.12 s=linux-source-6.12/tools/testing/selftests
	if [ ! -f "$d/kselftest_harness.h" ]; then
		[ -f /usr/src/linux-source-6.12.tar.xz ] || die "linux-source-6.12 missing: run 'make deps'"
		rm -rf "$d.tmp" && mkdir -p "$d.tmp"
		tar -xf /usr/src/linux-source-6.12.tar.xz -C "$d.tmp" --strip-components=4 \
			--wildcards "$s/kselftest*.h" "$s/filesystems/epoll/*"
		rm -rf "$d" && mv "$d.tmp" "$d"
	fi
	echo "$d"
}

# An untouched extracted tree (checkpatch, series generation); made once.
pristine_tree() {
	local d=$VIVPOLL_CACHE/pristine-$KVER
	if [ ! -f "$d/Makefile" ]; then
		rm -rf "$d.tmp"
		mkdir -p "$d.tmp"
		tar -xf "/usr/src/linux-source-$KVER.tar.xz" -C "$d.tmp" --strip-components=1
		rm -rf "$d"
		mv "$d.tmp" "$d"
	fi
	echo "$d"
}
