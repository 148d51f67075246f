"""`ipcgrasp analyze`: the analytic models' verdicts on one grasp (table, JSON lines or CSV).

`--gripper` names the gripper whose opening, pad and grip force the models assume
(engine.analytic.from_simulation, as batch rows and the app do) unless `--open-width`, `--pad` or
`--closing-force` is given; its preset also finds the default grasp.
"""

from __future__ import annotations

import argparse
import json
import math
from typing import TYPE_CHECKING

from engine import schema
from engine.analytic.from_simulation import analytic_params_for
from engine.analytic.params import AnalyticParams, RobustnessSampling
from engine.analytic.registry import analytic_models, names
from engine.cli.commands import help_of
from engine.cli.parsing import HelpFormatter
from engine.cli.scene_args import add_scene_arguments, grasp_from_args, object_from_args
from engine.grasp.params import SimulationParams
from engine.gripper.presets import DEFAULT_GRIPPER, GRIPPERS

if TYPE_CHECKING:
    from engine.analytic.result import ModelResult
    from engine.grasp.grasp import Grasp
    from engine.scene.resting import RestingObject

RESULT_COLUMNS = (
    "model",
    "success",
    "margin",
    "robustness",
    "robustness_ci_low",
    "robustness_ci_high",
    "reason",
    "time_s",
    "time_per_sample_s",
    "samples",
)


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register `ipcgrasp analyze` (scene, models, samples and AnalyticParams flags)."""
    p = sub.add_parser(
        "analyze",
        help=help_of("analyze"),
        description=(
            "Evaluate one grasp with analytic contact models: the margin s* (largest multiple "
            "of the object's weight the contacts hold; success iff s* >= 1) on the nominal pose "
            "and the robustness over seeded pose perturbations."
        ),
        formatter_class=HelpFormatter,
    )
    add_scene_arguments(p)
    models = ",".join(names(analytic_models()))
    p.add_argument("--models", default=models, help=f"comma-separated subset of {models}")
    schema.add_arguments(p, RobustnessSampling)
    p.add_argument("--seed", type=int, default=0)
    group = p.add_argument_group("model parameters (SI units)")
    group.add_argument(
        "--gripper",
        choices=tuple(GRIPPERS),
        default=DEFAULT_GRIPPER,
        help="gripper hardware (engine/gripper/presets.py) whose opening (its stroke), pad and "
        "grip force the models assume unless --open-width, --pad or --closing-force is given "
        "(the defaults shown for those are the YuMi's); also the gripper the default grasp is "
        "found for",
    )
    schema.add_arguments(group, AnalyticParams)
    p.add_argument(
        "--measured",
        action="store_true",
        help="also simulate the nominal grasp with the gripper's settings and --disturb down, "
        "and give the margin IPC measured beside the models' ((pull down at slip + weight) / "
        "weight, as model 'ipc_measured'; a grasp that does not lift measures 0)",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object per model")
    p.add_argument("--out", help="also write one CSV row per model to this file")
    p.add_argument("--force", action="store_true", help="replace an --out file that exists")
    p.set_defaults(run=run)


# What the gripper's preset gives the models unless the flag is given.
_FROM_GRIPPER = ("open_width_m", "pad", "closing_force_n")


def gripper_of(args: argparse.Namespace) -> SimulationParams:
    """The simulation parameters of `--gripper` (default the YuMi): its preset's values."""
    return SimulationParams.for_gripper(args.gripper)


def params_from_args(args: argparse.Namespace) -> AnalyticParams:
    """AnalyticParams from the flags; the opening, pad and closing force not given come from
    the gripper's preset (its stroke, pad and grip force), the rest from the defaults."""
    preset = analytic_params_for(gripper_of(args))
    # A flag not given leaves no attribute (engine.schema.add_arguments).
    fill = {k: getattr(preset, k) for k in _FROM_GRIPPER if not hasattr(args, k)}
    return schema.from_args(AnalyticParams, args, **fill)


def run(args: argparse.Namespace) -> int:
    """Analyze one grasp with the chosen models; print (and optionally write) a row per model."""
    from engine.analytic.pipeline import analyze_grasp, check_models
    from engine.io.results_csv import context_columns, open_results_writer
    from engine.io.safe_write import refuse_existing
    from engine.scene.object_facts import ObjectFacts

    params = params_from_args(args)
    models = check_models([m for m in args.models.split(",") if m.strip()])
    samples = schema.from_args(RobustnessSampling, args).samples
    force = bool(getattr(args, "force", False))
    if args.out:
        refuse_existing(args.out, force)  # before the models run
    obj, mesh = object_from_args(args)
    # The default grasp needs a gripper: --gripper's, with this opening and friction.
    sim = SimulationParams.for_gripper(args.gripper, open_width_m=params.open_width_m, mu=params.mu)
    grasp = grasp_from_args(args, obj, sim)
    results = analyze_grasp(obj, grasp, params, models, samples, args.seed, explain=True)
    measured = _measure(obj, grasp, sim) if args.measured else None
    if args.json:
        for r in results:
            why = {k: r.details[k] for k in EXPLAINED if k in r.details}
            print(json.dumps({**r.as_json(), **_finite(why), **_forces(r)}), flush=True)
        if measured is not None:
            print(json.dumps(_finite(measured)), flush=True)
    else:
        _print_table(results, obj, params)
        if measured is not None:
            print(measured["text"])
    if args.out:
        context = context_columns(
            mesh.source, mesh.sha256, args.stable_pose, grasp, params, args.seed, mesh=mesh
        )
        context.update(ObjectFacts.of(obj).columns())  # unit, scale, mass, density, size
        f, writer = open_results_writer(args.out, [*context, *RESULT_COLUMNS], overwrite=force)
        with f:
            for r in results:
                data = r.as_json()
                writer.writerow({**context, **{k: _csv(data.get(k)) for k in RESULT_COLUMNS}})
            if measured is not None:
                writer.writerow({**context, **{k: _csv(measured.get(k)) for k in RESULT_COLUMNS}})
    return 0


def _measure(obj: RestingObject, grasp: Grasp, sim: SimulationParams) -> dict:
    """The nominal grasp simulated with `--disturb down`: the margin IPC measured, in the
    models' unit, as a row (model "ipc_measured") with a line of text."""
    import dataclasses
    import time

    from engine.constants import GRAVITY_M_S2
    from engine.grasp.strength import measured_margin
    from engine.grasp.trials import TrialSpec, plan_trials, run_trial

    start = time.perf_counter()
    (planned,) = plan_trials(grasp, TrialSpec(1, 0))
    r = run_trial(obj, planned, dataclasses.replace(sim, disturb="down"))
    row: dict = {"model": "ipc_measured", "success": r.success, "reason": r.reason}
    row["time_s"] = time.perf_counter() - start
    if not r.success or "down" not in r.strength:
        row["margin"] = 0.0
        row["text"] = f"ipc_measured: did not lift ({r.reason}): measured margin 0"
        return row
    row["margin"] = measured_margin(r.strength_weights["down"])
    row["strength_down"], row["grip_force"] = r.strength["down"], r.grip_force_n
    held = " (still held at the test's cap: at least)" if r.strength_held else ""
    row["text"] = (
        f"ipc_measured: lifted; pulled down it left the grip at {r.strength['down']:.3g} N with "
        f"{r.grip_force_n:.3g} N per jaw: measured margin {row['margin']:.3g}{held} "
        f"((pull + weight {obj.mass_kg * GRAVITY_M_S2:.3g} N) / weight), {row['time_s']:.1f} s"
    )
    return row


EXPLAINED = ("limit", "limit_text", "pull_margin", "moment_margin", "moment_nm")
"""What --json adds per model from the load's two parts (engine.analytic.load_limits)."""


def _forces(r: ModelResult) -> dict:
    """The model's contact forces holding the load, per jaw (N), for --json (none: {})."""
    f = r.forces
    if f is None:
        return {}
    return _finite(
        {
            "forces_normal_n": f.per_jaw("normal"),
            "forces_friction_n": f.per_jaw("friction"),
            "forces_cone_use": f.cone_use,
            "forces_scale": f.scale,
        }
    )


def _finite(values: dict) -> dict:
    """Non-finite floats as None (JSON has no inf)."""
    return {
        k: None if isinstance(v, float) and not math.isfinite(v) else v for k, v in values.items()
    }


def _csv(value: object) -> object:
    return "" if value is None else value


def _fmt(x: float, spec: str) -> str:
    return "-" if not math.isfinite(x) else format(x, spec)


def _print_table(results: list[ModelResult], obj: RestingObject, params: AnalyticParams) -> None:
    print(
        f"load: {obj.mass_kg * 1e3:.4g} g at the centre of mass; mu {params.mu:g}, "
        f"{params.closing_force_n:g} N per jaw, pad {params.pad}"
    )
    header = f"{'model':<11} {'success':<7} {'margin s*':>10} {'robustness [95% CI]':<22} {'time':>9}  reason"
    print(header)
    print("-" * len(header))
    for r in results:
        ci = r.robustness_ci
        rob = (
            f"{r.robustness:.2f} [{ci[0]:.2f}, {ci[1]:.2f}]" if math.isfinite(r.robustness) else "-"
        )
        print(
            f"{r.model:<11} {'yes' if r.success else 'no':<7} {_fmt(r.margin, '10.3g')} "
            f"{rob:<22} {r.time_s:8.3f}s  {r.reason or '-'}"
        )
    explained = [r for r in results if r.details.get("limit")]
    if explained:
        print("what limits each verdict (the weight's pull through the grasp centre, gravity's")
        print("moment about it; the margin of each part alone):")
        for r in explained:
            print(f"  {r.model:<11} {r.details['limit_text']}")
    drawn = [r for r in results if r.forces is not None]
    if drawn:
        print("the contact forces each model holds the load with (engine.analytic.contact_forces):")
        for r in drawn:
            assert r.forces is not None
            print(f"  {r.forces.describe(r.model)}")
