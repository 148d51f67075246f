"""`ipcgrasp poses`: the resting poses of an object as a person tells them apart."""

from __future__ import annotations

import argparse
import json

from engine.cli.commands import help_of
from engine.cli.parsing import HelpFormatter
from engine.cli.scene_args import add_unit_argument
from engine.scene.scene_settings import BODY_FLAG


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register `ipcgrasp poses`."""
    p = sub.add_parser(
        "poses",
        help=help_of("poses"),
        description=(
            "List the ways OBJECT can rest on a table, most probable first. Poses that differ "
            "only by a turn about the vertical (or a round object's roll about its axis) are "
            "one line, with their probabilities summed; POSE is the index to give as "
            "--stable-pose (the group's most probable member), 'as in the file' marks the "
            "pose that keeps the file's +z up."
        ),
        formatter_class=HelpFormatter,
    )
    p.add_argument("object", metavar="OBJECT", help="mesh path, 'cube' or 'cube:N'")
    add_unit_argument(p)
    p.add_argument(
        BODY_FLAG, help="which body of a file holding several: K (0 = the largest) or 'all'"
    )
    p.add_argument("--json", action="store_true", help="print the list as JSON")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Print the object's pose groups."""
    from engine.scene.object_mesh import object_from_spec
    from engine.scene.pose_groups import pose_groups
    from engine.scene.resting import stable_poses

    mesh = object_from_spec(args.object, unit=args.unit, body=args.body)
    poses = stable_poses(mesh)
    groups = pose_groups(mesh, poses)
    if args.json:
        rows = [
            {
                "stable_pose": g.index,
                "probability": g.probability,
                "height_m": g.height_m,
                "footprint_m": list(g.footprint_m),
                "as_in_file": g.as_in_file,
                "members": list(g.members),
            }
            for g in groups
        ]
        print(json.dumps({"object": mesh.name, "poses": rows}, indent=1))
        return 0
    print(f"{mesh.name}: {len(groups)} resting poses ({len(poses)} before merging look-alikes)")
    print(f"{'POSE':>4}  {'PROB.':>6}  DESCRIPTION")
    for g in groups:
        merged = f" (merges {len(g.members)} poses)" if len(g.members) > 1 else ""
        print(f"{g.index:>4}  {100 * g.probability:5.1f}%  {g.description()}{merged}")
    return 0
