"""`ipcgrasp simulate`: squeeze-lift trials of one grasp, streamed to CSV / JSON / frames."""

from __future__ import annotations

import argparse
import json
import math
import sys

from engine.cli.scene_args import add_scene_arguments, grasp_from_args, object_from_args
from engine.errors import ParameterError
from engine.grasp.frames import Frame
from engine.grasp.params import SimulationParams
from engine.grasp.simulation import build_pad
from engine.grasp.trials import TrialSpec, check_grasp, robustness, run_trials
from engine.gripper.pad_geometry import pad_outline
from engine.io.frames_npz import save_frames
from engine.io.results_csv import (
    OUTCOME_COLUMNS,
    context_columns,
    open_results_writer,
    result_row,
)


def add_parser(sub: argparse._SubParsersAction) -> None:
    d = SimulationParams()
    p = sub.add_parser(
        "simulate",
        help="run squeeze-lift IPC trials of one grasp",
        description="Run N perturbed squeeze-lift IPC trials of one grasp and report robustness.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    add_scene_arguments(p)
    p.add_argument("--pad", choices=["rounded", "rectangular"], default=d.pad)
    p.add_argument(
        "--pad-edge",
        type=float,
        default=d.pad_edge_length_m,
        help="pad tet edge length in m (mesh resolution)",
    )
    p.add_argument(
        "--E",
        dest="youngs_modulus",
        type=float,
        default=d.youngs_modulus_pa,
        help="pad Young's modulus in Pa",
    )
    p.add_argument("--nu", type=float, default=d.poisson_ratio, help="pad Poisson ratio")
    p.add_argument("--mu", type=float, default=d.mu, help="pad-object friction coefficient")
    p.add_argument("--mu-ground", type=float, help="object-ground friction (default: --mu)")
    p.add_argument(
        "--psi-th",
        type=float,
        default=d.psi_th_j,
        help="squeeze stop: pad strain energy threshold in J (see README)",
    )
    p.add_argument(
        "--squeeze-force",
        type=float,
        help="squeeze stop at this contact force per pad in N (instead of --psi-th)",
    )
    p.add_argument(
        "--psi-balance-tol",
        type=float,
        default=d.psi_balance_tol,
        help="squeeze ends when |Psi1 - Psi2| <= tol * max(Psi1, Psi2)",
    )
    p.add_argument("--pad-density", type=float, default=d.pad_density_kg_m3, help="kg/m^3")
    p.add_argument("--closing-speed", type=float, default=d.closing_speed_m_s, help="m/s")
    p.add_argument("--lift-speed", type=float, default=d.lift_speed_m_s, help="m/s")
    p.add_argument(
        "--lift-height",
        type=float,
        default=d.lift_height_m,
        help="m the object's lowest point must rise",
    )
    p.add_argument(
        "--auto-open",
        type=float,
        default=d.auto_open_m,
        help="m: open up to this much wider if the open jaws touch the object (IPC-GraspSim)",
    )
    p.add_argument("--time-step", type=float, default=d.time_step_s, help="s")
    p.add_argument("--trials", type=int, default=1, help="number of perturbed trials N")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--translation-sigma", type=float, default=0.001, help="m")
    p.add_argument("--rotation-sigma", type=float, default=0.003, help="rad")
    p.add_argument("--out", default="results.csv", help="CSV with one row per trial")
    p.add_argument("--frames", help="also save every frame to this .npz")
    p.add_argument("--json", action="store_true", help="print one JSON object per trial")
    p.add_argument("--verbose", action="store_true", help="print every frame to stderr")
    p.set_defaults(run=run)


def _params(args: argparse.Namespace) -> SimulationParams:
    return SimulationParams(
        youngs_modulus_pa=args.youngs_modulus,
        poisson_ratio=args.nu,
        mu=args.mu,
        mu_ground=args.mu_ground,
        psi_th_j=args.psi_th,
        squeeze_force_n=args.squeeze_force,
        pad=args.pad,
        pad_edge_length_m=args.pad_edge,
        psi_balance_tol=args.psi_balance_tol,
        pad_density_kg_m3=args.pad_density,
        closing_speed_m_s=args.closing_speed,
        lift_speed_m_s=args.lift_speed,
        lift_height_m=args.lift_height,
        time_step_s=args.time_step,
        auto_open_m=args.auto_open,
    ).validate()


def run(args: argparse.Namespace) -> int:
    params = _params(args)
    obj, mesh = object_from_args(args)
    grasp = grasp_from_args(args, obj, pad_outline(params.pad, params.pad_edge_length_m))
    if args.trials < 1:
        raise ParameterError(f"--trials must be >= 1 (got {args.trials})")
    check_grasp(obj, grasp, params)
    spec = TrialSpec(args.trials, args.seed, args.translation_sigma, args.rotation_sigma)
    context = context_columns(mesh.source, mesh.sha256, args.stable_pose, grasp, params, args.seed)
    f, writer = open_results_writer(args.out, [*context, *OUTCOME_COLUMNS])
    frames: dict[int, list[Frame]] = {}

    def on_frame(trial: int, frame: Frame) -> None:
        if args.frames:
            frames.setdefault(trial, []).append(frame)
        if args.verbose:
            print(
                f"trial {trial} frame {frame.index:4d} t={frame.time_s:.3f}s {frame.phase:8s} "
                f"psi={frame.psi_j[0]:.3e},{frame.psi_j[1]:.3e} J "
                f"F={frame.grip_force_n[0]:.3f},{frame.grip_force_n[1]:.3f} N "
                f"zmin={frame.object_min_z_m * 1e3:.2f} mm its={frame.newton_iterations}",
                file=sys.stderr,
            )

    results = []
    try:
        for result in run_trials(obj, grasp, params, spec, on_frame):
            results.append(result)
            writer.writerow(result_row(context, result))
            f.flush()
            if args.json:
                print(json.dumps(_finite(result.as_json())), flush=True)
            else:
                print(
                    f"trial {result.trial}: {'SUCCESS' if result.success else 'fail'} "
                    f"({result.reason}{'; ' + result.error if result.error else ''}) "
                    f"psi={result.psi1_j:.3e},{result.psi2_j:.3e} J grip={result.grip_force_n:.3f} N "
                    f"frames={result.frames} newton={result.newton_iterations} "
                    f"{result.wall_time_s:.1f} s",
                    flush=True,
                )
    finally:
        f.close()
        if args.frames and frames:
            pad = build_pad(params)
            save_frames(args.frames, frames, pad.tets, pad.surface_faces, obj.vertices, obj.faces)
    if not args.json:
        print(f"robustness R = {robustness(results):.3f} over {len(results)} trials -> {args.out}")
    return 0


def _finite(d: dict) -> dict:
    """JSON has no inf/NaN: report them as null."""
    return {k: (None if isinstance(v, float) and not math.isfinite(v) else v) for k, v in d.items()}
