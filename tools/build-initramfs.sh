#!/usr/bin/env bash
# Pack the guest: busybox, v4l-utils with their libraries, kernel modules,
# vivpoll's module, apps and tests, and guest/init. Takes about a second.
set -eu
. "$(dirname "$0")/lib.sh"

KDIR=$1
root=$BUILD/initramfs
krel=$(cat "$KDIR/include/config/kernel.release")
rm -rf "$root"
mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,usr/lib/udev,proc,sys,dev,tmp,run,host,ctl,root,etc,opt/clients,vivpoll/tests}

cp /bin/busybox "$root/bin/busybox"
for a in $(/bin/busybox --list-full); do
	[ -e "$root/$a" ] || ln -s /bin/busybox "$root/$a"
done
install -m 755 "$TOP/guest/init" "$root/init"
install -m 755 "$TOP/guest/check.sh" "$TOP/guest/demo.sh" "$TOP/guest/bench.sh" \
	"$TOP/guest/udev-v4l.sh" "$TOP/guest/demo-clients.sh" "$root/vivpoll/"
echo "root:x:0:0:root:/root:/bin/sh" > "$root/etc/passwd"
echo "root:x:0:" > "$root/etc/group"
printf 'passwd: files\ngroup: files\nhosts: files\n' > "$root/etc/nsswitch.conf"
printf '127.0.0.1 localhost\n::1 localhost\n127.0.1.1 vivpoll\n' > "$root/etc/hosts"
echo vivpoll > "$root/etc/hostname"
# udev's v4l_id (guest/udev-v4l.sh writes the udev data of the video nodes)
install -m 755 /usr/lib/udev/v4l_id "$root/usr/lib/udev/"

make -s -C "$KDIR" INSTALL_MOD_PATH="$root" INSTALL_MOD_STRIP=1 \
	DEPMOD=/bin/true modules_install
if [ -f "$BUILD/module/Kbuild" ]; then
	make -s -C "$KDIR" M="$BUILD/module" INSTALL_MOD_PATH="$root" \
		INSTALL_MOD_STRIP=1 DEPMOD=/bin/true modules_install
fi
rm -f "$root/lib/modules/$krel"/{build,source}
depmod -b "$root" "$krel"

bins=(/usr/bin/v4l2-ctl /usr/bin/v4l2-compliance)
for f in "$BUILD"/apps/vivpoll-*; do
	[ -x "$f" ] && bins+=("$f")
done
cp "${bins[@]}" "$root/usr/bin/"
if [ -d "$BUILD/tests" ]; then
	find "$BUILD/tests" -maxdepth 1 -type f -perm -u+x -exec cp {} "$root/vivpoll/tests/" \;
fi
# The kernel's selftests that tests/ runs, out of /vivpoll/tests (static).
[ ! -d "$BUILD/tests/kselftest" ] || cp -r "$BUILD/tests/kselftest" "$root/vivpoll/"
# Tolerated v4l2-compliance drift per kernel (tests/50-compliance.sh); data,
# so not in /vivpoll/tests, where every file is run.
for f in "$TOP"/tests/compliance-drift-*.txt; do
	[ ! -f "$f" ] || install -m 644 "$f" "$root/vivpoll/"
done

# Shared libraries of every ELF program we ship, with the loader.
find "$root/usr/bin" "$root/usr/lib/udev" "$root/vivpoll/tests" -type f -print0 |
	xargs -0 file -N -F '|' | awk -F'|' '/ELF/ && /dynamically/ {print $1}' |
	xargs -r ldd 2>/dev/null | awk '/=> \// {print $3} /^\t\/lib/ {print $1}' |
	sort -u | while read -r lib; do
		cp -L --parents "$lib" "$root/"
	done

(cd "$root" && find . -print0 | cpio --null -o -H newc --quiet) > "$BUILD/initramfs.cpio.tmp"
mv "$BUILD/initramfs.cpio.tmp" "$BUILD/initramfs.cpio"
say "initramfs: $BUILD/initramfs.cpio ($(du -h "$BUILD/initramfs.cpio" | cut -f1), kernel $krel)"
