"""Wall time per grasp of the MuJoCo rigid-pad baseline on the 25 REACH cube grasps.

One nominal trial per grasp with the D-shaped pad (the `rounded` outline as a convex mesh), the
REACH command's settings (E = 1e8 Pa, mu = 0.4, 20 N, auto-open 20 mm), in this process after one
warm-up trial (model compilation is cached per object, as in a batch worker). Also times a
trial of the first grasp including the model build. Target: < 0.2 s per grasp.
Writes benchmarks/results/mujoco.md.

    .venv/bin/python benchmarks/bench_mujoco.py [--repeats 3]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time
from pathlib import Path

from engine.batch.grasp_table import build_scene, read_grasp_table
from engine.grasp.params import SimulationParams
from engine.grasp.trial_plan import TrialSpec, plan_trials
from engine.mujoco_baseline.simulation import run_mujoco_trial

ROOT = Path(__file__).resolve().parents[1]
REACH = ROOT.parent / "shared" / "data" / "reach_cube" / "reach_cube_3cm.json"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    load_before = os.getloadavg()
    table = read_grasp_table(str(REACH))
    params = SimulationParams(youngs_modulus_pa=1e8, mu=0.4, squeeze_force_n=20.0, auto_open_m=0.02)
    scenes = [build_scene(spec) for spec in table.grasps]
    trials = [plan_trials(g, TrialSpec(1))[0] for _, _, g in scenes]
    t0 = time.perf_counter()
    run_mujoco_trial(scenes[0][0], trials[0], params)  # cold: builds and compiles the model
    cold = time.perf_counter() - t0
    runs = []
    wins = 0
    for _ in range(args.repeats):
        times = []
        wins = 0
        for (obj, _, _), trial in zip(scenes, trials, strict=True):
            t = time.perf_counter()
            r = run_mujoco_trial(obj, trial, params)
            times.append(time.perf_counter() - t)
            wins += r.success
        runs.append(times)
    load_after = os.getloadavg()
    per = [t for ts in runs for t in ts]
    lines = [
        "# MuJoCo baseline: seconds per grasp (3 cm REACH cube, D-shaped pad mesh)",
        "",
        f"`.venv/bin/python benchmarks/bench_mujoco.py --repeats {args.repeats}` on "
        f"{platform.node()} ({os.cpu_count()} cores, Python {platform.python_version()}); "
        f"load average (1/5/15 min) before {load_before[0]:.2f}/{load_before[1]:.2f}/{load_before[2]:.2f}, "
        f"after {load_after[0]:.2f}/{load_after[1]:.2f}/{load_after[2]:.2f} "
        + (
            "(other jobs shared the 2 cores). "
            if max(load_before[0], load_after[0]) > 1.5
            else "(quiet: the load is this benchmark's own). "
        )
        + "One nominal trial per grasp, E = 1e8 Pa, mu = 0.4, 20 N, "
        "auto-open 20 mm, time step 0.5 ms; the model is compiled once per object (cached).",
        "",
        "| what | s |",
        "|---|---|",
        f"| first trial, model build included | {cold:.3f} |",
        f"| median per grasp ({len(per)} trials) | {statistics.median(per):.3f} |",
        f"| mean per grasp | {statistics.mean(per):.3f} |",
        f"| slowest grasp | {max(per):.3f} |",
        f"| mean per grasp, best of {args.repeats} passes | {min(statistics.mean(ts) for ts in runs):.3f} |",
        "",
        f"Nominal grasps lifted: {wins} of {len(trials)}. Target: < 0.2 s per grasp.",
        "",
    ]
    out = ROOT / "benchmarks" / "results" / "mujoco.md"
    out.write_text("\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
