#!/usr/bin/env bash
# Build vivpoll with DKMS against a Debian headers package, in a private DKMS
# tree (never installed, never loaded). Prints one TAP line.
set -eu
. "$(dirname "$0")/lib.sh"

hdr=$(ls -d /usr/src/linux-headers-6.1.*-amd64 2>/dev/null | sort -V | tail -1)
if [ -z "$hdr" ] || ! command -v dkms > /dev/null; then
	echo "not ok - dkms build against a headers package # dkms or linux-headers-amd64 missing (make deps)"
	exit 0
fi
krel=${hdr#/usr/src/linux-headers-}
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "$TOP/drivers/vivpoll/dkms.conf")
# A clean build is remembered by the hash of the sources and the headers
# package version (see host-checks.sh); a failure is always rebuilt and shown.
srcs=$(find "$TOP/drivers/vivpoll" -maxdepth 1 \( -name '*.[ch]' ! -name '*.mod.c' -o -name Kbuild -o -name dkms.conf \) | sort)
hv=$(dpkg-query -W -f='${Version}' "linux-headers-$krel" 2>/dev/null || echo "$krel")
# shellcheck disable=SC2086
key=$( { echo "dkms $krel $hv $(dkms --version 2>/dev/null)"; cat $srcs; } | sha256sum | cut -c1-24)
stamp=$VIVPOLL_CACHE/checks/$key
if [ -f "$stamp" ]; then
	echo "ok - dkms build against linux-headers-$krel"
	exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/src/vivpoll-$ver" "$tmp/tree"
# shellcheck disable=SC2086
cp $srcs "$tmp/src/vivpoll-$ver/"
d() { dkms --dkmstree "$tmp/tree" --sourcetree "$tmp/src" "$@"; }
if d add -m vivpoll -v "$ver" > "$tmp/log" 2>&1 &&
   d build -m vivpoll -v "$ver" -k "$krel" --kernelsourcedir "$hdr" >> "$tmp/log" 2>&1 &&
   [ -f "$tmp/tree/vivpoll/$ver/$krel/x86_64/module/vivpoll.ko" ]; then
	echo "ok - dkms build against linux-headers-$krel"
	mkdir -p "${stamp%/*}" && touch "$stamp"
else
	echo "not ok - dkms build against linux-headers-$krel # $(grep -m1 -E 'error|Error' "$tmp/log" || tail -1 "$tmp/log")"
	sed 's/^/# /' "$tmp/log" | tail -20
	cat "$tmp/tree/vivpoll/$ver/build/make.log" 2>/dev/null | grep -E 'error|warning' | head -10 | sed 's/^/# /'
fi
