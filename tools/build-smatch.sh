#!/usr/bin/env bash
# smatch and the sparse it carries, built from the source in
# ../shared/tools/smatch-*.tar.xz (its README says where it comes from:
# Debian packages no smatch, and Debian 12's sparse 0.6.4 is too old for
# 7.2's scripts/checker-valid.sh). Built once per tarball into
# $VIVPOLL_CACHE/smatch-<tarball's hash> (about 10 s on 2 cores); prints
# that folder, which holds the programs `smatch` and `sparse`.
# VIVPOLL_SHARED_TOOLS: the folder with the tarball (default: the
# repository's ../shared/tools, else /work/shared/tools).
set -eu
. "$(dirname "$0")/lib.sh"

tools=${VIVPOLL_SHARED_TOOLS:-}
if [ -z "$tools" ]; then
	for tools in "$TOP/../shared/tools" /work/shared/tools; do
		[ -d "$tools" ] && break
	done
fi
tarball=$(ls "$tools"/smatch-*.tar.xz 2> /dev/null | tail -1) ||
	die "no smatch-*.tar.xz in $tools (set VIVPOLL_SHARED_TOOLS)"
[ -n "$tarball" ] || die "no smatch-*.tar.xz in $tools (set VIVPOLL_SHARED_TOOLS)"
key=$(sha256sum "$tarball" | cut -c1-12)
d=$VIVPOLL_CACHE/smatch-$key
if [ -x "$d/smatch" ] && [ -x "$d/sparse" ]; then
	echo "$d"
	exit 0
fi
exec 9> "$VIVPOLL_CACHE/.smatch.lock"
flock 9
[ ! -x "$d/smatch" ] || [ ! -x "$d/sparse" ] || { echo "$d"; exit 0; }
rm -rf "$d" "$d.tmp" && mkdir -p "$d.tmp"
tar -xf "$tarball" -C "$d.tmp" --strip-components=1
# smatch's Makefile builds sparse, smatch and the other checkers beside
# them; libsqlite3-dev gives smatch its database support (make deps)
make -C "$d.tmp" -j"$(nproc)" > "$d.tmp/.vivpoll-build.log" 2>&1 ||
	{ tail -20 "$d.tmp/.vivpoll-build.log" >&2; die "building smatch from ${tarball##*/} failed (log: $d.tmp/.vivpoll-build.log)"; }
[ -x "$d.tmp/smatch" ] && [ -x "$d.tmp/sparse" ] || die "building ${tarball##*/} made no smatch or no sparse"
mv "$d.tmp" "$d"
say "smatch: smatch and its sparse built from ${tarball##*/}"
echo "$d"
