"""`ipcgrasp simulate`: squeeze-lift trials of one grasp, streamed to CSV / JSON / frames."""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from engine import schema
from engine.cli.commands import help_of
from engine.cli.parsing import HelpFormatter
from engine.cli.scene_args import add_scene_arguments, grasp_from_args, object_from_args
from engine.grasp.params import SimulationParams
from engine.grasp.trial_plan import TrialSpec

if TYPE_CHECKING:
    from engine.grasp.frames import Frame, TrialResult
    from engine.io.safe_write import StreamFile


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register `ipcgrasp simulate` (scene, TrialSpec and SimulationParams flags, outputs)."""
    p = sub.add_parser(
        "simulate",
        help=help_of("simulate"),
        description=(
            "Run squeeze-lift IPC trials of one grasp and report robustness. With --trials 1 "
            "(the default) the nominal grasp runs; with N >= 2, N perturbed poses."
        ),
        formatter_class=HelpFormatter,
    )
    add_scene_arguments(p)
    schema.add_arguments(p.add_argument_group("simulation parameters (SI units)"), SimulationParams)
    schema.add_arguments(p.add_argument_group("trials"), TrialSpec)
    p.add_argument("--out", help="write one CSV row per trial to this file")
    p.add_argument("--frames", help="also save every frame to this .npz")
    p.add_argument(
        "--force", action="store_true", help="replace --out and --frames files that exist"
    )
    p.add_argument(
        "--push",
        metavar="FX,FY,FZ[@X,Y,Z]",
        help="after a trial that lifted, push the held object with this force (N, world "
        "frame) at this point (m, the object's resting frame; default its centre of mass) "
        "for 0.2 s, then release it; the rows say whether the grip held (push_held)",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object per trial")
    p.add_argument("--verbose", action="store_true", help="print every frame to stderr")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Run the IPC trials of one grasp; print a line (or JSON object) per trial, and with a
    Psi_th stop the grip force each squeeze ended with (the force that Psi_th implies)."""
    from engine.grasp.pad_strain import pad_strain_advice
    from engine.grasp.push import parse_push
    from engine.grasp.simulation import build_pad
    from engine.grasp.trials import check_grasp, robustness, run_trials
    from engine.io.frames_npz import save_frames
    from engine.io.results_csv import (
        OUTCOME_COLUMNS,
        PUSH_COLUMNS,
        context_columns,
        open_results_writer,
        result_row,
    )
    from engine.scene.object_facts import ObjectFacts

    params = schema.from_args(SimulationParams, args)
    spec = schema.from_args(TrialSpec, args)
    advice = pad_strain_advice(params)
    if advice is not None:
        print(f"warning: {advice}", file=sys.stderr)
    force = bool(getattr(args, "force", False))
    _refuse_existing_outputs(args, force)
    # Before anything runs a kernel (the grasp checks build the pads): a fresh install's
    # first simulation says why it takes longer.
    _say_if_kernels_are_cold()
    obj, mesh = object_from_args(args)
    grasp = grasp_from_args(args, obj, params)
    pad = build_pad(params)  # one pad mesh for the check, the trials and the frames file
    check_grasp(obj, grasp, params, pad)
    push = parse_push(args.push, obj.center_of_mass) if args.push else None
    columns = (*OUTCOME_COLUMNS, *PUSH_COLUMNS) if push is not None else OUTCOME_COLUMNS
    context = context_columns(
        mesh.source, mesh.sha256, args.stable_pose, grasp, params, spec.seed, mesh=mesh
    )
    context.update(ObjectFacts.of(obj).columns())  # unit, scale, mass, density, size
    f, writer = (None, None)
    if args.out:
        f, writer = open_results_writer(args.out, [*context, *columns], overwrite=force)
    frames: dict[int, list[Frame]] = {}
    on_frame = _frame_reporter(args, params, frames)
    results = []
    complete = False
    try:
        for result in run_trials(obj, grasp, params, spec, on_frame, pad=pad, push=push):
            results.append(result)
            if writer is not None and f is not None:
                writer.writerow(result_row(context, result, columns))
                f.flush()
            _print_result(args, result)
        complete = True
    except KeyboardInterrupt:
        pass  # Ctrl+C: what was computed is kept below, nothing complete is replaced
    finally:
        kept = _close_outputs(
            args, f, frames, complete, len(results),
            lambda: save_frames(
                args.frames, frames, pad.tets, pad.surface_faces, obj.vertices, obj.faces,
                overwrite=force,
            ),
        )  # fmt: skip
    if not complete:  # (other exceptions went on up)
        print(
            f"ipcgrasp simulate: interrupted after {len(results)} trials; {kept}", file=sys.stderr
        )
        return 130
    if not args.json:
        where = f" -> {args.out}" if args.out else ""
        print(f"robustness R = {robustness(results):.3f} over {len(results)} trials{where}")
    return 0


def _close_outputs(
    args: argparse.Namespace,
    f: StreamFile | None,
    frames: dict[int, list[Frame]],
    complete: bool,
    rows: int,
    save_frames: Callable[[], object],
) -> str:
    """Close --out and write --frames. After an interruption (or an error) a file being
    replaced keeps its old content (the new one replaces it only when complete) and a new file
    keeps what was computed; returns what was kept, for the one line that says so."""
    said = []
    if f is not None:
        if complete:
            f.close()
        else:
            f.discard()
            said.append(
                f"{args.out} left unchanged" if f.replacing else f"{rows} rows kept in {args.out}"
            )
    if args.frames and frames:
        path = Path(args.frames if str(args.frames).endswith(".npz") else f"{args.frames}.npz")
        if complete or not (path.exists() or path.is_symlink()):
            save_frames()
            said.append(f"their frames in {path}")
        else:
            said.append(f"{path} left unchanged")
    return "; ".join(said) or "nothing was written"


def _refuse_existing_outputs(args: argparse.Namespace, force: bool) -> None:
    """Refuse existing outputs before anything runs (the writers check again when they write)."""
    from engine.io.safe_write import refuse_existing

    for option in ("out", "frames"):
        value = getattr(args, option)
        if value:
            if option == "frames" and not str(value).endswith(".npz"):
                value = f"{value}.npz"
            refuse_existing(value, force, "--force")


def _say_if_kernels_are_cold() -> None:
    """On a fresh install, say on stderr that the first simulation compiles the kernels."""
    from engine.grasp.warmup import kernels_cold
    from engine.numba_cache import cache_dir

    if kernels_cold():
        print(
            "ipcgrasp simulate: compiling the elastic kernels, once per install (seconds; "
            f"cached in {cache_dir() or 'numba cache'}; `ipcgrasp warmup` does it ahead)",
            file=sys.stderr,
            flush=True,
        )


def _frame_reporter(
    args: argparse.Namespace, params: SimulationParams, frames: dict[int, list[Frame]]
) -> Callable[[int, Frame], None]:
    """The trials' on_frame: keeps the frames for --frames, says the grip force each squeeze
    ended with under a Psi_th stop, and prints every frame with --verbose."""
    from engine.grasp.calibration import squeeze_end

    psi_stop = params.squeeze_stop()[0] == "psi"
    last_squeeze: dict[int, Frame | None] = {}  # per trial; None once its squeeze line is out

    def on_frame(trial: int, frame: Frame) -> None:
        if args.frames:
            frames.setdefault(trial, []).append(frame)
        if psi_stop and last_squeeze.get(trial, frame) is not None:
            if frame.phase == "squeeze":
                last_squeeze[trial] = frame
            else:  # the squeeze has ended: say what grip force Psi_th gave
                end = squeeze_end(params, last_squeeze.get(trial), ended=True)
                last_squeeze[trial] = None
                print(
                    f"trial {trial}: {end.describe()}",
                    file=sys.stderr if args.json else sys.stdout,
                    flush=True,
                )
        if args.verbose:
            print(
                f"trial {trial} frame {frame.index:4d} t={frame.time_s:.3f}s {frame.phase:8s} "
                f"psi={frame.psi_j[0]:.3e},{frame.psi_j[1]:.3e} J "
                f"F={frame.grip_force_n[0]:.3f},{frame.grip_force_n[1]:.3f} N "
                f"zmin={frame.object_min_z_m * 1e3:.2f} mm its={frame.newton_iterations}",
                file=sys.stderr,
            )

    return on_frame


def _print_result(args: argparse.Namespace, result: TrialResult) -> None:
    """One trial's outcome: a JSON object with --json, else one line."""
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
        if result.push:
            q = result.push
            print(
                f"  push {q['weights']:.2f} x the weight: "
                f"{'held' if q['held'] else 'not held'} (the object moved "
                f"{q['moved'] * 1e3:.2f} mm and turned {math.degrees(q['turned']):.2f} deg)",
                flush=True,
            )


def _finite(d: dict) -> dict:
    """JSON has no inf/NaN: report them as null."""
    return {k: (None if isinstance(v, float) and not math.isfinite(v) else v) for k, v in d.items()}
