"""A simulation's set-up on public meshes, before its first frame: load the file (repair, body
and self-intersection checks), rest it in its pose, choose the default grasp (the grasp
through the centre of mass, else sampled grasps ranked by their Soft Point margin, else the
refusal naming the grippers that fit). What `ipcgrasp simulate` and the app do before a trial,
and what a batch pays once per object.

The meshes and masses are bench_real_meshes.py's (fetch them into a folder as it says). Each
tree runs in one process that sets every mesh up with every gripper, after one warm-up set-up
(numba's compiled kernels come from its disk cache, as in any later process). Each row
records the times and the result (the grasp to 12 digits, or the refusal's text), so two
trees are compared row by row: the same results, and the ratio of their times.

    .venv/bin/python benchmarks/bench_setup.py --meshes DIR [--tree OLD --label before]
        [--tree . --label after] [--out benchmarks/results/setup_speed.md]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_real_meshes import MESHES, Mesh

ROOT = Path(__file__).resolve().parents[1]
GRIPPERS = ("yumi", "franka_hand", "robotiq_2f85")

CHILD = r"""
import json, logging, sys, time
logging.disable(logging.WARNING)
from engine.analytic.ranking import default_grasp_for
from engine.errors import IpcGraspError
from engine.grasp.params import SimulationParams
from engine.scene.object_mesh import load_object_mesh
from engine.scene.resting import rest_object

rows = json.loads(sys.argv[1])

def set_up(path, mass, pose, gripper):
    out = {}
    t0 = time.perf_counter()
    try:
        mesh = load_object_mesh(path)
        t1 = time.perf_counter()
        obj = rest_object(mesh, pose, mass_kg=mass)
        t2 = time.perf_counter()
        chosen = default_grasp_for(obj, SimulationParams.for_gripper(gripper))
        g = chosen.grasp
        out["result"] = "%s | %s | %s | %.12g | %.6g%s" % (
            chosen.how, ", ".join("%.12g" % x for x in g.center),
            ", ".join("%.12g" % x for x in g.axis), g.approach_angle_rad, chosen.margin,
            "" if chosen.weak is None else " | weak: " + str(chosen.weak))
        out["kind"] = "centre" if chosen.candidate is None else "sampled"
        out["load_s"], out["rest_s"] = t1 - t0, t2 - t1
    except IpcGraspError as exc:
        out["result"], out["kind"] = "refused: " + str(exc), "refused"
    out["total_s"] = time.perf_counter() - t0
    return out

set_up(*rows[0])  # warm-up
for row in rows:
    print(json.dumps(set_up(*row)), flush=True)
print(json.dumps({"engine_dir": __import__("engine").__file__}))
"""


def run_tree(tree: Path, folder: Path, grippers: list[str]) -> list[tuple[Mesh, str, dict]]:
    """Every mesh with every gripper, set up in one process running `tree`'s engine."""
    plan = [(m, g) for m in MESHES for g in grippers if (folder / m.file).exists()]
    rows = [[str((folder / m.file).resolve()), m.mass_kg, m.stable_pose, g] for m, g in plan]
    done = subprocess.run(
        [sys.executable, "-c", CHILD, json.dumps(rows)],
        capture_output=True,
        text=True,
        env=dict(os.environ, PYTHONPATH=str(tree)),
        cwd=tree,  # `python -c` puts the working directory first on sys.path
        check=True,
    )
    outs = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    engine_dir = outs.pop()["engine_dir"]
    if not Path(engine_dir).resolve().is_relative_to(tree.resolve()):
        raise RuntimeError(f"the set-ups ran {engine_dir}, not the engine of {tree}")
    return [(m, g, o) for (m, g), o in zip(plan, outs, strict=True)]


def _load() -> str:
    return f"{os.getloadavg()[0]:.2f}"


def _summary(label: str, rows: list[tuple[Mesh, str, dict]], gripper: str) -> str:
    times = [o["total_s"] for _, g, o in rows if g == gripper]
    return f"{statistics.median(times):.2f} s median, {max(times):.2f} s slowest"


def write(
    runs: list[tuple[str, list[tuple[Mesh, str, dict]], str, str]],
    grippers: list[str],
    out: Path,
) -> None:
    lines = [
        "# Set-up on public meshes: load, rest, default grasp",
        "",
        f"`benchmarks/bench_setup.py` on {platform.node()} ({os.cpu_count()} cores); "
        + "; ".join(f"{label}: load {a} -> {b}" for label, _, a, b in runs)
        + ". Each tree in one process, every mesh with every gripper (bench_real_meshes.py's"
        " meshes and masses), after one warm-up set-up.",
        "",
        "| gripper | " + " | ".join(label for label, *_ in runs) + " |",
        "|---|" + "---|" * len(runs),
    ]
    for g in grippers:
        lines.append(f"| {g} | " + " | ".join(_summary(lb, r, g) for lb, r, *_ in runs) + " |")
    first = runs[0][1]
    if len(runs) > 1:
        last = runs[-1][1]
        same = sum(a[2]["result"] == b[2]["result"] for a, b in zip(first, last, strict=True))
        ratios = [b[2]["total_s"] / a[2]["total_s"] for a, b in zip(first, last, strict=True)]
        lines += [
            "",
            f"{runs[-1][0]} against {runs[0][0]}: {same} of {len(first)} results the same "
            f"(grasp to 12 digits, or the refusal's text); set-up time ratio per row: median "
            f"{statistics.median(ratios):.2f} ({min(ratios):.2f}-{max(ratios):.2f}); total "
            f"{sum(a[2]['total_s'] for a in first):.1f} -> "
            f"{sum(b[2]['total_s'] for b in last):.1f} s.",
        ]
    lines += [
        "",
        "| mesh | gripper | result | " + " | ".join(f"{lb} (s)" for lb, *_ in runs) + " |",
        "|---|---|---|" + "---|" * len(runs),
    ]
    for k, (m, g, o) in enumerate(first):
        cells = " | ".join(f"{r[k][2]['total_s']:.2f}" for _, r, *_ in runs)
        lines.append(f"| {m.file} | {g} | {o['kind']} | {cells} |")
    out.write_text("\n".join(lines) + "\n")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--meshes", type=Path, required=True, help="folder holding the meshes")
    ap.add_argument("--tree", type=Path, action="append", help="a checkout to run (repeatable)")
    ap.add_argument("--label", action="append", help="a name per --tree")
    ap.add_argument("--grippers", default=",".join(GRIPPERS))
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks/results/setup_speed.md")
    args = ap.parse_args()
    trees = args.tree or [ROOT]
    labels = args.label or [str(t) for t in trees]
    if len(labels) != len(trees):
        ap.error("give one --label per --tree")
    grippers = args.grippers.split(",")
    runs = []
    for label, tree in zip(labels, trees, strict=True):
        before = _load()
        rows = run_tree(tree.resolve(), args.meshes, grippers)
        runs.append((label, rows, before, _load()))
        print(f"{label}: " + "; ".join(f"{g} {_summary(label, rows, g)}" for g in grippers))
    write(runs, grippers, args.out)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
