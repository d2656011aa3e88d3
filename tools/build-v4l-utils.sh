#!/usr/bin/env bash
# v4l2-compliance and v4l2-ctl 1.32.0, the newest release (Debian 12 has
# 1.22.1), for the guest's /opt/v4l-utils-1.32: Debian's own build,
# v4l-utils 1.32.0-5 of the archive's unstable suite, with the libraries
# it loads from the same suite. Fetched with apt through a setup of our own
# (sources list, lists, cache), from the Debian mirror /etc/apt names; the
# machine's apt setup is left as it is. Not built from source: the archive
# as reached here answers 404 for v4l-utils' source files (1.32.0-5's .dsc,
# .orig.tar.xz and .debian.tar.xz, bookworm's 1.22.1 tarballs too), so
# apt-get source fails, though it serves other source packages.
#
# Layout as tools/build-clients.sh: bin/ wrappers (run the program through
# the bundle's own loader and libraries: unstable's libc is newer than the
# guest's), libexec/ the programs as Debian ships them, lib/ what they load.
# Made once per version and recipe ($VIVPOLL_CACHE/v4l-utils-VERSION-<key>);
# prints its path.
set -eu
. "$(dirname "$0")/lib.sh"

ver=1.32.0-5
suite=unstable
progs=(v4l2-compliance v4l2-ctl)
keyring=/usr/share/keyrings/debian-archive-keyring.gpg

key=$( { echo "$ver $suite"; cat "$0"; } | sha256sum | cut -c1-12)
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
mkdir -p "$tmp"/{apt/lists/partial,apt/cache/archives/partial,debs,root,bin,libexec,lib}

# The machine's Debian mirror (not its security one), as apt reads /etc/apt.
# shellcheck disable=SC2016 # apt's own $(FIELD) placeholders
mirror=$(apt-get indextargets --format '$(REPO_URI) $(ORIGIN) $(LABEL)' |
	awk '$2 == "Debian" && $3 == "Debian" { print $1; exit }')
[ -n "$mirror" ] || die "no Debian mirror in the machine's apt sources"
echo "deb [signed-by=$keyring] $mirror $suite main" > "$tmp/apt/sources.list"
apt=(-qq -o Dir::Etc::SourceList="$tmp/apt/sources.list" -o Dir::Etc::SourceParts=/dev/null
	-o Dir::State::Lists="$tmp/apt/lists" -o Dir::Cache="$tmp/apt/cache"
	-o Dir::State::status=/dev/null -o APT::Architectures::=amd64 -o APT::Sandbox::User=root)
apt-get "${apt[@]}" update > "$tmp/apt/log" 2>&1 || { cat "$tmp/apt/log" >&2; die "apt-get update of $suite failed"; }
have=$(apt-cache "${apt[@]}" show "v4l-utils=$ver" 2>/dev/null | sed -n 's/^Version: //p')
[ "$have" = "$ver" ] || die "v4l-utils $ver is no longer in $suite ($(apt-cache "${apt[@]}" policy v4l-utils | sed -n 's/ *Candidate: //p') is): update ver in $0"
# The packages and what they depend on, at the suite's versions.
apt-cache "${apt[@]}" depends --recurse --no-recommends --no-suggests --no-conflicts \
	--no-breaks --no-replaces --no-enhances v4l-utils | grep -v '^[ <]' | sort -u > "$tmp/apt/pkgs"
mapfile -t pkgs < "$tmp/apt/pkgs"
(cd "$tmp/debs" && apt-get "${apt[@]}" download "${pkgs[@]}") > "$tmp/apt/log" 2>&1 ||
	{ cat "$tmp/apt/log" >&2; die "apt-get download failed"; }
for d in "$tmp"/debs/*.deb; do
	dpkg-deb -x "$d" "$tmp/root"
done
grep -q "^Version: $ver\$" <(dpkg-deb -f "$tmp"/debs/v4l-utils_*.deb) || die "fetched v4l-utils is not $ver"

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
	"$tmp/bin/$p" --version | grep -q "^$p ${ver%-*}" || die "$p --version does not say ${ver%-*}"
done
for d in "$tmp"/debs/*.deb; do
	dpkg-deb -f "$d" Package Version | paste -sd' '
done > "$tmp/versions.tmp"
rm -rf "$tmp/apt" "$tmp/debs" "$tmp/root"
mv "$tmp/versions.tmp" "$tmp/versions"
rm -rf "$dir"
mv "$tmp" "$dir"
say "v4l-utils: $dir ($(du -sh "$dir" | cut -f1), $(($(date +%s) - t0))s)"
echo "$dir"
