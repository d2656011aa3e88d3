#!/usr/bin/env bash
# make check-series: the upstream-style series (make series) checked as the
# media subsystem and its bots check a patch, on one kernel (KVER), as TAP:
# - checkpatch --strict --max-line-length=80 on each patch of the series
#   (Documentation/driver-api/media/maintainer-entry-profile.rst), and
#   checkpatch --strict on patches/ (the poll core: fs/, not media);
# - the series applies with git am to a pristine extracted tree + patches/;
# - the fonts vivpoll draws with come from its Kconfig alone (x86_64,
#   guest/kconfig/base.config with vivid and vimc off, which select them too);
# - the driver built for x86_64, i386, arm and arm64, =y and =m, with the
#   profile's flags: W=1 C=1 (sparse) CF=-D__CHECK_ENDIAN__
#   CONFIG_DEBUG_SECTION_MISMATCH=y, no warning; =m through modpost (which
#   does the section mismatch analysis); sparse is Debian 12's where the
#   tree takes it (6.1, 6.12), else the one smatch's source carries
#   (tools/build-smatch.sh: Debian 12's 0.6.4 is too old for 7.2);
# - smatch -p=kernel on the driver (x86_64, =y), no warning;
# - coccicheck on the driver, kernel-doc -Wall on its sources;
# - the selftest built with kselftest's make, and run against /dev/null;
# - with CONFIG_POLL_LEGACY_NULL_TABLE off, fs/select.o and fs/eventpoll.o
#   have the unpatched tree's instructions (tools/check-noknob-objects.sh).
#
# Cost: no kernel image is built (the last check copies make check's
# default kernel, building it first if the cache has none). Each arch and
# =y/=m has its own output folder (O=) configured once (tinyconfig + what
# the driver needs, see fragment()) and prepared (make prepare /
# modules_prepare); then only drivers/media/test-drivers/vivpoll/ is built
# in it. Everything is keyed
# by its inputs under $VIVPOLL_CACHE/series-$KVER-*: the source tree by the
# kernel tarball and patches/, a configured folder by its fragment and the
# Kconfig files the series adds, a clean result by the series itself. A
# clean result is replayed while its inputs are unchanged; a failure is
# never remembered: it is checked again on the next run.
set -eu
. "$(dirname "$0")/lib.sh"

series=$BUILD/series
ident=$(git_ident)
# sparse and smatch, built once from ../shared/tools (tools/build-smatch.sh)
checkers=$(tools/build-smatch.sh)
name=${ident% <*}
email=${ident##*<}
email=${email%>}
SERIES_DIR=$series tools/make-series.sh
pristine=$(pristine_tree)
tarball=$(kernel_tarball)
shash=$(cat "$series"/0*.patch | sha256sum | cut -c1-16)
# the source tree's key: the tarball and the patches' diffs (a message
# changes no build; checkpatch reads the patch files themselves)
tkey=$({ echo "${tarball##*/}"; stat -c %s "$tarball"; patch_files | xargs -r sed -s -n '/^diff --git /,$p'; } |
	sha256sum | cut -c1-12)
root=$VIVPOLL_CACHE/series-$KVER-$tkey
src=$root/src
drv=drivers/media/test-drivers/vivpoll
mkdir -p "$root"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

plan=0 passed=0 failed=0 skipped=0
# tap ok|fail|skip NAME [DETAIL-FILE]: one TAP line, then up to 20 lines of
# the file as diagnostics
tap() {
	plan=$((plan + 1))
	case "$1" in
	ok) echo "ok - $2"; passed=$((passed + 1)) ;;
	fail) echo "not ok - $2"; failed=$((failed + 1)) ;;
	skip) echo "ok - $2 # SKIP $3"; skipped=$((skipped + 1)); return ;;
	esac
	[ -z "${3:-}" ] || [ ! -s "$3" ] || sed 's/^/# /' "$3" | head -20
}
# the log lines that are warnings or errors (a log scan: anything that
# says warning or error counts)
complaints() { grep -iE 'warning|error' "$1" || true; }

# checkpatch: the media profile's line length on the series, checkpatch's
# default (100) on patches/, which changes fs/select.c and fs/eventpoll.c.
# UNKNOWN_COMMIT_ID: see tools/host-checks.sh (a tarball has no history).
checkpatch() { # checkpatch NAME PATCH OPTION...
	local p=$2 n=$1
	shift 2
	# --terse: one line a complaint, nothing at all when clean; the
	# status is non-zero when it complains (or dies)
	if (cd "$pristine" && perl scripts/checkpatch.pl --strict --no-tree --terse \
		--ignore UNKNOWN_COMMIT_ID "$@" "$p") > "$tmp/cp" 2>&1 &&
		! grep -qE 'ERROR|WARNING|CHECK' "$tmp/cp"; then
		tap ok "$n"
	else
		sed "s|^$(dirname "$p")/||" "$tmp/cp" > "$tmp/cp.show"
		tap fail "$n" "$tmp/cp.show"
	fi
}
for p in $(patch_files); do
	case "$p" in */0000-cover-letter.patch) continue ;; esac
	# shellcheck disable=SC2046 # the options, one word each
	checkpatch "checkpatch --strict patches/$(basename "$p")" "$p" $(checkpatch_ignores "$p")
done
for p in $(sed "s|^|$series/|" "$series/series"); do
	checkpatch "checkpatch --strict --max-line-length=80 $(basename "$p")" "$p" --max-line-length=80
done

# The guest kernel of make check for KVER (built first if the cache has
# none: the checks of the patches' C files below compile in its context).
kdir=$(tools/build-kernel.sh)

# Everything below compiles: one at a time with tools/build-kernel.sh.
exec 9>"$VIVPOLL_CACHE/.kernel-build.lock"
flock 9
start=$(date +%s)
stage() { say "check-series: [$(($(date +%s) - start))s] $*"; }

# The source tree: pristine, committed, patches/ applied with git am and
# tagged "base" (made once); the series applied on top with git am when it
# changed. The builds read it from their own output folders (O=).
g() { git -C "$src" -c user.name="$name" -c user.email="$email" "$@"; }
if [ ! -f "$root/base" ]; then
	rm -rf "$src" && mkdir -p "$src"
	stage "extracting and committing a pristine tree"
	tar -xf "$tarball" -C "$src" --strip-components=1
	# Debian's .gitignore ignores the whole top level: add with -f.
	g init -q && g add -f -A . && g commit -q -m pristine
	for p in $(patch_files); do
		stage "git am patches/$(basename "$p")"
		g am -q "$p" || die "git am patches/$(basename "$p") failed"
	done
	g tag -f base > /dev/null
	touch "$root/base"
fi
if [ "$(cat "$root/applied" 2> /dev/null)" != "$shash" ]; then
	rm -f "$root/applied" "$root/am-failed"
	g reset -q --hard base
	for p in $(sed "s|^|$series/|" "$series/series"); do
		stage "git am $(basename "$p")"
		if ! g am -q "$p" > "$tmp/am" 2>&1; then
			{ echo "git am $(basename "$p") failed:"; cat "$tmp/am"; } > "$root/am-failed"
			g am --abort
			break
		fi
	done
	echo "$shash" > "$root/applied"
fi
applies=$([ ! -f "$root/am-failed" ] && echo yes || echo no)
if [ "$applies" = yes ]; then
	tap ok "git am: the series applies to linux-source-$KVER + patches/"
else
	tap fail "git am: the series applies to linux-source-$KVER + patches/" "$root/am-failed"
fi

# The series' Kconfig files: a configured folder is redone when they change.
kconfigs() { cat "$src/drivers/media/test-drivers/Kconfig" "$src/$drv/Kconfig" 2> /dev/null || true; }

cross() { # the CROSS_COMPILE prefix for an arch (i386: the native gcc, -m32)
	case "$1" in
	arm) echo arm-linux-gnueabihf- ;;
	arm64) echo aarch64-linux-gnu- ;;
	*) echo ;;
	esac
}
mk() { # mk ARCH DIR ARGS...: make in the output folder DIR
	local a=$1 o=$2 c
	c=$(cross "$1")
	shift 2
	make -C "$src" O="$o" -j"$(nproc)" ARCH="$a" CROSS_COMPILE="$c" \
		CC="ccache ${c}gcc" HOSTCC="ccache gcc" "$@"
}

# fragment ARCH y|m: what the driver needs on top of tinyconfig, and the
# profile's section mismatch analysis. -O2 as distributions and the bots
# build (tinyconfig's -Os hides some of GCC's warnings); SMP, modules,
# KUnit, tracepoints (the driver's trace event) and printk, as in a real
# kernel.
fragment() {
	cat <<-EOF
	CONFIG_CC_OPTIMIZE_FOR_PERFORMANCE=y
	CONFIG_SMP=y
	CONFIG_PRINTK=y
	CONFIG_MODULES=y
	CONFIG_MODULE_UNLOAD=y
	CONFIG_DEBUG_KERNEL=y
	CONFIG_DEBUG_SECTION_MISMATCH=y
	CONFIG_FTRACE=y
	CONFIG_ENABLE_DEFAULT_TRACERS=y
	CONFIG_KUNIT=y
	CONFIG_MEDIA_SUPPORT=y
	CONFIG_MEDIA_SUPPORT_FILTER=y
	CONFIG_MEDIA_CAMERA_SUPPORT=y
	CONFIG_MEDIA_TEST_SUPPORT=y
	CONFIG_VIDEO_DEV=y
	CONFIG_V4L_TEST_DRIVERS=y
	CONFIG_VIDEO_VIVPOLL=$2
	CONFIG_VIDEO_VIVPOLL_KUNIT_TEST=$2
	EOF
	case "$1" in
	# ARMv7 with the EABI (Debian's arm-linux-gnueabihf)
	arm) printf 'CONFIG_MMU=y\nCONFIG_ARCH_MULTI_V7=y\nCONFIG_AEABI=y\n' ;;
	esac
}
# configure ARCH DIR FRAGMENT...: tinyconfig, the fragments merged, then
# olddefconfig; every CONFIG_ line of the last fragment must stick.
configure() {
	local a=$1 o=$2
	shift 2
	rm -rf "$o" && mkdir -p "$o"
	{
		mk "$a" "$o" tinyconfig &&
			(cd "$o" && ARCH=$a "$src/scripts/kconfig/merge_config.sh" -m -O "$o" "$o/.config" "$@") &&
			mk "$a" "$o" olddefconfig
	} > "$o/.vivpoll-config.log" 2>&1 || { echo "configuring failed (log: $o/.vivpoll-config.log)"; return 1; }
	grep -E '^CONFIG_' "${!#}" | while read -r l; do
		grep -qxF "$l" "$o/.config" || echo "$l did not stick"
	done
}

# The fonts: off without vivpoll, on with it, vivid and vimc off in both
# (both select them). Configured only, on x86_64 with the guest's base.config.
fonts=$root/fonts
fkey=$({ cat "$TOP/guest/kconfig/base.config"; kconfigs; echo "$tkey"; declare -f configure; } | sha256sum | cut -c1-16)
sym() { sed -n "s/^CONFIG_$1=//p" "$2" | grep . || echo n; }
if [ "$applies" = no ]; then
	echo "the series does not apply" > "$tmp/why"
	tap fail "the fonts vivpoll draws with come from its Kconfig (vivid and vimc off)" "$tmp/why"
else
	if [ "$(cat "$fonts/key" 2> /dev/null)" != "$fkey" ]; then
		stage "configuring x86_64 without vivid, vimc, with and without vivpoll"
		rm -rf "$fonts" && mkdir -p "$fonts"
		printf '# CONFIG_VIDEO_VIVID is not set\n# CONFIG_VIDEO_VIMC is not set\n' > "$fonts/novivid.config"
		printf 'CONFIG_VIDEO_VIVPOLL=m\n' > "$fonts/vivpoll.config"
		{
			configure x86_64 "$fonts/without" "$TOP/guest/kconfig/base.config" "$fonts/novivid.config"
			configure x86_64 "$fonts/with" "$TOP/guest/kconfig/base.config" "$fonts/novivid.config" \
				"$fonts/vivpoll.config"
		} > "$fonts/configure.log" || true
		echo "$fkey" > "$fonts/key"
	fi
	cp "$fonts/configure.log" "$tmp/why"
	without="FONT_SUPPORT=$(sym FONT_SUPPORT "$fonts/without/.config") FONT_8x16=$(sym FONT_8x16 "$fonts/without/.config")"
	with="FONT_SUPPORT=$(sym FONT_SUPPORT "$fonts/with/.config") FONT_8x16=$(sym FONT_8x16 "$fonts/with/.config")"
	for c in without with; do
		for s in VIDEO_VIVID VIDEO_VIMC; do
			[ "$(sym $s "$fonts/$c/.config")" = n ] || echo "$c: CONFIG_$s=$(sym $s "$fonts/$c/.config")" >> "$tmp/why"
		done
	done
	[ "$without" = "FONT_SUPPORT=n FONT_8x16=n" ] || echo "without vivpoll $without: something else selects the fonts" >> "$tmp/why"
	case "$with" in FONT_SUPPORT=[ym]\ FONT_8x16=y) ;; *) echo "with vivpoll $with: VIDEO_VIVPOLL does not select them" >> "$tmp/why" ;; esac
	if [ -s "$tmp/why" ]; then
		tap fail "the fonts vivpoll draws with come from its Kconfig (vivid and vimc off)" "$tmp/why"
	else
		tap ok "the fonts vivpoll draws with come from its Kconfig (vivid and vimc off: without vivpoll $without, with it $with)"
	fi
fi

# baseline ARCH DIR: what sparse says of the tree's own trace events
# (drivers/media/v4l2-core/v4l2-trace.c: the V4L2 core's and vb2's), built
# in DIR with the flags of the builds, one message a line. smatch's sparse
# warns at every TRACE_EVENT() of 7.3's tree, its own as the driver's
# ("incorrect type in assignment (different address spaces)": include/
# trace/events/v4l2.h:171 "expected struct tracepoint_func *it_func_ptr,
# got struct tracepoint_func __rcu *", __DO_TRACE_CALL()'s
# rcu_dereference_raw()); Debian's, where the tree takes it, says nothing.
baseline() {
	mk "$1" "$2" "${flags[@]}" C=2 drivers/media/v4l2-core/v4l2-trace.o 2>&1 |
		sed -n 's/.*: warning: //p' | sort -u
}
# not_the_drivers BASE: the lines of stdin but the warnings at the driver's
# own TRACE_EVENT()s (vivpoll_trace.h) that BASE has: the tree's own trace
# events get them too. Every other warning, there or anywhere, stays.
not_the_drivers() {
	awk -v base="$1" 'BEGIN { while ((getline l < base) > 0) m[l] = 1 }
		/\/vivpoll\/(\.\/)?vivpoll_trace\.h:[0-9]+:[0-9]+: warning: / {
			w = index($0, ": warning: ")
			if (substr($0, w + 11) in m) next
		}
		{ print }'
}

# The builds. =y: the folder's built-in.a; =m: vivpoll.ko and
# vivpoll_kunit.ko, through modpost. No vmlinux is linked: modpost says so
# (its "vmlinux.o is missing" notice, and an "undefined!" line for the
# first symbols the modules take from the kernel or other modules: before
# 6.4 '"sym" [mod.ko] undefined!', on 7.3 "mod.ko: symbol 'sym' undefined!",
# then how many more it suppressed); those lines, and only those, are not
# counted as warnings.
#
# sparse: Debian 12's (0.6.4) where the tree takes it, else the newer one
# smatch's source carries. 7.2 and later refuse 0.6.4 (scripts/
# checker-valid.sh wants __typeof_unqual__); 6.1 and 6.12 have no such
# script and were written for 0.6.4: smatch's sparse reports every
# TRACE_EVENT of 6.1's own headers (include/trace/events/power.h:354
# "incorrect type in assignment (different address spaces)": the perf
# half's this_cpu_ptr() of a __percpu list under the newer sparse), so on
# an older tree it judges the tree, not the driver.
sparse=$(command -v sparse || true)
if [ -z "$sparse" ] || { [ -f "$src/scripts/checker-valid.sh" ] &&
	[ "$(sh "$src/scripts/checker-valid.sh" "$sparse" 2> /dev/null)" != 1 ]; }; then
	sparse=$checkers/sparse
fi
flags=(W=1 C=1 CHECK="$sparse" CF=-D__CHECK_ENDIAN__ CONFIG_DEBUG_SECTION_MISMATCH=y)
modpost_notice='^WARNING: modpost: "[A-Za-z0-9_.]+" \[[^]]+\] undefined!$|^WARNING: modpost: [^ ]+\.ko: symbol '\''[A-Za-z0-9_.]+'\'' undefined!$|^WARNING: modpost: suppressed [0-9]+ unresolved symbol warnings because there were too many\)$|^(WARNING: |	*)(vmlinux(\.o|\.symvers)|Module\.symvers) is missing|^ +(Modules may not have dependencies or modversions|You may get many unresolved symbol (warnings|errors)|You can set KBUILD_MODPOST_WARN=1 to turn errors into warning|if you want to proceed at your own risk)\.?$'
for arch in x86_64 i386 arm arm64; do
	for ym in y m; do
		o=$root/$arch-$ym
		n="$arch CONFIG_VIDEO_VIVPOLL=$ym: $drv builds with ${flags[*]}, no warning"
		[ $ym = y ] || n="$arch CONFIG_VIDEO_VIVPOLL=$ym: $drv builds with ${flags[*]} and modpost, no warning"
		if [ "$applies" = no ]; then
			echo "the series does not apply" > "$tmp/why"
			tap fail "$n" "$tmp/why"
			continue
		fi
		fragment "$arch" "$ym" > "$tmp/frag.config"
		ckey=$({ cat "$tmp/frag.config"; kconfigs; echo "$tkey ${flags[*]}"; declare -f configure mk
			"$(cross "$arch")gcc" --version | head -1; } | sha256sum | cut -c1-16)
		if [ "$(cat "$o/.vivpoll-key" 2> /dev/null)" != "$ckey" ]; then
			stage "$arch-$ym: configuring and preparing"
			cp "$tmp/frag.config" "$root/$arch-$ym.config"
			if ! configure "$arch" "$o" "$root/$arch-$ym.config" > "$tmp/why" || [ -s "$tmp/why" ]; then
				tap fail "$n" "$tmp/why"
				continue
			fi
			# with the flags of the build, so that it rebuilds nothing
			# of the tree's own (arm64's vDSO would be, and checked)
			if ! mk "$arch" "$o" "${flags[@]}" $([ $ym = m ] && echo modules_prepare || echo prepare) \
				> "$o/.vivpoll-prepare.log" 2>&1; then
				tail -10 "$o/.vivpoll-prepare.log" > "$tmp/why"
				tap fail "$n" "$tmp/why"
				continue
			fi
			echo "$ckey" > "$o/.vivpoll-key"
		fi
		bkey="$ckey $shash $checkers"
		if [ "$(cat "$o/.vivpoll-clean" 2> /dev/null)" != "$bkey" ]; then
			rm -f "$o/.vivpoll-clean"
			stage "$arch-$ym: building $drv"
			rm -rf "${o:?}/$drv"
			if [ $ym = y ]; then
				targets=("$drv/")
			else
				targets=("$drv/vivpoll.ko" "$drv/vivpoll_kunit.ko")
			fi
			# =m: since 6.4 modpost stops at the symbols that
			# only a linked vmlinux would define (ERROR: ...
			# undefined!); KBUILD_MODPOST_WARN=1 makes them the
			# warnings that 6.1 prints, and the section mismatch
			# analysis runs all the same
			mk "$arch" "$o" "${flags[@]}" $([ $ym = m ] && echo KBUILD_MODPOST_WARN=1) \
				"${targets[@]}" > "$o/.vivpoll-build.log" 2>&1 ||
				echo "error: make failed" >> "$o/.vivpoll-build.log"
			# sparse's warnings at the driver's TRACE_EVENT()s that the
			# tree's own get too (the checker's, not the driver's)
			baseline "$arch" "$o" > "$tmp/base"
			complaints "$o/.vivpoll-build.log" | grep -vE "$modpost_notice" |
				not_the_drivers "$tmp/base" > "$tmp/why" || true
			for f in $([ $ym = y ] && echo built-in.a vivpoll-core.o || echo vivpoll.ko vivpoll_kunit.ko); do
				[ -s "$o/$drv/$f" ] || echo "no $drv/$f" >> "$tmp/why"
			done
			# the config the driver was built with is still the fragment's
			grep -qx "CONFIG_VIDEO_VIVPOLL=$ym" "$o/.config" || echo "CONFIG_VIDEO_VIVPOLL=$ym did not stick" >> "$tmp/why"
			[ -s "$tmp/why" ] || echo "$bkey" > "$o/.vivpoll-clean"
		fi
		if [ -f "$o/.vivpoll-clean" ]; then
			tap ok "$n"
		else
			tap fail "$n" "$tmp/why"
		fi
	done
done

# smatch: the profile's second checker, as it runs it (make C=1
# CHECK="smatch -p=kernel"), on the driver in the x86_64 =y folder, built
# again from scratch there; any line it prints about the driver counts.
o=$root/x86_64-y
n="smatch -p=kernel on $drv (x86_64, =y), no warning"
if [ "$applies" = no ] || [ ! -f "$o/.vivpoll-clean" ]; then
	echo "the series does not apply, or the x86_64 =y build failed" > "$tmp/why"
	tap fail "$n" "$tmp/why"
else
	mkey="$(cat "$o/.vivpoll-clean") smatch"
	if [ "$(cat "$o/.vivpoll-smatch" 2> /dev/null)" != "$mkey" ]; then
		rm -f "$o/.vivpoll-smatch"
		stage "x86_64-y: smatch on $drv"
		rm -rf "${o:?}/$drv"
		mk x86_64 "$o" W=1 C=1 CHECK="$checkers/smatch -p=kernel" "$drv/" > "$o/.vivpoll-smatch.log" 2>&1 ||
			echo "error: make failed" >> "$o/.vivpoll-smatch.log"
		{ grep -F "$drv/" "$o/.vivpoll-smatch.log" | grep -E ' (warn|error|info): |warning|error' || true
			grep -E '^error: make failed|C=1 specified, but' "$o/.vivpoll-smatch.log" || true
			grep -qE "CHECK +([^ ]*/)?$drv/vivpoll-core.c" "$o/.vivpoll-smatch.log" || echo "smatch did not run on $drv/vivpoll-core.c"
		} > "$tmp/why"
		[ -s "$tmp/why" ] || echo "$mkey" > "$o/.vivpoll-smatch"
	fi
	if [ -f "$o/.vivpoll-smatch" ]; then
		tap ok "$n"
	else
		tap fail "$n" "$tmp/why"
	fi
fi

# sparse: the tree's scripts/checker-valid.sh turns C=1 off, with a make
# line that says neither warning nor error, when the sparse it is given is
# too old for it (7.2 wants __typeof_unqual__, which Debian 12's 0.6.4
# lacks; smatch's is newer). Then the builds above ran without sparse.
nosparse=
for arch in x86_64 i386 arm arm64; do
	for ym in y m; do
		! grep -qE 'C=1 specified, but .* is not available or not up to date' \
			"$root/$arch-$ym/.vivpoll-build.log" 2> /dev/null || nosparse="$nosparse $arch-$ym"
	done
done
n="sparse (C=1, $sparse) ran in every build of $drv"
if [ "$applies" = no ]; then
	echo "the series does not apply" > "$tmp/why"
	tap fail "$n" "$tmp/why"
elif [ -z "$nosparse" ]; then
	tap ok "$n"
else
	echo "linux-source-$KVER's scripts/checker-valid.sh rejected $sparse, so C=1 was off in:$nosparse" > "$tmp/why"
	tap fail "$n" "$tmp/why"
fi

# coccicheck on the driver's folder, every script of the tree, report
# mode: a line that names one of the driver's files is a hit.
n="coccicheck (MODE=report) on $drv: no hit"
if [ "$applies" = no ]; then
	echo "the series does not apply" > "$tmp/why"
	tap fail "$n" "$tmp/why"
else
	kkey=$({ cat "$src/$drv"/*; spatch --version | head -1; echo "$tkey"; } | sha256sum | cut -c1-16)
	if [ "$(cat "$root/coccicheck-clean" 2> /dev/null)" != "$kkey" ]; then
		rm -f "$root/coccicheck-clean"
		stage "make coccicheck M=$drv"
		o=$root/x86_64-m
		rc=0
		mk x86_64 "$o" coccicheck MODE=report M="$src/$drv" > "$root/coccicheck.log" 2>&1 || rc=$?
		grep -F "$src/$drv/" "$root/coccicheck.log" > "$tmp/why" || true
		[ "$rc" = 0 ] || { echo "make coccicheck exited with status $rc:"; grep -v '^/usr/bin/spatch' "$root/coccicheck.log" | tail -5; } >> "$tmp/why"
		[ -s "$tmp/why" ] || echo "$kkey" > "$root/coccicheck-clean"
	fi
	if [ -f "$root/coccicheck-clean" ]; then
		tap ok "$n"
	else
		sed "s|$src/||" "$tmp/why" > "$tmp/why2"
		tap fail "$n" "$tmp/why2"
	fi
fi

# kernel-doc -Wall on the driver's headers and sources (W=1 runs
# kernel-doc without -Wall on the .c files only). 6.1's kernel-doc has no
# -Wall: 6.12's is used there (make deps installs linux-source-6.12).
n="kernel-doc -Wall on $drv/*.[ch]"
if [ "$applies" = no ]; then
	echo "the series does not apply" > "$tmp/why"
	tap fail "$n" "$tmp/why"
else
	kdoc=$src/scripts/kernel-doc
	if ! "$kdoc" -Wall -none /dev/null > /dev/null 2>&1; then
		kdoc=$VIVPOLL_CACHE/kernel-doc-6.12
		if [ ! -s "$kdoc" ]; then
			tar -xOf /usr/src/linux-source-6.12.tar.xz linux-source-6.12/scripts/kernel-doc > "$kdoc.tmp"
			chmod +x "$kdoc.tmp" && mv "$kdoc.tmp" "$kdoc"
		fi
		n="$n (6.12's kernel-doc: $KVER's has no -Wall)"
	fi
	rc=0
	(cd "$src" && "$kdoc" -Wall -none $drv/*.[ch]) > "$tmp/why" 2>&1 || rc=$?
	[ "$rc" = 0 ] || echo "kernel-doc exited with status $rc" >> "$tmp/why"
	if [ -s "$tmp/why" ]; then
		tap fail "$n" "$tmp/why"
	else
		tap ok "$n"
	fi
fi

# The selftest as kselftest builds it, in the x86_64 =m folder: headers
# installed first (KHDR_INCLUDES), then the media_tests target, from
# scratch; no warning from it. Run on the host against a node that is no
# V4L2 node: the whole test skips, exit 4 (its verdicts need the guest:
# tests/87-*).
o=$root/x86_64-m
st=$o/kselftest/media_tests/video_poll_test
n="make -C tools/testing/selftests O=... TARGETS=media_tests builds video_poll_test, no warning; on /dev/null the whole test skips, exit 4"
if [ "$applies" = no ] || [ ! -f "$o/.vivpoll-key" ]; then
	echo "the series does not apply, or the x86_64 =m folder is not configured" > "$tmp/why"
	tap fail "$n" "$tmp/why"
else
	if [ "$(cat "$o/.vivpoll-selftest" 2> /dev/null)" != "$shash" ]; then
		stage "make headers; make -C tools/testing/selftests TARGETS=media_tests"
		rm -f "$st"
		{ mk x86_64 "$o" headers && make -C "$src/tools/testing/selftests" O="$o" TARGETS=media_tests; } \
			> "$o/.vivpoll-selftest.log" 2>&1 || echo "error: make failed" >> "$o/.vivpoll-selftest.log"
		echo "$shash" > "$o/.vivpoll-selftest"
	fi
	grep -E 'video_poll_test.*(warning|error)|^error' "$o/.vivpoll-selftest.log" > "$tmp/why" || true
	[ -x "$st" ] || echo "no $st" >> "$tmp/why"
	if [ ! -s "$tmp/why" ]; then
		rc=0
		out=$("$st" -d /dev/null 2>&1) || rc=$?
		[ "$rc" = 4 ] && echo "$out" | grep -q '^1\.\.0 # SKIP /dev/null: not a V4L2 node' ||
			{ echo "exit status $rc, not a whole-test skip (4):"; echo "$out" | tail -5; } >> "$tmp/why"
	fi
	if [ -s "$tmp/why" ]; then
		tap fail "$n" "$tmp/why"
	else
		tap ok "$n"
	fi
fi
# The C files the patches touch (patches/ for KVER: the demonstration's
# fs/ files and the fixes), each compiled as the kernel compiles it, with
# the tree's patch and without (tools/check-patch-warnings.sh): no warning
# the pristine file does not have. GCC with -Wmaybe-uninitialized in the
# guest kernel's build; clang with W=1 in a clang build of the same
# configuration (below), which also builds the driver.
cfiles=$(patch_files | grep -v '/0000-cover-letter.patch$' |
	xargs sed -n 's#^diff --git a/\([^ ]*\.c\) b/.*#\1#p' | sort -u)
pwarn() { # pwarn NAME KDIR: the check of every patch in KDIR's build
	local p
	: > "$tmp/pw"
	for p in $(patch_files | grep -v '/0000-cover-letter.patch$'); do
		tools/check-patch-warnings.sh "$2" "$pristine" "$p" > "$tmp/pw1" 2>&1 ||
			{ [ -s "$tmp/pw1" ] || echo "tools/check-patch-warnings.sh failed"; } >> "$tmp/pw1"
		sed "s#^#$(basename "$p"): #" "$tmp/pw1" >> "$tmp/pw"
	done
	if [ -s "$tmp/pw" ]; then
		tap fail "$1" "$tmp/pw"
	else
		tap ok "$1"
	fi
}
pwarn "GCC -Wmaybe-uninitialized: no new warning in $(echo $cfiles) (the guest kernel's build)" "$kdir"

# clang: Debian 12's clang-16 where the tree accepts it, else the newest
# clang Debian 12 has (clang-19: 7.2 asks for LLVM 17.0.1 at least)
minclang=$(cd "$src" && scripts/min-tool-version.sh llvm)
clang=
for c in clang-16 clang-19; do
	v=$("$c" -dumpversion 2> /dev/null) || continue
	[ "$(printf '%s\n' "$minclang" "$v" | sort -V | head -1)" = "$minclang" ] && { clang=$c; break; }
done
o=$root/x86_64-clang
n1="clang W=1: no new warning in $(echo $cfiles) (${clang:-no clang}, the guest kernel's configuration)"
n2="clang W=1: $drv builds, no warning (${clang:-no clang})"
if [ -z "$clang" ] || [ "$applies" = no ]; then
	echo "no clang for this tree (it wants LLVM $minclang; clang-16 and clang-19: tools/deps.sh), or the series does not apply" > "$tmp/why"
	tap fail "$n1" "$tmp/why"
	tap fail "$n2" "$tmp/why"
else
	mkc() { make -C "$src" O="$o" -j"$(nproc)" ARCH=x86_64 CC="ccache $clang" HOSTCC="ccache gcc" "$@"; }
	ckey=$({ cat "$kdir/.config"; "$clang" --version | head -1; echo "$tkey $shash"; declare -f mkc; } |
		sha256sum | cut -c1-16)
	if [ "$(cat "$o/.vivpoll-key" 2> /dev/null)" != "$ckey" ]; then
		stage "x86_64-clang: configuring, preparing and building with $clang"
		rm -rf "$o" && mkdir -p "$o"
		{ cat "$kdir/.config"; printf 'CONFIG_VIDEO_VIVPOLL=m\nCONFIG_VIDEO_VIVPOLL_KUNIT_TEST=m\n'; } > "$o/.config"
		{
			mkc olddefconfig && grep -qx CONFIG_VIDEO_VIVPOLL=m "$o/.config" &&
				mkc modules_prepare && mkc W=1 $(for f in $cfiles; do echo "${f%.c}.o"; done) &&
				mkc W=1 KBUILD_MODPOST_WARN=1 "$drv/vivpoll.ko" "$drv/vivpoll_kunit.ko"
		} > "$o/.vivpoll-build.log" 2>&1 || echo "error: make failed" >> "$o/.vivpoll-build.log"
		# a failed build is tried again on the next run
		grep -q '^error: make failed' "$o/.vivpoll-build.log" || echo "$ckey" > "$o/.vivpoll-key"
	fi
	pwarn "$n1" "$o"
	{ grep -F "$drv/" "$o/.vivpoll-build.log" | complaints /dev/stdin | grep -vE "$modpost_notice"
		grep -E '^error: make failed' "$o/.vivpoll-build.log"
		[ -s "$o/$drv/vivpoll.ko" ] || echo "no $drv/vivpoll.ko (log: $o/.vivpoll-build.log)"
	} > "$tmp/why" 2>&1 || true
	if [ -s "$tmp/why" ]; then
		tap fail "$n2" "$tmp/why"
	else
		tap ok "$n2"
	fi
fi

stage done
exec 9>&-

# The poll core patch with its option off: the unpatched instructions
# (tools/check-noknob-objects.sh; it builds the default kernel if the cache
# has none, and copies it).
n="$KVER: fs/select.o and fs/eventpoll.o with CONFIG_POLL_LEGACY_NULL_TABLE off are the unpatched ones"
if "$TOP"/tools/check-noknob-objects.sh > "$tmp/objs" 2>&1; then
	tap ok "$n" "$tmp/objs"
else
	tap fail "$n" "$tmp/objs"
fi

echo "1..$plan"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ]
