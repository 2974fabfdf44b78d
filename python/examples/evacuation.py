#!/usr/bin/env python3
"""Evacuation: two rooms of 200 people empty through a 1 m and a 2 m door.

Runs tools/scenarios/evacuation.json as `crowd run` does and writes evacuation.png: the density
heat map over the whole run (agent-seconds per square metre, summed from the zero-copy columns
every tick), the trajectories of a sample of agents, and the people left in each room over time.

    python3 python/examples/evacuation.py [--out DIR] [--ticks N] [--threads T]
"""

import argparse
import pathlib

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import crowdstep  # noqa: E402

SCENARIO = pathlib.Path(__file__).resolve().parents[2] / "tools" / "scenarios" / "evacuation.json"
EXTENT = (-24.0, 24.0, -12.0, 16.0)  # x0, x1, y0, y1 of the pictures, m
BIN = 0.25  # heat map cell, m


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=".", help="directory for evacuation.png")
    ap.add_argument("--ticks", type=int, default=None, help="ticks to run (default: until empty)")
    ap.add_argument("--threads", type=int, default=0)
    args = ap.parse_args()

    world = crowdstep.load_scenario(SCENARIO, threads=args.threads)
    ticks = args.ticks or world.scenario["ticks"]
    dt = world.dt
    walls = [world.obstacle_points(o) for o in world.obstacles()]

    # A sample of agents to trace, by agent index (the id column), in both rooms.
    first = world.columns
    sample = np.sort(first.id[np.random.default_rng(1).permutation(len(first))[:60]])
    traces = {int(i): [] for i in sample}

    xe = np.arange(EXTENT[0], EXTENT[1] + BIN, BIN)
    ye = np.arange(EXTENT[2], EXTENT[3] + BIN, BIN)
    heat = np.zeros((len(xe) - 1, len(ye) - 1))
    times, left_narrow, left_wide = [], [], []
    for t in range(ticks):
        c = world.columns  # views: valid until the next step
        x, y, idx = c.x, c.y, c.id
        heat += np.histogram2d(x, y, bins=(xe, ye))[0]
        if t % 5 == 0:
            times.append(t * dt)
            inside = y < 10.0
            left_narrow.append(int(np.count_nonzero(inside & (x < 0))))
            left_wide.append(int(np.count_nonzero(inside & (x > 0))))
            rows = np.flatnonzero(np.isin(idx, sample))
            for r in rows:
                traces[int(idx[r])].append((float(x[r]), float(y[r])))
        if world.count == 0:
            break
        world.step()
    heat *= dt / (BIN * BIN)  # agent-seconds per m^2

    fig, (ax_heat, ax_tr, ax_n) = plt.subplots(1, 3, figsize=(18, 5.5))
    im = ax_heat.imshow(np.log1p(heat.T), origin="lower", extent=EXTENT, cmap="inferno",
                        aspect="equal")
    fig.colorbar(im, ax=ax_heat, label="log(1 + agent-seconds per m²)")
    ax_heat.set_title(f"Density over {len(times) * 5 * dt:.0f} s")
    for ax in (ax_heat, ax_tr):
        for p in walls:
            ax.plot(p[:, 0], p[:, 1], color="deepskyblue" if ax is ax_heat else "black", lw=2)
        ax.set_xlim(EXTENT[0], EXTENT[1])
        ax.set_ylim(EXTENT[2], EXTENT[3])
        ax.set_xlabel("x (m)")
        ax.set_ylabel("y (m)")
    cmap = plt.get_cmap("viridis")
    for k, pts in enumerate(traces.values()):
        if len(pts) > 1:
            a = np.array(pts)
            ax_tr.plot(a[:, 0], a[:, 1], color=cmap(k / len(traces)), lw=1)
            ax_tr.plot(a[0, 0], a[0, 1], "o", color=cmap(k / len(traces)), ms=3)
    ax_tr.set_aspect("equal")
    ax_tr.set_title(f"Trajectories of {len(traces)} agents (dots: start)")
    ax_n.plot(times, left_narrow, label="room with the 1 m door")
    ax_n.plot(times, left_wide, label="room with the 2 m door")
    ax_n.set_xlabel("time (s)")
    ax_n.set_ylabel("people in the room")
    ax_n.set_title("Evacuation")
    ax_n.legend()
    ax_n.grid(alpha=0.3)
    fig.tight_layout()
    out = pathlib.Path(args.out) / "evacuation.png"
    fig.savefig(out, dpi=100)
    print(f"{out}: {world.tick} ticks, {world.count} agents left, "
          f"rooms emptied to {left_narrow[-1]} and {left_wide[-1]}")
    world.close()


if __name__ == "__main__":
    main()
