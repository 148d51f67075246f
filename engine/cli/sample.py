"""`ipcgrasp sample`: antipodal grasps that fit a gripper, ranked, as a grasp CSV for `batch`."""

from __future__ import annotations

import argparse
import math
from pathlib import Path

from engine import schema
from engine.cli.commands import help_of
from engine.cli.parsing import HelpFormatter
from engine.cli.scene_args import add_unit_argument, object_from_args
from engine.errors import ParameterError
from engine.grasp.params import SimulationParams

MAX_GRASPS = 100_000


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register `ipcgrasp sample`."""
    p = sub.add_parser(
        "sample",
        help=help_of("sample"),
        description=(
            "Sample antipodal grasps of OBJECT in its resting pose: surface point pairs whose "
            "normals lie in each other's friction cone, within the gripper's stroke, at several "
            "approach angles per axis (top-down, tilted, side), with the open gripper (pads, "
            "plates, fingers, palm) clear of the object and the ground and candidates at least "
            "--min-distance apart; ranked by the Soft Point margin (the multiple of the object's "
            "weight the two contacts hold with the gripper's force). The CSV is the grasp "
            "table `ipcgrasp batch` reads. The same seed gives the same file."
        ),
        formatter_class=HelpFormatter,
    )
    p.add_argument("object", metavar="OBJECT", help="mesh path, 'cube' or 'cube:N'")
    p.add_argument("--n", type=int, default=50, help="number of grasps")
    p.add_argument("--out", required=True, help="grasp CSV to write")
    p.add_argument("--seed", type=int, default=0, help="random seed (>= 0)")
    add_unit_argument(p)
    p.add_argument(
        "--body", help="which body of a file holding several: K (0 = the largest) or 'all'"
    )
    mass = p.add_mutually_exclusive_group()
    mass.add_argument("--mass", type=float, help="object mass in kg")
    mass.add_argument("--density", type=float, help="object density in kg/m^3")
    p.add_argument("--stable-pose", type=int, default=0, help="index of the resting pose")
    p.add_argument(
        "--approach-angles", type=int, default=8, help="approach angles tried per closing axis"
    )
    p.add_argument(
        "--min-distance",
        type=float,
        default=0.005,
        metavar="m",
        help="least distance between grasps (centre distance plus 10 mm per radian of axis or "
        "approach difference)",
    )
    keep = {"gripper", "mu"}
    schema.add_arguments(
        p.add_argument_group("gripper and friction"),
        SimulationParams,
        exclude=[d.name for d in schema.declared(SimulationParams) if d.name not in keep],
    )
    p.add_argument("--force", action="store_true", help="replace --out if it exists")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Sample, rank and write the grasps; print a summary."""
    from engine.analytic.ranking import QUALITY_MODEL, simulation_ranker
    from engine.batch.grasp_spec import GraspSpec
    from engine.batch.grasp_table import write_grasp_table
    from engine.grasp.default_grasp import no_grasp_error
    from engine.grasp.sampler import sample_grasps, settings_for
    from engine.gripper.pad_geometry import pad_outline
    from engine.io.safe_write import refuse_existing

    if isinstance(args.n, bool) or not 1 <= args.n <= MAX_GRASPS:
        raise ParameterError(f"--n must be in [1, {MAX_GRASPS}] (got {args.n})")
    if args.seed < 0:
        raise ParameterError(f"--seed must be >= 0 (got {args.seed})")
    if not (math.isfinite(args.min_distance) and args.min_distance >= 0):
        raise ParameterError(f"--min-distance must be a length >= 0 in m (got {args.min_distance})")
    refuse_existing(args.out, bool(args.force), "--force")
    params = schema.from_args(SimulationParams, args)
    obj, mesh = object_from_args(args)
    settings = settings_for(
        params.open_width_m,
        pad_outline(params.pad, params.pad_edge_length_m),
        params.mu,
        approach_angles=args.approach_angles,
        min_distance_m=args.min_distance,
    )
    rank = simulation_ranker(params)
    found = sample_grasps(obj, settings, args.n, args.seed, rank)
    if not found:
        raise no_grasp_error(obj, params, args.seed, "")
    source = args.object.strip() if mesh.source.startswith("builtin:") else mesh.source
    stem = Path(source).stem if not mesh.source.startswith("builtin:") else "cube"
    specs = [
        GraspSpec(
            grasp_id=f"{stem}_s{args.seed}_{k:0{len(str(len(found) - 1))}d}",
            source_row="",
            object=source,
            unit=args.unit,
            body=mesh.repair.body_option,
            mass_kg=args.mass,
            density_kg_m3=args.density,
            stable_pose=args.stable_pose,
            center=c.grasp.center,
            axis=c.grasp.axis,
            approach_angle_rad=c.grasp.approach_angle_rad,
        )
        for k, c in enumerate(found)
    ]
    extra: list[dict[str, object]] = [
        {"quality": c.quality, "quality_model": QUALITY_MODEL, "contact_width": c.width_m}
        for c in found
    ]
    write_grasp_table(args.out, specs, extra, overwrite=bool(args.force))
    note = f" (asked for {args.n}: no more fit)" if len(found) < args.n else ""
    repaired = f"; repaired on load: {mesh.repair.summary()}" if mesh.repair.changed else ""
    print(
        f"{len(found)} grasps{note} of {mesh.name} in stable pose {args.stable_pose} for the "
        f"{params.preset.label} ({params.open_width_m * 1e3:.0f} mm), Soft Point margin "
        f"{found[0].quality:.3g} .. {found[-1].quality:.3g} -> {args.out}{repaired}"
    )
    return 0
