#!/usr/bin/env python3
"""make bench, host side: turn the guest's raw results into ratios, targets,
a table on stdout, a JSON report and a chart (gnuplot).

    bench-report.py --raw bench-raw.json --host bench-host.json \
        --readme README.md --json bench.json --png bench.png

Every compared figure is a ratio of two measurements taken side by side in
the same guest boot (absolute times under QEMU TCG on a shared host are
noisy). Frame cost (the verdict): for each round, the CPU-time clocks of
the threads that do the work (the driver's producer thread and the
application; the floor's process) over the frames delivered, pooled over
the rounds (sum of CPU over sum of frames); info: the guest's busy time
(/proc/stat, all CPUs) minus an idle window's busy rate, and every task's
clock. With BENCH_FRAME_CLOCK=icount (tools/bench.sh) the verdicts' rounds
come from a boot of their own on QEMU's instruction counter (one vCPU, CPU
in guest instructions) and the first boot's rounds, by the host's clock,
are info. The streams map
their buffers read-write, as applications do; a vivpoll run with read-only
mappings, if there is one, is shown as "vivpoll_ro" (info). The table leads
with the rows that carry a verdict; the info rows follow. Exit status: 0 if
every target that was measured is met, 1 if one is missed or a measurement
failed, 2 on bad input.
"""
import argparse
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

# How far apart the verdict's ratios (the named threads' clocks) and the
# cross-check's (every task's clock, the whole guest) may be, relative to
# the verdict's: they count the same frames, and differ only by what other
# tasks ran for them (kworkers, softirqs, RCU), which the named threads do
# not include, and by the idle window's rate that each subtracts. On
# 2026-12-05 they were 0% to 10% apart in eight runs (10% with frames of
# about 1 ms); 1 ms a frame of work outside the named threads, injected
# into the raw results of a run, put them 20% apart.
CROSS_CHECK_BOUND = 0.15

# The frame targets hold every round, not only pooled: vivid's frame is
# itself one copy of the frame (the <= 0.5x of before was shown
# unreachable), and the floor that copies a frame and wakes a reader is the
# physical limit of copying a frame and handing it over. The bare memcpy
# floor is info.
TARGETS = {
    "frame_vs_vivid": 1.0,
    "frame_vs_memcpy_wake": 1.1,
    "event_p50_vs_eventfd": 2.0,
    "poll_vs_eventfd": 2.0,
    "poll_vs_vivid": 1.0,
    "core_off_vs_unpatched": 1.01,
    "fanout_cpu_vs_eventfd": 1.5,
    "loop_warm_s": 60.0,
    "loop_edit_s": 120.0,
}

# The poll core's rows: a ratio gets a verdict only where two boots of one
# kernel agree within this (the 1%); elsewhere the interval.
CORE_NOISE_LIMIT = 0.01


def fnum(v, fmt="{:.2f}"):
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "n/a"
    return fmt.format(v)


def fratio(v, suffix="x"):
    """A ratio: three decimals below 1 (0.503x is not 0.50x), else two."""
    if v is None:
        return "n/a"
    return ("{:.3f}" if v < 1 else "{:.2f}").format(v) + suffix


def ratio(a, b):
    if a is None or b is None or b <= 0:
        return None
    return a / b


def threads_ms_per_frame(rs, floor):
    """CPU ms per frame on the threads' own clocks: the floor's process
    (self_ms), or the driver's producer thread plus the application
    (task_ms + self_ms); None if a run lacks one of them."""
    keys = ("self_ms",) if floor else ("task_ms", "self_ms")
    fr = sum(r.get("frames") or 0 for r in rs)
    if not fr or any(r.get(k) is None for r in rs for k in keys):
        return None
    return sum(r[k] for r in rs for k in keys) / fr


def frame_sizes(m):
    """The frame windows of the run, as the guest's meta says them."""
    sl = m.get("frame_slices", 1)
    return "{} s a side a round{} x {} rounds".format(
        m.get("secs", "?"), " in {} slices".format(sl) if sl != 1 else "",
        m.get("rounds", "?"))


def pct(v, q):
    """Nearest-rank percentile, as the guest computes it."""
    v = sorted(x for x in v if x is not None)
    if not v:
        return None
    k = max(1, min(len(v), math.ceil(q * len(v))))
    return v[k - 1]


class Report:
    def __init__(self, raw, host, readme, dirpath="."):
        self.dir = dirpath
        self.core_meta = {}
        self.frame_meta = {}    # the frame cost boot's (icount), if any
        self.meta = raw.get("meta", {}) if raw else {}
        self.runs = raw.get("runs", []) if raw else []
        self.host = host or {}
        self.readme = readme
        self.errors = [r for r in self.runs if "error" in r]
        self.res = {}       # the JSON report
        self.rows = []      # table rows
        self.verdicts = []  # (name, state) state in met/missed/error/info
        self.only = set(self.meta.get("only", "frame rate event poll idle fanout").split())

    def skipped(self, phase, num, label):
        """A phase left out with BENCH_ONLY: a row, no verdict."""
        if phase in self.only:
            return False
        self.res[phase] = "not run (BENCH_ONLY)"
        self.rows.append((num, label, "not run (BENCH_ONLY)", "", "", "", "not run"))
        return True

    def sel(self, phase, test=None, runs=None, **kw):
        """The good runs of a phase (of self.runs, or of runs)."""
        out = []
        for r in (self.runs if runs is None else runs):
            if r.get("phase") != phase or "error" in r:
                continue
            if test and r.get("test") != test:
                continue
            if all(r.get(k) == v for k, v in kw.items()):
                out.append(r)
        return out

    def verdict(self, name, value, limit, le=True):
        if value is None:
            state = "error"
        elif limit is None:
            state = "info"
        else:
            state = "met" if (value <= limit if le else value >= limit) else "missed"
        self.verdicts.append((name, state))
        return state

    def verdict_rounds(self, name, pooled, rounds, limit):
        """Met only if the pooled ratio and every round's are within limit."""
        if pooled is None or not rounds or None in rounds:
            return self.verdict(name, None, limit)
        return self.verdict(name, max([pooled] + rounds), limit)

    # ---- 1. frame cost ---------------------------------------------------
    def counted_runs(self, phase, what, run_errors=False):
        """The PHASE runs of the boot of their own on the instruction
        counter (WHAT names it), and that boot's meta: (a list, a dict), or
        (None, None) when there was none (BENCH_*_CLOCK=wall); a boot that
        failed or left no PHASE rows is an error and an empty list. With
        run_errors its runs' errors (warm-up included) are errors too."""
        hf = self.host.get(phase) or {}
        if not hf.get("requested"):
            return None, None
        prob = meta = None
        if hf.get("rc") != 0:
            prob = "the {} boot (icount) exited with status {}".format(what, hf.get("rc"))
        else:
            try:
                with open(os.path.join(self.dir, hf["file"])) as f:
                    raw = json.load(f)
                meta = raw.get("meta", {})
                allr = raw.get("runs", [])
                if run_errors:
                    self.errors.extend(dict(r, phase="{} (icount boot)".format(r.get("phase")))
                                       for r in allr if "error" in r)
                runs = [r for r in allr if r.get("phase") == phase]
                if runs:
                    return runs, meta
                prob = "the {} boot (icount) has no {} rows".format(what, phase)
            except (OSError, ValueError, KeyError) as e:
                prob = "the {} boot (icount) left no results ({})".format(what, e)
        self.errors.append({"phase": phase, "test": "icount boot", "error": prob})
        return [], meta

    def frame_icount(self):
        """The frame rounds of the boot on the instruction counter (see
        counted_runs()); its meta becomes the frame rows' meta."""
        runs, meta = self.counted_runs("frame", "frame cost", run_errors=True)
        if meta is not None:
            self.frame_meta = meta
        return runs

    def frame(self):
        if self.skipped("frame", "1", "Frame cost"):
            return
        ic = self.frame_icount()
        icount = ic is not None
        # the verdicts: the instruction counter's rounds if there was that
        # boot, else the first boot's (by the host's clock)
        runs = ic if icount else self.runs
        rounds = sorted({r.get("round") for r in runs if r.get("phase") == "frame"})
        per = {"vivpoll": [], "vivid": [], "memcpy": [], "vivpoll_ro": [],
               "memcpy_wake": []}
        floors = ("memcpy", "memcpy_wake")
        base_rates = []
        per_round = []
        for rd in rounds:
            base = self.sel("frame", "cpu", runs=runs, round=rd)
            rate = base[0]["busy_ms"] / base[0]["window_s"] if base else 0.0
            # the same baseline, exact: every task's CPU clock
            xrate = (base[0]["all_tasks_ms"] / base[0]["window_s"]
                     if base and base[0].get("all_tasks_ms") is not None else None)
            base_rates.append(rate)
            row = {"round": rd, "idle_busy_ms_per_s": rate, "idle_tasks_ms_per_s": xrate}
            # a round measures each side in one run or in several (its
            # slices, interleaved with the other sides': guest/bench.sh)
            mine = {}
            for r in self.sel("frame", runs=runs, round=rd):
                d = r.get("driver")
                if d == "vivpoll" and r.get("map") == "ro":
                    d = "vivpoll_ro"
                if d not in per or not r.get("frames"):
                    continue
                net = r["busy_ms"] - rate * r["window_s"]
                xnet = (r["all_tasks_ms"] - xrate * r["window_s"]
                        if xrate is not None and r.get("all_tasks_ms") is not None else None)
                prod = r.get("task_ms") if d not in floors else r.get("self_ms")
                per[d].append(dict(r, net_ms=net, exact_net_ms=xnet, producer_ms=prod))
                mine.setdefault(d, []).append(per[d][-1])
            for d, rs in mine.items():
                row.setdefault("ticks_ms_per_frame", {})[d] = (
                    sum(r["net_ms"] for r in rs) / sum(r["frames"] for r in rs))
                row.setdefault("threads_ms_per_frame", {})[d] = threads_ms_per_frame(
                    rs, d in floors)
                row.setdefault("runs", {})[d] = len(rs)
            # One round's busy ticks can be 0 (a 100 Hz sample of short
            # bursts): its tick ratio is then not defined; the pooled one is.
            tk = row.get("ticks_ms_per_frame", {})
            th = row.get("threads_ms_per_frame", {})
            row["ticks_vs_vivid"] = ratio(tk.get("vivpoll"), tk.get("vivid"))
            row["ticks_vs_memcpy"] = ratio(tk.get("vivpoll"), tk.get("memcpy"))
            # the verdict's basis, per round
            row["vs_vivid"] = ratio(th.get("vivpoll"), th.get("vivid"))
            row["vs_memcpy_wake"] = ratio(th.get("vivpoll"), th.get("memcpy_wake"))
            row["vs_memcpy"] = ratio(th.get("vivpoll"), th.get("memcpy"))
            per_round.append(row)

        def pool(d):
            rs = per[d]
            if not rs:
                return None
            fr = sum(r["frames"] for r in rs)
            out = {
                "runs": len(rs),
                "frames": fr,
                "ticks_ms_per_frame": sum(r["net_ms"] for r in rs) / fr,
                "expected": sum(r.get("expected", 0) for r in rs),
                "on_time": sum(r.get("on_time", 0) for r in rs),
                "drops": sum(r.get("gaps", 0) for r in rs),
                "lat_p50_ms": statistics.median(r["lat_p50_ms"] for r in rs
                                                if r.get("lat_p50_ms") is not None),
                "lat_p99_ms": max(r["lat_p99_ms"] for r in rs
                                  if r.get("lat_p99_ms") is not None),
            }
            xs = [r.get("exact_net_ms") for r in rs]
            if None not in xs:
                out["exact_ms_per_frame"] = sum(xs) / fr
            out["others"] = rs[0].get("others")
            prods = [r["producer_ms"] for r in rs if r.get("producer_ms") is not None]
            if len(prods) == len(rs):
                out["producer_ms_per_frame"] = sum(prods) / fr
            apps = [r.get("self_ms") for r in rs]
            if d not in floors and None not in apps:
                out["app_ms_per_frame"] = sum(apps) / fr
            out["on_time_share"] = out["on_time"] / fr
            out["delivered_share"] = fr / out["expected"] if out["expected"] else None
            if d in ("vivpoll", "vivpoll_ro"):
                dd = [r.get("drv_drops") for r in rs]
                out["driver_drops"] = sum(dd) if None not in dd else None
            if d in floors:
                out["copy_cpu_ms"] = statistics.median(r["copy_cpu_ms"] for r in rs)
                kc = [r["kcopy_cpu_ms"] for r in rs if r.get("kcopy_cpu_ms") is not None]
                out["kernel_copy_cpu_ms"] = statistics.median(kc) if kc else None
            out["buffers"] = rs[0].get("buffers")
            if d not in floors:
                out["input"] = rs[0].get("input")
                out["fps_set"] = rs[0].get("fps_set")
            return out

        p = {d: pool(d) for d in per}
        c = {d: (p[d]["ticks_ms_per_frame"] if p[d] else None) for d in per}
        r_vivid = ratio(c["vivpoll"], c["vivid"])
        r_mem = ratio(c["vivpoll"], c["memcpy"])
        prod = {d: (p[d].get("producer_ms_per_frame") if p[d] else None) for d in per}
        kcopy = p["memcpy"].get("kernel_copy_cpu_ms") if p["memcpy"] else None
        r_ro_vivid = ratio(c["vivpoll_ro"], c["vivid"])
        r_ro_mem = ratio(c["vivpoll_ro"], c["memcpy"])
        # bench.json: the verdict's ratios (the threads' own clocks) under
        # the plain names; the /proc/stat tick sample's only as ticks_*.
        self.res["frame_cost"] = {
            "format": "1280x720 YUYV, 30 fps, mmap (read-write mappings)",
            "method": "verdict: the CPU-time clocks of the producer thread and "
                      "the application (the floor's process), per delivered "
                      "frame, pooled over rounds and in every round; info "
                      "(ticks_*): guest /proc/stat busy time over the window "
                      "minus the idle window's busy rate, a tick sample",
            "rounds": per_round,
            "vivpoll": p["vivpoll"], "vivid": p["vivid"], "memcpy": p["memcpy"],
            "memcpy_wake": p["memcpy_wake"],
            "ticks_ms_per_frame": c,
            "ticks_vivpoll_vs_memcpy_wake": ratio(c["vivpoll"], c["memcpy_wake"]),
            "ticks_vivpoll_vs_vivid": r_vivid, "ticks_vivpoll_vs_memcpy": r_mem,
            "vivpoll_ro": p["vivpoll_ro"],
            "ticks_vivpoll_ro_vs_vivid": r_ro_vivid, "ticks_vivpoll_ro_vs_memcpy": r_ro_mem,
            "producer_vivpoll_vs_vivid": ratio(prod["vivpoll"], prod["vivid"]),
            "ticks_vivpoll_vs_kernel_copy": ratio(c["vivpoll"], kcopy),
            "target_vs_vivid": TARGETS["frame_vs_vivid"],
            "target_vs_memcpy_wake": TARGETS["frame_vs_memcpy_wake"],
        }
        # Verdict: the CPU-time clocks of the threads that do the work, which
        # count exactly: the producer thread (vivpoll's or vivid's kthread,
        # clock_getcpuclockid()) plus the application process
        # (CLOCK_PROCESS_CPUTIME_ID); the floor's process. The whole guest's
        # busy time (/proc/stat) is info: it is a 100 Hz tick sample, and 30
        # fps is commensurate with it (the ticks fall on the same 10 phases of
        # every third frame), so a short burst is counted often or never (a
        # memcpy round of 241 copies has read 0, 3 and 29 busy ticks).
        o = {d: threads_ms_per_frame(per[d], d in floors)
             for d in ("vivpoll", "vivid", "memcpy", "memcpy_wake")}
        o_vivid = ratio(o["vivpoll"], o["vivid"])
        o_mem = ratio(o["vivpoll"], o["memcpy"])
        o_wake = ratio(o["vivpoll"], o["memcpy_wake"])
        fc = self.res["frame_cost"]
        fc["verdict_basis"] = ("threads' own CPU clocks: producer thread + "
                               "application process; the floor's process")
        fc["clock"] = "icount" if icount else "wall"
        if icount:
            fc["unit"] = "ms of the guest's clock: million guest instructions"
            fc["method"] += ("; the rounds in a boot of their own on QEMU's instruction "
                             "counter (-icount shift=0, one vCPU: every guest clock "
                             "advances 1 ns an instruction), so every figure is in guest "
                             "instructions (1 ms = 1e6); wall: the first boot's rounds, "
                             "by the host's clock (info)")
            fc["cpus_icount"] = self.frame_meta.get("cpus")
        fc["threads_ms_per_frame"] = o
        fc["vivpoll_vs_vivid"] = o_vivid
        fc["vivpoll_vs_memcpy_wake"] = o_wake
        fc["vivpoll_vs_memcpy"] = o_mem
        rv = [row.get("vs_vivid") for row in per_round]
        rw = [row.get("vs_memcpy_wake") for row in per_round]
        s1 = self.verdict_rounds("frame cost vs vivid", o_vivid, rv, TARGETS["frame_vs_vivid"])
        s2 = self.verdict_rounds("frame cost vs memcpy+wake", o_wake, rw,
                                 TARGETS["frame_vs_memcpy_wake"])
        fc["met_vs_vivid"] = s1
        fc["met_vs_memcpy_wake"] = s2
        def cost(v):
            """CPU per frame: ms, or under icount the guest's instructions
            (its clocks advance 1 ns an instruction: 1 ms, 1000k)"""
            if icount:
                return fnum(None if v is None else v * 1e3, "{:.0f}k instr")
            return fnum(v, "{:.2f} ms")

        def rounds_s(v):
            return "rounds " + " / ".join(fratio(x) for x in v)

        self.rows.append(("1", "Frame cost, CPU per frame (own clocks{})".format(
                              ", icount" if icount else ""),
                          cost(o["vivpoll"]), "vivid " + cost(o["vivid"]),
                          fratio(o_vivid), "<= {:g}x, each round".format(
                              TARGETS["frame_vs_vivid"]), s1))
        self.rows.append(("", "  each round, vs vivid", "", rounds_s(rv), "", "", ""))
        bufs = {d: p[d]["buffers"] for d in per if p[d]}
        if len(set(bufs.values())) > 1:
            fc["note"] = "buffer counts differ: %s" % bufs
        cpus = {r.get("cpus", "any") for d in per for r in per[d]}
        fc["cpus"] = "/".join(sorted(cpus))
        # Every V4L2 frame wakes the application asleep in poll(); the floor
        # that copies a frame and hands it to a thread asleep in poll() on
        # an eventfd (memcpy --consumer) pays the same: the target. The bare
        # floor, with nobody to wake, is info.
        self.rows.append(("", "  vs the floor: copy + wake a reader", "",
                          "memcpy+wake " + cost(o["memcpy_wake"]), fratio(o_wake),
                          "<= {:g}x, each round".format(TARGETS["frame_vs_memcpy_wake"]), s2))
        self.rows.append(("", "  each round, vs memcpy+wake", "", rounds_s(rw), "", "", ""))
        self.rows.append(("", "  1280x720 YUYV 30 fps, {} mmap bufs, rw{}; bare floor".format(
            "/".join(str(b) for b in sorted(set(bufs.values()))) or "?",
            ", CPU 0" if cpus == {"same"} else "") + (
                ", 1 vCPU" if icount and self.frame_meta.get("cpus") == 1 else ""), "",
                          "memcpy " + cost(o["memcpy"]), fratio(o_mem),
                          "", "info"))
        self.rows.append(("", "  whole guest (/proc/stat ticks), vs vivid",
                          cost(c["vivpoll"]), "vivid " + cost(c["vivid"]),
                          fratio(r_vivid), "", "info"))
        self.rows.append(("", "  whole guest ticks, vs memcpy", "",
                          "memcpy " + cost(c["memcpy"]), fratio(r_mem), "", "info"))
        if p["memcpy_wake"]:
            self.rows.append(("", "  whole guest ticks, vs memcpy+wake", "",
                              "memcpy+wake " + cost(c["memcpy_wake"]),
                              fratio(ratio(c["vivpoll"], c["memcpy_wake"])), "",
                              "info"))
        # The cross-check: the whole guest again, counted exactly (every
        # task's own CPU clock, kernel threads included, less the idle
        # window's), against the verdict's ratio.
        x = {d: (p[d].get("exact_ms_per_frame") if p[d] else None) for d in per}
        x_vivid = ratio(x["vivpoll"], x["vivid"])
        x_mem = ratio(x["vivpoll"], x["memcpy"])
        x_wake = ratio(x["vivpoll"], x["memcpy_wake"])
        fc["exact_ms_per_frame"] = x
        fc["exact_vivpoll_vs_vivid"] = x_vivid
        fc["exact_vivpoll_vs_memcpy_wake"] = x_wake
        fc["exact_vivpoll_vs_memcpy"] = x_mem
        self.rows.append(("", "  whole guest, exact (every task's clock), vs vivid",
                          cost(x["vivpoll"]), "vivid " + cost(x["vivid"]),
                          fratio(x_vivid), "", "info"))
        self.rows.append(("", "  whole guest, exact, vs memcpy+wake", "",
                          "memcpy+wake " + cost(x["memcpy_wake"]), fratio(x_wake), "",
                          "info"))
        self.rows.append(("", "  whole guest, exact, vs memcpy", "",
                          "memcpy " + cost(x["memcpy"]), fratio(x_mem), "", "info"))
        agree = [abs(b - a) / a if a and b is not None else None
                 for a, b in ((o_vivid, x_vivid), (o_wake, x_wake))]
        st = self.verdict("frame cost cross-check",
                          max(agree) if None not in agree else None, CROSS_CHECK_BOUND)
        fc["cross_check_rel_diff"] = agree
        fc["cross_check_bound"] = CROSS_CHECK_BOUND
        fc["cross_check"] = "agree" if st == "met" else "differ"
        self.rows.append(("", "  cross-check: verdict vs exact whole guest",
                          "/".join("n/a" if d is None else "{:.0%}".format(d) for d in agree),
                          "apart (vs vivid / vs memcpy+wake)", "",
                          "<= {:.0%}".format(CROSS_CHECK_BOUND), fc["cross_check"]))
        # Where the tick sample differs from both exact counts, the exact
        # ones are right: the tick charges a whole tick to whatever runs
        # when it fires, and at 30 fps a frame's burst is hit often or never.
        t_apart = [abs(ratio(c["vivpoll"], c[d]) - x_r) / x_r
                   if ratio(c["vivpoll"], c[d]) is not None and x_r else None
                   for d, x_r in (("vivid", x_vivid), ("memcpy_wake", x_wake))]
        fc["ticks_vs_exact_rel_diff"] = t_apart
        self.rows.append(("", "  /proc/stat ticks vs exact whole guest",
                          "/".join("n/a" if d is None else "{:.0%}".format(d) for d in t_apart),
                          "apart: a tick sample; the exact counts are right", "", "", "info"))
        for d in ("vivpoll", "vivid", "memcpy"):
            if p[d] and p[d].get("others"):
                self.rows.append(("", "  other tasks' CPU in a window, " + d,
                                  "", p[d]["others"], "", "", "info"))
        if p["vivpoll_ro"]:
            self.rows.append(("", "  whole guest ticks, buffers mapped ro",
                              cost(c["vivpoll_ro"]),
                              "memcpy " + cost(c["memcpy"]), fratio(r_ro_mem), "",
                              "info"))
        self.rows.append(("", "  producer thread only", cost(prod["vivpoll"]),
                          "vivid " + cost(prod["vivid"]),
                          fratio(ratio(prod["vivpoll"], prod["vivid"])), "", "info"))
        if p["memcpy"]:
            self.rows.append(("", "  one unpaced copy: user / kernel", "",
                              "{} / {}".format(cost(p["memcpy"]["copy_cpu_ms"]),
                                               cost(kcopy)),
                              fratio(ratio(c["vivpoll"], kcopy), "x k"), "", "info"))

        def ot(d):
            if not p[d]:
                return "n/a"
            s = "{:.0f}% on time, {} drops".format(100 * p[d]["on_time_share"], p[d]["drops"])
            return s

        self.rows.append(("", "  frames on time (<= 1 interval)", ot("vivpoll"),
                          "vivid " + ot("vivid"), "", "", "info"))
        if p["vivpoll"] and p["vivid"]:
            self.rows.append(("", "  frames delivered / expected",
                              "{:.1f}%".format(100 * (p["vivpoll"]["delivered_share"] or 0)),
                              "vivid {:.1f}%".format(100 * (p["vivid"]["delivered_share"] or 0)),
                              "", "", "info"))
        if icount:
            self.frame_wall(fc)

    def frame_wall(self, fc):
        """The first boot's frame rounds, by the host's clock under TCG on
        its vCPUs, as info beside the instruction counter's verdicts: the
        same ratios (each side's own clocks), pooled and each round, and
        the frames on time in real time."""
        floors = ("memcpy", "memcpy_wake")
        runs = [r for r in self.sel("frame") if r.get("frames")
                and not (r.get("driver") == "vivpoll" and r.get("map") == "ro")]

        def ms(rs):
            return {d: threads_ms_per_frame([r for r in rs if r.get("driver") == d],
                                            d in floors)
                    for d in ("vivpoll", "vivid", "memcpy", "memcpy_wake")}
        o = ms(runs)
        rounds = []
        for rd in sorted({r.get("round") for r in runs}):
            t = ms([r for r in runs if r.get("round") == rd])
            rounds.append({"round": rd, "threads_ms_per_frame": t,
                           "vs_vivid": ratio(t["vivpoll"], t["vivid"]),
                           "vs_memcpy_wake": ratio(t["vivpoll"], t["memcpy_wake"])})
        ot = {}
        for d in ("vivpoll", "vivid"):
            rs = [r for r in runs if r.get("driver") == d]
            fr = sum(r["frames"] for r in rs)
            ot[d] = ({"on_time_share": sum(r.get("on_time", 0) for r in rs) / fr,
                      "drops": sum(r.get("gaps", 0) for r in rs)} if fr else None)
        w = {"clock": "wall", "cpus": self.meta.get("cpus"),
             "method": "the first boot's rounds (the host's clock under TCG), info",
             "threads_ms_per_frame": o,
             "vivpoll_vs_vivid": ratio(o["vivpoll"], o["vivid"]),
             "vivpoll_vs_memcpy_wake": ratio(o["vivpoll"], o["memcpy_wake"]),
             "vivpoll_vs_memcpy": ratio(o["vivpoll"], o["memcpy"]),
             "rounds": rounds, "on_time": ot}
        fc["wall"] = w
        f = "{:.2f} ms"
        cpus = "{} vCPUs".format(w["cpus"]) if w["cpus"] else "first boot"
        self.rows.append(("", "  by the host's clock (TCG, {}), vs vivid".format(cpus),
                          fnum(o["vivpoll"], f), "vivid " + fnum(o["vivid"], f),
                          fratio(w["vivpoll_vs_vivid"]), "", "info"))
        self.rows.append(("", "    each round", "", "rounds " + " / ".join(
            fratio(r["vs_vivid"]) for r in rounds), "", "", ""))
        self.rows.append(("", "  by the host's clock, vs memcpy+wake", "",
                          "memcpy+wake " + fnum(o["memcpy_wake"], f),
                          fratio(w["vivpoll_vs_memcpy_wake"]), "", "info"))
        self.rows.append(("", "    each round", "", "rounds " + " / ".join(
            fratio(r["vs_memcpy_wake"]) for r in rounds), "", "", ""))

        def sh(d):
            x = ot[d]
            return "n/a" if not x else "{:.0f}% on time, {} drops".format(
                100 * x["on_time_share"], x["drops"])
        self.rows.append(("", "  by the host's clock, frames on time", sh("vivpoll"),
                          "vivid " + sh("vivid"), "", "", "info"))

    # The frame-any round: each side where the scheduler puts it, so that
    # handing a frame to the application can cost an inter-processor
    # interrupt, which under TCG costs about as much as the copy; info.
    def frame_any(self):
        runs = [r for r in self.runs if r.get("phase") == "frame-any"]
        if not runs:
            if ("frame" in self.only and self.meta.get("cpus") == 1
                    and self.meta.get("frame_cpus", "same") == "same"):
                self.rows.append(("", "  any vCPU", "not run: one vCPU", "", "", "", "info"))
            return
        o = {d: threads_ms_per_frame([r for r in runs if r.get("driver") == d],
                                     d.startswith("memcpy"))
             for d in ("vivpoll", "vivid", "memcpy", "memcpy_wake")}
        ms = "{:.2f} ms"
        v = o.get("vivpoll")
        self.res.setdefault("frame_cost", {})["any_cpu_threads_ms_per_frame"] = o
        self.rows.append(("", "  any vCPU (1 round), vs vivid", fnum(v, ms),
                          "vivid " + fnum(o.get("vivid"), ms),
                          fratio(ratio(v, o.get("vivid"))), "", "info"))
        self.rows.append(("", "  any vCPU, vs memcpy", "",
                          "memcpy " + fnum(o.get("memcpy"), ms),
                          fratio(ratio(v, o.get("memcpy"))), "", "info"))
        self.rows.append(("", "  any vCPU, vs floor + reader", "",
                          "memcpy+wake " + fnum(o.get("memcpy_wake"), ms),
                          fratio(ratio(v, o.get("memcpy_wake"))), "", "info"))

    # ---- 2. highest rate -------------------------------------------------
    def rate(self):
        if self.skipped("rate", "2", "Highest rate"):
            return
        out = {}
        for d in ("vivpoll", "vivid"):
            rs = self.sel("rate", "stream", driver=d)
            out[d] = {k: rs[0].get(k) for k in ("fps", "fps_set", "input", "frames", "gaps",
                                                 "on_time", "window_s")} if rs else None
        fv = out["vivpoll"]["fps"] if out["vivpoll"] else None
        fd = out["vivid"]["fps"] if out["vivid"] else None
        out["vivpoll_vs_vivid"] = ratio(fv, fd)
        self.res["highest_rate"] = out
        st = self.verdict("highest rate", out["vivpoll_vs_vivid"], None)

        def desc(d):
            o = out[d]
            if not o:
                return "n/a"
            return "{:.1f} fps (of {:.1f})".format(o["fps"], o["fps_set"])

        self.rows.append(("2", "Highest rate, 640x480 YUYV, fastest interval", desc("vivpoll"),
                          "vivid " + desc("vivid"), fratio(out["vivpoll_vs_vivid"]),
                          "", st))
        if out["vivid"]:
            self.rows.append(("", "  vivid input: " + str(out["vivid"]["input"]), "", "", "",
                              "", ""))

    # ---- 3. event latency ----------------------------------------------
    def event(self):
        if self.skipped("event", "3", "Event latency"):
            return
        out = {}
        for kind in ("ctrl", "eventfd"):
            rs = self.sel("event", "event", kind=kind)
            lat = [x for r in rs for x in (r.get("lat_us") or [])]
            if not lat:
                out[kind] = None
                continue
            out[kind] = {"count": len(lat), "p50_us": pct(lat, 0.5), "p99_us": pct(lat, 0.99),
                         "mean_us": sum(lat) / len(lat), "cpus": rs[0].get("cpus")}
            if kind == "ctrl":
                out[kind]["ev_p50_us"] = statistics.median(r["ev_p50_us"] for r in rs)
                out[kind]["signal_p50_us"] = statistics.median(r["signal_p50_us"] for r in rs)
            else:
                out[kind]["signal_p50_us"] = statistics.median(r["signal_p50_us"] for r in rs)
        c, e = out.get("ctrl"), out.get("eventfd")
        r50 = ratio(c and c["p50_us"], e and e["p50_us"])
        r99 = ratio(c and c["p99_us"], e and e["p99_us"])
        out["p50_ratio"], out["p99_ratio"] = r50, r99
        out["target_p50_ratio"] = TARGETS["event_p50_vs_eventfd"]
        out["method"] = ("select() wake-up CLOCK_MONOTONIC minus the signaller's clock "
                         "just before VIDIOC_S_CTRL / eventfd write, shared through memory")
        st = self.verdict("event latency p50", r50, TARGETS["event_p50_vs_eventfd"])
        out["met"] = st
        self.res["event_latency"] = out
        us = "{:.0f} us"

        def pp(x):
            return "n/a" if not x else "{} / {}".format(fnum(x["p50_us"], us), fnum(x["p99_us"], us))

        n = min(c["count"] if c else 0, e["count"] if e else 0)
        self.rows.append(("3", "Event latency p50 / p99 ({} ev)".format(n), pp(c),
                          "eventfd " + pp(e), fratio(r50), "p50 <= 2x", st))
        self.rows.append(("", "  p99 ratio", "", "", fratio(r99), "", "info"))

    # ---- 4. poll cost ----------------------------------------------------
    def poll(self):
        if self.skipped("poll", "4", "poll() cost"):
            return
        rs = self.sel("poll", "poll")
        r = rs[0] if rs else {}
        # The figure is the fastest round: noise on a shared host only adds.
        v, e, vd = r.get("vivpoll_min_ns"), r.get("eventfd_min_ns"), r.get("vivid_min_ns")
        out = {"method": "minimum over rounds of the time per call "
                         "(poll with a zero timeout, nothing pending)",
               "vivpoll_ns": v, "eventfd_ns": e, "vivid_ns": vd,
               "vivpoll_median_ns": r.get("vivpoll_ns"), "eventfd_median_ns": r.get("eventfd_ns"),
               "vivid_median_ns": r.get("vivid_ns"),
               "median_ratio": ratio(r.get("vivpoll_ns"), r.get("eventfd_ns")),
               "vivpoll_vs_eventfd": ratio(v, e), "vivid_vs_eventfd": ratio(vd, e),
               "vivpoll_vs_vivid": ratio(v, vd),
               "vivpoll_vs_vivid_median": ratio(r.get("vivpoll_ns"), r.get("vivid_ns")),
               "target_vs_vivid": TARGETS["poll_vs_vivid"],
               "vivpoll_engine_starts": r.get("vivpoll_engine_starts"),
               "calls_per_round": r.get("count"), "rounds": r.get("rounds"),
               "target": TARGETS["poll_vs_eventfd"]}
        pend = r.get("vivpoll_pending", 0) + r.get("eventfd_pending", 0)
        if pend:
            out["note"] = "{} calls found something pending".format(pend)
        st = self.verdict("poll cost", out["vivpoll_vs_eventfd"], TARGETS["poll_vs_eventfd"])
        # the same call on vivid (same vb2 path, same request): a target
        st_vd = self.verdict("poll cost vs vivid", out["vivpoll_vs_vivid"],
                             TARGETS["poll_vs_vivid"])
        out["met"] = st
        out["met_vs_vivid"] = st_vd
        self.res["poll_cost"] = out
        ns = "{:.0f} ns"
        self.rows.append(("4", "poll() cost, nothing pending (best)", fnum(v, ns),
                          "eventfd " + fnum(e, ns),
                          fratio(out["vivpoll_vs_eventfd"]), "<= 2x", st))
        self.rows.append(("", "  median of {} rounds".format(r.get("rounds", "?")),
                          fnum(r.get("vivpoll_ns"), ns), "eventfd " + fnum(r.get("eventfd_ns"), ns),
                          fratio(out["median_ratio"]), "", "info"))
        self.rows.append(("", "  the same call on vivid (POLLPRI)", "",
                          "vivid " + fnum(vd, ns), fratio(out["vivpoll_vs_vivid"]),
                          "<= 1x", st_vd))
        self.rows.append(("", "  median, vs vivid", "", "vivid " + fnum(r.get("vivid_ns"), ns),
                          fratio(out["vivpoll_vs_vivid_median"]), "", "info"))

    # ---- 5. idle -----------------------------------------------------------
    def idle(self):
        if self.skipped("idle", "5", "Idle"):
            return
        rs = self.sel("idle", "idle")
        base = self.sel("idle", "cpu")
        if not rs:
            self.res["idle"] = None
            st = self.verdict("idle", None, 0)
            self.rows.append(("5", "Idle: waiters on exceptfds", "n/a", "", "", "= 0", st))
            return
        r = rs[0]
        b = base[0] if base else None
        out = {"procs": r["procs"], "waiting": r["waiting"], "seconds": r["window_s"],
               "frames": r["frames"], "engine_starts": r["engine_starts"],
               "poll_calls": r["poll_calls"], "poll_req_seen": r["poll_req_seen"],
               "busy_ms": r["busy_ms"], "baseline_busy_ms": b["busy_ms"] if b else None}
        ok = r["frames"] == 0 and r["engine_starts"] == 0 and r["waiting"] == r["procs"]
        st = "met" if ok else "missed"
        self.verdicts.append(("idle frames and starts", st))
        out["met"] = st
        self.res["idle"] = out
        self.rows.append(("5", "Idle: {} waiters, {:.0f} s: frames / starts".format(
            r["procs"], r["window_s"]), "{} / {}".format(r["frames"], r["engine_starts"]),
            "", "", "= 0 / = 0", st))
        self.rows.append(("", "  guest CPU busy in the window", "{:.0f} ms".format(r["busy_ms"]),
                          "idle guest " + (fnum(b["busy_ms"], "{:.0f} ms") if b else "n/a"),
                          "", "", "info"))

    # ---- 6, 7. the poll core: patch off / on against the unpatched kernel ----
    CORE_CALLS = ("select", "poll", "epoll_wait")
    CORE_STATES = (("ready", "ready"), ("not_ready", "not ready"))

    def core_load(self):
        """The pollcore rows of every core boot: {kconfig: [{key: row}]},
        and the problems found (each an error)."""
        hc = self.host.get("core") or {}
        data = {"default": [], "noknob": []}
        problems = []
        for b in hc.get("boots", []):
            name = "{} boot {}".format(b.get("kconfig"), b.get("boot"))
            if b.get("rc") != 0:
                problems.append("{}: the guest exited with status {}".format(name, b.get("rc")))
                continue
            try:
                with open(os.path.join(self.dir, b["file"])) as f:
                    raw = json.load(f)
            except (OSError, ValueError, KeyError) as e:
                problems.append("{}: no results ({})".format(name, e))
                continue
            runs = [r for r in raw.get("runs", []) if r.get("test") == "pollcore"]
            errs = [r["error"] for r in runs if "error" in r]
            if errs or not runs:
                problems.append("{}: {}".format(name, errs[0] if errs else "no pollcore rows"))
                continue
            # the kernels must be what they are said to be
            want = b.get("kconfig") == "default"
            if any(r.get("sysctl") != want for r in runs):
                problems.append("{}: fs.poll_legacy_null_table is {}there".format(
                    name, "not " if want else ""))
                continue
            data.setdefault(b.get("kconfig"), []).append(
                {(r["call"], r["fds"], r["state"], r["switch"]): r for r in runs})
            self.core_meta = raw.get("meta", {})
        return data, problems

    def core(self):
        hc = self.host.get("core") or {}
        if not hc.get("requested"):
            self.res["poll_core"] = "not run (BENCH_ONLY or BENCH_CORE_BOOTS=0)"
            self.rows.append(("6", "Poll core: patch off vs unpatched", "not run", "", "", "",
                              "not run"))
            return
        if hc.get("skipped"):
            self.res["poll_core"] = "not run: " + hc["skipped"]
            self.rows.append(("6", "Poll core: patch off vs unpatched",
                              "not run: " + hc["skipped"], "", "", "", "not run"))
            return
        data, problems = self.core_load()
        icount = hc.get("clock") == "icount"
        unit = "instr" if icount else "ns"
        out = {"method": "select(), poll(), epoll_wait() with a zero timeout on eventfds, "
                         + ("guest instructions per call (QEMU -icount shift=0: the guest's "
                            "clock advances 1 ns an instruction), " if icount else "")
                         + "time per call: the minimum over rounds in a boot, then over "
                         "the boots of each kernel; noise: how far apart the boots of "
                         "one kernel are (the wider kernel's); info (ref_ratio, "
                         "ref_noise): the same with each boot's rows over its own "
                         "getppid() time, which takes out a host busier in one boot",
               "boots": {k: len(v) for k, v in data.items()},
               "clock": "icount" if icount else "wall", "unit": unit,
               "target": TARGETS["core_off_vs_unpatched"], "noise_limit": CORE_NOISE_LIMIT,
               "problems": problems, "rows": []}
        self.res["poll_core"] = out
        for pr in problems:
            self.errors.append({"phase": "pollcore", "test": "pollcore", "error": pr})
        lim = TARGETS["core_off_vs_unpatched"]
        self.rows.append(("6", "Poll core, patch built in, switch off, vs unpatched",
                          ("instructions a call (icount)" if icount else "ns a call"),
                          "{} + {} boots".format(len(data["default"]),
                                                 len(data["noknob"])),
                          "ratio (noise)", "", ""))
        on_rows = []
        counts = sorted({k[1] for bs in data.values() for b in bs for k in b
                         if k[0] != "getppid"})

        def ref(b):
            # the boot's reference (getppid()), whatever its switch label
            v = [r["min_ns"] for k, r in b.items() if k[0] == "getppid"]
            return v[0] if v and v[0] else None
        for call in self.CORE_CALLS:
            for st, st_label in self.CORE_STATES:
                for n in counts:
                    def col(kc, sw):
                        v = [b[(call, n, st, sw)]["min_ns"] for b in data[kc]
                             if (call, n, st, sw) in b]
                        return v if len(v) == len(data[kc]) and v else None
                    off, on, un = col("default", "off"), col("default", "on"), col("noknob", "absent")
                    label = "  {}, {} fd{} {}".format(call, n, "" if n == 1 else "s", st_label)
                    name = "poll core off: {} {} {}".format(call, n, st)
                    row = {"call": call, "fds": n, "state": st,
                           "off_ns": off, "on_ns": on, "unpatched_ns": un}
                    out["rows"].append(row)
                    if not off or not un:
                        self.verdict(name, None, lim)
                        self.rows.append(("", label, "n/a", "", "", "<= {:g}x".format(lim),
                                          "error"))
                        continue
                    p, u = min(off), min(un)
                    r = p / u
                    noise = (max(max(off) / min(off), max(un) / min(un)) - 1
                             if len(off) > 1 and len(un) > 1 else None)
                    lo = hi = None
                    if noise is not None and noise <= CORE_NOISE_LIMIT:
                        st_v = self.verdict(name, r, lim)
                    else:
                        # no verdict, the interval; only a ratio whose whole
                        # interval is above the limit is a miss
                        if noise is not None:
                            lo, hi = r / (1 + noise), r * (1 + noise)
                        st_v = "missed" if lo is not None and lo > lim else "noise"
                        self.verdicts.append((name, st_v))
                    row.update(ratio=r, noise=noise, interval=[lo, hi] if lo else None,
                               state_verdict=st_v)
                    # bench.json only: each boot's row over its own boot's
                    # reference (in the loaded runs of 2026-12-05 it did not
                    # narrow the noise: 1.4% to 32%, against 1.2% to 43%)
                    nz = {}
                    for kc, sw in (("default", "off"), ("noknob", "absent")):
                        v = [b[(call, n, st, sw)]["min_ns"] / ref(b) for b in data[kc]
                             if (call, n, st, sw) in b and ref(b)]
                        nz[kc] = v if len(v) == len(data[kc]) and v else None
                    if nz["default"] and nz["noknob"]:
                        rn = min(nz["default"]) / min(nz["noknob"])
                        nn = (max(max(v) / min(v) for v in nz.values()) - 1
                              if len(nz["default"]) > 1 and len(nz["noknob"]) > 1 else None)
                        row.update(ref_ratio=rn, ref_noise=nn)
                    shown = st_v if st_v != "noise" else (
                        "noise > {:.0%}: {:.3f}x-{:.3f}x".format(CORE_NOISE_LIMIT, lo, hi)
                        if lo is not None else "noise not measured (1 boot)")
                    self.rows.append(("", label, "{:.0f} {}".format(p, unit),
                                      "unpatched {:.0f} {}".format(u, unit),
                                      "{:.3f}x ({})".format(
                                          r, "n/a" if noise is None else "{:.1%}".format(noise)),
                                      "<= {:g}x".format(lim), shown))
                    if on:
                        on_rows.append((label, min(on), p, u, min(on) / p, min(on) / u))
                        row.update(on_vs_off=min(on) / p, on_vs_unpatched=min(on) / u)
        self.rows.append(("7", "Poll core, switch on, vs off (same boots)",
                          ("instructions a call" if icount else "ns a call"),
                          "", "on/off, on/unpatched", "", ""))
        for label, o, p, u, r_off, r_un in on_rows:
            self.rows.append(("", label, "on {:.0f} {}".format(o, unit),
                              "off {:.0f} {u}, unpatched {:.0f} {u}".format(p, u, u=unit),
                              "{:.3f}x, {:.3f}x".format(r_off, r_un), "", "info"))
        if not on_rows:
            self.rows.append(("", "  (no switch-on rows)", "n/a", "", "", "", "info"))

    # ---- 8. fan-out: N waiters on one vivpoll node vs one eventfd ------------
    FANOUT_APIS = ("select", "poll", "epoll")

    def fanout(self):
        if self.skipped("fanout", "8", "Fan-out"):
            return
        wall = [r for r in self.runs if r.get("phase") == "fanout"]
        ic = self.counted_runs("fanout", "fan-out")[0]
        icount = ic is not None
        # the verdicts: the instruction counter's runs if there was that
        # boot, else the first boot's (by the host's clock)
        runs = ic if icount else wall
        good = [r for r in runs if "error" not in r]
        wall_good = [r for r in wall if "error" not in r]
        counts = sorted({r["waiters"] for r in good})
        lim = TARGETS["fanout_cpu_vs_eventfd"]
        out = {"clock": "icount" if icount else "wall",
               "method": "N waiter processes on CPU 0 (vivpoll's each taking its "
                         "event with DQEVENT, eventfd's taking nothing); latency: the last "
                         "waiter's wake-up minus the signal; CPU (the verdict): the "
                         "waiters' thread clocks across their waits plus the "
                         "signaller's across the signal, divided by N, per event, "
                         "the median over the events of every round (a preempted "
                         "vCPU only adds); the mean as info"
                         + ("; the verdicts' runs in a boot of their own on QEMU's "
                            "instruction counter (-icount shift=0, one vCPU): CPU in "
                            "guest instructions (1 us = 1000); groups_wall: the first "
                            "boot's, by the host's clock under TCG (info)" if icount else ""),
               "target_cpu_vs_eventfd": lim, "groups": {}, "groups_wall": {}}
        self.res["fanout"] = out
        # correctness, in every fan-out run of every boot: every waiter woke
        # for every event, the engine never ran
        both = runs + (wall if icount else [])
        both_good = [r for r in both if "error" not in r]
        wk = sum(r["wakeups"] for r in both_good)
        wke = sum(r["wakeups_expected"] for r in both_good)
        starts = sum(r.get("engine_starts", 0) for r in both_good)
        frames = sum(r.get("frames", 0) for r in both_good)
        bad = [r for r in both_good if not r.get("ok")]
        errs = [r for r in both if "error" in r]
        ok = good and not bad and not errs and wk == wke and starts == 0 and frames == 0
        st = "met" if ok else ("error" if errs or not good else "missed")
        self.verdicts.append(("fan-out: every waiter woken, no engine start", st))
        out.update(runs=len(both), failed_runs=len(errs) + len(bad), wakeups=wk,
                   wakeups_expected=wke, engine_starts=starts, frames=frames, met_correct=st)
        self.rows.append(("8", "Fan-out: N waiters, one event (CPU 0){}".format(
            ", CPU in guest instructions (icount)" if icount else ""), "vivpoll, POLLPRI",
                          "eventfd, POLLIN", "", "", ""))
        self.rows.append(("", "  every waiter woken for every event; starts / frames",
                          "{} of {}; {} / {}".format(wk, wke, starts, frames),
                          "{} runs, {} failed".format(len(both), len(errs) + len(bad)), "",
                          "all; = 0 / = 0", st))

        def group(kind, api, n, good=good):
            rs = [r for r in good if r["kind"] == kind and r["api"] == api and r["waiters"] == n]
            if not rs:
                return None
            ev = sum(r["events"] * r["waiters"] for r in rs)
            lat = [x for r in rs for x in (r.get("last_us") or [])]
            if any(not r.get("cpu_us") for r in rs):
                return None
            # the verdict: per event, the median over every round's events;
            # the spread of the rounds' medians is its noise
            per_round = [pct(r["cpu_us"], 0.5) for r in rs]
            return {"runs": len(rs), "events": sum(r["events"] for r in rs),
                    "cpu_us_per_waiter": pct([x for r in rs for x in r["cpu_us"]], 0.5),
                    "cpu_mean_us_per_waiter": sum(r["waiter_cpu_ms"] + r["send_cpu_ms"]
                                                  for r in rs) * 1e3 / ev,
                    "cpu_us_per_waiter_rounds": per_round,
                    "spread": max(per_round) / min(per_round) - 1 if min(per_round) > 0 else None,
                    "last_p50_us": pct(lat, 0.5), "last_p99_us": pct(lat, 0.99),
                    "first_p50_us": statistics.median(r["first_p50_us"] for r in rs)}

        us = "{:.1f} us"
        cu = "{:.2f}k instr" if icount else us
        for api in self.FANOUT_APIS:
            g = {}
            for n in counts:
                v, e = group("vivpoll", api, n), group("eventfd", api, n)
                g[n] = (v, e)
                out["groups"]["{} {}".format(api, n)] = {"vivpoll": v, "eventfd": e}
                r = ratio(v and v["cpu_us_per_waiter"], e and e["cpu_us_per_waiter"])
                stv = self.verdict("fan-out CPU per waiter: {} {}".format(api, n), r, lim)
                out["groups"]["{} {}".format(api, n)].update(ratio=r, met=stv)
                self.rows.append(("", "  {}, {} waiter{}: CPU per event per waiter, p50".format(
                    api, n, "" if n == 1 else "s"),
                    fnum(v and v["cpu_us_per_waiter"], cu),
                    "eventfd " + fnum(e and e["cpu_us_per_waiter"], cu), fratio(r),
                    "<= {:g}x".format(lim), stv))

                self.rows.append(("", "    mean over the events", fnum(
                    v and v["cpu_mean_us_per_waiter"], cu), "eventfd " + fnum(
                    e and e["cpu_mean_us_per_waiter"], cu), fratio(ratio(
                        v and v["cpu_mean_us_per_waiter"], e and e["cpu_mean_us_per_waiter"])),
                    "", "info"))
                if icount:
                    # the same by the host's clock (TCG), the first boot
                    vw = group("vivpoll", api, n, wall_good)
                    ew = group("eventfd", api, n, wall_good)
                    out["groups_wall"]["{} {}".format(api, n)] = {"vivpoll": vw, "eventfd": ew}
                    self.rows.append(("", "    by the host's clock (TCG), p50", fnum(
                        vw and vw["cpu_us_per_waiter"], us), "eventfd " + fnum(
                        ew and ew["cpu_us_per_waiter"], us), fratio(ratio(
                            vw and vw["cpu_us_per_waiter"], ew and ew["cpu_us_per_waiter"])),
                        "", "info"))
                    v, e = vw, ew   # latency: real time under TCG

                def lp(x):
                    return "n/a" if not x else "{:.0f} / {:.0f} us".format(
                        x["last_p50_us"], x["last_p99_us"])

                self.rows.append(("", "    event to the last wake-up, p50 / p99", lp(v),
                                  "eventfd " + lp(e),
                                  fratio(ratio(v and v["last_p50_us"], e and e["last_p50_us"])),
                                  "", "info"))
            # growth 16 -> 1024: vivpoll's no steeper than eventfd's
            lo_n, hi_n = 16, 1024
            name = "fan-out growth {}->{}: {}".format(lo_n, hi_n, api)
            if lo_n in g and hi_n in g and None not in g[lo_n] + g[hi_n]:
                (vl, el), (vh, eh) = g[lo_n], g[hi_n]
                gv = vh["cpu_us_per_waiter"] / vl["cpu_us_per_waiter"]
                ge = eh["cpu_us_per_waiter"] / el["cpu_us_per_waiter"]
                sp = [x["spread"] for x in (vl, el, vh, eh)]
                noise = max(sp) if None not in sp and min(x["runs"] for x in (vl, el, vh, eh)) > 1 \
                    else None
                rg = gv / ge
                if rg <= 1:
                    stg = "met"
                elif noise is not None and rg <= 1 + noise:
                    stg = "noise"
                else:
                    stg = "missed"
                self.verdicts.append((name, stg))
                out["growth_" + api] = {"vivpoll": gv, "eventfd": ge, "ratio": rg,
                                        "noise": noise, "met": stg}
                self.rows.append(("", "  {}: growth of CPU per waiter, {} -> {}".format(
                    api, lo_n, hi_n), "{:.2f}x".format(gv), "eventfd {:.2f}x".format(ge),
                    "{:.3f}x ({})".format(rg, "n/a" if noise is None else
                                          "noise {:.1%}".format(noise)),
                    "<= 1x", stg if stg != "noise" else "within noise"))
            else:
                out["growth_" + api] = None
                self.rows.append(("", "  {}: growth {} -> {}".format(api, lo_n, hi_n),
                                  "n/a (counts: {})".format(" ".join(map(str, counts))),
                                  "", "", "<= 1x", "not run"))

    # ---- 9. the development loop -------------------------------------------
    def loop(self):
        out = {}
        lp = self.host.get("loop", {})
        if lp.get("cold_s") is not None:
            out["cold"] = {"seconds": lp["cold_s"], "status": lp.get("cold_rc"),
                           "summary": lp.get("cold_summary")}
            self.rows.append(("9", "Loop: cold make check (empty cache)",
                              fnum(lp["cold_s"], "{:.0f} s"),
                              "make check: " + (lp.get("cold_summary") or "status {}".format(
                                  lp.get("cold_rc")))[:40], "", "", "info"))
        else:
            out["cold"] = "not run (LOOP=cold)"
            self.rows.append(("9", "Loop: cold make check (empty cache)", "not run (LOOP=cold)",
                              "", "", "", "info"))
        for what, label in (("warm", "warm make check"), ("edit", "make check, 1 driver edit")):
            lim = TARGETS["loop_%s_s" % what]
            if not lp.get("requested"):
                out[what] = "not run (LOOP=1)"
                self.rows.append(("", "Loop: " + label, "not run (LOOP=1)", "", "",
                                  "< {:.0f} s".format(lim), "not run"))
                continue
            t = lp.get(what + "_s")
            out[what] = {"seconds": t, "status": lp.get(what + "_rc"),
                         "summary": lp.get(what + "_summary")}
            st = self.verdict("loop " + what, t, lim)
            if st == "met" and t is not None and t >= lim:
                st = "missed"
            out[what]["met"] = st
            self.rows.append(("", "Loop: " + label, fnum(t, "{:.0f} s"),
                              "make check: " + (lp.get(what + "_summary") or "status {}".format(
                                  lp.get(what + "_rc")))[:40], "",
                              "< {:.0f} s".format(lim), st))
        boots = self.host.get("boots", [])
        ok = [b for b in boots if b.get("rc") == 0]
        if ok:
            wall = statistics.median(b["wall_s"] for b in ok)
            ki = [b["kernel_at_init_s"] for b in ok if b.get("kernel_at_init_s") is not None]
            up = [b["uptime_at_cmd_s"] for b in ok if b.get("uptime_at_cmd_s") is not None]
            out["boot"] = {"boots": len(ok), "median_wall_s": wall,
                           "median_kernel_at_init_s": statistics.median(ki) if ki else None,
                           "median_uptime_at_command_s": statistics.median(up) if up else None,
                           "all": boots}
            self.rows.append(("", "Boot to init, median of {}".format(len(ok)),
                              "{:.1f} s wall".format(wall),
                              "kernel at init {} s, at command {} s".format(
                                  fnum(out["boot"]["median_kernel_at_init_s"]),
                                  fnum(out["boot"]["median_uptime_at_command_s"])),
                              "", "", "info"))
        else:
            out["boot"] = None if not boots else {"all": boots}
            self.rows.append(("", "Boot to init", "not measured" if not boots else "failed",
                              "", "", "", "info" if not boots else "error"))
            if boots:
                self.verdicts.append(("boot", "error"))
        self.res["loop"] = out

    def build(self):
        self.frame()
        self.frame_any()
        self.rate()
        self.event()
        self.poll()
        self.idle()
        self.core()
        self.fanout()
        self.loop()
        self.res["meta"] = self.meta
        self.res["host"] = {k: v for k, v in self.host.items() if k != "loop"}
        self.res["errors"] = [{"phase": r.get("phase"), "test": r.get("test"),
                               "error": r.get("error")} for r in self.errors]
        self.res["verdicts"] = {n: s for n, s in self.verdicts}
        missed = [n for n, s in self.verdicts if s in ("missed", "error")]
        self.res["missed"] = missed
        self.res["targets_met"] = not missed and not self.errors
        return self.res

    @staticmethod
    def has_verdict(result):
        """A row's result that is a verdict (met, missed, error, agree,
        within noise...), not info, a detail ("") or not run."""
        return result not in ("", "info") and not result.startswith("not run")

    def ordered_rows(self):
        """The table's rows, those that carry a verdict first, then the
        rest, each part in the order of the sections (1 to 9); no row is
        left out. A row with an empty result (each round's ratios, the
        vivid input) goes with the row before it. A section's header row
        (a number, no result) heads its rows in each part; where a
        section's first row has a verdict, its info rows get a header of
        their own ("Frame cost: info"). A row deeper than the row it details
        (fan-out: the mean under a count's verdict) that lands in the
        other part is named after it ("select, 1 waiter: mean over the
        events"). Returns (verdict rows, the other rows)."""
        sections = []
        for r in self.rows:
            r = tuple(str(c) for c in r)
            if r[0] or not sections:
                sections.append([])
            sections[-1].append(r)
        out = ([], [])
        for sec in sections:
            num = sec[0][0]
            head = sec[0] if num and sec[0][6] == "" else None
            parts = ([], [])
            where = 1
            parents = []    # (level, label, part) of the rows above
            for k, r in enumerate(sec):
                if r is head and k == 0:
                    continue
                if r[6] == "" and k:
                    parts[where].append(r)
                    continue
                label = r[1]
                lead = len(label) - len(label.lstrip(" "))
                level = max(1, lead // 2)
                where = 0 if self.has_verdict(r[6]) else 1
                while parents and parents[-1][0] >= level:
                    parents.pop()
                if level > 1 and parents and parents[-1][2] != where:
                    ctx = parents[-1][1].strip().split(":")[0]
                    r = (r[0], "  {}: {}".format(ctx, label.strip())) + r[2:]
                parents.append((level, label, where))
                parts[where].append(r)
            for i in (0, 1):
                if not parts[i]:
                    continue
                if head:
                    out[i].append(head)
                elif parts[i][0][0]:
                    pass
                elif i == 0:
                    parts[0][0] = (num,) + parts[0][0][1:]
                else:
                    t = sec[0][1].strip()
                    cut = min([t.find(c) for c in (",", ":", " (") if c in t] + [len(t)])
                    out[1].append((num, t[:cut] + ": info", "", "", "", "", ""))
                out[i].extend(parts[i])
        return out

    def table(self):
        hdr = ("#", "measure", "vivpoll", "reference", "ratio", "target", "result")
        first, rest = self.ordered_rows()
        note = ("", "(the rows below carry no verdict: info, not run)", "", "", "", "", "")
        rows = [hdr] + first + ([note] if first and rest else []) + rest
        w = [max(len(r[i]) for r in rows) for i in range(len(hdr))]
        lines = []
        for i, r in enumerate(rows):
            if r is note:
                lines.append("  ".join("-" * w[k] for k in range(len(hdr))))
            lines.append("  ".join(r[k].ljust(w[k]) for k in range(len(hdr))).rstrip())
            if i == 0:
                lines.append("  ".join("-" * w[k] for k in range(len(hdr))))
        return "\n".join(lines)


def stamp(res, note="", core=False):
    """The chart's date, commit, kernel, the run's sizes and its verdicts;
    core=True: the poll core boots' sizes, None: the fan-out's."""
    try:
        top = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        c = subprocess.run(["git", "-C", top, "rev-parse", "--short", "HEAD"],
                           capture_output=True, text=True).stdout.strip() or "?"
    except OSError:
        c = "?"
    m = res.get("meta", {})
    if core:
        sizes = "patched (CONFIG_POLL_LEGACY_NULL_TABLE=y) vs noknob, {} rounds of {} fd-polls".format(
            m.get("core_rounds", "?"), m.get("core_work", "?"))
    elif core is None:
        sizes = "waiters {}, {} rounds".format(m.get("fanout_counts", "?"),
                                               m.get("fanout_rounds", "?"))
    else:
        sizes = frame_sizes(m)
    return "{}, commit {}; kernel {}, {} vCPUs, {}{}".format(
        time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), c, m.get("kernel", "?"),
        m.get("cpus", "?"), sizes, note)


def chart(res, png, note=""):
    gp = shutil.which("gnuplot")
    if not gp:
        return "gnuplot is missing (make deps installs gnuplot-nox)"
    fc, ev, pc = res.get("frame_cost", {}), res.get("event_latency", {}), res.get("poll_cost", {})
    d = tempfile.mkdtemp(prefix="vivpoll-bench-")

    def val(x, *keys):
        for k in keys:
            if not isinstance(x, dict):
                return None
            x = x.get(k)
        return x

    def w(name, rows):
        with open(os.path.join(d, name), "w") as f:
            for r in rows:
                f.write(" ".join('"%s"' % c if isinstance(c, str) else
                                 ("0" if c is None else repr(float(c))) for c in r) + "\n")

    # the verdict's basis (each side's own CPU clocks) beside its exact
    # cross-check (every task's CPU clock, the whole guest), per frame
    th = fc.get("threads_ms_per_frame") or {}
    ex = fc.get("exact_ms_per_frame") or {}
    w("frame.dat", [
        ("vivpoll", th.get("vivpoll"), ex.get("vivpoll")),
        ("vivid", th.get("vivid"), ex.get("vivid")),
        ("memcpy + reader", th.get("memcpy_wake"), ex.get("memcpy_wake")),
        ("bare memcpy", th.get("memcpy"), ex.get("memcpy")),
    ])
    # log scale: a missing value sits at the floor (10 us)
    w("event.dat", [(n,) + tuple(v if v else 10 for v in (val(ev, k, "p50_us"), val(ev, k, "p99_us")))
                    for n, k in (("control event", "ctrl"), ("eventfd", "eventfd"))])
    w("poll.dat", [(n, pc.get(n + "_ns"), pc.get(n + "_median_ns"))
                   for n in ("vivpoll", "eventfd", "vivid")])
    # a frame ratio: its worst round (the target holds every round)
    def worst(pooled, key):
        v = [pooled] + [r.get(key) for r in fc.get("rounds", [])]
        return None if None in v else max(v)

    # the poll core's rows within noise have no verdict: left out here
    core_r = [r.get("ratio") for r in (val(res, "poll_core", "rows") or [])
              if r.get("state_verdict") in ("met", "missed")]
    fo = res.get("fanout") if isinstance(res.get("fanout"), dict) else {}
    fo_r = [g.get("ratio") for g in (fo.get("groups") or {}).values()]
    ratios = [
        ("frame/vivid", worst(fc.get("vivpoll_vs_vivid"), "vs_vivid"),
         TARGETS["frame_vs_vivid"]),
        ("frame/memcpy+wake", worst(fc.get("vivpoll_vs_memcpy_wake"), "vs_memcpy_wake"),
         TARGETS["frame_vs_memcpy_wake"]),
        ("event p50/eventfd", ev.get("p50_ratio"), TARGETS["event_p50_vs_eventfd"]),
        ("poll/eventfd", pc.get("vivpoll_vs_eventfd"), TARGETS["poll_vs_eventfd"]),
        ("poll/vivid", pc.get("vivpoll_vs_vivid"), TARGETS["poll_vs_vivid"]),
        ("core off/unpatched (worst verdict)",
         max(core_r) if core_r and None not in core_r else None,
         TARGETS["core_off_vs_unpatched"]),
        ("fan-out CPU/eventfd (worst)",
         max(fo_r) if fo_r and None not in fo_r else None, TARGETS["fanout_cpu_vs_eventfd"]),
    ]
    w("ratio.dat", [(n, (r / t) if r is not None else None, 1 if (r is not None and r <= t) else 0)
                    for n, r, t in ratios])
    script = r"""
set terminal pngcairo size 1400,900 font "sans,10" noenhanced
set output '{png}'
set multiplot layout 2,2 title "make bench: vivpoll, side by side in one QEMU TCG guest boot\n{stamp}"
set style data histograms
set style fill solid 0.8 border -1
set boxwidth 0.8
set grid ytics
set key top right
set yrange [0:*]
# room above the bars for the key
set offsets 0, 0, graph 0.3, 0
set title "Frame cost, 1280x720 YUYV 30 fps ({funit})"
set style histogram clustered gap 1
plot '{d}/frame.dat' using 2:xtic(1) title "own CPU clocks (the verdict)", \
     '' using 3 title "whole guest, every task's clock (the cross-check)"
set title "Event latency, select() wake-up (us, log scale)"
set offsets 0, 0, 0, 0
set logscale y
set yrange [10:*]
plot '{d}/event.dat' using 2:xtic(1) title "p50", '' using 3 title "p99"
unset logscale y
set yrange [0:*]
set title "poll(), nothing pending (ns per call)"
set offsets 0, 0, graph 0.3, 0
set style histogram clustered gap 1
plot '{d}/poll.dat' using 2:xtic(1) title "best round", '' using 3 title "median round"
set title "Ratio / target limit (<= 1 is met; frames: the worst round)"
set offsets 0, 0, 0, 0
set xtics rotate by -25
set yrange [0:1.2<*]
set arrow 1 from graph 0, first 1 to graph 1, first 1 nohead lc rgb "red" lw 2 front
set style fill solid 0.8
unset key
plot '{d}/ratio.dat' using ($0):2:($3 > 0 ? 0x33aa33 : 0xdd3333):xtic(1) with boxes lc rgb variable
unset multiplot
""".format(png=png, d=d, stamp=stamp(res, note),
           funit="million guest instructions per frame, QEMU -icount"
           if fc.get("clock") == "icount" else "CPU ms per frame")
    with open(os.path.join(d, "bench.gp"), "w") as f:
        f.write(script)
    r = subprocess.run([gp, os.path.join(d, "bench.gp")], capture_output=True, text=True)
    shutil.rmtree(d, ignore_errors=True)
    if r.returncode != 0 or not os.path.exists(png):
        return "gnuplot failed: " + r.stderr.strip()[-400:]
    return None


def gnuplot(script, png, files):
    """Run a gnuplot script with its data files (name: rows) in a temporary
    folder ({d} in the script); None or what went wrong."""
    gp = shutil.which("gnuplot")
    if not gp:
        return "gnuplot is missing (make deps installs gnuplot-nox)"
    d = tempfile.mkdtemp(prefix="vivpoll-bench-")
    for name, rows in files.items():
        with open(os.path.join(d, name), "w") as f:
            for r in rows:
                f.write(" ".join('"%s"' % c if isinstance(c, str) else
                                 ("NaN" if c is None else repr(float(c))) for c in r) + "\n")
    with open(os.path.join(d, "chart.gp"), "w") as f:
        f.write(script.replace("{d}", d))
    r = subprocess.run([gp, os.path.join(d, "chart.gp")], capture_output=True, text=True)
    shutil.rmtree(d, ignore_errors=True)
    if r.returncode != 0 or not os.path.exists(png):
        return "gnuplot failed: " + r.stderr.strip()[-400:]
    return None


def chart_core(res, png):
    """The poll core against the number of fds: each call's cost per call
    on the unpatched kernel and with the patch (switch off, on), and the
    ratios to the unpatched kernel with the noise floor as error bars and
    the target as a line."""
    pc = res.get("poll_core")
    if not isinstance(pc, dict) or not pc.get("rows"):
        return None
    files = {}
    for call in Report.CORE_CALLS:
        rows = []
        for r in sorted((r for r in pc["rows"] if r["call"] == call), key=lambda r: r["fds"]):
            if not r.get("off_ns") or not r.get("unpatched_ns"):
                continue
            off, un = min(r["off_ns"]), min(r["unpatched_ns"])
            on = min(r["on_ns"]) if r.get("on_ns") else None
            nz = r.get("noise") or 0
            rows.append((r["fds"], 1 if r["state"] == "ready" else 0, un, off, on,
                         off / un, off / un / (1 + nz), off / un * (1 + nz),
                         on / un if on else None))
        for st in (1, 0):
            files["{}-{}.dat".format(call, st)] = [x[:1] + x[2:] for x in rows if x[1] == st]
    unit = "instructions (QEMU -icount)" if pc.get("clock") == "icount" else "ns"
    cost = "\n".join("""set title "{c}(): {u} per call"
plot '{{d}}/{c}-1.dat' using 1:2 with linespoints lw 2 pt 7 lc rgb "#7f7f7f" title "unpatched, ready", \\
     '' using 1:3 with linespoints lw 1 pt 5 lc rgb "#1f77b4" title "switch off, ready", \\
     '' using 1:4 with linespoints lw 1 pt 9 dt 2 lc rgb "#d62728" title "switch on, ready", \\
     '{{d}}/{c}-0.dat' using 1:2 with linespoints lw 2 pt 6 lc rgb "#7f7f7f" title "unpatched, not ready", \\
     '' using 1:3 with linespoints lw 1 pt 4 lc rgb "#1f77b4" title "switch off, not ready", \\
     '' using 1:4 with linespoints lw 1 pt 8 dt 2 lc rgb "#d62728" title "switch on, not ready\"""".format(c=c, u=unit)
                     for c in Report.CORE_CALLS)
    rat = "\n".join("""set title "{c}(): patched / unpatched (bars: noise floor)"
plot {lim} with lines lw 2 lc rgb "red" title "target {lim}x", \\
     '{{d}}/{c}-1.dat' using ($1*0.95):5:6:7 with yerrorbars pt 5 lc rgb "#1f77b4" title "switch off, ready", \\
     '{{d}}/{c}-0.dat' using ($1*1.05):5:6:7 with yerrorbars pt 4 lc rgb "#17becf" title "switch off, not ready", \\
     '{{d}}/{c}-1.dat' using ($1*0.9):8 with points pt 9 lc rgb "#d62728" title "switch on, ready", \\
     '{{d}}/{c}-0.dat' using ($1*1.1):8 with points pt 8 lc rgb "#ff9896" title "switch on, not ready\"""".format(
        c=c, lim=TARGETS["core_off_vs_unpatched"]) for c in Report.CORE_CALLS)
    script = """set terminal pngcairo size 1500,900 font "sans,10" noenhanced
set output '{png}'
set multiplot layout 2,3 title "make bench: the poll core (zero timeout, eventfds), patch built in (switch off, on) vs unpatched\\n{stamp}"
set logscale x
set xrange [0.6:1800]
set xtics (1, 64, 1024)
set grid
set key top left font ",8"
set xlabel "fds"
set logscale y
{cost}
unset logscale y
set yrange [*<0.95:1.05<*]
set key top left font ",8"
{rat}
unset multiplot
""".format(png=png, cost=cost, rat=rat, stamp=pc.get("stamp", ""))
    return gnuplot(script, png, files)


def chart_fanout(res, png):
    """Fan-out: time from an event to the last waiter's wake-up, and CPU per
    event per waiter, against the number of waiters; vivpoll and eventfd."""
    fo = res.get("fanout")
    if not isinstance(fo, dict) or not fo.get("groups"):
        return None
    files = {}
    icount = fo.get("clock") == "icount"
    for api in Report.FANOUT_APIS:
        rows = []
        for key, g in fo["groups"].items():
            a, n = key.split()
            if a != api:
                continue
            v, e = g.get("vivpoll") or {}, g.get("eventfd") or {}
            # latency: real time (the first boot's, under TCG), also when
            # the CPU's verdict counted instructions
            w = (fo.get("groups_wall") or {}).get(key) if icount else g
            lv, le = (w or {}).get("vivpoll") or {}, (w or {}).get("eventfd") or {}
            rows.append((int(n), lv.get("last_p50_us"), lv.get("last_p99_us"),
                         le.get("last_p50_us"), le.get("last_p99_us"),
                         v.get("cpu_us_per_waiter"), e.get("cpu_us_per_waiter")))
        files[api + ".dat"] = sorted(rows)
    lat = "\n".join("""set title "{a}: event to the last waiter's wake-up (TCG)"
plot '{{d}}/{a}.dat' using 1:2 with linespoints lw 2 pt 7 lc rgb "#1f77b4" title "vivpoll p50", \\
     '' using 1:3 with linespoints lw 1 pt 7 dt 2 lc rgb "#1f77b4" title "vivpoll p99", \\
     '' using 1:4 with linespoints lw 2 pt 5 lc rgb "#ff7f0e" title "eventfd p50", \\
     '' using 1:5 with linespoints lw 1 pt 5 dt 2 lc rgb "#ff7f0e" title "eventfd p99\"""".format(a=a)
                    for a in Report.FANOUT_APIS)
    cpu = "\n".join("""set title "{a}: CPU per event per waiter, p50{{i}}"
plot '{{d}}/{a}.dat' using 1:6 with linespoints lw 2 pt 7 lc rgb "#1f77b4" title "vivpoll", \\
     '' using 1:7 with linespoints lw 2 pt 5 lc rgb "#ff7f0e" title "eventfd\"""".format(a=a)
                    for a in Report.FANOUT_APIS)
    cpu = cpu.replace("{i}", " (QEMU -icount)" if icount else "")
    script = """set terminal pngcairo size 1500,900 font "sans,10" noenhanced
set output '{png}'
set multiplot layout 2,3 title "make bench: fan-out, N waiters on one vivpoll node (POLLPRI) vs one eventfd, all on CPU 0\\n{stamp}"
set logscale x
set xrange [0.7:1500]
set xtics (1, 16, 256, 1024)
set grid
set key top left
set xlabel "waiters"
set logscale y
set ylabel "us"
{lat}
unset logscale y
set yrange [0:*]
set ylabel "{cu} per event per waiter"
{cpu}
unset multiplot
""".format(png=png, lat=lat, cpu=cpu, stamp=fo.get("stamp", ""),
           cu="thousand instructions" if icount else "us")
    return gnuplot(script, png, files)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--raw", required=True)
    ap.add_argument("--host")
    ap.add_argument("--readme")
    ap.add_argument("--json", required=True)
    ap.add_argument("--png", required=True)
    ap.add_argument("--dir", default=".", help="where the poll core boots' results are")
    a = ap.parse_args()
    raw = None
    try:
        with open(a.raw) as f:
            raw = json.load(f)
    except (OSError, ValueError) as e:
        print("bench: no guest results (%s): every guest measurement is missing" % e,
              file=sys.stderr)
    host = {}
    if a.host and os.path.exists(a.host):
        try:
            with open(a.host) as f:
                host = json.load(f)
        except ValueError as e:
            print("bench: bad %s: %s" % (a.host, e), file=sys.stderr)
            return 2
    rep = Report(raw, host, a.readme, a.dir)
    res = rep.build()
    if raw is None:
        res["errors"].append({"phase": "guest", "test": "all", "error": "no guest results"})
        res["targets_met"] = False
    met = sum(1 for _, s in rep.verdicts if s == "met")
    missed = [n for n, s in rep.verdicts if s in ("missed", "error")]
    # the stamp on a line of its own; the misses on the next, cut to fit
    # (the table names them all)
    miss = ", ".join(missed)
    nnoise = sum(1 for _, s in rep.verdicts if s == "noise")
    err = chart(res, os.path.abspath(a.png), "\\ntargets: {} met, {} missed{}{}".format(
        met, len(missed), (" (" + (miss if len(miss) <= 150 else miss[:147] + "...") + ")")
        if missed else "", ", {} within noise (no verdict)".format(nnoise) if nnoise else ""))
    if err:
        res["errors"].append({"phase": "host", "test": "chart", "error": err})
        res["targets_met"] = False
    # a chart per question, each with the date, the commit and the kernel
    base = os.path.splitext(os.path.abspath(a.png))[0]
    if isinstance(res.get("poll_core"), dict):
        cm = rep.core_meta
        res["poll_core"]["stamp"] = stamp({"meta": cm}, "", core=True)
    if isinstance(res.get("fanout"), dict):
        res["fanout"]["stamp"] = stamp(res, "", core=None)
    extra = []
    for fn, path in ((chart_core, base + "-pollcore.png"), (chart_fanout, base + "-fanout.png")):
        e = fn(res, path)
        if e:
            res["errors"].append({"phase": "host", "test": "chart", "error": e})
            res["targets_met"] = False
        elif os.path.exists(path):
            extra.append(path)
    with open(a.json, "w") as f:
        json.dump(res, f, indent=2)
        f.write("\n")

    m = res.get("meta", {})
    print()
    print("make bench: vivpoll against vivid, memcpy and eventfd; ratios from one guest boot")
    print("(kernel {}, {} vCPUs under QEMU TCG; {})".format(
        m.get("kernel", "?"), m.get("cpus", "?"), frame_sizes(m)))
    if rep.frame_meta:
        fm = rep.frame_meta
        print("(row 1's verdicts: a boot of their own, {} vCPU on QEMU's instruction counter, "
              "CPU in guest instructions; {})".format(fm.get("cpus", "?"), frame_sizes(fm)))
    print()
    print(rep.table())
    print()
    for e in res["errors"]:
        print("error: {} {}: {}".format(e["phase"], e["test"], e["error"]))
    met = sum(1 for _, s in rep.verdicts if s == "met")
    missed = [n for n, s in rep.verdicts if s in ("missed", "error")]
    print("targets: {} met, {} missed{}".format(met, len(missed),
                                                 (" (" + ", ".join(missed) + ")") if missed else ""))
    noisy = [n for n, s in rep.verdicts if s == "noise"]
    if noisy:
        print("within noise, no verdict: {} (their intervals are in the table)".format(len(noisy)))
    print("wrote {} and {}".format(a.json, ", ".join(
        ([a.png] if not err else ["(no chart: %s)" % err]) + extra)))
    return 0 if res["targets_met"] else 1


if __name__ == "__main__":
    sys.exit(main())
