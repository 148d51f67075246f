"""Command-line arguments shared by every command that takes an object and a grasp."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from engine.errors import ParameterError
from engine.scene.mesh_units import UNIT_SCALE_M
from engine.scene.scene_settings import BODY_FLAG, STABLE_POSE_FLAG, UNIT_FLAG

if TYPE_CHECKING:
    from engine.grasp.grasp import Grasp
    from engine.grasp.params import SimulationParams
    from engine.scene.object_mesh import ObjectMesh
    from engine.scene.resting import RestingObject


def add_scene_arguments(p: argparse.ArgumentParser) -> None:
    """Add the object (--object, --unit, --mass/--density, --stable-pose) and grasp flags."""
    p.add_argument("--object", default="cube", help="mesh path, 'cube' (3 cm, 3 g) or 'cube:N'")
    add_unit_argument(p)
    p.add_argument(
        BODY_FLAG,
        help="which body to use when the file holds several: K (0 = the largest) or 'all' (one "
        "rigid object); default: refuse such files",
    )
    mass = p.add_mutually_exclusive_group()
    mass.add_argument("--mass", type=float, help="object mass in kg")
    mass.add_argument("--density", type=float, help="object density in kg/m^3")
    p.add_argument(
        STABLE_POSE_FLAG, dest="stable_pose", type=int, default=0, help="index of the resting pose"
    )
    p.add_argument(
        "--grasp-center",
        type=float,
        nargs=3,
        metavar=("X", "Y", "Z"),
        help="jaw centre in m, resting frame (default: through the centre of mass)",
    )
    p.add_argument(
        "--grasp-axis",
        type=float,
        nargs=3,
        metavar=("AX", "AY", "AZ"),
        help="closing axis (default: narrowest horizontal extent)",
    )
    p.add_argument(
        "--approach-angle",
        type=float,
        help="rad about the axis (default: 0 with --grasp-center/--grasp-axis, else the "
        "default grasp's)",
    )


def add_unit_argument(p: argparse.ArgumentParser, help_text: str = "") -> None:
    """The --unit flag: the mesh file's length unit, one of UNIT_SCALE_M's."""
    p.add_argument(
        UNIT_FLAG,
        choices=list(UNIT_SCALE_M),
        help=help_text
        or "length unit of the mesh file (default: metres; a size no graspable "
        "object has is refused with the unit it suggests)",
    )


def object_from_args(args: argparse.Namespace) -> tuple[RestingObject, ObjectMesh]:
    """The object at rest in its stable pose, and its mesh (built-in cube: 3 g by default);
    says its size, mass and density on stderr."""
    from engine.scene.object_facts import ObjectFacts
    from engine.scene.object_mesh import BUILTIN_CUBE_MASS_KG, object_from_spec
    from engine.scene.resting import rest_object

    mesh = object_from_spec(args.object, unit=args.unit, body=getattr(args, "body", None))
    mass = args.mass
    if mass is None and args.density is None and mesh.source.startswith("builtin:cube"):
        mass = BUILTIN_CUBE_MASS_KG
    obj = rest_object(mesh, args.stable_pose, mass_kg=mass, density_kg_m3=args.density)
    prog = " ".join(["ipcgrasp", *([args.command] if getattr(args, "command", None) else [])])
    print(
        f"{prog}: object {mesh.name}: {ObjectFacts.of(obj).describe()}",
        file=sys.stderr,
        flush=True,
    )
    return obj, mesh


def grasp_from_args(
    args: argparse.Namespace, obj: RestingObject, params: SimulationParams
) -> Grasp:
    """The grasp given on the command line, or the default grasp for these parameters'
    gripper (through the centre of mass when it fits, else the best sampled grasp; see
    engine.grasp.default_grasp), reported on stderr when it was sampled."""
    from engine.analytic.ranking import default_grasp_for
    from engine.grasp.grasp import Grasp

    angle = args.approach_angle
    if args.grasp_center is None and args.grasp_axis is None:
        chosen = default_grasp_for(obj, params)
        grasp = chosen.grasp
        if chosen.candidate is not None:
            g = grasp.to_dict()
            print(
                f"default grasp: {chosen.how}, since through the centre of mass "
                f"{chosen.centre_refusal.rstrip('.')}; centre "
                f"{' '.join(f'{v:.6g}' for v in g['center'])} m, axis "
                f"{' '.join(f'{v:.6g}' for v in g['axis'])}, approach angle "
                f"{g['approach_angle_rad']:.6g} rad",
                file=sys.stderr,
            )
        if chosen.weak is not None:
            print(f"warning: {chosen.weak}", file=sys.stderr)
        return grasp if angle is None else Grasp(grasp.center, grasp.axis, angle)
    if args.grasp_center is None or args.grasp_axis is None:
        raise ParameterError(
            "give both --grasp-center and --grasp-axis, or neither for the default grasp"
        )
    return Grasp(args.grasp_center, args.grasp_axis, 0.0 if angle is None else angle)
