"""Time to sample and rank 200 grasps on meshes of about 5,000 faces (target: under 5 s).

Each measurement is one `sample_grasps(obj, settings, 200, seed, rank)` call (surface sampling,
ray casting, open-gripper collision tests at 8 approach angles, spacing, Soft Point ranking)
for the YuMi on a generated object, in this process after one warm-up call; the median of
`--runs` seeds is reported. Also one `ipcgrasp sample` command end to end (a fresh process:
imports, mesh loading and repair, resting pose, writing the CSV). Writes benchmarks/sampler.md
with the machine's `uptime` load before and after (the machine is shared).

    .venv/bin/python benchmarks/bench_sampler.py [--runs 3]
"""

from __future__ import annotations

import argparse
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import trimesh

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine.analytic.from_simulation import analytic_params_for  # noqa: E402
from engine.analytic.ranking import margin_ranker  # noqa: E402
from engine.grasp.params import SimulationParams  # noqa: E402
from engine.grasp.sampler import sample_grasps, settings_for  # noqa: E402
from engine.gripper.pad_geometry import pad_outline  # noqa: E402
from engine.scene.object_mesh import load_object_mesh  # noqa: E402
from engine.scene.resting import rest_object  # noqa: E402
from tests.engine import procedural_objects as po  # noqa: E402

N = 200


def _meshes() -> dict[str, trimesh.Trimesh]:
    return {
        "ball 44 mm (icosphere)": trimesh.creation.icosphere(subdivisions=4, radius=0.022),
        "sphere stack 66 x 105 mm": po.sphere_stack(sections=48, rings=18),
        "ring 72 mm (torus)": trimesh.creation.torus(
            major_radius=0.03, minor_radius=0.006, major_sections=100, minor_sections=25
        ),
    }


def _uptime() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True, check=False).stdout.strip()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "sampler.md"))
    args = ap.parse_args()
    load_before = _uptime()
    params = SimulationParams()
    settings = settings_for(params.open_width_m, pad_outline(params.pad), params.mu)
    rank = margin_ranker(analytic_params_for(params))
    rows = []
    folder = Path(tempfile.mkdtemp(prefix="bench_sampler_"))
    cli_path = None
    for name, mesh in _meshes().items():
        path = po.write_obj(np.asarray(mesh.vertices), np.asarray(mesh.faces),
                            folder / f"{name.split()[0]}.obj")  # fmt: skip
        cli_path = cli_path or path
        obj = rest_object(load_object_mesh(path))
        sample_grasps(obj, settings, 20, 99, rank)  # warm-up (imports, caches)
        times, counts = [], []
        for seed in range(args.runs):
            t0 = time.perf_counter()
            found = sample_grasps(obj, settings, N, seed, rank)
            times.append(time.perf_counter() - t0)
            counts.append(len(found))
        rows.append((name, len(obj.faces), counts, times))
        print(name, len(obj.faces), counts, [f"{t:.2f}" for t in times], flush=True)
    assert cli_path is not None
    t0 = time.perf_counter()
    rest_object(load_object_mesh(cli_path))
    rest_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    cmd = [sys.executable, "-m", "engine.cli.main", "sample", str(cli_path), "--n", str(N),
           "--out", str(folder / "g.csv")]  # fmt: skip
    done = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, check=False)
    cli_s = time.perf_counter() - t0
    print(done.stdout.strip(), done.stderr.strip(), f"{cli_s:.2f} s")
    load_after = _uptime()

    lines = [
        "# Grasp sampler: 200 candidates on ~5,000-face meshes",
        "",
        f"`.venv/bin/python benchmarks/bench_sampler.py --runs {args.runs}` on {platform.node()} "
        f"({platform.processor() or platform.machine()}), Python {platform.python_version()}.",
        "",
        f"- load before: `{load_before}`",
        f"- load after: `{load_after}`",
        "",
        "One `sample_grasps(obj, settings, 200, seed, margin_ranker(...))` call per seed (seeds "
        f"0..{args.runs - 1}) after a warm-up call: surface sampling, ray casting, collision tests "
        "of the open YuMi gripper (pads, plates, fingers, palm) at 8 approach angles, spacing "
        "and the Soft Point margin of each candidate. Target: under 5 s. Fewer than 200 means "
        "the object has no more grasps 5 mm apart that fit the 50 mm opening (the sampler stops "
        "once fresh surface points hardly add any).",
        "",
        "| object | faces | candidates per run | median s | all runs (s) |",
        "|---|---|---|---|---|",
    ]
    for name, faces, counts, times in rows:
        lines.append(
            f"| {name} | {faces} | {', '.join(map(str, counts))} | {statistics.median(times):.2f} | "
            f"{', '.join(f'{t:.2f}' for t in times)} |"
        )
    lines += [
        "",
        f"End to end, `ipcgrasp sample {Path(cli_path).name} --n 200 --out g.csv` in a fresh "
        f"process (imports, loading, resting pose, sampling, ranking, writing and reading back "
        f"the CSV) took {cli_s:.2f} s, of which loading the mesh and computing its resting pose "
        f"(trimesh's stable poses) take {rest_s:.2f} s: `{done.stdout.strip()}`",
        "",
    ]
    Path(args.out).write_text("\n".join(lines))
    print(f"-> {args.out}")


if __name__ == "__main__":
    main()
