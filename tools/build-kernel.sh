#!/usr/bin/env bash
# Build (or reuse) the guest kernel: extract linux-source-$KVER (lib.sh:
# kernel_tarball) into the cache, apply patches/series, configure from
# guest/kconfig, build bzImage + modules.
# Prints the build directory on stdout. An unchanged cache key never rebuilds.
set -eu
. "$(dirname "$0")/lib.sh"

tarball=$(kernel_tarball)
[ -f "$tarball" ] || die "$tarball missing: run 'make deps'"
dir=$(kernel_dir)
# a cache hit says nothing (make demo's terminal is for the demo)
if [ -f "$dir/.vivpoll-built" ]; then
	echo "$dir"
	exit 0
fi

mkdir -p "$VIVPOLL_CACHE"
# One kernel build at a time on this machine, whichever clone asks.
exec 9>"$VIVPOLL_CACHE/.kernel-build.lock"
if ! flock -n 9; then
	say "kernel: another build holds $VIVPOLL_CACHE/.kernel-build.lock, waiting"
	flock 9
fi
if [ -f "$dir/.vivpoll-built" ]; then
	echo "$dir"
	exit 0
fi

start=$(date +%s)
stage() { say "kernel: [$(($(date +%s) - start))s] $*"; }

if [ ! -f "$dir/.vivpoll-patched" ]; then
	stage "extracting $tarball"
	rm -rf "$dir"
	mkdir -p "$dir"
	tar -xf "$tarball" -C "$dir" --strip-components=1
	for p in $(patch_files); do
		stage "applying $(basename "$p")"
		patch -d "$dir" -p1 -s -N --no-backup-if-mismatch < "$p" ||
			die "patch $(basename "$p") does not apply"
	done
	touch "$dir/.vivpoll-patched"
fi

cd "$dir"
log=$dir/.vivpoll-build.log
mk() { make -j"$(nproc)" CC="ccache gcc" HOSTCC="ccache gcc" "$@"; }

stage "configuring (tinyconfig + $(kconfig_fragments | xargs -n1 basename | tr '\n' ' '))"
mk tinyconfig > "$log" 2>&1
# shellcheck disable=SC2046
scripts/kconfig/merge_config.sh -m .config $(kconfig_fragments) >> "$log" 2>&1
mk olddefconfig >> "$log" 2>&1
# Every option as the last fragment that names it sets it (merge_config's
# rule: noknob.config turns off what base.config turns on), checked in .config.
missing=$(kconfig_fragments | xargs cat |
	sed -n -E 's/^((CONFIG_[A-Za-z0-9_]+)=.*)$/\2 \1/p; s/^# (CONFIG_[A-Za-z0-9_]+) is not set$/\1 -/p' |
	awk '!($1 in v) { order[++n] = $1 } { v[$1] = $2 } END { for (i = 1; i <= n; i++) print order[i], v[order[i]] }' |
	while read -r opt line; do
		if [ "$line" = - ]; then
			! grep -qE "^$opt=" .config || echo "# $opt is not set"
		else
			grep -qxF "$line" .config || echo "$line"
		fi
	done)
[ -z "$missing" ] || die "config options did not stick (dependency missing?):
$missing"

stage "building bzImage and modules (log: $log)"
mk bzImage modules >> "$log" 2>&1 &
pid=$!
while kill -0 "$pid" 2>/dev/null; do
	sleep 15
	n=$(grep -c '^  CC' "$log" || true)
	stage "compiling, $n objects so far"
done
if ! wait "$pid"; then
	tail -40 "$log" >&2
	die "kernel build failed (full log: $log)"
fi
mk modules_prepare >> "$log" 2>&1
touch .vivpoll-built
stage "done: $(make -s kernelrelease)"
echo "$dir"
