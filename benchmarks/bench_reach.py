"""Wall time and Newton iterations of the 25 REACH cube grasps at their nominal poses.

The issue's speed measure: default settings (YuMi preset, 20 N force stop, force hold), E = 1e8 Pa,
mu = 0.4, jaws opened until clear (`--auto-open 0.02`, as the README's evaluation), one trial per
grasp in one process (the way a batch worker runs them), after a warm-up trial that fills numba's
cache. `--repo DIR` runs another checkout of the engine (e.g. a `git worktree` of an older commit)
with this same script, so before and after are measured in one sitting on the same machine.
Writes benchmarks/results/reach_speed.md (or appends a column set with `--label`).

    .venv/bin/python benchmarks/bench_reach.py [--repo DIR --label before [--query-threads 1]]
        [--youngs-pa 1e6 --pad-edge-m 0.0015] [--rounds 2] [--out FILE]

The machine's speed drifts within an hour (grasp 6, the same 161 Newton iterations, took 1.03 s
in one checkout's run and 0.66 s in the next): `--rounds N` runs the checkouts N times in
alternating order (A B, then B A, ...) and keeps each grasp's fastest time, after checking that
every round gave the same iterations, frames and outcome.
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
REACH = ROOT.parent / "shared" / "data" / "reach_cube" / "reach_cube_3cm.json"
# IPC-GraspSim (C++) on the same 25 grasps, one core of this machine kind:
# ../shared/data/reach_cube/ipc_graspsim_reference.md
CPP_MEDIAN_S = 22.4
CPP_ITS_PER_STEP = 8.6

CHILD = r"""
import json, sys, time
from engine.batch.grasp_table import read_grasp_table, build_scene
from engine.grasp.params import SimulationParams
from engine.grasp.simulation import build_pad
from engine.grasp.trials import TrialSpec, plan_trials, run_trial
table = read_grasp_table(sys.argv[1])
values = {"youngs_modulus_pa": float(sys.argv[2]), "mu": 0.4, "auto_open_m": 0.02}
if sys.argv[3]:
    values["pad_edge_length_m"] = float(sys.argv[3])
make = getattr(SimulationParams, "from_values", None)
params = make(**values) if make else SimulationParams(**values)
pad = build_pad(params)
for k, spec in enumerate([table.grasps[0]] + list(table.grasps)):
    obj, mesh, grasp = build_scene(spec)
    (nominal,) = plan_trials(grasp, TrialSpec(n_trials=1))
    r = run_trial(obj, nominal, params, pad=pad)
    if k == 0:
        continue  # warm-up
    print(json.dumps({"grasp": spec.grasp_id, "success": r.success, "reason": r.reason,
                      "s": r.wall_time_s, "newton": r.newton_iterations, "frames": r.frames,
                      "grip_n": r.grip_force_n}), flush=True)
"""


def run(repo: Path, query_threads: str, youngs_pa: float, pad_edge_m: float | None) -> list[dict]:
    env = dict(os.environ, PYTHONPATH=str(repo))
    env.pop("IPCGRASP_QUERY_THREADS", None)
    if query_threads != "default":
        env["IPCGRASP_QUERY_THREADS"] = query_threads
    out = subprocess.run(
        [sys.executable, "-c", CHILD, str(REACH), str(youngs_pa), str(pad_edge_m or "")],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]


def fastest(rounds: list[list[dict]]) -> list[dict]:
    """One checkout's rows with each grasp's fastest time over the rounds; every round must
    have given the same trial (iterations, frames, outcome): only the time may differ."""
    first = rounds[0]
    for again in rounds[1:]:
        for a, b in zip(first, again, strict=True):
            same = (a["grasp"], a["newton"], a["frames"], a["reason"])
            if same != (b["grasp"], b["newton"], b["frames"], b["reason"]):
                raise SystemExit(f"rounds differ on {a['grasp']}: {a} against {b}")
    return [dict(row, s=min(r[i]["s"] for r in rounds)) for i, row in enumerate(first)]


def summary(rows: list[dict]) -> dict[str, float]:
    times = [r["s"] for r in rows]
    return {
        "median_s": statistics.median(times),
        "max_s": max(times),
        "total_s": sum(times),
        "its_per_step": sum(r["newton"] for r in rows) / sum(r["frames"] for r in rows),
        "its_per_trial": sum(r["newton"] for r in rows) / len(rows),
        "lifted": sum(bool(r["success"]) for r in rows),
        "failed": sum(r["reason"] == "solver failed" for r in rows),
    }


def git_head(repo: Path) -> str:
    out = subprocess.run(
        ["git", "-C", str(repo), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    )
    dirty = subprocess.run(
        ["git", "-C", str(repo), "status", "--porcelain", "engine"], capture_output=True, text=True
    )
    return out.stdout.strip() + ("+changes" if dirty.stdout.strip() else "")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repo", type=Path, action="append", help="checkout(s) to compare")
    ap.add_argument("--label", action="append", help="a label per --repo")
    ap.add_argument(
        "--query-threads",
        action="append",
        help="per --repo: IPCGRASP_QUERY_THREADS for its run (CCD threads; 'default': unset)",
    )
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "reach_speed.md")
    ap.add_argument("--youngs-pa", type=float, default=1e8, help="the pads' Young's modulus")
    ap.add_argument("--pad-edge-m", type=float, help="the pad's tet edge length (default: preset)")
    ap.add_argument("--rounds", type=int, default=1, help="alternating runs; fastest time kept")
    args = ap.parse_args()
    repos = args.repo or [ROOT]
    labels = args.label or [git_head(r) for r in repos]
    threads = args.query_threads or ["default"] * len(repos)
    load = os.getloadavg()
    runs: list[list[list[dict]]] = [[] for _ in repos]
    for k in range(max(1, args.rounds)):
        order = range(len(repos)) if k % 2 == 0 else reversed(range(len(repos)))
        for i in order:
            runs[i].append(run(repos[i].resolve(), threads[i], args.youngs_pa, args.pad_edge_m))
    results = []
    for label, repo, rounds in zip(labels, repos, runs, strict=True):
        rows = fastest(rounds)
        results.append((label, git_head(repo), rows, summary(rows)))
        print(label, results[-1][3], flush=True)
    lines = [
        "# REACH cube nominal grasps: time per trial",
        "",
        f"Run {time.strftime('%Y-%m-%d %H:%M')} on {platform.node()} ({platform.machine()}, "
        f"{os.cpu_count()} cores), Python {platform.python_version()}; load average before the "
        f"run {load[0]:.2f} / {load[1]:.2f} / {load[2]:.2f} (1 / 5 / 15 min).",
        "25 grasps of `reach_cube_3cm.json` at their nominal poses, default settings (YuMi, 20 N "
        f"force stop, force hold), E = {args.youngs_pa:g} Pa"
        + (f", pad tets {args.pad_edge_m * 1e3:g} mm" if args.pad_edge_m else "")
        + ", mu = 0.4, auto-open 0.02 m; one process, one trial "
        "per grasp after a warm-up trial. `s` is the simulation's wall time (not start-up)"
        + (
            f", the fastest of {args.rounds} rounds run in alternating order. "
            if args.rounds > 1
            else ". "
        )
        + "Since b1c6ab4 CCD and the intersection test run on two threads by default (the same "
        "numbers; IPCGRASP_QUERY_THREADS=1, as in batch workers, keeps everything on one).",
        f"IPC-GraspSim (C++) on the same grasps, one core of this machine kind: median "
        f"{CPP_MEDIAN_S} s, {CPP_ITS_PER_STEP} Newton iterations per step.",
        "",
        "A frame is one accepted step; since f6adf16 and 2c70a53 free flight, a pad pushing the object alone "
        "and the steady lift take steps of up to 8, 2 and 4 time steps (the lift 2 until 6fc2153), "
        "so Newton its / frame rose while the iterations per trial fell.",
        "",
        "| code | median s | max s | total s | Newton its / trial | Newton its / frame | lifted "
        "| solver failed | vs C++ median |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for label, head, _, s in results:
        name = label if head in label else f"{label} ({head})"  # the commit once
        lines.append(
            f"| {name} | {s['median_s']:.2f} | {s['max_s']:.2f} | {s['total_s']:.1f} | "
            f"{s['its_per_trial']:.0f} | {s['its_per_step']:.2f} | {s['lifted']} / 25 | {s['failed']} | "
            f"{CPP_MEDIAN_S / s['median_s']:.1f}x |"
        )
    lines += ["", "Per grasp (s / Newton iterations / frames / outcome):", ""]
    lines.append("| grasp | " + " | ".join(label for label, *_ in results) + " |")
    lines.append("|---|" + "---|" * len(results))
    for i in range(len(results[0][2])):
        cells = []
        for _, _, rows, _ in results:
            r = rows[i]
            out = "lifted" if r["success"] else r["reason"]
            cells.append(f"{r['s']:.2f} / {r['newton']} / {r['frames']} / {out}")
        lines.append(f"| {results[0][2][i]['grasp']} | " + " | ".join(cells) + " |")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text("\n".join(lines) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
