#!/usr/bin/env bash
# make upstream: the fixes and the selftest as they would be sent, one
# series per destination, into out/upstream/<destination>/, each with a
# cover letter and its To:/Cc: from the base tree's get_maintainer.pl, ready
# for git send-email (nothing is sent). Then each is checked where it would
# be applied: checkpatch --strict from its base tree and git am onto the
# pristine files; any failure exits non-zero (the series are written for
# whatever KVER is set, so their checks belong here, not to check-series).
#   media/        7.3: patches/7.3's patch 2 and the selftest, standalone
#   driver-core/  7.3: patches/7.3's patch 3
#   stable-6.1/   6.1: patches/0004 and 0005, the backports
# The demonstration series (patch 1, make series) is not among them.
set -eu
. "$(dirname "$0")/lib.sh"

ident=$(git_ident)
out=${UPSTREAM_DIR:-$TOP/out/upstream}
work=$(mktemp -d "${TMPDIR:-/tmp}/vivpoll-upstream.XXXXXX")
trap 'rm -rf "$work"' EXIT
st=tools/testing/selftests/media_tests

tree_of() { KVER=$1 pristine_tree; }
# "Linux 7.3-rc7 (Debian's linux-source-7.3 7.3~rc7-1~exp1)"
tree_name() {
	local t=$1 k=$2 v r
	v=$(sed -n 's/^VERSION = //p;s/^PATCHLEVEL = //p;s/^SUBLEVEL = //p;s/^EXTRAVERSION = //p' "$t/Makefile" |
		paste -sd' ' | awk '{ printf "%s.%s", $1, $2; if ($3 != 0) printf ".%s", $3; printf "%s", $4 }')
	# the archive's revision in the tarball's name (7.3), else Debian 12's
	# installed package's (6.1)
	r=$(KVER=$k kernel_revision)
	[ -n "$r" ] || r=$(dpkg-query -W -f='${Version}' "linux-source-$k")
	echo "Linux $v (Debian's linux-source-$k $r)"
}

# A scratch repository holding the pristine versions of the files FILES...
scratch() {
	local repo=$1 tree=$2 f
	shift 2
	rm -rf "$repo"
	for f in "$@"; do
		[ -e "$tree/$f" ] || continue	# a file the series adds
		mkdir -p "$repo/$(dirname "$f")"
		cp "$tree/$f" "$repo/$f"
	done
	git -C "$repo" init -q
	git -C "$repo" add -A
	git -C "$repo" -c user.name=pristine -c user.email=pristine@localhost commit -q -m pristine
}
touched() { sed -n 's|^+++ b/||p' "$@" | sort -u; }

# get_maintainer.pl of the base tree, reading the MAINTAINERS the series
# leaves (the selftest adds a line): the tree's top level linked, that file
# copied. Prints "role<TAB>address" a line.
maintainers() {
	local tree=$1 maint=$2 gm=$work/gm e
	shift 2
	rm -rf "$gm"
	mkdir "$gm"
	for e in "$tree"/* "$tree"/.[a-z]*; do
		ln -s "$e" "$gm/${e##*/}"
	done
	rm "$gm/MAINTAINERS"
	cp "$maint" "$gm/MAINTAINERS"
	(cd "$gm" && perl scripts/get_maintainer.pl --no-git --no-git-fallback --no-tree "$@") |
		sed -n 's/^\(.*\) (\(maintainer\|reviewer\|open list\|supporter\|odd fixer\)[^)]*)*$/\2\t\1/p'
}

# Write one destination: NAME BASE-KVER LIST PREFIX BLURB-FILE, commits in $repo.
write_series() {
	local name=$1 kver=$2 list=$3 prefix=$4 blurb=$5 repo=$work/$1
	local tree d=$out/$1 p
	tree=$(tree_of "$kver")
	rm -rf "$d"
	mkdir -p "$d"
	git -C "$repo" format-patch -q --cover-letter --subject-prefix="$prefix" \
		-o "$d" "$(git -C "$repo" rev-list --max-parents=0 HEAD)"
	# To: the list (and the maintainers); Cc: the rest, each patch its own;
	# the cover letter goes to all of them
	for p in "$d"/0*.patch; do
		case "$p" in *0000-cover-letter.patch) continue ;; esac
		maintainers "$tree" "$repo/MAINTAINERS" "$p" > "$p.who"
	done
	python3 - "$d" "$list" "$blurb" <<'PY'
import glob, sys
d, lst, blurb = sys.argv[1:]
def fold(h, addrs):
    return "%s: %s\n" % (h, ",\n    ".join(addrs)) if addrs else ""
def headers(to, cc):
    to = [lst] + [a for a in to if a != lst]
    cc = [a for a in cc if a not in to]
    return fold("To", to) + fold("Cc", cc)
all_to, all_cc = [], []
for p in sorted(glob.glob(d + "/0*.patch")):
    if p.endswith("0000-cover-letter.patch"):
        continue
    to, cc = [], []
    for line in open(p + ".who"):
        role, addr = line.rstrip("\n").split("\t")
        (to if role == "maintainer" else cc).append(addr)
    if lst == "stable@vger.kernel.org":
        cc, to = to + cc, []
    for a in to:
        all_to.append(a) if a not in all_to else None
    for a in cc:
        all_cc.append(a) if a not in all_cc else None
    s = open(p).read()
    i = s.index("\nSubject: ")
    open(p, "w").write(s[:i + 1] + headers(to, cc) + s[i + 1:])
p = d + "/0000-cover-letter.patch"
s = open(p).read()
subject, text = open(blurb).read().split("\n", 1)
s = s.replace("*** SUBJECT HERE ***", subject).replace("*** BLURB HERE ***", text.strip("\n"))
i = s.index("\nSubject: ")
open(p, "w").write(s[:i + 1] + headers(all_to, [a for a in all_cc if a not in all_to]) + s[i + 1:])
PY
	rm -f "$d"/*.who
	say "upstream: $name: $(ls "$d"/0*.patch | wc -l) files in ${d#"$TOP"/}"
}

export GIT_COMMITTER_NAME="${ident% <*}" GIT_COMMITTER_EMAIL="${ident##*<}"
GIT_COMMITTER_EMAIL=${GIT_COMMITTER_EMAIL%>}
export GIT_COMMITTER_DATE="2026-12-07T00:00:00Z"
t73=$(tree_of 7.3)
t61=$(tree_of 6.1)
p73=$TOP/patches/7.3
mkdir -p "$out"

# --- media: the v4l2-dev fix, then the selftest --------------------------------
fix=$(ls "$p73"/0002-media-v4l2-dev-*.patch)
scratch "$work/media" "$t73" $(touched "$fix") MAINTAINERS $st/Makefile $st/.gitignore
git -C "$work/media" am -q "$fix"
# Standalone: it tests the test drivers upstream has (vivid, vimc), so the
# name of the demonstration driver goes; it is listed in MAINTAINERS under
# the media subsystem, so that linux-media sees it, besides kselftest.
python3 - "$TOP/selftests/media_tests/video_poll_test.c" "$work/media/$st/video_poll_test.c" <<'PY' || die "selftests/media_tests/video_poll_test.c: its list of test drivers changed: update tools/make-upstream.sh"
import sys
s = open(sys.argv[1]).read()
for old, new, n in (('{ "vivid", "vivpoll", "vimc" }', '{ "vivid", "vimc" }', 1),
                    ("(vivid, vivpoll, vimc)", "(vivid, vimc)", 2),
                    ("vivid, vivpoll and vimc", "vivid and vimc", 1)):
    if s.count(old) != n:
        sys.exit("%r: %d, not %d" % (old, s.count(old), n))
    s = s.replace(old, new)
if "vivpoll" in s:
    sys.exit("vivpoll is still named")
open(sys.argv[2], "w").write(s)
PY
sed -i 's/^TEST_GEN_PROGS := .*/& video_poll_test/' "$work/media/$st/Makefile"
echo '$(OUTPUT)/video_poll_test: LDLIBS += -lpthread' >> "$work/media/$st/Makefile"
echo video_poll_test >> "$work/media/$st/.gitignore"
python3 - "$work/media/MAINTAINERS" "$st/video_poll_test.c" <<'PY' || die "MAINTAINERS: no MEDIA INPUT INFRASTRUCTURE entry to list the selftest in"
import sys
p, f = sys.argv[1:]
s = open(p).read()
i = s.index("\nMEDIA INPUT INFRASTRUCTURE (V4L/DVB)\n")
j = s.index("\n\n", i + 1)
lines = s[i:j].split("\n")
# F: lines are sorted within an entry
fl = [k for k, l in enumerate(lines) if l.startswith("F:\t")]
at = next((k for k in fl if lines[k][3:] > f), fl[-1] + 1)
lines.insert(at, "F:\t" + f)
open(p, "w").write(s[:i] + "\n".join(lines) + s[j:])
PY
git -C "$work/media" add -A
{
	cat "$TOP/selftests/media_tests/video_poll_test.msg"
	echo
	cat <<'MSG'
The test runs on the node named with -d, else on every video capture
node of a test driver (vivid, vimc). It learns a node's driver from
sysfs before it opens it (/sys/dev/char/MAJOR:MINOR/device/driver), so
the nodes of other drivers, a real camera's, are left alone, never
opened, and named; a test driver's node, once opened, must name the same
driver in VIDIOC_QUERYCAP. A node that is not a video capture node, or
has no V4L2_CAP_READWRITE (vimc) or no control events, is not tested,
with the reason; with no node to test, the test skips.

The test is listed under the media subsystem in MAINTAINERS, so that
changes to it reach linux-media as well as linux-kselftest.
MSG
} | GIT_AUTHOR_DATE="2026-12-03T00:00:00Z" git -C "$work/media" commit -q -s --author="$ident" -F -

cat > "$work/media.blurb" <<EOF
media: v4l2-dev name leak fix, and a selftest for poll_requested_events()
Patch 1 fixes a leak in __video_register_device(): when
device_register() fails, the name dev_set_name() allocated is never
freed, and a failed dev_set_name() turns into -EINVAL. Upstream fixed
the leak once with put_device() (2a934fdb01db, "media: v4l2-dev: fix
error handling in __video_register_device()"), which double-freed the
video devices drivers release themselves and was reverted in the stable
trees (6.18.y 50d6ad12eb63, 6.12.y 7ac48cd8ca4c); the error path in
7.3-rc7 says so in a comment. This patch frees the name alone, which
is safe whoever owns the video_device; its message has the history and
answers the 2022 review of the same idea.

Patch 2 adds a kselftest, media_tests/video_poll_test: a select(),
pselect(), poll(), ppoll() or epoll wait for POLLPRI (V4L2 events)
only must deliver the event and not start streaming, and a wait for
POLLIN must start the read() emulator. It runs on vivid (vimc's nodes
are skipped, with the reason: no read()). It is independent of patch 1.

How they were found and tested: fault injection (each allocation of a
V4L2 driver's probe failing in turn, /proc/thread-self/fail-nth, under
KASAN and kmemleak) in QEMU guests of Debian's 6.1, 6.12 and 7.2
kernels with these fixes, where kmemleak reports nothing after them;
the selftest passes on vivid there, and fails on a kernel that restores
the pre-v3.4 NULL poll tables (a demonstration switch not sent here).
On this base both apply with git am and pass checkpatch --strict.

Based on $(tree_name "$t73" 7.3),
an extracted tarball: no upstream commit is known, so there is no
base-commit.
EOF
write_series media 7.3 linux-media@vger.kernel.org PATCH "$work/media.blurb"

# --- driver core: platform_device_add() --------------------------------------
fix=$(ls "$p73"/0003-driver-core-platform-*.patch)
scratch "$work/driver-core" "$t73" $(touched "$fix") MAINTAINERS
git -C "$work/driver-core" am -q "$fix"
cat > "$work/driver-core.blurb" <<EOF
driver core: platform: check dev_set_name() in platform_device_add()
platform_device_add() ignores a failed dev_set_name(): the nameless
device then fails in device_add() with -EINVAL, which callers report
as a bad argument, instead of -ENOMEM. The patch returns the error
(undoing an automatic ID). It changes the error code only: nothing
leaked on that path before. Not for stable, then.

Found by failing each allocation of a module's init, which registers
platform devices, in turn (/proc/thread-self/fail-nth) in QEMU guests
of Debian's 6.1, 6.12 and 7.2 kernels; the new error path was reached
there. Built with GCC's -Wmaybe-uninitialized and with clang, the
changed file gains no warning (an earlier version read the resource
loop's index before it was set). On this base it applies with git am
and passes checkpatch --strict.

Based on $(tree_name "$t73" 7.3),
an extracted tarball: no upstream commit is known, so there is no
base-commit.
EOF
write_series driver-core 7.3 driver-core@lists.linux.dev PATCH "$work/driver-core.blurb"

# --- 6.1 stable: the backports -------------------------------------------------
bp=$(ls "$TOP"/patches/0004-module-*.patch "$TOP"/patches/0005-driver-core-*.patch)
scratch "$work/stable-6.1" "$t61" $(touched $bp) MAINTAINERS
for p in $bp; do
	git -C "$work/stable-6.1" am -q "$p"
done
cat > "$work/stable-6.1.blurb" <<EOF
module_add_driver() backports for 6.1
Please consider these two upstream commits for 6.1.y:

  85d2b0aa1703 ("module: don't ignore sysfs_create_link() failures"),
  v6.10, in 6.6.y and 6.9.y
  18ec12c97b39 ("driver core: Fix a potential null-ptr-deref in
  module_add_driver()"), v6.12-rc1, its fix

In 6.1, when a module's "drivers" directory cannot be created (an
allocation in kobject_create_and_add()), module_add_driver() calls
sysfs_create_link() with a NULL directory, which puts the driver's
link at the sysfs root (/sys/platform:vivpoll here);
module_remove_driver() skips a module without the directory, so the
link outlives the module, and the next such failure warns with a
duplicate filename. With the backports the driver's registration fails
instead, as in later kernels.

85d2b0aa1703 needed one change: 6.1's base.h still declares
module_add_driver() "extern void"; the rest applies unchanged at other
line numbers. 18ec12c97b39 applies unchanged on top of it. checkpatch
--strict reports, besides the stable form "commit ... upstream.", only
what the upstream commits themselves carry (printk(KERN_ERR ...), an
alignment, their quoted oops and hashes it cannot look up without git).

Found by failing each allocation of a module's init in turn
(/proc/thread-self/fail-nth, under KASAN) in a QEMU guest of Debian's
6.1; tested there with the same fault injection and the project's
guest suites.

Based on $(tree_name "$t61" 6.1).
EOF
write_series stable-6.1 6.1 stable@vger.kernel.org "PATCH 6.1" "$work/stable-6.1.blurb"

# --- the checks -----------------------------------------------------------------
# checkpatch from the base tree (no git there: commit ids cannot be looked
# up; they were checked against upstream's history by hand). The stable
# backports keep upstream's code and messages as they are, so the types
# only those carry are let through there, by name (tools/lib.sh:
# checkpatch_ignores, as make check and make check-series do).
n=0 failed=0
check() {
	local name=$1 kver=$2 tree d=$out/$1 log=$work/$1.check r p
	tree=$(tree_of "$kver")
	r=0
	: > "$log"
	for p in $(ls "$d"/0*.patch | grep -v 0000-cover-letter); do
		# shellcheck disable=SC2046 # the options, one word each
		(cd "$tree" && perl scripts/checkpatch.pl --strict --no-tree --quiet \
			--ignore UNKNOWN_COMMIT_ID $(checkpatch_ignores "$p") "$p") >> "$log" 2>&1 || r=1
	done
	n=$((n + 1))
	if [ $r = 0 ]; then
		echo "ok $n - $name: checkpatch --strict (base $kver)"
	else
		echo "not ok $n - $name: checkpatch --strict (base $kver)"
		sed 's/^/# /' "$log"
		failed=$((failed + 1))
	fi
	# git am, as the maintainer would: the written files, on the pristine ones
	scratch "$work/am-$name" "$tree" $(touched "$d"/0*.patch) MAINTAINERS
	r=0
	for p in $(ls "$d"/0*.patch | grep -v 0000-cover-letter); do
		git -C "$work/am-$name" -c user.name=am -c user.email=am@localhost am -q "$p" > "$log" 2>&1 || { r=1; break; }
	done
	n=$((n + 1))
	if [ $r = 0 ]; then
		echo "ok $n - $name: git am on pristine $kver"
	else
		echo "not ok $n - $name: git am on pristine $kver"
		sed 's/^/# /' "$log"
		failed=$((failed + 1))
	fi
}
echo "TAP version 13"
echo "1..6"
check media 7.3
check driver-core 7.3
check stable-6.1 6.1
[ $failed = 0 ] || die "$failed of $n upstream checks failed"
say "upstream: nothing sent; e.g. git send-email out/upstream/media/*.patch"
