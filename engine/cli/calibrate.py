"""`ipcgrasp calibrate-psi`: the Psi_th (J) that corresponds to a closing force (N), and the
grip force (N) a Psi_th gives on a grasp (--psi-th)."""

from __future__ import annotations

import argparse

from engine import schema
from engine.cli.commands import help_of
from engine.cli.parsing import HelpFormatter
from engine.cli.scene_args import add_scene_arguments, grasp_from_args, object_from_args
from engine.grasp.params import SimulationParams

DEFAULT_FORCES_N = (0.1, 0.3, 1.0, 3.0)


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register `ipcgrasp calibrate-psi` (scene, forces and SimulationParams flags)."""
    p = sub.add_parser(
        "calibrate-psi",
        help=help_of("calibrate-psi"),
        description=(
            "Squeeze (no lift) with a force-controlled stop at each force and print the pad "
            "strain energies Psi1, Psi2 reached, with a fit Psi = a F^b, so --psi-th can be "
            "chosen for a target closing force. With --psi-th, the converse: squeeze with each "
            "Psi_th stop and print the grip force per pad it ends with on this grasp."
        ),
        formatter_class=HelpFormatter,
    )
    add_scene_arguments(p)
    # Every simulation parameter but the squeeze stop, which this command sets itself.
    schema.add_arguments(
        p.add_argument_group("simulation parameters (SI units)"),
        SimulationParams,
        exclude=("psi_th_j", "squeeze_force_n"),
    )
    p.add_argument(
        "--forces",
        type=float,
        nargs="+",
        default=None,
        help=f"squeeze forces per pad in N (default {' '.join(map(str, DEFAULT_FORCES_N))}, "
        "unless --psi-th is given)",
    )
    p.add_argument("--target-force", type=float, help="print the Psi_th for this force (N)")
    p.add_argument(
        "--psi-th",
        type=float,
        nargs="+",
        metavar="J",
        help="print the grip force per pad that a squeeze stopping at each Psi_th (J) ends "
        "with on this grasp (or why it ends without one)",
    )
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Squeeze to each force, print Psi1, Psi2 reached and the fit Psi = a F^b; with --psi-th,
    squeeze to each Psi_th and print the grip force it ends with."""
    from engine.grasp.calibration import fit_power_law, force_at_psi, psi_for_forces
    from engine.grasp.simulation import build_pad

    obj, _ = object_from_args(args)
    params = schema.from_args(SimulationParams, args)
    grasp = grasp_from_args(args, obj, params)
    psi_values = args.psi_th or []
    if psi_values:
        pad = build_pad(params)
        print("| Psi_th J | grip 1 N | grip 2 N | Psi1 J | Psi2 J | stopped by |")
        print("|---|---|---|---|---|---|")
        for psi_th in psi_values:
            end = force_at_psi(obj, grasp, params, psi_th, pad=pad)
            g, psi = end.grip_force_n, end.psi_j
            if g is None or psi is None:
                print(f"| {psi_th:.3g} | | | | | no grip: {end.reason} |")
                continue
            by = "Psi_th" if end.stopped_by == "psi" else f"gripper's {end.gripper_force_n:g} N"
            print(
                f"| {psi_th:.3g} | {g[0]:.4f} | {g[1]:.4f} | {psi[0]:.3e} | {psi[1]:.3e} | {by} |"
            )
        if args.forces is None and args.target_force is None:
            return 0
    forces = list(args.forces or DEFAULT_FORCES_N)
    points = psi_for_forces(obj, grasp, params, forces)
    print("| force N | grip 1 N | grip 2 N | Psi1 J | Psi2 J |")
    print("|---|---|---|---|---|")
    for pt in points:
        print(
            f"| {pt.force_n:g} | {pt.grip_force_n[0]:.4f} | {pt.grip_force_n[1]:.4f} | "
            f"{pt.psi_j[0]:.3e} | {pt.psi_j[1]:.3e} |"
        )
    a, b = fit_power_law(points)
    print(f"fit: Psi = {a:.3e} * F^{b:.2f} (J, F in N)")
    if args.target_force is not None and a == a:
        print(f"--psi-th {a * args.target_force**b:.3e}  # for {args.target_force:g} N per pad")
    return 0
