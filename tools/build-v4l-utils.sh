#!/usr/bin/env bash
# v4l2-compliance and v4l2-ctl of the newest v4l-utils Debian's archive
# holds (at least 1.32; Debian 12 has 1.22.1), for the guest's
# /opt/v4l-utils: Debian's own build, from the newest suite that has it
# (unstable, else testing), whatever revision it holds that day, with the
# libraries it loads from the archive too. Fetched with apt through the
# project's own setup (tools/lib.sh: archive_apt; the machine's apt setup is
# left as it is). Not built from source: the archive as reached here answers
# 404 for v4l-utils' source files (1.32.0-5's .dsc, .orig.tar.xz and
# .debian.tar.xz, bookworm's 1.22.1 tarballs too), so apt-get source fails,
# though it serves other source packages.
#
# Layout as tools/build-clients.sh: bin/ wrappers (run the program through
# the bundle's own loader and libraries: unstable's libc is newer than the
# guest's), libexec/ the programs as Debian ships them, lib/ what they load,
# versions the packages it was made of, one a line.
# Made once per version and recipe ($VIVPOLL_CACHE/v4l-utils-VERSION-<key>);
# prints its path, and "v4l-utils VERSION from Debian SUITE" when it makes one.
#
# When the archive cannot give one (it cannot be reached, VIVPOLL_ARCHIVE=off,
# no suite holds v4l-utils >= 1.32, a download fails), prints nothing on
# stdout, the reason on stderr ("v4l-utils: none: REASON", one line) and
# exits 3: the guest is packed without it, and the tests that need it SKIP
# with that reason (tools/build-initramfs.sh, tests/50-compliance.sh).
set -eu
. "$(dirname "$0")/lib.sh"

min=1.32
progs=(v4l2-compliance v4l2-ctl)
none() { say "v4l-utils: none: $*"; exit 3; }

archive_apt || none "$ARCHIVE_WHY"
read -r suite ver < <(archive_version v4l-utils) ||
	none "v4l-utils is in none of Debian's $ARCHIVE_SUITES"
dpkg --compare-versions "$ver" ge "$min" ||
	none "Debian $suite holds v4l-utils $ver, older than $min"
up=${ver#*:} up=${up%-*}	# upstream version: what the programs say

key=$(sha256sum < "$0" | cut -c1-12)
dir=$VIVPOLL_CACHE/v4l-utils-$ver-$key
if [ -f "$dir/versions" ]; then
	echo "$dir"
	exit 0
fi
mkdir -p "$VIVPOLL_CACHE"
exec 9> "$VIVPOLL_CACHE/v4l-utils.lock"
flock 9
[ ! -f "$dir/versions" ] || { echo "$dir"; exit 0; }
t0=$(date +%s)
tmp=$dir.tmp
rm -rf "$tmp"
trap 'rm -rf "$tmp"' EXIT	# a failed fetch leaves nothing behind
mkdir -p "$tmp"/{apt,debs,root,bin,libexec,lib}

# The packages and what they depend on, at the archive's versions.
apt-cache "${APT[@]}" depends --recurse --no-recommends --no-suggests --no-conflicts \
	--no-breaks --no-replaces --no-enhances "v4l-utils=$ver" | grep -v '^[ <]' |
	sed "s/^v4l-utils\$/v4l-utils=$ver/" | sort -u > "$tmp/apt/pkgs"
mapfile -t pkgs < "$tmp/apt/pkgs"
(cd "$tmp/debs" && apt-get "${APT[@]}" download "${pkgs[@]}") > "$tmp/apt/log" 2>&1 ||
	none "apt-get download of v4l-utils $ver and its libraries failed: $(grep -E '^(E|W|Err):' "$tmp/apt/log" | tail -1)"
for d in "$tmp"/debs/*.deb; do
	dpkg-deb -x "$d" "$tmp/root"
done
grep -qx "Version: $ver" <(dpkg-deb -f "$tmp"/debs/v4l-utils_*.deb) || die "fetched v4l-utils is not $ver"

libdir=$tmp/root/usr/lib/x86_64-linux-gnu
ld=$libdir/ld-linux-x86-64.so.2
cp "$ld" "$tmp/lib/"
for p in "${progs[@]}"; do
	cp "$tmp/root/usr/bin/$p" "$tmp/libexec/"
	# what the loader maps for it, by soname, from the bundle only
	list=$("$ld" --library-path "$libdir" --list "$tmp/libexec/$p")
	! echo "$list" | grep -q 'not found' || die "$p: a library is missing: $(echo "$list" | grep 'not found')"
	echo "$list" | awk '$1 !~ /\// && $2 == "=>" && $3 ~ /^\// { print $1, $3 }' | while read -r soname path; do
		case "$path" in "$libdir"/*) ;; *) die "$p loads $path from outside the bundle" ;; esac
		cp -L "$path" "$tmp/lib/$soname"
	done
	# shellcheck disable=SC2016 # the wrapper's own $0, $b and $@
	printf '#!/bin/sh\nb=${0%%/bin/*}\nexec "$b/lib/ld-linux-x86-64.so.2" --library-path "$b/lib" --argv0 "$0" "$b/libexec/%s" "$@"\n' \
		"$p" > "$tmp/bin/$p"
	chmod 755 "$tmp/bin/$p"
	"$tmp/bin/$p" --version | grep -q "^$p $up\\b" || die "$p --version does not say $up: $("$tmp/bin/$p" --version | head -1)"
done
for d in "$tmp"/debs/*.deb; do
	dpkg-deb -f "$d" Package Version | paste -sd' '
done > "$tmp/versions.tmp"
rm -rf "$tmp/apt" "$tmp/debs" "$tmp/root"
mv "$tmp/versions.tmp" "$tmp/versions"
rm -rf "$dir"
mv "$tmp" "$dir"
say "v4l-utils: $ver from Debian $suite: $dir ($(du -sh "$dir" | cut -f1), $(($(date +%s) - t0))s)"
echo "$dir"
