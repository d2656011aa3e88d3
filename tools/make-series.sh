#!/usr/bin/env bash
# make series: an upstream-style series that adds drivers/vivpoll as
# drivers/media/test-drivers/vivpoll, on top of patches/, into out/series/.
# Generated from drivers/vivpoll/ (the one source of truth), in a scratch git
# repository that holds the pristine versions of every file it touches.
set -eu
. "$(dirname "$0")/lib.sh"

# Author, committer, Signed-off-by, MAINTAINERS and MODULE_AUTHOR: the identity of whoever
# runs this (git config user.name / user.email), as git format-patch -s
# would sign; no series without one.
ident=$(git_ident)
name=${ident% <*}
email=${ident##*<}
email=${email%>}
src=$TOP/drivers/vivpoll
dest=${SERIES_DIR:-$TOP/out/series}
pristine=$(pristine_tree)
work=$(mktemp -d "${TMPDIR:-/tmp}/vivpoll-series.XXXXXX")
trap 'rm -rf "$work"' EXIT

st=tools/testing/selftests/media_tests
touched="drivers/media/test-drivers/Kconfig drivers/media/test-drivers/Makefile
MAINTAINERS Documentation/admin-guide/media/v4l-drivers.rst $st/Makefile $st/.gitignore"
for p in $(patch_files); do
	touched="$touched $(sed -n 's|^+++ b/||p' "$p")"
done
for f in $touched; do
	mkdir -p "$work/$(dirname "$f")"
	cp "$pristine/$f" "$work/$f"
done

export GIT_AUTHOR_NAME="$name" GIT_AUTHOR_EMAIL="$email"
export GIT_COMMITTER_NAME="$GIT_AUTHOR_NAME" GIT_COMMITTER_EMAIL="$GIT_AUTHOR_EMAIL"
export GIT_AUTHOR_DATE="2026-12-03T00:00:00Z" GIT_COMMITTER_DATE="2026-12-03T00:00:00Z"
g() { git -C "$work" -c core.autocrlf=false "$@"; }
g init -q
g add -A
g commit -q -m "Linux $(sed -n 's/^SUBLEVEL = //p' "$pristine/Makefile" | sed "s/^/$KVER./") (pristine)"
for p in $(patch_files); do
	g am -q "$p"
done
base=$(g rev-parse HEAD)

# Patch 1: the driver, its Kconfig and Makefile, MAINTAINERS.
d=$work/drivers/media/test-drivers/vivpoll
mkdir -p "$d"
# The sources are written against the newest kernel's API; vivpoll-compat.h
# adapts them out of tree only (Kbuild's out-of-tree block includes it).
find "$src" -maxdepth 1 -name '*.[ch]' ! -name '*.mod.c' ! -name vivpoll-compat.h -exec cp {} "$d/" \;
# An older tree gets the driver as written for its own API: what
# vivpoll-compat.h does there, written into the source, no version check.
python3 - "$d" "$pristine" <<'PY' || die "the sources changed where an older tree's API differs: update tools/make-series.sh and vivpoll-compat.h"
import re, sys
d, tree = sys.argv[1], sys.argv[2]

def edit(name, old, new):
    p = "%s/%s" % (d, name)
    s = open(p).read()
    if s.count(old) != 1:
        sys.exit("%s: %r" % (name, old))
    open(p, "w").write(s.replace(old, new))

def has(path, text):
    return text in open(tree + "/" + path).read()

# the same feature tests as Kbuild's out-of-tree block, not versions
if not has("include/linux/slab.h", "#define kzalloc_obj("):
    edit("vivpoll-core.c", "kzalloc_obj(*dev);", "kzalloc(sizeof(*dev), GFP_KERNEL);")
if has("include/linux/module.h", "MODULE_INFO(import_ns, __stringify(ns))"):
    edit("vivpoll-kunit.c", 'MODULE_IMPORT_NS("EXPORTED_FOR_KUNIT_TESTING");',
         "MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);")
if has("include/media/videobuf2-core.h", "(*wait_prepare)"):
    edit("vivpoll-vid-cap.c", "\t.stop_streaming = vivpoll_stop_streaming,\n};",
         "\t.stop_streaming = vivpoll_stop_streaming,\n"
         "\t.wait_prepare = vb2_ops_wait_prepare,\n"
         "\t.wait_finish = vb2_ops_wait_finish,\n};")
if has("drivers/media/common/videobuf2/videobuf2-v4l2.c",
       "if (vdev->queue && vdev->queue->owner) {"):
    edit("vivpoll-core.c", "\tvb2_video_unregister_device(&dev->vdev);\n",
         "\tvb2_video_unregister_device(&dev->vdev);\n"
         "\t/* here it leaves a queue without an owner (read()'s may be) */\n"
         "\tmutex_lock(&dev->mutex);\n"
         "\tvb2_queue_release(&dev->queue);\n"
         "\tdev->queue.owner = NULL;\n"
         "\tmutex_unlock(&dev->mutex);\n")
if has("include/linux/platform_device.h", "int (*remove)(struct platform_device *);"):
    edit("vivpoll-core.c", "\t.remove = vivpoll_remove,", "\t.remove_new = vivpoll_remove,")
PY
# The module's author is whoever signs the series.
python3 - "$d/vivpoll-core.c" "$ident" <<'PY' || die "no MODULE_AUTHOR line in vivpoll-core.c to sign"
import re, sys
p, ident = sys.argv[1], sys.argv[2]
s, n = re.subn(r'^MODULE_AUTHOR\(".*"\);$', lambda m: 'MODULE_AUTHOR("%s");' % ident,
               open(p).read(), flags=re.M)
open(p, "w").write(s)
sys.exit(n != 1)
PY
cp "$src/Kconfig" "$d/Kconfig"
# In-tree, Kconfig sets what Kbuild's out-of-tree defaults set.
sed '/^# Out of tree/,/^$/d' "$src/Kbuild" > "$d/Makefile"
! grep -q '?=' "$d/Makefile" || die "Kbuild's out-of-tree block changed: update tools/make-series.sh"
sed -i 's|^source "drivers/media/test-drivers/vivid/Kconfig"$|&\nsource "drivers/media/test-drivers/vivpoll/Kconfig"|' \
	"$work/drivers/media/test-drivers/Kconfig"
sed -i 's|^obj-$(CONFIG_VIDEO_VIVID) += vivid/$|&\nobj-$(CONFIG_VIDEO_VIVPOLL) += vivpoll/|' \
	"$work/drivers/media/test-drivers/Makefile"
python3 - "$work/MAINTAINERS" "$ident" <<'PY'
import sys
p = sys.argv[1]
s = open(p).read()
entry = """VIVPOLL VIRTUAL CAPTURE DRIVER
M:	%s
L:	linux-media@vger.kernel.org
S:	Maintained
F:	drivers/media/test-drivers/vivpoll/

""" % sys.argv[2]
anchor = "VIVID VIRTUAL VIDEO DRIVER\n"
i = s.index(anchor)
j = s.index("\n\n", i) + 2
s = s[:j] + entry + s[j:]
open(p, "w").write(s)
PY
g add -A
g commit -q -s -F - <<'MSG'
media: test-drivers: add vivpoll, a capture driver with an on-demand engine

vivpoll emulates a capture device with a DMA engine that runs only when
an application asks for frames: VIDIOC_STREAMON, read(), or a poll()
whose requested events include POLLIN or POLLRDNORM (through vb2's
read() emulator). A select(), poll() or epoll that waits only for
POLLPRI, i.e. for V4L2 events, never starts it.

This makes the poll core's contract visible: since v3.4 a driver's
->poll() always gets a poll_table whose key carries the requested
events, and poll_requested_events() reports them. The driver traces
the requested mask of every poll call, counts the engine's starts,
frames and drops in read-only controls, and raises control, source
change and frame sync events.

Capture uses vb2 (MMAP, USERPTR, DMABUF, read()) with vmalloc buffers;
frames are drawn by v4l2-tpg. Two camera inputs; the signal of the
second one a control switches off and on. A KUnit suite covers the pure
logic.
MSG

# Patch 2: the admin-guide page.
if [ -f "$src/vivpoll.rst" ]; then
	cp "$src/vivpoll.rst" "$work/Documentation/admin-guide/media/vivpoll.rst"
	sed -i 's|^\tvivid$|&\n\tvivpoll|' "$work/Documentation/admin-guide/media/v4l-drivers.rst"
	sed -i 's|^F:\tdrivers/media/test-drivers/vivpoll/$|F:\tDocumentation/admin-guide/media/vivpoll.rst\n&|' "$work/MAINTAINERS"
	g add -A
	g commit -q -s -F - <<'MSG'
media: admin-guide: document vivpoll

Describe what vivpoll emulates, its module parameters and controls, the
poll semantics it demonstrates with examples, and how to test it with
v4l2-compliance.
MSG
fi

# Patch 3: the kernel selftest of the claim (selftests/media_tests/ is its
# one source), listed in the folder's Makefile (linked with -lpthread: its
# event raiser is a thread) and .gitignore.
cp "$TOP/selftests/media_tests/video_poll_test.c" "$work/$st/"
sed -i 's/^TEST_GEN_PROGS := .*/& video_poll_test/' "$work/$st/Makefile"
echo '$(OUTPUT)/video_poll_test: LDLIBS += -lpthread' >> "$work/$st/Makefile"
echo video_poll_test >> "$work/$st/.gitignore"
sed -i "s|^F:\tdrivers/media/test-drivers/vivpoll/\$|&\nF:\t$st/video_poll_test.c|" "$work/MAINTAINERS"
grep -q "^F:	$st/video_poll_test.c$" "$work/MAINTAINERS" || die "MAINTAINERS: no vivpoll entry to add the selftest to"
grep -q '^TEST_GEN_PROGS := .* video_poll_test$' "$work/$st/Makefile" || die "$st/Makefile: no TEST_GEN_PROGS line to add video_poll_test to"
g add -A
{
	cat "$TOP/selftests/media_tests/video_poll_test.msg"
	echo
	cat <<'MSG'
The test runs on the node named with -d, else on every video capture
node of a test driver (vivid, vivpoll, vimc). It learns a node's driver
from sysfs before it opens it (/sys/dev/char/MAJOR:MINOR/device/driver),
so the nodes of other drivers, a real camera's, are left alone, never
opened, and named; a test driver's node, once opened, must name the same
driver in VIDIOC_QUERYCAP. A node that is not a video capture node, or
has no V4L2_CAP_READWRITE (vimc) or no control events, is not tested,
with the reason; with no node to test, the test skips.

On a kernel with the pre-v3.4 tables restored (the demonstration sysctl
fs.poll_legacy_null_table this series applies on), the cases the old
core breaks fail, on vivid as on vivpoll.
MSG
} | g commit -q -s -F -

rm -rf "$dest"
mkdir -p "$dest"
g format-patch -q --cover-letter -o "$dest" "$base"
python3 - "$dest"/0000-cover-letter.patch <<'PY'
import sys
p = sys.argv[1]
s = open(p).read()
s = s.replace("*** SUBJECT HERE ***", "media: add vivpoll, a capture driver that starts DMA only when asked")
s = s.replace("*** BLURB HERE ***", """vivpoll is a virtual V4L2 capture driver, modelled on vivid, whose
simulated DMA engine starts only when an application asks for frames.
It demonstrates poll_requested_events(): since v3.4, commit
626cf2366085 ("poll: add poll_requested_events() and
poll_does_not_wait() functions"), a driver's ->poll() can tell a
select() that waits for V4L2 events (POLLPRI) from one that waits for
frames (POLLIN), and must not start streaming for the former.

The last patch adds a kernel selftest, media_tests/video_poll_test,
that checks the same claim through the V4L2 API alone, on the capture
nodes of the test drivers or on any node named with -d: a select(),
pselect(), poll(), ppoll() or epoll wait for POLLPRI only must deliver
the event and start no streaming, a wait for POLLIN must start the
read() emulator. It passes on vivid and vivpoll, and fails where the
pre-v3.4 core would have started streaming.

The series applies on top of the demonstration series in patches/
(fs.poll_legacy_null_table, not for merging), which lets one booted
kernel show the behaviour before and after v3.4.

v4l2-compliance 1.22.1 reports no failure and no warning on 6.1.""")
open(p, "w").write(s)
PY
printf '%s\n' "$(cd "$dest" && ls 0*.patch | grep -v 0000-cover-letter)" > "$dest/series"
say "series: $(ls "$dest"/0*.patch | wc -l) files in $dest"
