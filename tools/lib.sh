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

# The config fragments for a KCONFIG variant: base, then the variant's own.
kconfig_fragments() {
	echo "$TOP/guest/kconfig/base.config"
	if [ "$KCONFIG" != default ]; then
		[ -f "$TOP/guest/kconfig/$KCONFIG.config" ] ||
			die "unknown KCONFIG=$KCONFIG (no guest/kconfig/$KCONFIG.config)"
		echo "$TOP/guest/kconfig/$KCONFIG.config"
	fi
}

# The patch files of patches/series, in order, one path a line.
patch_files() {
	local s=$TOP/patches/series p
	[ -f "$s" ] || return 0
	while read -r p; do
		case "$p" in ''|'#'*) continue ;; esac
		[ -f "$TOP/patches/$p" ] || die "patches/series names $p, which is missing"
		echo "$TOP/patches/$p"
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
