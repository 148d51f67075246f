"""The app's simulation worker over 20 simulations in a row: its memory must stay flat (issue 11).

Drives app.sim_pool.SimulationPool (the GUI's worker pool, one worker) without a window: 20
runs of one IPC trial each of REACH cube grasp 2 (the grasp whose indefinite Newton matrices
leaked 135 MB per trial before the fix; E 1e8, mu 0.4, 20 N, auto-open 0.02), the worker's
resident memory read from /proc after every run. Writes benchmarks/results/app_memory.md.

    .venv/bin/python benchmarks/bench_app_memory.py [--runs 20]
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
REACH = ROOT.parent / "shared" / "data" / "reach_cube" / "reach_cube_3cm.json"
RESULTS = ROOT / "benchmarks" / "results" / "app_memory.md"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--grasp", type=int, default=2, help="index of the REACH cube grasp")
    ap.add_argument("--out", type=Path, default=RESULTS)
    args = ap.parse_args()

    from PySide6.QtCore import QCoreApplication, QEventLoop

    from app.sim_pool import SimulationPool, process_rss_mb
    from app.workers.messages import TrialJob
    from engine.batch.grasp_table import build_scene, read_grasp_table
    from engine.grasp.params import SimulationParams
    from engine.grasp.trial_plan import TrialSpec, planned_trial

    qapp = QCoreApplication.instance() or QCoreApplication([])
    assert qapp is not None  # kept alive for the whole run
    spec = read_grasp_table(str(REACH)).grasps[args.grasp]
    obj, _mesh, grasp = build_scene(spec)
    params = SimulationParams(
        youngs_modulus_pa=1e8, mu=0.4, squeeze_force_n=20.0, auto_open_m=0.02
    ).validate()
    planned = planned_trial(grasp, TrialSpec(n_trials=1), 0)
    pool = SimulationPool(n_workers=1)
    pool.start()

    def wait(done, timeout_s: float = 1800.0) -> None:
        end = time.monotonic() + timeout_s
        while not done():
            if time.monotonic() > end:
                raise TimeoutError("the simulation worker did not answer")
            QCoreApplication.processEvents(QEventLoop.ProcessEventsFlag.AllEvents, 50)
            time.sleep(0.01)

    wait(lambda: pool.ready_count == 1)  # warm-up
    load_before = os.getloadavg()
    started = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    memory: list[float] = []
    seconds: list[float] = []
    outcomes: list[str] = []
    pool.trial_ended.connect(lambda trial, result, status: outcomes.append(result.reason))
    for run in range(1, args.runs + 1):
        t0 = time.perf_counter()
        pool.submit(run, [TrialJob(run, planned, obj, params)])
        wait(lambda: not pool.is_running())
        wait(lambda: pool.ready_count == 1)  # a replaced worker warms up first
        seconds.append(time.perf_counter() - t0)
        memory.append(max(process_rss_mb(pid) or 0.0 for pid in pool.worker_pids))
        print(f"run {run}: {seconds[-1]:.1f} s, worker {memory[-1]:.0f} MB", file=sys.stderr)
    recycled = pool.recycled_workers
    pool.shutdown()
    load_after = os.getloadavg()
    slope = float(np.polyfit(np.arange(len(memory) - 1), memory[1:], 1)[0])
    lines = [
        "# The app's simulation worker over 20 simulations in a row (issue 11)",
        "",
        "    .venv/bin/python benchmarks/bench_app_memory.py",
        "",
        f"Run {started} on {platform.node()} ({platform.machine()}, {os.cpu_count()} cores), "
        f"Python {platform.python_version()}; app.sim_pool.SimulationPool with one worker, "
        f"{args.runs} runs of one IPC trial of REACH cube grasp {args.grasp} (E 1e8 Pa, mu 0.4, "
        "20 N, auto-open 0.02 m); the worker's resident memory after each run. Load average "
        f"before / after: {load_before[0]:.1f} / {load_after[0]:.1f} (1 min).",
        "",
        "| runs | outcomes | median s per run | MB after run 1 | MB after last run | "
        "slope MB/run (runs 2-) | max MB | workers recycled |",
        "|---|---|---|---|---|---|---|---|",
        f"| {len(memory)} | {', '.join(sorted(set(outcomes)))} | {np.median(seconds):.1f} | "
        f"{memory[0]:.0f} | {memory[-1]:.0f} | {slope:.2f} | {max(memory):.0f} | {recycled} |",
        "",
        "MB after each run: " + " ".join(f"{m:.0f}" for m in memory),
        "",
        "Before the fix this worker grew by ~135 MB per run of this grasp (cholespy leaking the "
        "CHOLMOD factor of every indefinite Newton matrix).",
        "",
    ]
    args.out.write_text("\n".join(lines))
    print(f"wrote {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
