# Shared settings for the host scripts (sourced, not run).
# shellcheck shell=bash
KVER=${KVER:-6.1}
KCONFIG=${KCONFIG:-default}
VIVPOLL_CACHE=${VIVPOLL_CACHE:-$HOME/.cache/vivpoll}
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BUILD=${BUILD:-$TOP/build/$KVER-$KCONFIG}
export CCACHE_DIR=${CCACHE_DIR:-$VIVPOLL_CACHE/ccache}

say() { printf '%s\n' "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# The identity of whoever runs a script, "Name <email>", taken as git
# format-patch and git commit take it: GIT_AUTHOR_NAME and GIT_AUTHOR_EMAIL,
# else user.name and user.email of the repository's configuration (local,
# global, system), never guessed from the host name. Dies without one.
git_ident() {
	local id
	id=$(git -C "$TOP" -c user.useConfigOnly=true var GIT_AUTHOR_IDENT 2> /dev/null) ||
		die "no git identity: set user.name and user.email (git config user.name 'Your Name'; git config user.email you@your.domain): a series needs a real author and Signed-off-by"
	echo "${id% * *}"
}

# The config fragments for a KCONFIG variant: base, then the variant's own,
# each followed by its counterparts in the version folders guest/kconfig/V/
# of every V up to $KVER, oldest first: a folder holds what changed with
# that kernel and stays true after it (6.12: the buddy lockup detector; 7.3:
# PROC_SYSCTL gone).
kconfig_fragments() {
	local k=$TOP/guest/kconfig f v
	for f in base $([ "$KCONFIG" = default ] || echo "$KCONFIG"); do
		[ -f "$k/$f.config" ] ||
			die "unknown KCONFIG=$KCONFIG (no guest/kconfig/$f.config)"
		echo "$k/$f.config"
		for v in $(cd "$k" && ls -d [0-9]* 2> /dev/null | sort -V); do
			[ "$(printf '%s\n' "$v" "$KVER" | sort -V | tail -1)" = "$KVER" ] || continue
			[ ! -f "$k/$v/$f.config" ] || echo "$k/$v/$f.config"
		done
	done
}

# The patch files of the series for $KVER, in order, one path a line:
# patches/$KVER/series when that kernel needs its own port, else patches/series.
patch_dir() {
	if [ -f "$TOP/patches/$KVER/series" ]; then
		echo "$TOP/patches/$KVER"
	else
		echo "$TOP/patches"
	fi
}
patch_files() {
	local d s p
	d=$(patch_dir)
	s=$d/series
	[ -f "$s" ] || return 0
	while read -r p; do
		case "$p" in ''|'#'*) continue ;; esac
		[ -f "$d/$p" ] || die "${s#"$TOP"/} names $p, which is missing"
		echo "$d/$p"
	done < "$s"
}

# The project's own apt setup for Debian's newer suites, beside the
# machine's, which it leaves as it is: the machine's Debian mirror (as apt
# reads /etc/apt), the archive keyring (apt checks every Release file's
# signature and every package's hash), lists, cache and apt-cache's binary
# cache (about 0.1 s a query instead of 2 s) under $VIVPOLL_CACHE/apt. The
# lists are refreshed when older than VIVPOLL_APT_MAXAGE seconds (a day); a
# failed refresh (any index not fetched: --error-on=any, since apt-get
# update alone exits 0 when it reached nothing) keeps the old lists and is
# not tried again for an hour. Sets APT, the options for apt-get and
# apt-cache. Without lists (the archive cannot be reached and never was),
# returns 1 and sets ARCHIVE_WHY to the reason, in one line.
# VIVPOLL_ARCHIVE=off: as if the archive could not be reached (nothing is
# asked of it, nothing fetched: what has to come from it is skipped, or
# taken from the cache where a script says so).
# experimental last: only what no other suite has (linux-source-7.3) is
# taken from it.
ARCHIVE_SUITES="unstable testing experimental"
archive_apt() {
	local a=$VIVPOLL_CACHE/apt mirror s age tried
	ARCHIVE_WHY=
	case "${VIVPOLL_ARCHIVE:-on}" in
	on) ;;
	off) ARCHIVE_WHY="Debian's archive is not used (VIVPOLL_ARCHIVE=off)"; return 1 ;;
	*) die "VIVPOLL_ARCHIVE wants on or off, not '$VIVPOLL_ARCHIVE'" ;;
	esac
	mkdir -p "$a/lists/partial" "$a/cache/archives/partial"
	APT=(-qq -o Dir::Etc::SourceList="$a/sources.list" -o Dir::Etc::SourceParts=/dev/null
		-o Dir::State::Lists="$a/lists" -o Dir::Cache="$a/cache"
		-o Dir::Cache::pkgcache=pkgcache.bin -o Dir::Cache::srcpkgcache=srcpkgcache.bin
		-o Dir::State::status=/dev/null -o APT::Architectures::=amd64
		-o APT::Sandbox::User=root)
	exec 8> "$a/lock"
	flock 8
	# lists of other suites than today's are no lists at all
	[ "$(cat "$a/suites" 2>/dev/null)" = "$ARCHIVE_SUITES" ] || rm -f "$a/updated" "$a/tried"
	age=$(($(date +%s) - $(stat -c %Y "$a/updated" 2>/dev/null || echo 0)))
	tried=$(($(date +%s) - $(stat -c %Y "$a/tried" 2>/dev/null || echo 0)))
	if [ "$age" -gt "${VIVPOLL_APT_MAXAGE:-86400}" ] && { [ ! -f "$a/updated" ] || [ "$tried" -gt 3600 ]; }; then
		touch "$a/tried"
		# shellcheck disable=SC2016 # apt's own $(FIELD) placeholders
		mirror=$(apt-get indextargets --format '$(REPO_URI) $(ORIGIN) $(LABEL)' |
			awk '$2 == "Debian" && $3 == "Debian" { print $1; exit }')
		if [ -z "$mirror" ]; then
			ARCHIVE_WHY="no Debian mirror in the machine's apt sources"
		else
			for s in $ARCHIVE_SUITES; do
				echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror $s main"
			done > "$a/sources.list"
			if apt-get "${APT[@]}" --error-on=any update > "$a/update.log" 2>&1; then
				touch "$a/updated"
				echo "$ARCHIVE_SUITES" > "$a/suites"
			else
				ARCHIVE_WHY="apt-get update of $ARCHIVE_SUITES from $mirror failed: $(grep -E '^(E|W|Err):' "$a/update.log" | head -1)"
			fi
		fi
		if [ -n "$ARCHIVE_WHY" ] && [ -f "$a/updated" ]; then
			say "apt: $ARCHIVE_WHY; using the lists of $(date -r "$a/updated" '+%F %R')"
			ARCHIVE_WHY=
		fi
	fi
	exec 8>&-
	[ -z "$ARCHIVE_WHY" ]
}

# archive_version PKG: "SUITE VERSION" of PKG in the newest suite that has
# it (unstable, else testing, else experimental), whatever revision that suite holds today;
# nothing if none has it. Needs archive_apt.
archive_version() {
	local s v
	for s in $ARCHIVE_SUITES; do
		v=$(apt-cache "${APT[@]}" madison "$1" 2>/dev/null |
			awk -F' *[|] *' -v s="$s" '$3 ~ (" " s "/main ") { print $2; exit }')
		[ -z "$v" ] || { echo "$s $v"; return 0; }
	done
}

# checkpatch_ignores PATCH: the options for checkpatch on PATCH beyond
# --ignore UNKNOWN_COMMIT_ID (a tarball tree has no history to look ids up
# in). A stable backport (its message says "commit <40 hex> upstream.")
# keeps upstream's code and message as they are: the stable line and the
# ids upstream's message quotes (GIT_COMMIT_ID), its long lines, and the
# printk(KERN_ERR) and alignment of upstream's code are let through there,
# by name. Nothing for any other patch.
checkpatch_ignores() {
	! grep -qE '^commit [0-9a-f]{40} upstream\.$' "$1" ||
		echo --ignore GIT_COMMIT_ID,COMMIT_LOG_LONG_LINE,PREFER_PR_LEVEL,PARENTHESIS_ALIGNMENT
}

# The source tarball of linux-source-$KVER: Debian 12's package for 6.1 and
# 6.12 (make deps installs it), else the archive's newest suite's, fetched
# once per version into $VIVPOLL_CACHE/src (tools/fetch-kernel.sh).
kernel_tarball() {
	case "$KVER" in
	6.1|6.12) echo "/usr/src/linux-source-$KVER.tar.xz" ;;
	*) "$TOP/tools/fetch-kernel.sh" ;;
	esac
}

# Cache key: kernel source package, the patches' diffs, fragments, the
# build recipe.
kernel_key() {
	local tarball
	tarball=$(kernel_tarball) || die "no linux-source-$KVER"
	{
		dpkg-query -W -f='${Version}\n' "linux-source-$KVER" 2>/dev/null || true
		echo "${tarball##*/}"
		stat -c '%s %Y' "$tarball"
		# the diffs alone: a patch's message builds nothing
		patch_files | xargs -r sed -s -n '/^diff --git /,$p'
		kconfig_fragments | xargs cat
		cat "$TOP/tools/build-kernel.sh"
	} | sha256sum | cut -c1-12
}

kernel_dir() { echo "$VIVPOLL_CACHE/linux-$KVER-$KCONFIG-$(kernel_key)"; }

# selftests_tree KDIR: the kselftest folder that make check's short tier
# builds the epoll selftests from (tests/88-*: it leaves tests out with the
# harness's -T): the guest kernel's own (KDIR) where its harness has -T
# (6.12, 7.2), else (6.1's has no options) linux-source-6.12's harness and
# epoll selftests, extracted once (the epoll test file is the same in 6.1).
selftests_tree() {
	local d=$VIVPOLL_CACHE/selftests-6.12 s=linux-source-6.12/tools/testing/selftests
	if grep -q 'getopt(argc, argv, "[a-zA-Z:]*T:' "$1/tools/testing/selftests/kselftest_harness.h"; then
		echo "$1/tools/testing/selftests"
		return
	fi
	if [ ! -f "$d/kselftest_harness.h" ]; then
		[ -f /usr/src/linux-source-6.12.tar.xz ] || die "linux-source-6.12 missing: run 'make deps'"
		rm -rf "$d.tmp" && mkdir -p "$d.tmp"
		tar -xf /usr/src/linux-source-6.12.tar.xz -C "$d.tmp" --strip-components=4 \
			--wildcards "$s/kselftest*.h" "$s/filesystems/epoll/*"
		rm -rf "$d" && mv "$d.tmp" "$d"
	fi
	echo "$d"
}

# The revision of a kernel fetched from the archive (7.2.13-1, from its
# tarball's name); nothing for Debian 12's own (6.1, 6.12), whose package
# make deps keeps.
kernel_revision() {
	local t
	t=$(kernel_tarball) || die "no linux-source-$KVER"
	case "${t##*/}" in *_*.tar.xz) t=${t##*_}; echo "${t%.tar.xz}" ;; esac
}

# An untouched extracted tree (checkpatch, series generation); made once per
# source: pristine-6.1, pristine-6.12, and for a kernel fetched from the
# archive, one a revision (pristine-7.2-7.2.13-1).
pristine_tree() {
	local r d
	r=$(kernel_revision)
	d=$VIVPOLL_CACHE/pristine-$KVER${r:+-$r}
	# one extraction at a time, whichever checkout asks (two at once
	# removed each other's tree: make check KVER=7.2 beside another's,
	# 2026-12-07, checkpatch found no tree)
	if [ ! -f "$d/Makefile" ]; then
		mkdir -p "$VIVPOLL_CACHE"
		(
			flock 9
			if [ ! -f "$d/Makefile" ]; then
				rm -rf "$d.tmp"
				mkdir -p "$d.tmp"
				tar -xf "$(kernel_tarball)" -C "$d.tmp" --strip-components=1
				rm -rf "$d"
				mv "$d.tmp" "$d"
			fi
		) 9> "$d.lock" >&2
	fi
	echo "$d"
}
