#!/usr/bin/env python3
"""Write make demo's page, HOSTDIR/index.html, from what the demo left there.

    demo-page.py HOSTDIR STAMP STATUS

One self-contained page (inline style, no script, relative links only, so
it opens from the file system without a server): the story, the two
pictures (matrix.png, timeline.png), a contact sheet of the captured frames
(frames/: ours, GStreamer's, ffmpeg's) and the text results (the terminal
output, each step's TAP line, links to the raw TAP, logs and traces).
STATUS is the guest's exit status. Exit 0 when the page was written.
"""
import html
import os
import re
import sys

SHEETS = (
    ("vivpoll-capture (ours: mmap + poll(POLLIN))", re.compile(r"^frame-\d+\.png$")),
    ("GStreamer 1.22: v4l2src ! videoconvert ! pngenc", re.compile(r"^gst-\d+\.png$")),
    ("ffmpeg 5.1: -f v4l2 -input_format yuyv422", re.compile(r"^ffmpeg-\d+\.png$")),
)
PER_SHEET = 6

STYLE = """
body { font-family: sans-serif; max-width: 1600px; margin: 1em auto; padding: 0 1em; color: #222; }
h1 { font-size: 1.5em; margin-bottom: 0.2em; }
.stamp { color: #666; margin-top: 0; }
.ok { color: #1a7f37; font-weight: bold; } .bad { color: #b2182b; font-weight: bold; }
img.pic { max-width: 100%; border: 1px solid #ccc; }
.sheet { display: flex; flex-wrap: wrap; gap: 8px; margin-bottom: 1em; }
.sheet figure { margin: 0; text-align: center; font-size: 0.8em; color: #555; }
.sheet img { width: 200px; border: 1px solid #ccc; }
pre { background: #f6f6f6; padding: 0.8em; overflow-x: auto; font-size: 0.85em; }
"""


def pick(names, n):
    if len(names) <= n:
        return names
    step = (len(names) - 1) / float(n - 1)
    return [names[round(k * step)] for k in range(n)]


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__.strip().split("\n\n")[1])
    top, stamp, status = sys.argv[1:]
    demo = os.path.join(top, "demo")

    def read(name):
        p = os.path.join(demo, name)
        return open(p, errors="replace").read() if os.path.exists(p) else ""

    terminal = read("terminal.txt").replace("\r", "")
    steps = [ln for ln in read("demo.tap").splitlines() if re.match(r"^(not )?ok ", ln)]
    failed = [ln for ln in steps if ln.startswith("not ok")]
    story = []
    lines = terminal.splitlines()
    for k, ln in enumerate(lines):
        if ln.startswith("== vivpoll"):
            for s in lines[k + 1:]:
                if not s.strip():
                    break
                story.append(s)
            break
    e = html.escape
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           "<title>vivpoll: make demo</title>", "<style>%s</style></head><body>" % STYLE,
           "<h1>vivpoll: a POLLPRI-only wait no longer starts streaming</h1>",
           '<p class="stamp">make demo, %s</p>' % e(stamp)]
    if status == "0" and steps and not failed:
        out.append('<p class="ok">All %d steps of the demo passed.</p>' % len(steps))
    else:
        out.append('<p class="bad">%d of %d steps failed (guest exit status %s).</p>'
                   % (len(failed), len(steps), e(status)))
    if story:
        out.append("<p>%s</p>" % e(" ".join(story)))
    out += ["<h2>1. The matrix: did the wait start streaming?</h2>",
            "<p>Every wait API, in four situations, asking for POLLPRI, POLLIN or both, with "
            "<code>fs.poll_legacy_null_table</code> off (today) and on (the pre-v3.4 tables). "
            "Raw results: <a href=\"demo/prove.tap\">demo/prove.tap</a>.</p>",
            '<img class="pic" src="matrix.png" alt="the proof matrix, switch off and on">',
            "<h2>2. The timeline: what each task asked for, and who started the engine</h2>",
            "<p>From the vivpoll tracepoints: the same exceptfds-only watcher with the switch off "
            "and on, then beside GStreamer. Raw traces: "
            + ", ".join('<a href="demo/%s">%s</a>' % (n, n)
                        for n in ("trace-off.txt", "trace-on.txt", "trace-clients.txt")) + ".</p>",
            '<img class="pic" src="timeline.png" alt="the traced scenes">',
            "<h2>3. The frames the clients captured</h2>"]
    fdir = os.path.join(top, "frames")
    names = sorted(os.listdir(fdir)) if os.path.isdir(fdir) else []
    for title, rx in SHEETS:
        mine = [n for n in names if rx.match(n)]
        out.append("<h3>%s: %d frames written%s</h3>" % (
            e(title), len(mine), ", %d shown" % min(len(mine), PER_SHEET) if mine else ""))
        if not mine:
            out.append('<p class="bad">none</p>')
            continue
        out.append('<div class="sheet">')
        for n in pick(mine, PER_SHEET):
            out.append('<figure><a href="frames/%s"><img src="frames/%s" alt="%s"></a>'
                       "<figcaption>%s</figcaption></figure>" % (e(n), e(n), e(n), e(n)))
        out.append("</div>")
    out += ["<h2>4. The text results</h2>",
            "<p>Each step (<a href=\"demo/demo.tap\">demo/demo.tap</a>):</p>",
            "<pre>%s</pre>" % e("\n".join(steps) or "(no steps reported)"),
            "<p>The terminal (<a href=\"demo/terminal.txt\">demo/terminal.txt</a>; the details: "
            + ", ".join('<a href="demo/%s">%s</a>' % (n, n)
                        for n in ("events.log", "capture.log", "clients.log", "watch-off.log",
                                  "watch-on.log") if os.path.exists(os.path.join(demo, n)))
            + "):</p>",
            "<pre>%s</pre>" % e(terminal or "(no output)"),
            "</body></html>"]
    with open(os.path.join(top, "index.html"), "w") as f:
        f.write("\n".join(out) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
