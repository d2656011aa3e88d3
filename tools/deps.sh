#!/usr/bin/env bash
# Install the Debian packages the make goals given ($@, make's MAKECMDGOALS)
# need; quiet when all are present. make check, make check-harness, make
# (the guest), run, shell and the series need neither the drawing nor the
# browser of make demo, make bench and make check-full (gnuplot, chromium:
# 81 MB of the download); any other goal, or none but deps, installs all.
# make check-series (and check-all) also install what only they need:
# coccinelle (with ocamlopt, which its OCaml scripts need) and the cross
# compilers of the series' builds for arm and arm64 (i386 builds with the
# native gcc, -m32), clang (16, and 19 for trees that want LLVM 17 or
# later) for the clang builds, and libsqlite3-dev for smatch
# (tools/build-smatch.sh).
set -eu
series_pkgs=(coccinelle ocaml-nox gcc-arm-linux-gnueabihf gcc-aarch64-linux-gnu clang-16 clang-19 libsqlite3-dev)
pkgs=(
	linux-source-6.1 qemu-system-x86 busybox-static v4l-utils libv4l-dev
	gcc make pkg-config flex bison bc libelf-dev libssl-dev cpio kmod
	ccache sparse patch xz-utils lz4 file perl python3 git rsync
	liburing-dev libpng-dev libaio-dev
	dkms linux-headers-amd64
	linux-source-6.12
	gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good
	gstreamer1.0-plugins-base-apps ffmpeg udev
)
# drawing and the page's browser: demo, bench, check-full (its page)
light=1
for g in "$@"; do
	case "$g" in
	check|check-harness|all|guest|kernel|run|shell|series|check-series|clean) ;;
	*) light=0 ;;
	esac
done
[ $# -gt 0 ] || light=0
[ "$light" = 1 ] || pkgs+=(gnuplot-nox chromium)
for g in "$@"; do
	case "$g" in check-series|check-all) pkgs+=("${series_pkgs[@]}") ;; esac
done
# linux-source-6.12 is always wanted: its selftest harness (tests/88-*).
# Kernels Debian 12 does not ship (7.2) come from the archive's newest
# suite through the project's own apt setup (tools/fetch-kernel.sh).
# One dpkg-query for all (one a package took 1.5 s of every make check).
installed=" $(dpkg-query -W -f='${Package}=${Status}\n' "${pkgs[@]}" 2>/dev/null |
	sed -n 's/=install ok installed$//p' | tr '\n' ' ') "
missing=()
for p in "${pkgs[@]}"; do
	case "$installed" in *" $p "*) ;; *) missing+=("$p") ;; esac
done
# v4l2-compliance and v4l2-ctl >= 1.32 (cached once made): after the
# packages. When the archive cannot give them (status 3, the reason said),
# everything else goes on and the tests that need them SKIP.
v4l_utils() { "$(dirname "$0")/build-v4l-utils.sh" > /dev/null || [ $? = 3 ]; }
kernel_source() {
	case "${KVER:-6.1}" in 6.1|6.12) ;; *) KVER=${KVER:-6.1} "$(dirname "$0")/fetch-kernel.sh" > /dev/null ;; esac
}
[ ${#missing[@]} -eq 0 ] && { v4l_utils; kernel_source; exit 0; }
echo "deps: installing ${missing[*]}" >&2
[ "$(id -u)" = 0 ] || { echo "deps: need root for apt-get (missing: ${missing[*]})" >&2; exit 1; }
export DEBIAN_FRONTEND=noninteractive
log=$(mktemp)
if ! { apt-get update -qq && apt-get install -y -qq --no-install-recommends "${missing[@]}"; } > "$log" 2>&1; then
	tail -20 "$log" >&2
	rm -f "$log"
	echo "deps: apt-get failed" >&2
	exit 1
fi
rm -f "$log"
v4l_utils
kernel_source
