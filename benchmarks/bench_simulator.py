"""Wall time per squeeze-lift trial of the 3 cm cube at the resolutions of IPC-GraspSim Table V.

Each run is one nominal trial in a fresh process (the way a batch worker runs it), after one
warm-up process so numba's on-disk cache is filled. Writes benchmarks/results/simulator.md.

    .venv/bin/python benchmarks/bench_simulator.py [--runs 3] [--vertices 8 26 98 399 1698]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAPER_S = {8: 39, 26: 40, 98: 37, 399: 73, 1698: 394}  # Table V, C++ IPC-GraspSim, one core

CHILD = r"""
import json, sys, time
from engine.grasp.default_grasp import default_grasp
from engine.grasp.params import SimulationParams
from engine.grasp.simulation import build_pad
from engine.grasp.trials import TrialSpec, plan_trials, run_trial
from engine.scene.object_mesh import builtin_cube, BUILTIN_CUBE_MASS_KG
from engine.scene.resting import rest_object
n = int(sys.argv[1])
params = SimulationParams(youngs_modulus_pa=1e8, mu=0.4)
t0 = time.perf_counter()
obj = rest_object(builtin_cube(target_vertices=n), 0, mass_kg=BUILTIN_CUBE_MASS_KG)
pad = build_pad(params)
grasp = default_grasp(obj, pad.outline)
(nominal,) = plan_trials(grasp, TrialSpec(n_trials=1))
r = run_trial(obj, nominal, params, pad=pad)
print(json.dumps({"vertices": len(obj.vertices), "success": r.success, "reason": r.reason,
                  "trial_s": r.wall_time_s, "total_s": time.perf_counter() - t0,
                  "newton": r.newton_iterations, "frames": r.frames, "rollbacks": r.rollbacks,
                  "pad_vertices": len(pad.vertices), "pad_tets": len(pad.tets)}))
"""


def run_child(n: int) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", CHILD, str(n)], cwd=ROOT, capture_output=True, text=True, check=True
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--vertices", type=int, nargs="+", default=list(PAPER_S))
    args = ap.parse_args()
    load_before = os.getloadavg()
    run_child(8)  # warm numba's cache
    rows = []
    for n in args.vertices:
        runs = [run_child(n) for _ in range(args.runs)]
        med = statistics.median(r["trial_s"] for r in runs)
        r0 = runs[0]
        rows.append(
            f"| {r0['vertices']} | {med:.2f} | {min(r['trial_s'] for r in runs):.2f} | "
            f"{max(r['trial_s'] for r in runs):.2f} | {statistics.median(r['total_s'] for r in runs):.2f} | "
            f"{r0['newton']} | {r0['frames']} | {r0['rollbacks']} | {'yes' if r0['success'] else 'no'} | "
            f"{PAPER_S.get(n, float('nan'))} | {PAPER_S.get(n, float('nan')) / med:.0f}x |"
        )
        print(rows[-1], flush=True)
    load_after = os.getloadavg()
    header = [
        "# Simulator benchmark: one squeeze-lift trial of the 3 cm, 3 g cube",
        "",
        f"Run {time.strftime('%Y-%m-%d %H:%M')} on {platform.node()} ({platform.processor() or platform.machine()}), "
        f"Python {platform.python_version()}, {args.runs} runs per row, one trial per fresh process; "
        f"load average (1 min) {load_before[0]:.2f} before, {load_after[0]:.2f} after.",
        f"Default parameters (E = 1e8 Pa, mu = 0.4, rounded pad, edge {r0['pad_vertices']} vertices / "
        f"{r0['pad_tets']} tets per pad), default grasp through the centre of mass.",
        "`trial s` is the simulation (squeeze, lift, hold; includes loading numba's cached kernels); `setup + trial s` adds loading the object, meshing the pads and building the system (not Python start-up).",
        "`paper s`: IPC-GraspSim Table V (C++ IPC, one Xeon E5-2698 v4 core, a different machine); `speed-up` = paper s / trial s.",
        "",
        "| cube vertices | trial s (median) | min | max | setup + trial s (median) | Newton its | frames | rollbacks | lifted | paper s | speed-up |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    out = ROOT / "benchmarks" / "results" / "simulator.md"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(header + rows) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
