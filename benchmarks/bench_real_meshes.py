"""Public meshes as users bring them: one nominal trial per mesh and gripper, default grasp.

Scanned household objects (YCB scans, ~16k faces) and CAD parts (Dex-Net's adversarial
meshes), with the YCB paper's masses and the default density for the parts. For each mesh and
each gripper preset: load it as `ipcgrasp simulate` does (metres, no flags), rest it in its most
probable pose (or the pose named below), choose the default grasp, run one nominal trial in a
fresh process under the batch's wall-clock limit, and record the outcome and reason, the
largest force any pad pressed along its closing direction (its contacts' normal and friction
forces on the object) against the gripper's rating, the
slip and rotation in the grip, frames, Newton iterations, the trial's wall time and the
process's peak memory. Writes benchmarks/results/real_meshes.md.

The meshes are not in this repository (nor downloaded by it): put them in a folder first, e.g.

    git clone https://github.com/eleramp/pybullet-object-models && cd pybullet-object-models
    git show 57cc4007:pybullet_object_models/ycb_objects/YcbBanana/textured_simple_reoriented.obj \\
        > DIR/ycb_Banana.obj        # likewise for the other names below
    git clone https://github.com/RobotLocomotion/models   # 004_sugar_box at 4723170e
    git clone https://github.com/Xingyu-Lin/softgym       # Dex-Net parts at be0ab948

    .venv/bin/python benchmarks/bench_real_meshes.py --meshes DIR [--grippers yumi,...]
        [--youngs-pa 1e6 --pad-edge-m 0.0015 --out FILE]   # another pad setting
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
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
YCB = ("eleramp/pybullet-object-models", "57cc4007")
YCB_PATH = "pybullet_object_models/ycb_objects/Ycb{}/textured_simple_reoriented.obj"
DEXNET = ("Xingyu-Lin/softgym", "be0ab948")
DEXNET_PATH = "PyFlexRobotics/data/dex-net/mini_dexnet/{}.obj"


@dataclass(frozen=True)
class Mesh:
    """One public mesh: the file name in the folder, where it comes from, its mass."""

    file: str
    repo: str
    commit: str
    path: str
    mass_kg: float | None  # None: the default density
    stable_pose: int = 0
    kind: str = "scan"


def _ycb(name: str, mass_kg: float) -> Mesh:
    return Mesh(f"ycb_{name}.obj", *YCB, YCB_PATH.format(name), mass_kg)


def _dexnet(name: str) -> Mesh:
    return Mesh(f"dexnet_{name}.obj", *DEXNET, DEXNET_PATH.format(name), None, kind="CAD")


# Masses: the YCB object set paper (Calli et al. 2015), Table 1.
MESHES = (
    Mesh(
        "sugar_box.obj",
        "RobotLocomotion/models",
        "4723170e",
        "ycb/meshes/004_sugar_box_textured.obj",
        0.514,
        stable_pose=2,
    ),
    _ycb("Banana", 0.066),
    _ycb("CrackerBox", 0.411),
    _ycb("FoamBrick", 0.028),
    _ycb("GelatinBox", 0.097),
    _ycb("MasterChefCan", 0.414),
    _ycb("MustardBottle", 0.603),
    _ycb("PottedMeatCan", 0.370),
    _ycb("PowerDrill", 0.895),
    _ycb("Scissors", 0.082),
    _ycb("TomatoSoupCan", 0.349),
    *(
        _dexnet(n)
        for n in (
            "bar_clamp",
            "climbing_hold",
            "endstop_holder",
            "gearbox",
            "mount1",
            "mount2",
            "nozzle",
            "part1",
            "part3",
            "pawn",
            "pipe_connector",
            "turbine_housing",
            "vase",
        )
    ),
)

CHILD = r"""
import dataclasses, json, math, resource, sys, time
from engine.analytic.ranking import default_grasp_for
from engine.errors import IpcGraspError
from engine.grasp.params import SimulationParams
from engine.grasp.time_limit import TrialTimedOut, wall_clock_limit
from engine.grasp.trials import TrialSpec, plan_trials, run_trial
from engine.scene.object_mesh import load_object_mesh
from engine.scene.resting import rest_object

path, mass, pose, gripper, limit = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], float(sys.argv[5])
overrides = json.loads(sys.argv[6])
out = {"gripper": gripper}
t0 = time.perf_counter()
try:
    with wall_clock_limit(limit):
        mesh = load_object_mesh(path)
        obj = rest_object(mesh, pose, mass_kg=None if mass == "" else float(mass))
        out["faces"] = int(len(mesh.faces))
        out["mass_kg"] = float(obj.mass_kg)
        params = SimulationParams.for_gripper(gripper)
        params = dataclasses.replace(params, **overrides).validate()
        chosen = default_grasp_for(obj, params)
        out["grasp"] = "centre" if chosen.candidate is None else "sampled"
        out["margin"] = chosen.margin
        out["weak"] = "" if chosen.weak is None else str(chosen.weak)
        (nominal,) = plan_trials(chosen.grasp, TrialSpec(n_trials=1))
        out["setup_s"] = time.perf_counter() - t0
        out["setup_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
        from engine.gripper.jaws import place_jaws

        closing = [j.normal for j in place_jaws(nominal.pose, params.open_width_m)]
        peak = [0.0]

        def on_frame(f):
            # The force each pad presses with along its closing direction: its contact points'
            # normal and friction forces on the object (what the gripper's rating limits).
            for k in (0, 1):
                mine = f.contact_source == k
                total = (f.contact_normal_n[mine] + f.contact_friction_n[mine]).sum(0)
                peak[0] = max(peak[0], float(total @ closing[k]))
            return None

        r = run_trial(obj, nominal, params, on_frame=on_frame)
        out.update(success=r.success, reason=r.reason, error=r.error[:300], frames=r.frames,
                   newton=r.newton_iterations, trial_s=r.wall_time_s, peak_force_n=peak[0],
                   rating_n=params.preset.force_max_n, slip_mm=1e3 * max(r.slip1_m, r.slip2_m),
                   rotation_deg=math.degrees(r.rotation_rad))
except TrialTimedOut as exc:
    out.update(success=False, reason="timed out", error=str(exc))
except IpcGraspError as exc:
    out.update(success=False, reason="refused", error=str(exc)[:300])
out["total_s"] = time.perf_counter() - t0
out["engine_dir"] = __import__("engine").__file__
out["peak_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
print(json.dumps(out))
"""


def run_one(
    mesh: Mesh,
    folder: Path,
    gripper: str,
    limit_s: float,
    tree: Path = ROOT,
    overrides: dict[str, float] | None = None,
) -> dict:
    path = (folder / mesh.file).resolve()
    mass = "" if mesh.mass_kg is None else str(mesh.mass_kg)
    cmd = [sys.executable, "-c", CHILD, str(path), mass, str(mesh.stable_pose), gripper]
    env = dict(os.environ, PYTHONPATH=str(tree))
    # `python -c` puts the working directory first on sys.path, before PYTHONPATH: the child
    # runs in `tree`, or it would import the engine of the checkout it was started from.
    done = subprocess.run(
        [*cmd, str(limit_s), json.dumps(overrides or {})],
        capture_output=True,
        text=True,
        env=env,
        timeout=limit_s + 120,
        cwd=tree,
    )
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if not lines:
        tail = done.stderr.strip().splitlines()[-1:] or ["no output"]
        return {"gripper": gripper, "success": False, "reason": "crashed", "error": tail[0]}
    out = json.loads(lines[-1])
    if not Path(out["engine_dir"]).resolve().is_relative_to(tree.resolve()):
        raise RuntimeError(f"the trial ran {out['engine_dir']}, not the engine of {tree}")
    return out


def _cell(text: object) -> str:
    return str(text).replace("|", "/").replace("\n", " ")


def write(
    results: list[tuple[Mesh, dict]],
    grippers: list[str],
    out: Path,
    load: str,
    commit: str,
    overrides: dict[str, float] | None = None,
) -> None:
    settings = "default settings of each gripper"
    if overrides:
        given = ", ".join(f"{k} = {v:g}" for k, v in overrides.items())
        settings = f"each gripper's default settings but {given}"
    lines = [
        "# Public meshes, one nominal trial per gripper",
        "",
        f"`.venv/bin/python benchmarks/bench_real_meshes.py` at {commit} on {platform.node()} "
        f"({os.cpu_count()} cores), load {load}. Default grasp, {settings}, one trial each in "
        "a fresh process; force: the largest force a pad pressed along its closing direction "
        "over the trial, against the gripper's rating.",
        "",
        "| mesh | source | faces | mass (g) | gripper | grasp (margin) | outcome | force / rating "
        "(N) | slip (mm) | turn (deg) | frames | set-up (s) | trial (s) | set-up MB | peak MB |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for mesh, r in results:
        source = f"{mesh.repo}@{mesh.commit}: `{mesh.path}`"
        outcome = r.get("reason", "")
        if r.get("error") and not r.get("success"):
            outcome += f": {r['error'][:160]}"
        margin = r.get("margin")
        grasp = f"{r.get('grasp', '-')} ({margin:.2g})" if isinstance(margin, float) else "-"
        force = f"{r['peak_force_n']:.1f} / {r['rating_n']:g}" if "peak_force_n" in r else "-"
        lines.append(
            "| "
            + " | ".join(
                _cell(v)
                for v in (
                    mesh.file,
                    source,
                    r.get("faces", "-"),
                    f"{1e3 * r['mass_kg']:.0f}" if "mass_kg" in r else "-",
                    r["gripper"],
                    grasp,
                    ("lifted" if r.get("success") else outcome),
                    force,
                    f"{r['slip_mm']:.2f}" if "slip_mm" in r else "-",
                    f"{r['rotation_deg']:.1f}" if "rotation_deg" in r else "-",
                    r.get("frames", "-"),
                    f"{r['setup_s']:.1f}" if "setup_s" in r else "-",
                    f"{r['trial_s']:.1f}" if "trial_s" in r else "-",
                    f"{r['setup_mb']:.0f}" if "setup_mb" in r else "-",
                    f"{r['peak_mb']:.0f}" if "peak_mb" in r else "-",
                )
            )
            + " |"
        )
    lines += ["", "## Per gripper", ""]
    for g in grippers:
        rs = [r for _, r in results if r["gripper"] == g]
        times = [r["trial_s"] for r in rs if "trial_s" in r]
        setups = [r["setup_s"] for r in rs if "setup_s" in r]
        over = [r for r in rs if "peak_force_n" in r and r["peak_force_n"] > 1.05 * r["rating_n"]]
        lines.append(
            f"- {g}: {sum(bool(r.get('success')) for r in rs)} of {len(rs)} lifted; "
            f"solver failed {sum(r.get('reason') == 'solver failed' for r in rs)}; "
            f"timed out {sum(r.get('reason') == 'timed out' for r in rs)}; "
            f"pad force above the rating (+5 %) {len(over)}; trial median "
            f"{statistics.median(times) if times else float('nan'):.1f} s, slowest "
            f"{max(times) if times else float('nan'):.1f} s; set-up median "
            f"{statistics.median(setups) if setups else float('nan'):.1f} s; peak memory "
            f"{max((r.get('peak_mb', 0.0) for r in rs), default=0.0):.0f} MB"
        )
    out.write_text("\n".join(lines) + "\n")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--meshes", type=Path, required=True, help="folder holding the mesh files")
    ap.add_argument("--grippers", default="yumi,franka_hand,robotiq_2f85")
    ap.add_argument("--only", default="", help="comma-separated mesh files (default: all)")
    ap.add_argument("--limit", type=float, default=300.0, help="wall-clock limit per trial (s)")
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks/results/real_meshes.md")
    ap.add_argument(
        "--tree", type=Path, default=ROOT, help="the checkout to measure (default: this one)"
    )
    ap.add_argument("--youngs-pa", type=float, help="the pads' Young's modulus E (Pa; default 1e8)")
    ap.add_argument("--pad-edge-m", type=float, help="the pads' tet edge length (m; default 0.003)")
    args = ap.parse_args()
    overrides = {
        name: value
        for name, value in (
            ("youngs_modulus_pa", args.youngs_pa),
            ("pad_edge_length_m", args.pad_edge_m),
        )
        if value is not None
    }
    grippers = [g.strip() for g in args.grippers.split(",") if g.strip()]
    only = {n.strip() for n in args.only.split(",") if n.strip()}
    # The kernels compiled (or loaded) once before the first trial: after a change to them the
    # first fresh process would compile them all (~30 s, ~450 MB), which no user's trial after
    # an install pays (`ipcgrasp warmup`).
    subprocess.run(
        [sys.executable, "-c", "from engine.grasp.warmup import warm_up; warm_up()"],
        cwd=args.tree,
        env=dict(os.environ, PYTHONPATH=str(args.tree)),
        check=True,
        capture_output=True,
    )
    load_before = os.getloadavg()
    results = []
    for mesh in MESHES:
        if only and mesh.file not in only:
            continue
        if not (args.meshes / mesh.file).is_file():
            print(f"missing {mesh.file}: see the docstring for where it comes from", flush=True)
            continue
        for g in grippers:
            t0 = time.perf_counter()
            r = run_one(mesh, args.meshes, g, args.limit, args.tree, overrides)
            results.append((mesh, r))
            print(
                f"{mesh.file} {g}: {r.get('reason')} "
                f"force {r.get('peak_force_n', float('nan')):.1f} N, "
                f"{time.perf_counter() - t0:.1f} s",
                flush=True,
            )
    load = f"{load_before[0]:.2f} -> {os.getloadavg()[0]:.2f}"
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=args.tree
    ).stdout.strip()
    write(results, grippers, args.out, load, commit or "an unknown commit", overrides)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
