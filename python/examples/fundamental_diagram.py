#!/usr/bin/env python3
"""Fundamental diagram: walking speed and specific flow against density in a corridor.

For each density, a 4 m wide corridor (two walls) is filled uniformly over 120 m with agents
walking east (desired speeds drawn around Weidmann's free speed, 1.34 m/s, sd 0.26). After a
warm-up, the mean speed and the density of the agents in a 20 m measuring section in the middle
are sampled every tick from the zero-copy columns. Writes fundamental_diagram.png (speed and
flow against density, with Weidmann's curve) and prints the table.

    python3 python/examples/fundamental_diagram.py [--out DIR] [--quick] [--threads T]
"""

import argparse
import pathlib

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import crowdstep  # noqa: E402

WIDTH, LENGTH = 4.0, 120.0
SECTION = (50.0, 70.0)  # measuring section, m along the corridor


def weidmann(rho: np.ndarray) -> np.ndarray:
    """Weidmann's speed-density relation (v0 1.34 m/s, gamma 1.913 m^-2, jam density 5.4)."""
    return np.clip(1.34 * (1.0 - np.exp(-1.913 * (1.0 / rho - 1.0 / 5.4))), 0.0, None)


def measure(density: float, warmup: int, ticks: int, threads: int, seed: int) -> tuple:
    rng = np.random.default_rng(seed)
    n = int(density * WIDTH * LENGTH)
    with crowdstep.World(threads=threads, seed=seed, nav=False) as world:
        for y in (-WIDTH / 2, WIDTH / 2):
            world.add_obstacle([[-50.0, y], [LENGTH + 500.0, y]], kind="wall")
        pos = np.column_stack([rng.uniform(0, LENGTH, n),
                               rng.uniform(-WIDTH / 2 + 0.35, WIDTH / 2 - 0.35, n)])
        speed = np.clip(rng.normal(1.34, 0.26, n), 0.5, 2.0)
        goals = np.column_stack([np.full(n, 1.0e4), pos[:, 1]])
        world.add_agents(pos, goals, mode="seek", route="straight", max_speed=speed,
                         radius=0.2, separation_radius=0.8)
        world.step(ticks=warmup)
        rho, vel = [], []
        for _ in range(ticks):
            c = world.columns
            inside = (c.x >= SECTION[0]) & (c.x < SECTION[1])
            k = np.count_nonzero(inside)
            rho.append(k / ((SECTION[1] - SECTION[0]) * WIDTH))
            if k:
                vel.append(float(np.mean(c.vx[inside])))
            world.step()
        return float(np.mean(rho)), float(np.mean(vel)) if vel else 0.0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=".", help="directory for fundamental_diagram.png")
    ap.add_argument("--quick", action="store_true", help="fewer densities and ticks (tests)")
    ap.add_argument("--threads", type=int, default=0)
    args = ap.parse_args()
    densities = [0.5, 1.5, 3.0] if args.quick else [0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0]
    warmup, ticks = (50, 30) if args.quick else (150, 150)

    rows = [measure(d, warmup, ticks, args.threads, seed=k + 1) for k, d in enumerate(densities)]
    rho = np.array([r[0] for r in rows])
    v = np.array([r[1] for r in rows])
    print(" set rho  measured rho  speed (m/s)  flow (1/m/s)  Weidmann speed")
    for d, r, s in zip(densities, rho, v):
        print(f"{d:8.2f}  {r:12.2f}  {s:11.2f}  {r * s:12.2f}  {weidmann(np.array([r]))[0]:14.2f}")

    ref = np.linspace(0.1, 5.4, 200)
    fig, (ax_v, ax_j) = plt.subplots(1, 2, figsize=(12, 4.5))
    ax_v.plot(ref, weidmann(ref), "k--", label="Weidmann (1993)")
    ax_v.plot(rho, v, "o-", color="tab:red", label="crowdstep")
    ax_v.set_xlabel("density (1/m²)")
    ax_v.set_ylabel("mean speed (m/s)")
    ax_v.set_title("Speed against density")
    ax_j.plot(ref, ref * weidmann(ref), "k--", label="Weidmann (1993)")
    ax_j.plot(rho, rho * v, "o-", color="tab:red", label="crowdstep")
    ax_j.set_xlabel("density (1/m²)")
    ax_j.set_ylabel("specific flow (1/(m·s))")
    ax_j.set_title("Flow against density")
    for ax in (ax_v, ax_j):
        ax.set_xlim(0, 5.5)
        ax.set_ylim(bottom=0)
        ax.grid(alpha=0.3)
        ax.legend()
    fig.suptitle(f"Unidirectional corridor, {WIDTH:.0f} m wide: section {SECTION[0]:.0f}-"
                 f"{SECTION[1]:.0f} m, {ticks} ticks after {warmup}")
    fig.tight_layout()
    out = pathlib.Path(args.out) / "fundamental_diagram.png"
    fig.savefig(out, dpi=100)
    print(out)


if __name__ == "__main__":
    main()
