"""Wall time per grasp of the 6DLS detail view (`sixdls_margin`) for two-jaw grasps.

Two contact profiles, each meshed at a few element counts per jaw, 20 N per jaw, mu 0.3:
- "S1-like": antipodal half-cylinder patches (radius 15 mm, 20 mm long) on a cylinder whose
  axis is z, centre of mass at the origin, load = 20 g under gravity along the axis;
- "cube faces": 2 x 2 cm flat pads on the +-x faces of the 3 cm cube, load = 3 g.
Times are medians of several runs in one process after a warm-up call (imports, caches).
Writes benchmarks/results/sixdls.md.

    .venv/bin/python benchmarks/bench_sixdls.py [--runs 3] [--elements 500 1000 2000]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time
from pathlib import Path

import numpy as np

from engine.analytic.contact_patch import ContactPatch
from engine.analytic.sixdls.mesh import mesh_patch
from engine.analytic.sixdls.model import DEFAULT_MAX_ELEMENTS, sixdls_margin
from engine.analytic.sixdls.surfaces import elliptic_cylinder, rectangle, uniform_pressure

ROOT = Path(__file__).resolve().parents[1]
MU = 0.3
FORCE_N = 20.0
G = 9.81


def s1_like(n: int) -> tuple[list[ContactPatch], np.ndarray]:
    r, length = 0.015, 0.02
    shift = (0.0, 0.0, 0.5 * length)
    jaws = [
        elliptic_cylinder(r, r, (0.0, np.pi), (0.0, length), shift),
        elliptic_cylinder(r, r, (np.pi, 2 * np.pi), (0.0, length), shift),
    ]
    patches = [mesh_patch(s, uniform_pressure(), n, FORCE_N, j) for j, s in enumerate(jaws)]
    return patches, np.array([0.0, 0.0, -0.020 * G, 0.0, 0.0, 0.0])


def cube_faces(n: int) -> tuple[list[ContactPatch], np.ndarray]:
    faces = [
        rectangle(0.02, 0.02, (-0.015, 0.0, 0.0), 0, outward_positive=False),
        rectangle(0.02, 0.02, (0.015, 0.0, 0.0), 0, outward_positive=True),
    ]
    patches = [mesh_patch(s, uniform_pressure(), n, FORCE_N, j) for j, s in enumerate(faces)]
    return patches, np.array([0.0, 0.0, -0.003 * G, 0.0, 0.0, 0.0])


CASES = {"S1-like": s1_like, "cube faces": cube_faces}
EXACT = {"S1-like": 2 * MU * FORCE_N / (0.020 * G), "cube faces": 2 * MU * FORCE_N / (0.003 * G)}


def timed(
    patches: list[ContactPatch], load: np.ndarray, runs: int, **kwargs: object
) -> tuple[list[float], dict]:
    times, result = [], {}
    for _ in range(runs):
        t0 = time.perf_counter()
        result = sixdls_margin(patches, load, MU, **kwargs)
        times.append(time.perf_counter() - t0)
    return times, result


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--elements", type=int, nargs="+", default=[500, 1000, 2000])
    args = ap.parse_args()
    load_before = os.getloadavg()[0]
    warm, load = s1_like(200)
    sixdls_margin(warm, load, MU, "6dls_quartic", fine_level=-1)  # imports, cvxpy, caches

    configs = []
    for case in CASES:
        for n in args.elements:
            for variant in (
                "6dls_ellipsoid",
                "6dls_quartic",
                "3dls_nonplanar_ellipsoid",
                "3dls_planar_ellipsoid",
                "6dfw",
            ):
                configs.append((case, n, variant, 0, DEFAULT_MAX_ELEMENTS))
        n_max = max(args.elements)
        configs.append((case, n_max, "6dls_ellipsoid", 0, 0))  # every element, no merging
        configs.append((case, n_max, "6dls_ellipsoid", -1, DEFAULT_MAX_ELEMENTS))
        configs.append((case, n_max, "6dls_ellipsoid", 1, DEFAULT_MAX_ELEMENTS))

    rows = []
    for case, n, variant, level, max_el in configs:
        patches, load = CASES[case](n)
        times, result = timed(
            patches, load, args.runs, variant=variant, fine_level=level, max_elements=max_el
        )
        d = result["details"]
        jaw = d["jaws"][0]
        err = jaw["fitting_errors"]
        wrench_s = statistics.median(j["timings"].get("wrenches_s", 0.0) for j in d["jaws"])
        fit_s = statistics.median(j["timings"].get("fit_s", 0.0) for j in d["jaws"])
        fit_text = (
            "-" if err is None else f"{err['wrench_error']:.3f} / {err['twist_angle_deg']:.1f}"
        )
        rows.append(
            f"| {case} | {len(patches[0])} | {jaw['friction_elements']} | {variant} | {level} | "
            f"{d['n_twists'] // len(d['jaws'])} | {statistics.median(times):.2f} | {min(times):.2f} | "
            f"{max(times):.2f} | {wrench_s:.2f} | {fit_s:.2f} | {d['timings']['lp_s']:.3f} | "
            f"{result['margin']:.2f} | {result['margin'] / EXACT[case]:.3f} | "
            f"{fit_text} |"
        )
        print(rows[-1], flush=True)

    header = [
        "# 6DLS detail view: time per grasp of `sixdls_margin`",
        "",
        f"Run {time.strftime('%Y-%m-%d %H:%M')} on {platform.node()} ({platform.processor() or platform.machine()}, "
        f"{os.cpu_count()} cores), Python {platform.python_version()}, numpy {np.__version__}; "
        f"median of {args.runs} runs per row after one warm-up call; load average {load_before:.1f} "
        f"before / {os.getloadavg()[0]:.1f} after (other jobs shared the machine when above ~0.5). "
        "Target: <= 5 s per grasp.",
        f"Two jaws, {FORCE_N:g} N each (uniform pressure), mu = {MU}. S1-like: half-cylinder patches "
        "(r = 15 mm, 20 mm long) on both sides of a cylinder, load 20 g along its axis; cube faces: "
        "2 x 2 cm pads on the +-x faces of the 3 cm cube, load 3 g. Load through the centre of mass.",
        "`elements` per jaw as meshed; `friction el.` = elements after merging for the twist sampling "
        f"(default max_elements = {DEFAULT_MAX_ELEMENTS}, 0 = all; normal wrenches always use all). "
        "`twists` per jaw. `wrench s` and `fit s` per jaw (median of the two), `LP s` the GWS margin LP.",
        "`s*/exact`: the margin over the exact capacity 2 mu F / (m g) (Coulomb, both jaws); below 1 is the "
        "linearisation/fit loss, above 1 an over-estimating fit; 3dls_planar sees only the squeeze "
        "component of a curved patch (2/pi of the pressure sum for a half cylinder).",
        "`fit error`: Eq. 14 mean |f - 1| over all samples / mean twist-angle error in degrees (jaw 0).",
        "",
        "| profile | elements | friction el. | variant | fine level | twists | s per grasp (median) | min | max "
        "| wrench s | fit s | LP s | s* | s*/exact | fit error |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    out = ROOT / "benchmarks" / "results" / "sixdls.md"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(header + rows) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
