"""Where a REACH cube trial's time goes, per phase (issue 20), timed with wall clocks around the
solver's entry points (cProfile's accounting of ipctk's calls was not reproducible).

Each code tree (`--repo`, default this checkout) runs the nominal poses of the given grasps in a
child process after one warm-up trial; the engine functions below are wrapped with
time.perf_counter ('assembly' and
'energy' include the work of the rows listed under them). Writes benchmarks/results/phases.md.

    .venv/bin/python benchmarks/bench_phases.py [--repo DIR --label NAME ...] [--grasps 0 5 12]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shlex
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
REACH = HERE.parent.parent / "shared" / "data" / "reach_cube" / "reach_cube_3cm.json"

# (label, module, attribute path) of each timed entry point, in table order.
PHASES = [
    (
        "assembly: gradient + Hessian, all terms",
        "engine.ipc.potential",
        "IncrementalPotential.gradient_hessian",
    ),
    (
        "  of it: elasticity, inertia, object",
        "engine.ipc.internal_term",
        "InternalTerm.gradient_hessian",
    ),
    (
        "  of it: contact and friction (ipctk)",
        "engine.ipc.contact_term",
        "ContactTerm.gradient_hessian",
    ),
    ("factorization (LDL^T / Cholesky)", "engine.ipc.newton", "PatternLdl.factor"),
    ("energy (line search)", "engine.ipc.potential", "IncrementalPotential.energy"),
    ("contact-set builds (broad + narrow phase)", "engine.ipc.ipctk_gateway", "active_collisions"),
    (
        "contact-set builds from a step's broad phase",
        "engine.ipc.ipctk_gateway",
        "active_collisions_among",
    ),
    (
        "broad phase over a Newton step (CandidateCover)",
        "engine.ipc.ipctk_gateway",
        "swept_candidates",
    ),
    ("CCD over a step's broad phase", "engine.ipc.ipctk_gateway", "candidates_stepsize"),
    (
        "CCD, plain query (broad + narrow phase)",
        "engine.ipc.ipctk_gateway",
        "collision_free_stepsize",
    ),
    ("intersection check per frame", "engine.ipc.ipctk_gateway", "has_intersections"),
]

CHILD = r"""
import importlib, json, sys, time, collections
PHASES = json.loads(sys.argv[1])
reach, ids = sys.argv[2], [int(a) for a in sys.argv[3:]]
spent, calls = collections.Counter(), collections.Counter()
for label, module, path in PHASES:
    owner = importlib.import_module(module)
    *outer, name = path.split(".")
    for part in outer:
        owner = getattr(owner, part)
    original = getattr(owner, name, None)
    if original is None:
        continue  # an older code tree without this entry point
    def timed(*a, _f=original, _label=label, **k):
        t = time.perf_counter()
        try:
            return _f(*a, **k)
        finally:
            spent[_label] += time.perf_counter() - t
            calls[_label] += 1
    setattr(owner, name, timed)
from engine.batch.grasp_table import build_scene, read_grasp_table
from engine.grasp.params import SimulationParams
from engine.grasp.simulation import build_pad
from engine.grasp.trials import TrialSpec, plan_trials, run_trial
table = read_grasp_table(reach)
params = SimulationParams.from_values(youngs_modulus_pa=1e8, mu=0.4, auto_open_m=0.02)
pad = build_pad(params)
def trial(i):
    obj, _, grasp = build_scene(table.grasps[i])
    (nominal,) = plan_trials(grasp, TrialSpec(n_trials=1))
    return run_trial(obj, nominal, params, pad=pad)
trial(ids[0])  # warm-up: numba's cached kernels loaded
spent.clear(); calls.clear()
t0 = time.perf_counter()
results = [trial(i) for i in ids]
wall = time.perf_counter() - t0
print(json.dumps({"wall_s": wall, "iterations": sum(r.newton_iterations for r in results),
                  "outcomes": [r.reason for r in results], "spent": spent, "calls": calls}))
"""


def git_head(repo: Path) -> str:
    out = subprocess.run(
        ["git", "-C", str(repo), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    )
    return out.stdout.strip() or "?"


def measure(repo: Path, grasps: list[int]) -> dict:
    env = {**os.environ, "PYTHONPATH": str(repo)}
    out = subprocess.run(
        [sys.executable, "-c", CHILD, json.dumps(PHASES), str(REACH), *map(str, grasps)],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    result: dict = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--repo", action="append", type=Path, help="a code tree (default: this one)")
    ap.add_argument("--label", action="append", help="a label per --repo")
    ap.add_argument("--grasps", nargs="+", type=int, default=[0, 5, 12, 17, 22])
    ap.add_argument("--out", type=Path, default=HERE / "results" / "phases.md")
    args = ap.parse_args()
    repos = args.repo or [HERE.parent]
    labels = args.label or [git_head(r) for r in repos]
    before = os.getloadavg()
    runs = []
    for repo, label in zip(repos, labels, strict=True):
        head = git_head(repo)
        data = measure(repo, args.grasps)
        runs.append((label if head in label else f"{label} ({head})", data))
        print(runs[-1][0], f"{data['wall_s']:.1f} s", data["iterations"], "iterations", flush=True)
    after = os.getloadavg()
    n = len(args.grasps)
    command = " ".join(
        f"--repo {r} --label {shlex.quote(lbl)}" for r, lbl in zip(repos, labels, strict=True)
    )
    lines = [
        "# Where a trial's time goes, per phase",
        "",
        f"    .venv/bin/python benchmarks/bench_phases.py {command} "
        f"--grasps {' '.join(map(str, args.grasps))}",
        "",
        f"Run {time.strftime('%Y-%m-%d %H:%M')} on {platform.node()} ({platform.machine()}, "
        f"{os.cpu_count()} cores), Python {platform.python_version()}; load average "
        f"{before[0]:.2f} before, {after[0]:.2f} after (1 min).",
        f"REACH cube grasps {', '.join(map(str, args.grasps))} at their nominal poses, default "
        "settings (YuMi, 20 N, E 1e8 Pa, mu 0.4, auto-open 0.02 m), one child process per code "
        "tree after a warm-up trial. Wall time inside each entry point per trial, with ms per "
        "Newton iteration and calls per trial; rows overlap where marked (the assembly holds "
        "its two terms, the energy its contact-set builds; the CCD over a step's broad phase holds "
        "the plain queries it falls back to when it stops short of the whole step; rows absent "
        "in a tree show 0).",
        "",
        "| phase | " + " | ".join(name for name, _ in runs) + " |",
        "|---|" + "---|" * len(runs),
    ]
    for label, _, _ in PHASES:
        cells = []
        for _, d in runs:
            s, c = d["spent"].get(label, 0.0), d["calls"].get(label, 0)
            its = max(d["iterations"], 1)
            cells.append(f"{s / n:.3f} s ({1e3 * s / its:.2f} ms/it, {c / n:.0f} calls)")
        lines.append(f"| {label.strip()} | " + " | ".join(cells) + " |")
    lines.append(
        "| **wall time per trial** | "
        + " | ".join(
            f"{d['wall_s'] / n:.2f} s ({1e3 * d['wall_s'] / max(d['iterations'], 1):.1f} ms/it)"
            for _, d in runs
        )
        + " |"
    )
    lines.append(
        "| Newton iterations per trial | "
        + " | ".join(f"{d['iterations'] / n:.0f}" for _, d in runs)
        + " |"
    )
    lines.append(
        "| outcomes | " + " | ".join(", ".join(sorted(set(d["outcomes"]))) for _, d in runs) + " |"
    )
    args.out.write_text("\n".join(lines) + "\n")
    print("wrote", args.out)


if __name__ == "__main__":
    main()
