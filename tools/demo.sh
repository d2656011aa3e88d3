#!/usr/bin/env bash
# make demo: boot the guest once and run guest/demo.sh (the story, the
# matrix, the traced scenes, the real clients); then draw, from what it left
# in $HOSTDIR/demo, matrix.png, timeline.png and index.html in $HOSTDIR
# (default out/), and copy the two pictures to docs/ when every step passed
# (VIVPOLL_DEMO_DOCS=0 leaves docs/ alone). Ends with what was written where.
set -eu -o pipefail
. "$(dirname "$0")/lib.sh"
cd "$TOP"

HOSTDIR=${HOSTDIR:-$TOP/out}
export HOSTDIR
d=$HOSTDIR/demo
rm -rf "$d" "$HOSTDIR/matrix.png" "$HOSTDIR/timeline.png" "$HOSTDIR/index.html"
mkdir -p "$d"
t0=$(date +%s)
set +e
tools/qemu-run.sh --timeout "${VIVPOLL_TIMEOUT:-900}" --log "$d/terminal.txt" -- '/vivpoll/demo.sh'
rc=$?
set -e
# What the pictures and the page are stamped with.
commit=$(git rev-parse --short HEAD 2> /dev/null || echo unknown)
[ -z "$(git status --porcelain -- drivers apps guest tools patches tests 2> /dev/null)" ] || commit+=+
stamp="$(date -u '+%Y-%m-%d %H:%M UTC'), commit $commit"
draw=0
python3 tools/draw-matrix.py "$d/prove.tap" "$HOSTDIR/matrix.png" "$stamp" || draw=1
python3 tools/draw-timeline.py "$d" "$HOSTDIR/timeline.png" "$stamp" || draw=1
python3 tools/demo-page.py "$HOSTDIR" "$stamp" "$rc" || draw=1
if [ "$rc" = 0 ] && [ "$draw" = 0 ] && [ "${VIVPOLL_DEMO_DOCS:-1}" != 0 ]; then
	cp "$HOSTDIR/matrix.png" "$HOSTDIR/timeline.png" docs/
	docs=" (copied to docs/)"
fi
o=${HOSTDIR#"$TOP"/}
echo
echo "written ($(($(date +%s) - t0)) s):"
echo "  $o/index.html      one page: both pictures, the frames, the text results (open it in a browser)"
echo "  $o/matrix.png      the matrix, switch off and on side by side${docs:-}"
echo "  $o/timeline.png    the traced scenes: the watcher with the switch off and on, beside GStreamer${docs:-}"
echo "  $o/frames/         PNG frames: ours (frame-*), GStreamer's (gst-*), ffmpeg's (ffmpeg-*)"
echo "  $o/demo/           prove.tap (the matrix as TAP), demo.tap (one line a step), logs, traces"
[ "$draw" = 0 ] || say "demo: drawing failed (see above)"
[ "$rc" = 0 ] || say "demo: a step failed (status $rc): see $o/demo/demo.tap"
[ "$rc" = 0 ] && [ "$draw" = 0 ]
