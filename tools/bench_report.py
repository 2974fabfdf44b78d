#!/usr/bin/env python3
"""Writes bench/RESULTS.md and the scaling chart from crowd_bench's JSON output.

usage: bench_report.py RESULTS.json [--out RESULTS.md] [--svg scaling.svg]

Benchmarks are named "<scenario>/<implementation>/agents:<N>/threads:<T>" (bench/harness.h).
With repetitions the medians are used; a run without repetitions is used as it is. Every ratio
compares two cases of the same run. Standard library only.
"""

import argparse
import json
import math
import os
import re
import sys
from collections import defaultdict

NAME = re.compile(r"^(?P<scenario>[^/]+)/(?P<impl>[^/]+)/agents:(?P<agents>\d+)/threads:(?P<threads>\d+)")
# The walled family (bench/bench_town.cc): the town with (walls:1) and without (walls:0) its blocks.
TOWN = re.compile(r"^BM_Town/agents:(?P<agents>\d+)/walls:(?P<walls>[01])/threads:(?P<threads>\d+)")
# Its ratio measured directly: two walled and two open towns stepped in alternation in one process.
PAIR = re.compile(r"^BM_TownPair/agents:(?P<agents>\d+)/threads:(?P<threads>\d+)")

ENGINE = "crowdstep"
# Display order and descriptions of the implementations.
IMPLS = [
    ("crowdstep", "crowdstep (this engine, public API)"),
    ("kernel", "minimal kernel: counting sort into SoA, one vectorized stencil pass, fused integration"),
    ("objects", "object per agent, virtual behaviors, unsorted bucket grid (OpenSteer style)"),
    ("brute", "O(N^2) brute force, vectorized"),
    ("detour", "DetourCrowd (librecast-dev), separation"),
    ("detour_avoid", "DetourCrowd (librecast-dev), separation + obstacle avoidance"),
]
SCENARIOS = [
    ("separation", "separation only, uniform crowd drifting with random velocities"),
    ("crossing", "crossing traffic: every agent seeks the point mirrored across the centre, with separation"),
    ("crossing_cone", "crossing traffic with separation and queue braking in the forward cone"),
]
COLORS = {
    "crowdstep": "#d62728",
    "kernel": "#1f77b4",
    "objects": "#2ca02c",
    "brute": "#7f7f7f",
    "detour": "#9467bd",
    "detour_avoid": "#8c564b",
}
FALLBACK_COLORS = ["#e377c2", "#bcbd22", "#17becf", "#ff7f0e"]


def load(path):
    with open(path) as f:
        data = json.load(f)
    runs = {}
    town = {}
    pair = {}
    repeated = any(b.get("run_type") == "aggregate" for b in data.get("benchmarks", []))

    def keep(store, key, b):
        """A walled-family row: its median over repetitions, or its error, which wins."""
        if b.get("error_occurred") or not repeated or b.get("aggregate_name") == "median":
            if b.get("error_occurred") or key not in store:
                store[key] = b

    for b in data.get("benchmarks", []):
        p = PAIR.match(b.get("run_name", b["name"]))
        if p:
            keep(pair, (int(p["agents"]), int(p["threads"])), b)
            continue
        t = TOWN.match(b.get("run_name", b["name"]))
        if t:
            keep(town, (int(t["agents"]), int(t["walls"]), int(t["threads"])), b)
            continue
        if b.get("error_occurred"):
            continue
        if repeated and not (b.get("run_type") == "aggregate" and b.get("aggregate_name") == "median"):
            continue
        m = NAME.match(b.get("run_name", b["name"]))
        if not m:
            continue
        key = (m["scenario"], m["impl"], int(m["agents"]), int(m["threads"]))
        runs[key] = b
    return data.get("context", {}), runs, town, pair


def pair_section(pair):
    """BM_TownPair: the walled/open tick ratio, and the target judged from it."""
    rows = []
    for (n, t), b in sorted(pair.items()):
        if b.get("error_occurred"):
            rows.append([size_label(n), t] + ["–"] * 7 + ["FAILED: " + str(b.get("error_message", ""))])
            continue
        rows.append([size_label(n), t, num(b.get("open_ms"), 2), num(b.get("walled_ms"), 2),
                     fmt_ratio(b.get("x_no_walls")), f"{b.get('q1', 0):.2f}–{b.get('q3', 0):.2f}",
                     num(b.get("ns/agent_neighbor_added"), 1), num(b.get("ns/agent_walls"), 1),
                     num(b.get("ns/agent_clamp"), 1), f"{b.get('overlaps', 0):.0f}"])
    out = ["", "BM_TownPair (bench/bench_town.cc): the ratio itself, from two walled and two open towns "
           "built in one process and stepped in rounds of 5 ticks in a shuffled order; \"× no walls\" "
           "is the median of the per-round walled/open ratios, with its quartiles, and the tick times "
           "are the medians of the rounds' (ms). The walls' costs (ns/agent, means over the rounds' "
           "ticks): what they add to the neighbor phase (each agent's wall clearances, line of sight), "
           "the wall force and the move clamp.", "",
           table(["agents", "threads", "no walls (ms)", "walls (ms)", "× no walls", "quartiles",
                  "neighbor +", "wall force", "clamp", "overlaps"], rows)]
    b = pair.get((100000, 2))
    if b and not b.get("error_occurred"):
        slow = b.get("x_no_walls")
        out += ["", f"Target: walls add at most 25% to the tick at 100k on 2 threads: × {slow:.2f} "
                    f"(BM_TownPair), {'met' if slow <= 1.25 else 'missed'}."]
    return out


def walls_section(town, pair=None):
    """BM_Town: the cost of walls, and the check that no disc reached into a block; BM_TownPair:
    the ratio, which judges the target when the run has it."""
    if not town and not pair:
        return ""
    if not town:
        return "\n".join(["## Walls: the town"] + pair_section(pair)) + "\n"
    out = ["## Walls: the town", "",
           "BM_Town (bench/bench_town.cc): solid square blocks over a third of the square, agents on "
           "looping waypoint paths along the streets; the same crowd on the same paths without the "
           "blocks is the reference. \"× no walls\" is the tick time with the blocks over the tick "
           "time without them. Every step is checked, untimed, for a disc reaching into a block.", ""]
    rows = []
    for n, t in sorted({(k[0], k[2]) for k in town}):
        w0, w1 = town.get((n, 0, t)), town.get((n, 1, t))
        if w1 is not None and w1.get("error_occurred"):
            rows.append([size_label(n), t, rate(w0.get("agent_steps/s") if w0 else None), "–", "–", "–",
                         "–", "FAILED: " + str(w1.get("error_message", ""))])
            continue
        r0 = w0.get("agent_steps/s") if w0 else None
        r1 = w1.get("agent_steps/s") if w1 else None
        slow = ratio(r0, r1) if r0 and r1 else None
        rows.append([size_label(n), t, rate(r0), rate(r1), fmt_ratio(slow) if slow else "–",
                     num(w1.get("ns/agent_walls"), 1) if w1 and "ns/agent_walls" in w1 else "–",
                     num(w1.get("max_penetration_mm"), 3) if w1 else "–",
                     f"{w1.get('overlaps', 0):.0f}" if w1 else "–"])
    out.append(table(["agents", "threads", "no walls", "walls", "× no walls", "walls phase ns/agent",
                      "deepest reach into a block (mm)", "overlaps"], rows))
    if pair:
        return "\n".join(out + pair_section(pair)) + "\n"
    w0, w1 = town.get((100000, 0, 2)), town.get((100000, 1, 2))
    if w0 and w1 and not w1.get("error_occurred"):
        slow = ratio(w0.get("agent_steps/s"), w1.get("agent_steps/s"))
        out += ["", f"Target: walls add at most 25% to the tick at 100k on 2 threads: × {slow:.2f}, "
                    f"{'met' if slow <= 1.25 else 'missed'}."]
    return "\n".join(out) + "\n"


class Results:
    def __init__(self, runs):
        self.runs = runs
        self.scenarios = ordered({k[0] for k in runs}, [s for s, _ in SCENARIOS])
        self.impls = ordered({k[1] for k in runs}, [i for i, _ in IMPLS])
        self.sizes = sorted({k[2] for k in runs})
        self.threads = sorted({k[3] for k in runs})

    def get(self, scenario, impl, agents, threads, counter="agent_steps/s"):
        b = self.runs.get((scenario, impl, agents, threads))
        if b is None:
            return None
        v = b.get(counter)
        return float(v) if v is not None else None

    def has(self, scenario, impl):
        return any(k[0] == scenario and k[1] == impl for k in self.runs)

    def sizes_of(self, scenario, impl):
        return sorted({k[2] for k in self.runs if k[0] == scenario and k[1] == impl})

    def threads_of(self, scenario, impl):
        return sorted({k[3] for k in self.runs if k[0] == scenario and k[1] == impl})


def ordered(found, preferred):
    return [x for x in preferred if x in found] + sorted(found - set(preferred))


def describe(table, key):
    return dict(table).get(key, key)


def size_label(n):
    if n >= 1000000 and n % 1000000 == 0:
        return f"{n // 1000000}M"
    if n >= 1000 and n % 1000 == 0:
        return f"{n // 1000}k"
    return str(n)


def rate(v):
    if v is None:
        return "–"
    if v >= 1e6:
        return f"{v / 1e6:.2f} M"
    return f"{v / 1e3:.0f} k"


def short(v):
    for scale, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if v >= scale:
            return f"{v / scale:g}{suffix}"
    return f"{v:g}"


def num(v, digits=2):
    if v is None:
        return "–"
    if v == 0:
        return "0"
    if abs(v) >= 100:
        return f"{v:.0f}"
    return f"{v:.{digits}f}"


def ratio(a, b, digits=2):
    if a is None or b is None or b == 0:
        return None
    return a / b


def fmt_ratio(r, digits=2):
    if r is None:
        return "–"
    if r >= 100:
        return f"{r:.0f}×"
    return f"{r:.{digits}f}×"


def table(header, rows):
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(out)


def machine_section(ctx):
    lines = ["## Machine", ""]
    cpu = ctx.get("cpu_model", "").replace(";", ",") or "unknown"
    lines.append(f"- CPU: {cpu}")
    cpus = ctx.get("logical_cpus") or ctx.get("num_cpus")
    tpc = ctx.get("threads_per_core")
    lines.append(f"- Logical CPUs: {cpus}" + (f", {tpc} thread(s) per core" if tpc else ""))
    if ctx.get("mhz_per_cpu"):
        lines.append(f"- Clock reported: {ctx['mhz_per_cpu']} MHz")
    if ctx.get("isa"):
        lines.append(f"- ISA extensions: {ctx['isa']}")
    caches = ctx.get("caches") or []
    if caches:
        kinds = {"Data": "d", "Instruction": "i"}
        lines.append("- Caches: " + ", ".join(
            f"L{c.get('level')}{kinds.get(c.get('type'), '')} {c.get('size', 0) // 1024} KiB" for c in caches))
    if ctx.get("crowd_compiler"):
        lines.append(f"- Compiler: {ctx['crowd_compiler']}")
    if ctx.get("load_avg"):
        lines.append("- Load average at start: " + ", ".join(f"{x:.2f}" for x in ctx["load_avg"]))
    meta = []
    if ctx.get("date"):
        meta.append(f"run {ctx['date']}")
    if ctx.get("commit"):
        meta.append(f"commit {ctx['commit']}")
    if ctx.get("repetitions"):
        meta.append(f"median of {ctx['repetitions']} repetitions")
    if ctx.get("quick") == "1":
        meta.append("QUICK SMOKE RUN (short, small sizes: not a measurement)")
    if meta:
        lines.append("- " + ", ".join(meta))
    return "\n".join(lines)


def throughput_section(R):
    out = ["## Agent-steps per second", "",
           "Median agent-steps/s (agents × ticks ÷ wall time) of every case. Rows are implementation "
           "and thread count, columns the number of agents.", ""]
    for sc in R.scenarios:
        out.append(f"### {sc}: {describe(SCENARIOS, sc)}")
        out.append("")
        rows = []
        for impl in R.impls:
            if not R.has(sc, impl):
                continue
            for t in R.threads_of(sc, impl):
                rows.append([f"{impl}", t] + [rate(R.get(sc, impl, n, t)) for n in R.sizes])
        out.append(table(["implementation", "threads"] + [size_label(n) for n in R.sizes], rows))
        out.append("")
    return "\n".join(out)


def ratio_rows(R, sc, other, threads_other=None):
    rows = []
    for t in R.threads_of(sc, ENGINE):
        cells = []
        for n in R.sizes:
            to = t if threads_other is None else threads_other
            cells.append(fmt_ratio(ratio(R.get(sc, ENGINE, n, t), R.get(sc, other, n, to))))
        if any(c != "–" for c in cells):
            label = f"{t}" if threads_other is None else f"{t} vs {threads_other}"
            rows.append([sc, label] + cells)
    return rows


def ratios_section(R):
    out = ["## Ratios", "",
           "Each ratio divides crowdstep's agent-steps/s by the other implementation's on the same "
           "scenario, size and thread count, from the same run (above 1: crowdstep is faster).", ""]
    for other, title in [("kernel", "crowdstep ÷ minimal kernel"),
                         ("objects", "crowdstep ÷ object-per-agent"),
                         ("brute", "crowdstep ÷ brute force")]:
        rows = []
        for sc in R.scenarios:
            if R.has(sc, ENGINE) and R.has(sc, other):
                rows += ratio_rows(R, sc, other)
        if rows:
            out += [f"### {title}", "", table(["scenario", "threads"] + [size_label(n) for n in R.sizes], rows), ""]
    for other in ("detour", "detour_avoid"):
        rows = []
        for sc in R.scenarios:
            if R.has(sc, ENGINE) and R.has(sc, other):
                # DetourCrowd runs on one thread: crowdstep on 1 thread, and on each thread count.
                rows += ratio_rows(R, sc, other, threads_other=1)
        if rows:
            out += [f"### crowdstep ÷ {describe(IMPLS, other)}", "",
                    "DetourCrowd is single-threaded; the thread column reads \"crowdstep threads vs DetourCrowd threads\".", "",
                    table(["scenario", "threads"] + [size_label(n) for n in R.sizes], rows), ""]
    rows = []
    for sc in R.scenarios:
        for impl in R.impls:
            ts = R.threads_of(sc, impl)
            if 1 not in ts or len(ts) < 2:
                continue
            for t in ts[1:]:
                rows.append([sc, impl, f"{t} ÷ 1"] + [fmt_ratio(ratio(R.get(sc, impl, n, t), R.get(sc, impl, n, 1)))
                                                       for n in R.sizes])
    if rows:
        out += ["### Thread scaling (agent-steps/s with T threads ÷ with 1 thread)", "",
                table(["scenario", "implementation", "threads"] + [size_label(n) for n in R.sizes], rows), ""]
    return "\n".join(out)


def flatness(R, sc, impl, t, lo=10000, hi=1000000):
    pts = [(n, 1e9 / v) for n in R.sizes if lo <= n <= hi for v in [R.get(sc, impl, n, t)] if v]
    if len(pts) < 2:
        return pts, None
    ns = [p[1] for p in pts]
    return pts, max(ns) / min(ns)


def flatness_section(R):
    out = ["## Cost per agent from 10k to 1M agents", "",
           "Wall-clock ns per agent-step (1e9 ÷ agent-steps/s). At fixed density the work per agent is "
           "constant, so a flat row means cost linear in the number of agents; \"spread\" is the largest "
           "÷ smallest value from 10k to 1M.", ""]
    sizes = [n for n in R.sizes if 10000 <= n <= 1000000]
    rows = []
    for sc in R.scenarios:
        for impl in R.impls:
            for t in R.threads_of(sc, impl):
                pts, spread = flatness(R, sc, impl, t)
                if len(pts) < 2:
                    continue
                d = dict(pts)
                rows.append([sc, impl, t] + [num(d.get(n), 1) for n in sizes] + [fmt_ratio(spread)])
    if not rows:
        return ""
    out.append(table(["scenario", "implementation", "threads"] + [size_label(n) for n in sizes] + ["spread"], rows))
    return "\n".join(out) + "\n"


def memory_section(R):
    out = ["## Memory", "",
           "Peak bytes the implementation allocated while building and stepping the case, ÷ agents. "
           "Every implementation allocates through a counting allocator (the engine through its "
           "allocator hooks, C++ code through the global operator new, DetourCrowd through "
           "dtAllocSetCustom); bytes are those requested, without allocator headers.", ""]
    rows = []
    for sc in R.scenarios:
        for impl in R.impls:
            ts = R.threads_of(sc, impl)
            if not ts:
                continue
            t = ts[0]
            cells = [num(R.get(sc, impl, n, t, "bytes/agent"), 0) for n in R.sizes]
            if any(c != "–" for c in cells):
                rows.append([sc, impl, t] + cells)
    out.append(table(["scenario", "implementation", "threads"] + [size_label(n) for n in R.sizes], rows))
    return "\n".join(out) + "\n"


def phases_section(R):
    out = ["## Where the time goes", "",
           "Per-phase wall time in ns per agent-step, and neighbor candidates examined per agent "
           "(crowdstep's phases from crowd_world_get_profile; the kernel's \"fused\" phase holds its "
           "neighbor pass, seek, braking and integration).", ""]
    rows = []
    phase_names = []
    for b in R.runs.values():
        for k in b:
            if k.startswith("ns/agent_") and k[9:] not in phase_names:
                phase_names.append(k[9:])
    order = ["sort", "neighbor", "leader", "path", "goal", "integrate", "fused", "plan", "rebucket"]
    phase_names = ordered(set(phase_names), order)
    for sc in R.scenarios:
        for impl in R.impls:
            for t in R.threads_of(sc, impl):
                for n in R.sizes_of(sc, impl):
                    b = R.runs.get((sc, impl, n, t))
                    if not b or not any(k.startswith("ns/agent_") for k in b):
                        continue
                    cells = [num(b.get("ns/agent_" + p), 1) if ("ns/agent_" + p) in b else "" for p in phase_names]
                    rows.append([sc, impl, size_label(n), t] + cells + [num(b.get("candidates/agent"), 1)])
    if not rows:
        return ""
    out.append(table(["scenario", "implementation", "agents", "threads"] + phase_names + ["candidates/agent"], rows))
    return "\n".join(out) + "\n"


def targets_section(R):
    """The speed targets, evaluated on this run (p95 tick time is measured by `crowd run`/`crowd scale`)."""
    out = ["## Targets", "", "Measured in this run; \"not measured\" where a scenario is not in the suite yet. "
           "The tail-latency target (p95 within 1.3 x the median) is measured by `crowd run` and `crowd scale`, "
           "which report the median, p95 and p99 tick.", ""]
    rows = []

    def verdict(ok):
        return "met" if ok else "missed"

    # The speed issue's targets, on 2 threads.
    k = R.get("crossing_cone", "kernel", 100000, 2)
    rows.append(["minimal kernel, separation + cone, 100k, 2 threads: ≥ 50 M agent-steps/s",
                 rate(k) if k else "not measured", verdict(k >= 50e6) if k else "–"])
    for n, bound in ((100000, 45e6), (1000000, 40e6)):
        v = R.get("crossing_cone", ENGINE, n, 2)
        rows.append([f"separation + cone, {size_label(n)}, 2 threads: ≥ {bound / 1e6:.0f} M agent-steps/s",
                     rate(v) if v else "not measured", verdict(v >= bound) if v else "–"])
    v100 = R.get("plaza", ENGINE, 100000, 2)
    rows.append(["plaza, 100k, 2 threads: ≥ 30 M agent-steps/s", rate(v100) if v100 else "not measured",
                 verdict(v100 >= 30e6) if v100 else "–"])
    v1m = R.get("plaza", ENGINE, 1000000, 2)
    rows.append(["plaza, 1M, 2 threads: ≥ 30 ticks/s", f"{v1m / 1e6:.1f} ticks/s" if v1m else "not measured",
                 verdict(v1m / 1e6 >= 30) if v1m else "–"])
    for sc in R.scenarios:
        ns = R.get(sc, ENGINE, 1000000, 2, "ns/agent_sort")
        if ns is not None:
            rows.append([f"{sc}, 1M, 2 threads: sort phase ≤ 6 ns/agent", f"{ns:.1f}", verdict(ns <= 6)])
    b = R.get("plaza", ENGINE, 1000000, 2, "bytes/agent")
    rows.append(["plaza, 1M: ≤ 200 bytes per agent", f"{b:.0f}" if b is not None else "not measured",
                 verdict(b <= 200) if b is not None else "–"])
    # Thread scaling in small and mid-sized worlds.
    for n, bound in ((10000, 1.5), (100000, 1.8)):
        for sc in R.scenarios:
            r = ratio(R.get(sc, ENGINE, n, 2), R.get(sc, ENGINE, n, 1))
            if r is not None:
                rows.append([f"{sc}, {size_label(n)}: 2 threads ÷ 1 ≥ {bound}", f"{r:.2f}", verdict(r >= bound)])
    # DetourCrowd.
    for n in (10000, 20000):
        d = R.get("separation", "detour", n, 1)
        for t in R.threads_of("separation", ENGINE):
            r = ratio(R.get("separation", ENGINE, n, t), d)
            if r is not None:
                rows.append([f"separation, {size_label(n)}: ≥ 50 × DetourCrowd", f"{fmt_ratio(r)} ({t} vs 1 thr)",
                             verdict(r >= 50)])
    # Linear cost.
    for sc in R.scenarios:
        for t in R.threads_of(sc, ENGINE):
            pts, spread = flatness(R, sc, ENGINE, t)
            if spread is not None and pts[0][0] == 10000 and pts[-1][0] == 1000000:
                rows.append([f"{sc}, {t} thr: ns/agent flat within 25% from 10k to 1M", f"spread {spread:.2f}",
                             verdict(spread <= 1.25)])
    out.append(table(["target", "measured", "verdict"], rows))
    return "\n".join(out) + "\n"


# ---- SVG -----------------------------------------------------------------------------------------

def svg_chart(R, path):
    W, H = 1010, 480
    panel_w, panel_h = 400, 320
    left = [80, 570]
    top = 50
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" viewBox="0 0 {W} {H}" '
             f'font-family="sans-serif" font-size="12">',
             f'<rect width="{W}" height="{H}" fill="white"/>']
    color_of = dict(COLORS)
    extra = iter(FALLBACK_COLORS)
    for impl in R.impls:
        if impl not in color_of:
            color_of[impl] = next(extra, "#000000")

    scenario = "separation" if "separation" in R.scenarios else (R.scenarios[0] if R.scenarios else None)
    if scenario is None:
        parts.append("</svg>")
        with open(path, "w") as f:
            f.write("\n".join(parts))
        return

    # Panel 1: agent-steps/s against agents, log-log, one line per implementation and thread count.
    series = []
    for impl in R.impls:
        for t in R.threads_of(scenario, impl):
            pts = [(n, R.get(scenario, impl, n, t)) for n in R.sizes_of(scenario, impl)]
            pts = [(n, v) for n, v in pts if v]
            if pts:
                series.append((impl, t, pts))
    xs = [n for _, _, pts in series for n, _ in pts] or [1, 10]
    ys = [v for _, _, pts in series for _, v in pts] or [1, 10]
    x0, x1 = math.log10(min(xs)), math.log10(max(xs))
    y0, y1 = math.floor(math.log10(min(ys))), math.ceil(math.log10(max(ys)))
    if x1 == x0:
        x1 = x0 + 1
    if y1 == y0:
        y1 = y0 + 1
    px, py = left[0], top

    def X(n):
        return px + (math.log10(n) - x0) / (x1 - x0) * panel_w

    def Y(v):
        return py + panel_h - (math.log10(v) - y0) / (y1 - y0) * panel_h

    parts.append(f'<text x="{px + panel_w / 2}" y="{top - 20}" text-anchor="middle" font-size="14">'
                 f'{scenario}: agent-steps/s vs agents</text>')
    parts.append(f'<rect x="{px}" y="{py}" width="{panel_w}" height="{panel_h}" fill="none" stroke="#999"/>')
    for e in range(int(y0), int(y1) + 1):
        y = Y(10 ** e)
        parts.append(f'<line x1="{px}" y1="{y:.1f}" x2="{px + panel_w}" y2="{y:.1f}" stroke="#eee"/>')
        parts.append(f'<text x="{px - 6}" y="{y + 4:.1f}" text-anchor="end">{short(10 ** e)}</text>')
    for n in sorted(set(xs)):
        x = X(n)
        parts.append(f'<line x1="{x:.1f}" y1="{py}" x2="{x:.1f}" y2="{py + panel_h}" stroke="#eee"/>')
        parts.append(f'<text x="{x:.1f}" y="{py + panel_h + 16}" text-anchor="middle">{size_label(n)}</text>')
    parts.append(f'<text x="{px + panel_w / 2}" y="{py + panel_h + 34}" text-anchor="middle">agents</text>')
    tmin = min(R.threads) if R.threads else 1
    for impl, t, pts in series:
        dash = "" if t == tmin else ' stroke-dasharray="6,4"'
        d = " ".join(f"{'M' if i == 0 else 'L'}{X(n):.1f},{Y(v):.1f}" for i, (n, v) in enumerate(pts))
        parts.append(f'<path d="{d}" fill="none" stroke="{color_of[impl]}" stroke-width="2"{dash}/>')
        for n, v in pts:
            parts.append(f'<circle cx="{X(n):.1f}" cy="{Y(v):.1f}" r="3" fill="{color_of[impl]}"/>')

    # Panel 2: speedup over 1 thread, per implementation and size.
    px = left[1]
    speed = []
    for impl in R.impls:
        ts = R.threads_of(scenario, impl)
        if 1 not in ts or len(ts) < 2:
            continue
        for n in R.sizes_of(scenario, impl):
            base = R.get(scenario, impl, n, 1)
            pts = [(t, R.get(scenario, impl, n, t) / base) for t in ts if base and R.get(scenario, impl, n, t)]
            if len(pts) >= 2:
                speed.append((impl, n, pts))
    tmax = max(R.threads) if R.threads else 2
    smax = max([tmax] + [s for _, _, pts in speed for _, s in pts])

    def X2(t):
        return px + (t - 1) / max(tmax - 1, 1) * panel_w

    def Y2(s):
        return py + panel_h - s / smax * panel_h

    parts.append(f'<text x="{px + panel_w / 2}" y="{top - 20}" text-anchor="middle" font-size="14">'
                 f'{scenario}: speedup over 1 thread</text>')
    parts.append(f'<rect x="{px}" y="{py}" width="{panel_w}" height="{panel_h}" fill="none" stroke="#999"/>')
    step = 0.5 if smax <= 4 else 1.0
    s = 0.0
    while s <= smax + 1e-9:
        y = Y2(s)
        parts.append(f'<line x1="{px}" y1="{y:.1f}" x2="{px + panel_w}" y2="{y:.1f}" stroke="#eee"/>')
        parts.append(f'<text x="{px - 6}" y="{y + 4:.1f}" text-anchor="end">{s:g}×</text>')
        s += step
    for t in R.threads:
        x = X2(t)
        parts.append(f'<text x="{x:.1f}" y="{py + panel_h + 16}" text-anchor="middle">{t}</text>')
    parts.append(f'<text x="{px + panel_w / 2}" y="{py + panel_h + 34}" text-anchor="middle">threads</text>')
    parts.append(f'<line x1="{X2(1):.1f}" y1="{Y2(1):.1f}" x2="{X2(tmax):.1f}" y2="{Y2(tmax):.1f}" '
                 f'stroke="#bbb" stroke-dasharray="2,3"/>')
    sizes = sorted({n for _, n, _ in speed})
    for impl, n, pts in speed:
        width = 1 + 2.5 * (sizes.index(n) + 1) / len(sizes)
        d = " ".join(f"{'M' if i == 0 else 'L'}{X2(t):.1f},{Y2(s):.1f}" for i, (t, s) in enumerate(pts))
        parts.append(f'<path d="{d}" fill="none" stroke="{color_of[impl]}" stroke-width="{width:.1f}" '
                     f'stroke-opacity="0.8"/>')
        t, s = pts[-1]
        parts.append(f'<text x="{X2(t) + 4:.1f}" y="{Y2(s) + 4:.1f}" font-size="10" fill="{color_of[impl]}">'
                     f'{size_label(n)}</text>')

    # Legend.
    ly = H - 44
    lx = 80
    for impl in R.impls:
        parts.append(f'<line x1="{lx}" y1="{ly}" x2="{lx + 24}" y2="{ly}" stroke="{color_of[impl]}" stroke-width="3"/>')
        parts.append(f'<text x="{lx + 30}" y="{ly + 4}">{impl}</text>')
        lx += 40 + 8 * len(impl)
    parts.append(f'<text x="80" y="{H - 16}" fill="#555">left: solid = {tmin} thread, dashed = more threads; '
                 f'right: line width grows with agents, dotted = ideal</text>')
    parts.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(parts) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("json")
    ap.add_argument("--out", default="bench/RESULTS.md")
    ap.add_argument("--svg", default="bench/scaling.svg")
    a = ap.parse_args()
    ctx, runs, town, pair = load(a.json)
    if not runs and not town and not pair:
        print(f"bench_report: no benchmark results in {a.json}", file=sys.stderr)
        return 1
    if not runs:  # a run of the walled family alone (--filter BM_Town)
        with open(a.out, "w") as f:
            f.write("# crowdstep benchmark results\n\n" + machine_section(ctx) + "\n\n" +
                    walls_section(town, pair))
        return 0
    R = Results(runs)
    svg_chart(R, a.svg)
    svg_rel = os.path.relpath(a.svg, os.path.dirname(os.path.abspath(a.out)) or ".")
    doc = ["# crowdstep benchmark results", "",
           "Written by `tools/bench.sh` (`tools/bench_report.py` over crowd_bench's JSON). The family: "
           "uniform density 0.25 agents/m² in a square of side √(N ÷ 0.25), radius 0.3, max speed 1.5, "
           "max force 3, separation radius 1.2, queue cone 2.5 × 0.6, dt 0.1, cell 2.5. Every "
           "implementation steps the same starting crowd for the same number of ticks.", "",
           machine_section(ctx), "",
           "Implementations:", ""]
    doc += [f"- **{i}**: {describe(IMPLS, i)}" for i in R.impls]
    doc += ["", "Scenarios:", ""]
    doc += [f"- **{s}**: {describe(SCENARIOS, s)}" for s in R.scenarios]
    doc += ["", targets_section(R), f"![scaling with agents and threads]({svg_rel})", "",
            throughput_section(R), ratios_section(R), flatness_section(R), memory_section(R), phases_section(R),
            walls_section(town, pair)]
    with open(a.out, "w") as f:
        f.write("\n".join(doc).rstrip() + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
