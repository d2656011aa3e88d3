#!/usr/bin/env bash
# Assemble the real clients (GStreamer, ffmpeg) from the installed Debian
# packages into a bundle that the guest mounts read-only at /opt/clients
# (tools/qemu-run.sh shares it; guest/init mounts it). Prints its path.
#
# Layout: bin/ wrappers (set the library and plugin paths, then exec the
# program), libexec/ the unmodified programs, lib/ every shared library they
# and the plugins need (ldd), gst-plugins/ the GStreamer plugins we use.
# Files are hard links where the cache is on the same file system as /usr.
# Built once per set of package versions ($VIVPOLL_CACHE/clients-<key>).
set -eu
. "$(dirname "$0")/lib.sh"

pkgs=(gstreamer1.0-tools gstreamer1.0-plugins-base gstreamer1.0-plugins-good gstreamer1.0-plugins-base-apps
	libgstreamer1.0-0 libgstreamer-plugins-base1.0-0 ffmpeg libc6)
progs=(/usr/bin/gst-launch-1.0 /usr/bin/gst-inspect-1.0 /usr/bin/gst-device-monitor-1.0
	/usr/bin/ffmpeg /usr/bin/ffprobe)
gstlib=/usr/lib/x86_64-linux-gnu/gstreamer-1.0
scanner=/usr/lib/x86_64-linux-gnu/gstreamer1.0/gstreamer-1.0/gst-plugin-scanner
# v4l2src, videoconvert/videoscale, pngenc, multifilesink, videorate,
# capsfilter/queue/fakesink/filesink (coreelements), typefind, appsink.
plugins=(coreelements video4linux2 videoconvertscale png multifile videorate
	typefindfunctions app)

key=$( { dpkg-query -W "${pkgs[@]}"; cat "$0"; } | sha256sum | cut -c1-12)
dir=$VIVPOLL_CACHE/clients-$key
if [ -f "$dir/env.sh" ]; then
	echo "$dir"
	exit 0
fi
mkdir -p "$VIVPOLL_CACHE"
exec 9> "$VIVPOLL_CACHE/clients.lock"
flock 9
[ ! -f "$dir/env.sh" ] || { echo "$dir"; exit 0; }
t0=$(date +%s)
tmp=$dir.tmp
rm -rf "$tmp"
mkdir -p "$tmp"/{bin,libexec,lib,gst-plugins,gio-modules}

# put SRC DESTDIR: hard link (same file system) or copy, symlinks resolved
put() { local s; s=$(readlink -f "$1"); ln -f "$s" "$2/${1##*/}" 2>/dev/null || cp "$s" "$2/${1##*/}"; }

elfs=()
for p in "${progs[@]}" "$scanner"; do
	[ -x "$p" ] || die "$p missing: make deps installs ${pkgs[*]}"
	put "$p" "$tmp/libexec"
	elfs+=("$p")
done
for p in "${plugins[@]}"; do
	[ -f "$gstlib/libgst$p.so" ] || die "GStreamer plugin $gstlib/libgst$p.so missing"
	put "$gstlib/libgst$p.so" "$tmp/gst-plugins"
	elfs+=("$gstlib/libgst$p.so")
done
# Every library, by soname (the loader looks them up by it), not the loader
# itself: the initramfs has /lib64/ld-linux-x86-64.so.2.
ldd "${elfs[@]}" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}' | sort -u |
	while read -r soname path; do
		[ -e "$tmp/lib/$soname" ] || ln -f "$(readlink -f "$path")" "$tmp/lib/$soname" 2>/dev/null ||
			cp -L "$path" "$tmp/lib/$soname"
	done
if ldd "${elfs[@]}" 2>/dev/null | grep -q 'not found'; then
	die "a client library is not installed: $(ldd "${elfs[@]}" | grep 'not found' | sort -u | head -3)"
fi

cat > "$tmp/env.sh" <<'EOF'
# Sourced by the wrappers in bin/: the bundle's libraries and plugins.
# shellcheck shell=sh
b=${0%/bin/*}
export LD_LIBRARY_PATH=$b/lib
export GST_PLUGIN_SYSTEM_PATH_1_0=$b/gst-plugins
export GST_PLUGIN_SCANNER_1_0=$b/libexec/gst-plugin-scanner
export GST_REGISTRY_1_0=${GST_REGISTRY_1_0:-${GST_REGISTRY:-/tmp/gst-registry.bin}}
export GIO_MODULE_DIR=$b/gio-modules
EOF
for p in "${progs[@]}"; do
	n=${p##*/}
	printf '#!/bin/sh\n. "${0%%/bin/*}/env.sh"\nexec "$b/libexec/%s" "$@"\n' "$n" > "$tmp/bin/$n"
	chmod 755 "$tmp/bin/$n"
done
dpkg-query -W "${pkgs[@]}" > "$tmp/versions"
rm -rf "$dir"
mv "$tmp" "$dir"
say "clients: $dir ($(du -sh "$dir" | cut -f1), $(ls "$dir/lib" | wc -l) libraries, $(($(date +%s) - t0))s)"
echo "$dir"
