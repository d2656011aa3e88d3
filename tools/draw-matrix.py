#!/usr/bin/env python3
"""Draw the proof matrix (vivpoll-prove --tap-only) as a PNG with gnuplot.

    draw-matrix.py PROVE.TAP OUT.PNG STAMP

One cell per wait API x request x situation, switch off (today's kernel) on
the left, on (the pre-v3.4 poll tables) on the right; each cell coloured by
whether the wait started streaming, and marked with the mask the driver saw
and the event the wait reported. A cell that is not what apps/prove-expect.c
predicts is drawn with a thick black frame and "UNEXPECTED". Reads the
kernel version from meta beside PROVE.TAP. Exit 0 when the PNG was written.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

CELL = re.compile(r"^(not )?ok \d+ - (\S+) (\S+) (\S+) switch=(on|off)(?::| )(.*)$")
STARTED, IDLE, ERROR = "#e8603c", "#cfe2f3", "#bbbbbb"


def parse(path):
    cells, apis, sits, reqs = {}, [], [], []
    with open(path, errors="replace") as f:
        for line in f:
            m = CELL.match(line.rstrip("\n"))
            if not m:
                continue
            bad, api, sit, req, sw, rest = m.groups()
            for lst, v in ((apis, api), (sits, sit), (reqs, req)):
                if v not in lst:
                    lst.append(v)
            st = re.search(r"start=(\S+)", rest)
            ev = re.search(r"ev=(\S+)", rest)
            mask = re.search(r"mask=0x([0-9a-f]+)", rest)
            cells[api, sit, req, sw] = {
                "bad": bool(bad),
                "error": st is None,
                "started": bool(st and st.group(1) == "YES"),
                "ev": ev.group(1) if ev else "?",
                "mask": int(mask.group(1), 16) if mask else None,
            }
    return cells, apis, sits, reqs


def mask_text(m):
    if m is None:
        return "?"
    if m == 0xffffffff:
        return "~0: NULL table"
    return "0x%x" % m


def q(s):
    return '"%s"' % s.replace('"', "'")


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__.strip().split("\n\n")[1])
    tap, png, stamp = sys.argv[1:]
    cells, apis, sits, reqs = parse(tap)
    if not cells:
        print("draw-matrix: no matrix cells in %s" % tap, file=sys.stderr)
        return 1
    kernel = "?"
    meta = os.path.join(os.path.dirname(tap), "meta")
    if os.path.exists(meta):
        for line in open(meta):
            if line.startswith("kernel="):
                kernel = line.split("=", 1)[1].strip()
    gp = shutil.which("gnuplot")
    if not gp:
        print("draw-matrix: gnuplot is missing (make deps installs gnuplot-nox)", file=sys.stderr)
        return 1
    d = tempfile.mkdtemp(prefix="vivpoll-matrix-")
    ns = len(sits)
    rows = [(a, r) for a in apis for r in reqs]
    # x: situation s of switch off at s, of switch on at ns + 1 + s
    with open(os.path.join(d, "cells.dat"), "w") as f:
        for y, (a, r) in enumerate(rows):
            for s, sit in enumerate(sits):
                for k, sw in enumerate(("off", "on")):
                    c = cells.get((a, sit, r, sw))
                    x = s + k * (ns + 1)
                    if c is None:
                        continue
                    col = ERROR if c["error"] else STARTED if c["started"] else IDLE
                    head = "error" if c["error"] else "STARTS" if c["started"] else "idle"
                    if c["bad"]:
                        head += " - UNEXPECTED"
                    ev = {"yes": "event came", "no": "event lost", "EINVAL": "EINVAL",
                          "-": ""}.get(c["ev"], c["ev"])
                    m = c["mask"]
                    if m is not None and m != 0xffffffff:
                        ev = ("with POLLIN" if m & 0x41 else "no POLLIN") + (", " + ev if ev else "")
                    f.write("%d %d 0x%s %d %s %s %s\n" % (
                        x, y, col[1:], 1 if c["bad"] else 0, q(head),
                        q(mask_text(c["mask"])), q(ev)))
    with open(os.path.join(d, "rows.dat"), "w") as f:
        last = None
        for y, (a, r) in enumerate(rows):
            f.write("%d %s %s\n" % (y, q(a if a != last else ""),
                                     q("|".join("POLL" + x for x in r.split("|")))))
            last = a
    with open(os.path.join(d, "sits.dat"), "w") as f:
        for s, sit in enumerate(sits):
            for k in range(2):
                f.write("%d %s\n" % (s + k * (ns + 1), q(sit)))
    ny = len(rows)
    seps = "\n".join("set arrow from -3.6, %g to %g, %g nohead lc rgb '#444444' lw 1.5 back" %
                     (i * len(reqs) - 0.5, 2 * ns + 0.5, i * len(reqs) - 0.5)
                     for i in range(1, len(apis)))
    script = r"""
set terminal pngcairo noenhanced size 1600,{h} font "sans,9"
set output '{png}'
set title "Did the wait start streaming? vivpoll on Linux {kernel}, every wait API x request x situation\n{stamp}; make demo (vivpoll-prove --switch=both)" font "sans,13"
unset border; unset xtics; unset ytics; unset key
set xrange [-3.7:{xmax}]
set yrange [{ymax}:-3.2]
set lmargin 1; set rmargin 1; set bmargin 1; set tmargin 4
{seps}
set label 1 "switch off: fs.poll_legacy_null_table=0 (today's kernel)" at {xo}, -2.4 center font "sans,12"
set label 2 "switch on: fs.poll_legacy_null_table=1 (the pre-v3.4 poll tables)" at {xn}, -2.4 center font "sans,12"
set label 3 "wait API" at -3.5, -1.1 left font "sans,10"
set label 4 "request" at -2.35, -1.1 left font "sans,10"
set object 1 rect from -3.5, {ly0} to -3.1, {ly1} fc rgb "{started}" fs solid border lc rgb "#555555"
set label 5 "STARTS: the wait started the DMA engine (streaming)" at -3.0, {lyc} left font "sans,10"
set object 2 rect from 2.9, {ly0} to 3.3, {ly1} fc rgb "{idle}" fs solid border lc rgb "#555555"
set label 6 "idle: the engine never ran" at 3.4, {lyc} left font "sans,10"
set label 7 "In each cell: the events the driver saw requested (poll_requested_events(); ~0 = a NULL table, which vb2 reads as POLLIN), and whether the control event" at -3.5, {ly2} left font "sans,10"
set label 8 "raised during the wait came through (EINVAL: aio refuses a V4L2 fd). A thick black frame and UNEXPECTED mark a cell that differs from apps/prove-expect.c." at -3.5, {ly3} left font "sans,10"
plot '{d}/cells.dat' using 1:2:(0.47):(0.46):3 with boxxyerror fs solid 1.0 border lc rgb "#888888" fc rgb variable, \
     '' using 1:2:(($4) > 0 ? 0.47 : 1/0):(0.46) with boxxyerror fs empty border lc rgb "black" lc rgb "black" lw 5, \
     '' using 1:($2 - 0.25):5 with labels font "sans,9:Bold", \
     '' using 1:($2 + 0.02):6 with labels font "sans,8", \
     '' using 1:($2 + 0.27):7 with labels font "sans,7", \
     '{d}/rows.dat' using (-3.5):1:2 with labels left font "sans,10:Bold", \
     '' using (-2.35):1:3 with labels left font "sans,10", \
     '{d}/sits.dat' using 1:(-1.1):2 with labels font "sans,10"
""".format(png=png, h=150 + ny * 46 + 120, kernel=kernel, stamp=stamp, xmax=2 * ns + 0.6,
           ymax=ny + 1.6, seps=seps, xo=(ns - 1) / 2.0, xn=ns + 1 + (ns - 1) / 2.0, d=d,
           started=STARTED, idle=IDLE, ly0=ny - 0.1, ly1=ny + 0.35, lyc=ny + 0.13, ly2=ny + 0.8, ly3=ny + 1.25)
    with open(os.path.join(d, "matrix.gp"), "w") as f:
        f.write(script)
    r = subprocess.run([gp, os.path.join(d, "matrix.gp")], capture_output=True, text=True)
    shutil.rmtree(d, ignore_errors=True)
    if r.returncode != 0 or not os.path.exists(png):
        print("draw-matrix: gnuplot failed: " + r.stderr.strip()[-600:], file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
