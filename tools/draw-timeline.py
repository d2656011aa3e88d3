#!/usr/bin/env python3
"""Draw the traced scenes of make demo as a timeline PNG with gnuplot.

    draw-timeline.py DEMO_DIR OUT.PNG STAMP

DEMO_DIR holds the guest's tracefs dumps (guest/demo.sh, guest/demo-clients.sh):
trace-off.txt and trace-on.txt (the exceptfds-only watcher with
fs.poll_legacy_null_table off and on) and trace-clients.txt (the watcher beside
GStreamer). Each becomes a panel: one row per task that polled the device,
one for the engine, time on x from the scene's start. Every vivpoll_poll
call is a point shaped by what it requested (POLLPRI only, with POLLIN, or
~0 from a NULL table), with a mark above it when the driver reported an
event (POLLPRI in its answer); the engine's running time is a bar from
vivpoll_engine_start to vivpoll_engine_stop, labelled with the task that
started it, with a tick per buffer done (vb2:vb2_buf_done, vb2's own event, which fires for every buffer the driver hands back); the brightness changes the
scene made (trace_marker lines) are dashed lines. Exit 0 when the PNG was
written.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

LINE = re.compile(r"^\s*(.+?)-(\d+)\s+\[\d+\](?:\s+\S+)?\s+([\d.]+):\s+(\w+):\s+(.*)$")
SCENES = (
    ("trace-off.txt", "switch off (today): a watcher that waits on exceptfds only (select, POLLPRI)"),
    ("trace-on.txt", "switch on (pre-v3.4 poll tables): the same watcher, the same two brightness changes"),
    ("trace-clients.txt", "real clients, switch off: the same watcher beside GStreamer's v4l2src"),
)
POLLIN, POLLPRI, POLLRDNORM = 0x1, 0x2, 0x40


def parse(path):
    ev = []
    with open(path, errors="replace") as f:
        for line in f:
            m = LINE.match(line.rstrip("\n"))
            if m:
                comm, pid, ts, name, rest = m.groups()
                ev.append((float(ts), comm.strip(), name, rest))
    return ev


def field(rest, key):
    m = re.search(r"\b%s=(\S+)" % key, rest)
    return m.group(1) if m else None


def q(s):
    return '"%s"' % s.replace('"', "'").replace("\\", "/").replace("\n", "\\n")


def panel(d, i, path, title):
    """Write panel i's data files; return its gnuplot commands."""
    ev = parse(path)
    if not ev:
        return None
    scene = [e for e in ev if e[2] == "tracing_mark_write" and e[3].startswith("scene:")]
    t0 = scene[0][0] if scene else ev[0][0]
    tend = ev[-1][0] - t0
    polls = [e for e in ev if e[2] == "vivpoll_poll"]
    tasks = []
    for e in polls:
        if e[1] not in tasks:
            tasks.append(e[1])
    starts = [e for e in ev if e[2] == "vivpoll_engine_start"]
    for e in starts:
        if e[1] not in tasks:
            tasks.append(e[1])
    rows = {t: k + 1 for k, t in enumerate(tasks)}
    eng = 0
    files = {}

    def w(name, lines):
        p = os.path.join(d, "p%d-%s.dat" % (i, name))
        with open(p, "w") as f:
            f.write("".join(lines) if lines else "nan nan\n")
        files[name] = p

    pri, inn, null, got = [], [], [], []
    for t, comm, _, rest in polls:
        x = t - t0
        req = int(field(rest, "req") or "0", 16)
        ret = int(field(rest, "ret") or "0", 16)
        y = rows[comm]
        if req == 0xffffffff:
            null.append("%f %d\n" % (x, y))
        elif req & (POLLIN | POLLRDNORM):
            inn.append("%f %d\n" % (x, y))
        else:
            pri.append("%f %d\n" % (x, y))
        if ret & POLLPRI:
            got.append("%f %f\n" % (x, y + 0.28))
    w("pri", pri)
    w("in", inn)
    w("null", null)
    w("got", got)
    w("frames", ["%f %d\n" % (e[0] - t0, eng) for e in ev if e[2] == "vb2_buf_done"])
    # the engine's running intervals: start .. stop (or the end of the trace)
    bars, labels, open_at = [], [], None
    for t, comm, name, rest in ev:
        if name == "vivpoll_engine_start":
            open_at = t - t0
            labels.append((open_at, comm))
        elif name == "vivpoll_engine_stop" and open_at is not None:
            x1 = t - t0
            bars.append("%f %d %f %f\n" % ((open_at + x1) / 2, eng, (x1 - open_at) / 2, 0.22))
            open_at = None
    if open_at is not None:
        bars.append("%f %d %f %f\n" % ((open_at + tend) / 2, eng, (tend - open_at) / 2, 0.22))
    w("engine", bars)
    w("starts", ["%f %d\n%f %d\n\n" % (x, eng, x, rows.get(c, eng)) for x, c in labels])
    raises = [(e[0] - t0, e[3].split(":", 1)[1].strip()) for e in ev
              if e[2] == "tracing_mark_write" and e[3].startswith("raise:")]
    npri, nin, nnull = len(pri), len(inn), len(null)
    summary = "%d poll calls: %d POLLPRI only, %d with POLLIN, %d ~0 (NULL table); engine %s" % (
        len(polls), npri, nin, nnull,
        ("started by " + ", ".join(sorted(set(c for _, c in labels)))) if labels else "never started")
    cmds = ["unset label", "unset arrow"]
    ytics = ['"engine (frames)" %d' % eng] + ['%s %d' % (q(t), y) for t, y in rows.items()]
    cmds.append("set ytics (%s)" % ", ".join(ytics))
    cmds.append("set yrange [-0.6:%f]" % (len(tasks) + 0.9))
    cmds.append("set xrange [0:%f]" % max(tend, 0.5))
    cmds.append("set title %s" % q(title + "\n" + summary))
    for k, (x, what) in enumerate(raises):
        cmds.append("set arrow from %f, graph 0 to %f, graph 1 nohead dt 2 lc rgb '#7b3294' lw 1.5" % (x, x))
        cmds.append("set label %s at %f, graph 0.97 left offset 0.3,0 tc rgb '#7b3294' font 'sans,8'" % (q(what), x))
    for x, comm in labels:
        cmds.append("set label %s at %f, %d left offset 0.5,0.9 font 'sans,9:Bold' tc rgb '#b2182b'" %
                    (q("engine started by " + comm), x, eng))
    f = files
    cmds.append(
        "plot %s using 1:2:3:4 with boxxyerror fs solid 0.35 fc rgb '#e8603c' lc rgb '#e8603c' title 'engine running', \\\n"
        "  %s using 1:2 with points pt 7 ps 0.3 lc rgb '#b2182b' title 'buffer done (vb2_buf_done)', \\\n"
        "  %s using 1:2 with lines lw 2 lc rgb '#b2182b' notitle, \\\n"
        "  %s using 1:2 with points pt 6 ps 1.2 lc rgb '#2166ac' title 'poll call asking POLLPRI only', \\\n"
        "  %s using 1:2 with points pt 5 ps 1.0 lc rgb '#e08214' title 'poll call asking POLLIN', \\\n"
        "  %s using 1:2 with points pt 9 ps 1.4 lc rgb '#d7191c' title 'poll call with ~0 (NULL table)', \\\n"
        "  %s using 1:2 with points pt 13 ps 0.8 lc rgb '#1a9641' title 'event reported (POLLPRI in the answer)'"
        % (q(f["engine"]), q(f["frames"]), q(f["starts"]), q(f["pri"]), q(f["in"]), q(f["null"]),
           q(f["got"])))
    return "\n".join(cmds), len(tasks) + 1


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__.strip().split("\n\n")[1])
    src, png, stamp = sys.argv[1:]
    gp = shutil.which("gnuplot")
    if not gp:
        print("draw-timeline: gnuplot is missing (make deps installs gnuplot-nox)", file=sys.stderr)
        return 1
    d = tempfile.mkdtemp(prefix="vivpoll-timeline-")
    panels = []
    for k, (name, title) in enumerate(SCENES):
        p = os.path.join(src, name)
        if not os.path.exists(p):
            print("draw-timeline: %s missing" % p, file=sys.stderr)
            continue
        r = panel(d, k, p, title)
        if r:
            panels.append(r)
    if not panels:
        print("draw-timeline: no trace to draw in %s" % src, file=sys.stderr)
        return 1
    heights = [140 + 45 * n for _, n in panels]
    h = sum(heights) + 90
    out = ["set terminal pngcairo noenhanced size 1500,%d font 'sans,10'" % h,
           "set output %s" % q(png),
           "set multiplot title %s font 'sans,13'" % q(
               "What each task asked of vivpoll's ->poll(), and when the engine ran (vivpoll tracepoints)\n"
               + stamp + "; make demo"),
           "set key outside right top vertical font 'sans,9' spacing 1.2",
           "set grid xtics lc rgb '#dddddd'",
           "set xlabel 'seconds from the scene start' offset 0,0.5",
           "set lmargin 20", "set rmargin 42", "set tics font 'sans,10'"]
    top = 1.0 - 80.0 / h
    for (cmds, _), ph in zip(panels, heights):
        frac = ph / float(h)
        out += ["set origin 0,%f" % (top - frac), "set size 1,%f" % frac, cmds]
        top -= frac
    out.append("unset multiplot")
    with open(os.path.join(d, "timeline.gp"), "w") as f:
        f.write("\n".join(out) + "\n")
    r = subprocess.run([gp, os.path.join(d, "timeline.gp")], capture_output=True, text=True)
    if r.returncode != 0 or not os.path.exists(png):
        print("draw-timeline: gnuplot failed: " + r.stderr.strip()[-600:], file=sys.stderr)
        return 1
    shutil.rmtree(d, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
