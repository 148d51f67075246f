"""Wall time per squeeze-lift trial of the 3 cm cube at the resolutions of IPC-GraspSim Table V.

Each run is a fresh process (after one warm-up process so numba's on-disk cache is filled) that
runs the nominal trial several times: its first trial pays numba's start-up (the JIT runtime
and loading the cached kernels, ~0.25 s), the later ones run as a batch worker runs its trials.
Writes benchmarks/results/simulator.md.

    .venv/bin/python benchmarks/bench_simulator.py [--runs 3] [--trials 3] [--vertices 8 26 98 399 1698]
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
sys.path.insert(0, str(ROOT))
from engine.ipc.ipctk_gateway import default_query_threads  # noqa: E402

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
setup_s = time.perf_counter() - t0
out = []
for _ in range(int(sys.argv[2])):
    r = run_trial(obj, nominal, params, pad=pad)
    out.append({"vertices": len(obj.vertices), "success": r.success, "reason": r.reason,
                "trial_s": r.wall_time_s, "setup_s": setup_s,
                "newton": r.newton_iterations, "frames": r.frames, "rollbacks": r.rollbacks,
                "pad_vertices": len(pad.vertices), "pad_tets": len(pad.tets)})
print(json.dumps(out))
"""


def run_child(n: int, trials: int, query_threads: str | None = None) -> list[dict]:
    """Trials of the n-vertex cube in a fresh process; `query_threads` sets
    IPCGRASP_QUERY_THREADS (None: the engine's default)."""
    env = dict(os.environ)
    env.pop("IPCGRASP_QUERY_THREADS", None)
    if query_threads is not None:
        env["IPCGRASP_QUERY_THREADS"] = query_threads
    out = subprocess.run(
        [sys.executable, "-c", CHILD, str(n), str(trials)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        env=env,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3, help="fresh processes per resolution")
    ap.add_argument("--trials", type=int, default=3, help="trials per process (>= 2)")
    ap.add_argument("--vertices", type=int, nargs="+", default=list(PAPER_S))
    args = ap.parse_args()
    if args.trials < 2:
        ap.error("--trials must be at least 2 (the first trial of a process pays numba's start-up)")
    if "IPCGRASP_QUERY_THREADS" in os.environ:
        ap.error("unset IPCGRASP_QUERY_THREADS: the benchmark runs the default and one thread")
    load_before = os.getloadavg()
    run_child(8, 2)  # fill numba's on-disk cache
    rows = []
    r0: dict = {}
    for n in args.vertices:
        # Alternate the default (CCD and intersection tests on two threads) with one thread
        # throughout, so both see the same machine.
        runs, one_core = [], []
        for _ in range(args.runs):
            runs.append(run_child(n, args.trials))
            one_core.append(run_child(n, args.trials, "1"))
        first = [run[0]["trial_s"] for run in runs]
        later = [r["trial_s"] for run in runs for r in run[1:]]
        med = statistics.median(later)
        med_one = statistics.median(r["trial_s"] for run in one_core for r in run[1:])
        r0 = runs[0][0]
        paper = PAPER_S.get(n, float("nan"))
        setup = statistics.median(run[0]["setup_s"] for run in runs)
        rows.append(
            f"| {r0['vertices']} | **{med:.2f}** | {min(later):.2f} | {max(later):.2f} | "
            f"{med_one:.2f} | "
            f"{statistics.median(first):.2f} | {setup + statistics.median(first):.2f} | "
            f"{r0['newton']} | {r0['frames']} | {r0['rollbacks']} | "
            f"{'yes' if r0['success'] else 'no'} | {paper} | {paper / med:.0f}x |"
        )
        print(rows[-1], flush=True)
    load_after = os.getloadavg()
    header = [
        "# Simulator benchmark: one squeeze-lift trial of the 3 cm, 3 g cube",
        "",
        f"Run {time.strftime('%Y-%m-%d %H:%M')} on {platform.node()} "
        f"({platform.processor() or platform.machine()}), Python {platform.python_version()}, "
        f"{args.runs} fresh processes per row, {args.trials} trials in each; "
        f"load average (1 min) {load_before[0]:.2f} before, {load_after[0]:.2f} after.",
        f"Default parameters (E = 1e8 Pa, mu = 0.4, rounded pad, edge {r0['pad_vertices']} "
        f"vertices / {r0['pad_tets']} tets per pad), default grasp through the centre of mass.",
        "A trial's time is `run_trial`'s: building the system (placing the jaws, the checks, the "
        "barrier stiffness) and the simulation (squeeze, lift, hold), without a frame consumer "
        "(as batch rows without --frames): its frames carry no per-point contact forces (since "
        "2026-11-29; ~1 ms per frame; the app and frame files get them).",
        "`per trial` is the median of the trials after a process's first (the way a batch "
        "worker runs them); `first trial` is a process's first, which also pays numba's start-up "
        "(its JIT runtime and loading the cached kernels); `+ setup` adds loading the object and "
        "meshing the pads (not Python start-up).",
        f"Threads: contact sets, energies and derivatives on one; CCD and the intersection test "
        f"on {default_query_threads()} by default (their answers do not depend on the pairs' "
        "order, so a trial's numbers are the same: engine.ipc.ipctk_gateway.configure_threads); "
        "`one thread` runs everything on one (IPCGRASP_QUERY_THREADS=1, as batch workers do), "
        "alternated with the default run by run.",
        "`paper s`: IPC-GraspSim Table V (C++ IPC, one Xeon E5-2698 v4 core, a different "
        "machine); `speed-up` = paper s / per trial.",
        "",
        "| cube vertices | per trial s (median) | min | max | one thread s (median) | "
        "first trial s (median) | + setup s | Newton its | frames | rollbacks | lifted | "
        "paper s | speed-up |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    out = ROOT / "benchmarks" / "results" / "simulator.md"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(header + rows) + "\n")
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
