#!/usr/bin/env bash
# The source of linux-source-$KVER from Debian's archive, for a kernel that
# Debian 12 does not ship (7.2): the newest suite that has the package
# (unstable, else testing), whatever revision it holds that day, through
# the project's own apt setup (tools/lib.sh: archive_apt; the machine's apt
# setup is left as it is). Extracted once per version into
# $VIVPOLL_CACHE/src/linux-source-KVER_VERSION.tar.xz; prints its path.
# The revision is said once, when it is fetched. Without the archive (no
# network, VIVPOLL_ARCHIVE=off), the newest tarball fetched before is used,
# and said so.
set -eu
. "$(dirname "$0")/lib.sh"

pkg=linux-source-$KVER
src=$VIVPOLL_CACHE/src
mkdir -p "$src"
newest_cached() { ls -t "$src/${pkg}_"*.tar.xz 2>/dev/null | head -1; }
if ! archive_apt; then
	t=$(newest_cached)
	[ -n "$t" ] || die "$pkg: $ARCHIVE_WHY, and no $pkg was fetched before"
	say "kernel: $pkg: $ARCHIVE_WHY; using ${t##*/}, fetched before"
	echo "$t"
	exit 0
fi
read -r suite ver < <(archive_version "$pkg") ||
	die "$pkg is in none of $ARCHIVE_SUITES (apt-cache madison $pkg, in the project's own setup)"
tarball=$src/${pkg}_$ver.tar.xz
if [ -f "$tarball" ]; then
	echo "$tarball"
	exit 0
fi
exec 9> "$src/.lock"
flock 9
[ ! -f "$tarball" ] || { echo "$tarball"; exit 0; }
tmp=$(mktemp -d "$src/.fetch.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && apt-get "${APT[@]}" download "$pkg=$ver") > "$tmp/log" 2>&1 ||
	{ cat "$tmp/log" >&2; die "apt-get download $pkg=$ver failed"; }
dpkg-deb --fsys-tarfile "$tmp"/"${pkg}"_*.deb | tar -xO "./usr/src/$pkg.tar.xz" > "$tmp/src.tar.xz"
[ -s "$tmp/src.tar.xz" ] || die "$pkg $ver: no /usr/src/$pkg.tar.xz in the package"
mv "$tmp/src.tar.xz" "$tarball"
say "kernel: $pkg $ver from Debian $suite ($(du -h "$tarball" | cut -f1))"
echo "$tarball"
