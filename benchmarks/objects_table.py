"""The README's table of generated objects: does each open, get a default grasp, and lift?

Writes the objects of tests/engine/procedural_objects.py (`write_all`) to a temporary folder,
then for each: opens it as `ipcgrasp` does (load_object_mesh with no flags: repairs are listed,
several bodies are refused), puts it in its most probable resting pose, chooses the default
grasp for the default gripper (the YuMi) and, when there is one, runs
`ipcgrasp simulate --object FILE --json` (default settings, the nominal trial) in a fresh
process. Prints a markdown table and writes it to benchmarks/results/objects.md.

    .venv/bin/python benchmarks/objects_table.py
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine.analytic.ranking import default_grasp_for  # noqa: E402
from engine.errors import IpcGraspError  # noqa: E402
from engine.grasp.params import SimulationParams  # noqa: E402
from engine.scene.object_mesh import load_object_mesh  # noqa: E402
from engine.scene.resting import rest_object  # noqa: E402
from tests.engine import procedural_objects as po  # noqa: E402

DESCRIPTIONS = {
    "l_bracket": "L-bracket, 70 x 60 mm base, 40 mm upright, 6 mm thick",
    "spool": "flanged cylinder: 24 mm core, 70 mm flanges, 60 mm tall",
    "mug": "mug, 80 x 90 mm, C handle stitched into the wall",
    "bar_clamp": "F bar clamp lying flat, 120 x 60 x 10 mm",
    "sphere_stack": "stack of 3 spheres (60, 42, 28 mm)",
    "ring": "ring lying flat, 72 mm, 12 mm tube",
    "t_beam": "T profile 60 x 50 mm, 70 mm long",
    "vase": "solid vase, 60 mm belly, 100 mm tall",
    "flat_plate": "plate 80 x 60 x 8 mm lying flat",
    "damaged_ball": "44 mm ball: 3 slivers, 4 flipped faces, a hole, split vertices",
    "damaged_bracket": "the L-bracket with slivers, flipped faces and split vertices",
    "two_parts": "two separate boxes in one file",
}


def _cell(text: str) -> str:
    return text.replace("|", "/").replace("\n", " ")


def main() -> None:
    folder = Path(tempfile.mkdtemp(prefix="ipcgrasp_objects_"))
    paths = po.write_all(folder)
    params = SimulationParams()
    rows = []
    counts = {"objects": 0, "open": 0, "grasp": 0, "lift": 0, "simulated": 0}
    for name, path in paths.items():
        counts["objects"] += 1
        opens = grasp = lift = ""
        try:
            mesh = load_object_mesh(path)
            opens = "yes" + (f" (repaired: {mesh.repair.summary()})" if mesh.repair.changed else "")
            counts["open"] += 1
        except IpcGraspError as exc:
            opens = f"no: {str(exc).replace(str(path), path.name).split(' (')[0]}"
            rows.append((name, opens, "-", "-"))
            continue
        obj = rest_object(mesh)
        try:
            chosen = default_grasp_for(obj, params)
            grasp = "through the centre" if chosen.candidate is None else "sampled"
            counts["grasp"] += 1
        except IpcGraspError as exc:
            grasp = f"none for the YuMi; {str(exc).split('. ')[-1]}"
            rows.append((name, opens, grasp, "-"))
            continue
        t0 = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-m", "engine.cli.main", "simulate", "--object", str(path), "--json"],
            capture_output=True,
            text=True,
            cwd=ROOT,
            check=False,
        )
        seconds = time.perf_counter() - t0
        counts["simulated"] += 1
        try:
            result = json.loads(done.stdout.strip().splitlines()[0])
            ok = bool(result["success"])
            free = result.get("intersection_free")
            lift = (
                f"{'yes' if ok else 'no'} ({result['reason']}; grip "
                f"{result['grip_force']:.1f} N, {'intersection-free' if free else 'INTERSECTING'}, "
                f"{seconds:.0f} s)"
            )
            counts["lift"] += ok
        except (IndexError, KeyError, ValueError):
            lift = f"error: {done.stderr.strip()[-160:]}"
        rows.append((name, opens, grasp, lift))
        print(name, opens[:60], grasp, lift, flush=True)

    lines = [
        "# Generated objects: open, default grasp, lift",
        "",
        "`.venv/bin/python benchmarks/objects_table.py` (objects from "
        "`tests/engine/procedural_objects.py`, default settings: the YuMi, 20 N, mu 0.4, "
        "1000 kg/m^3, most probable resting pose, one nominal trial each).",
        "",
        f"{counts['open']} of {counts['objects']} open, {counts['grasp']} get a default grasp, "
        f"{counts['lift']} of {counts['simulated']} simulated lift.",
        "",
        "| object | opens | default grasp | lifts (one simulation) |",
        "|---|---|---|---|",
    ]
    for name, opens, grasp, lift in rows:
        lines.append(
            f"| {name}: {DESCRIPTIONS.get(name, '')} | {_cell(opens)} | {_cell(grasp)} | "
            f"{_cell(lift)} |"
        )
    text = "\n".join(lines) + "\n"
    out = ROOT / "benchmarks" / "results" / "objects.md"
    out.write_text(text)
    print(text)
    print(f"-> {out}")


if __name__ == "__main__":
    main()
