#!/usr/bin/env bash
# Pack the guest: busybox, v4l-utils 1.22.1 with their libraries, the
# archive's newest (>= 1.32) in /opt, kernel modules, vivpoll's module, apps
# and tests, and guest/init.
# Takes about three seconds; skipped when nothing it packs changed.
set -eu
. "$(dirname "$0")/lib.sh"

KDIR=$1
root=$BUILD/initramfs
krel=$(cat "$KDIR/include/config/kernel.release")
cpio=$BUILD/initramfs.cpio
# v4l2-compliance and v4l2-ctl of the newest v4l-utils (>= 1.32) of Debian's
# archive with their own libraries and loader (tools/build-v4l-utils.sh), at
# /opt/v4l-utils beside the default 1.22.1. When the archive cannot give
# one, the guest gets /opt/v4l-utils.none instead, the reason in one line,
# and the tests that need them SKIP with it.
err=$(mktemp)
set +e
v4l=$("$(dirname "$0")/build-v4l-utils.sh" 2> "$err")
rc=$?
set -e
cat "$err" >&2
v4l_none=
case "$rc" in
0) ;;
3) v4l_none=$(sed -n 's/^v4l-utils: none: //p' "$err" | tail -1) ;;
*) rm -f "$err"; die "tools/build-v4l-utils.sh failed (status $rc)" ;;
esac
rm -f "$err"

# Every file packed below (the libraries: those the last pack found), by
# name, size and time: an unchanged key keeps the packed initramfs.
pack_key() {
	{
	echo "$KDIR $v4l $v4l_none"
	stat -c '%n %s %Y' "$0" "$(dirname "$0")/lib.sh" /bin/busybox /usr/lib/udev/v4l_id \
		/usr/bin/v4l2-ctl /usr/bin/v4l2-compliance /usr/bin/chrt "$TOP"/guest/* \
		"$KDIR/Module.symvers" "$KDIR/modules.order" "$TOP"/tests/compliance-drift-*.txt \
		"$TOP/tests/lib.sh" \
		$(cat "$cpio.libs" 2>/dev/null)
	find "$BUILD/module" "$BUILD/drill-module" "$BUILD/pdev-test-module" -maxdepth 1 -name '*.ko' -printf '%p %s %T@\n'
	find "$BUILD/apps" "$BUILD/tests" -type f -perm -u+x -printf '%p %s %T@\n'
	} 2>&1 | sort | sha256sum | cut -c1-32
}
key=$(pack_key)
if [ -f "$cpio" ] && [ "$(cat "$cpio.key" 2>/dev/null)" = "$key" ]; then
	exit 0
fi
rm -f "$cpio.key"
rm -rf "$root"
mkdir -p "$root"/{bin,sbin,usr/bin,usr/sbin,usr/lib/udev,proc,sys,dev,tmp,run,host,ctl,root,etc,opt/clients,vivpoll/tests}

cp /bin/busybox "$root/bin/busybox"
for a in $(/bin/busybox --list-full); do
	[ -e "$root/$a" ] || ln -s /bin/busybox "$root/$a"
done
install -m 755 "$TOP/guest/init" "$root/init"
install -m 755 "$TOP/guest/check.sh" "$TOP/guest/demo.sh" "$TOP/guest/bench.sh" \
	"$TOP/guest/udev-v4l.sh" "$TOP/guest/demo-clients.sh" "$TOP/guest/demo-selftest.sh" \
	"$root/vivpoll/"
install -m 644 "$TOP/guest/splat.ere" "$TOP/tests/lib.sh" "$root/vivpoll/"
echo "root:x:0:0:root:/root:/bin/sh" > "$root/etc/passwd"
echo "root:x:0:" > "$root/etc/group"
printf 'passwd: files\ngroup: files\nhosts: files\n' > "$root/etc/nsswitch.conf"
printf '127.0.0.1 localhost\n::1 localhost\n127.0.1.1 vivpoll\n' > "$root/etc/hosts"
echo vivpoll > "$root/etc/hostname"
# udev's v4l_id (guest/udev-v4l.sh writes the udev data of the video nodes)
install -m 755 /usr/lib/udev/v4l_id "$root/usr/lib/udev/"

make -s -C "$KDIR" INSTALL_MOD_PATH="$root" INSTALL_MOD_STRIP=1 \
	DEPMOD=/bin/true modules_install
for m in module drill-module pdev-test-module; do
	[ -f "$BUILD/$m/Kbuild" ] || continue
	make -s -C "$KDIR" M="$BUILD/$m" INSTALL_MOD_PATH="$root" \
		INSTALL_MOD_STRIP=1 DEPMOD=/bin/true modules_install
done
rm -f "$root/lib/modules/$krel"/{build,source}
depmod -b "$root" "$krel"

# chrt (util-linux): tests/88-epoll-selftests.sh runs the epoll selftests
# as SCHED_FIFO threads; busybox has no chrt
bins=(/usr/bin/v4l2-ctl /usr/bin/v4l2-compliance /usr/bin/chrt)
for f in "$BUILD"/apps/vivpoll-*; do
	[ -x "$f" ] && bins+=("$f")
done
cp "${bins[@]}" "$root/usr/bin/"
if [ -n "$v4l" ]; then
	mkdir -p "$root/opt/v4l-utils"
	cp -a "$v4l"/bin "$v4l"/libexec "$v4l"/lib "$v4l"/versions "$root/opt/v4l-utils/"
else
	echo "${v4l_none:-tools/build-v4l-utils.sh gave no reason}" > "$root/opt/v4l-utils.none"
fi
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
find "$root/usr/bin" "$root/usr/lib/udev" "$root/vivpoll/tests" "$root/vivpoll/kselftest" -type f -print0 2> /dev/null |
	xargs -0 file -N -F '|' | awk -F'|' '/ELF/ && /dynamically/ {print $1}' |
	xargs -r ldd 2>/dev/null | awk '/=> \// {print $3} /^\t\/lib/ {print $1}' |
	sort -u > "$cpio.libs.tmp"
while read -r lib; do
	cp -L --parents "$lib" "$root/"
done < "$cpio.libs.tmp"

(cd "$root" && find . -print0 | cpio --null -o -H newc --quiet) > "$cpio.tmp"
mv "$cpio.tmp" "$cpio"
mv "$cpio.libs.tmp" "$cpio.libs"
pack_key > "$cpio.key"	# with the libraries just packed
say "initramfs: $cpio ($(du -h "$cpio" | cut -f1), kernel $krel)"
