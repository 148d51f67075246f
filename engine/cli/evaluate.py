"""`ipcgrasp evaluate`: score batch predictions against physical outcomes (AP, AR, F1 as the paper)."""

from __future__ import annotations

import argparse
import json
import math
import sys
from typing import TYPE_CHECKING

from engine.cli.commands import help_of
from engine.cli.parsing import HelpFormatter
from engine.errors import ParameterError

if TYPE_CHECKING:
    from engine.evaluation.labels import ModelPredictions, PhysicalLabel
    from engine.evaluation.metrics import Scores

METHOD = (
    "AP, AR, F1 as IPC-GraspSim's comparison: each grasp's predicted and physical robustness "
    "become 5 binary labels (round(5 q) ones); AP = average precision (sklearn semantics) of "
    "those; AR = mean recall of pred >= t over t = 0, 0.1, ..., 1; F1 = 2 AP AR / (AP + AR). "
    "TP/FP/FN/TN: grasps with predicted vs physical robustness >= 0.5. Brier: mean over physical "
    "trials of (predicted robustness - outcome)^2. s/grasp: model wall time per grasp."
)


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register `ipcgrasp evaluate` (results CSVs, labels, outputs)."""
    p = sub.add_parser(
        "evaluate",
        help=help_of("evaluate"),
        description=METHOD,
        formatter_class=HelpFormatter,
    )
    p.add_argument("results", nargs="+", metavar="RESULTS.csv", help="batch results CSV(s)")
    p.add_argument(
        "--labels",
        action="append",
        help="physical outcomes: REACH JSON or CSV (grasp_id,result); repeat for several "
        "(without labels only the models' margins against the measured strength are compared: "
        "a batch run with --disturb down)",
    )
    p.add_argument("--plot", help="write a precision-recall plot (PNG) here")
    p.add_argument(
        "--strength-plot",
        help="write a scatter plot (PNG) of each analytic model's margin against the margin "
        "the simulator measured (rows of a batch run with --disturb down or all)",
    )
    p.add_argument("--json", dest="json_out", help="also write the scores as JSON here")
    p.add_argument(
        "--force", action="store_true", help="replace --plot and --json files that exist"
    )
    p.add_argument("--models", help="only these models (comma-separated)")
    p.add_argument(
        "--common-grasps",
        action="store_true",
        help="score every model on the grasps all of them predicted (a paired comparison)",
    )
    p.add_argument(
        "--paper-rounding",
        action="store_true",
        help="round AP and AR to 2 decimals before F1, as the paper's script did",
    )
    p.set_defaults(run=run)


def evaluate(
    predictions: list[ModelPredictions],
    labels: dict[str, PhysicalLabel],
    paper_rounding: bool = False,
    common_grasps: bool = False,
) -> list[tuple[str, ModelPredictions, Scores | None, list[str]]]:
    """(display name, predictions, scores, scored grasp ids) per model entry."""
    from engine.evaluation.labels import describe
    from engine.evaluation.metrics import score

    names = describe(predictions)
    shared = set(labels)
    if common_grasps:
        for pred in predictions:
            shared &= set(pred.robustness)
    out = []
    for i, pred in enumerate(predictions):
        common = [g for g in pred.robustness if g in shared]
        s = (
            score(
                [pred.robustness[g] for g in common],
                [labels[g].outcomes for g in common],
                paper_rounding=paper_rounding,
            )
            if common
            else None
        )
        out.append((names[i], pred, s, common))
    return out


def table(rows: list[tuple[str, ModelPredictions, Scores | None, list[str]]]) -> str:
    """Markdown table of each model's scores (AP, AR, F1, confusion, Brier, time per grasp)."""
    lines = [
        "| model | grasps | AP | AR | F1 | TP | FP | FN | TN | Brier | s/grasp |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for name, pred, s, common in rows:
        times = [pred.task_time_s[g] for g in common if g in pred.task_time_s]
        per_grasp = sum(times) / len(times) if times else math.nan
        if s is None:
            lines.append(f"| {name} | 0 | - | - | - | - | - | - | - | - | - |")
            continue
        lines.append(
            f"| {name} | {s.grasps} | {s.ap:.2f} | {s.ar:.2f} | {s.f1:.2f} | {s.tp} | {s.fp} | "
            f"{s.fn} | {s.tn} | {s.brier:.3f} | {per_grasp:.3g} |"
        )
    return "\n".join(lines) + "\n"


def run(args: argparse.Namespace) -> int:
    """Score every model's predictions against the physical labels; print and write the table."""
    from engine.batch.results_store import read_results
    from engine.evaluation.labels import load_labels, predictions_from_rows
    from engine.io.safe_write import atomic_write_text, refuse_existing

    prog = "ipcgrasp evaluate"
    force = bool(getattr(args, "force", False))
    for out in (args.plot, args.json_out, args.strength_plot):
        if out:
            refuse_existing(out, force)  # before reading and scoring
    labels = load_labels(args.labels) if args.labels else None  # a bad labels file first
    rows = read_results(args.results)
    if args.models:
        wanted = {m.strip() for m in args.models.split(",") if m.strip()}
        rows = [r for r in rows if r.get("model") in wanted]
    if not rows:
        raise ParameterError(
            f"no result rows in {', '.join(args.results)}"
            + (f" for models {args.models}" if args.models else "")
        )
    strength = _strength(prog, rows, args.strength_plot, force)
    if labels is None:
        if strength:
            return 0
        raise ParameterError(
            "nothing to evaluate: give the physical outcomes with --labels, or results of a "
            "batch run with --disturb down to compare the models' margins with the measured "
            "strength"
        )
    predictions = predictions_from_rows(rows)
    scored = evaluate(predictions, labels, args.paper_rounding, args.common_grasps)
    _warn(prog, scored, labels)
    print(table(scored), end="")
    print(
        f"\n{METHOD}"
        + (" AP and AR rounded to 2 decimals before F1." if args.paper_rounding else "")
    )
    if args.plot:
        from engine.evaluation.plots import pr_plot

        curves = [
            (
                name,
                [pred.robustness[g] for g in common],
                [labels[g].robustness for g in common],
                f"AP {s.ap:.2f} AR {s.ar:.2f} F1 {s.f1:.2f}",
            )
            for name, pred, s, common in scored
            if s is not None
        ]
        pr_plot(curves, args.plot, overwrite=force)
        print(f"precision-recall plot -> {args.plot}")
    if args.json_out:
        data = [
            {
                "model": pred.model,
                "name": name,
                "config": pred.config,
                "settings": pred.settings,
                "scores": s.as_json() if s else None,
                "robustness": {g: pred.robustness[g] for g in common},
                "physical": {g: labels[g].robustness for g in common},
            }
            for name, pred, s, common in scored
        ]
        atomic_write_text(args.json_out, json.dumps(data, indent=2) + "\n", overwrite=force)
    return 0


def _strength(prog: str, rows: list[dict[str, str]], plot: str | None, force: bool) -> bool:
    """Print the models' margins against the measured strength when the rows carry one (and
    write the scatter plot); whether they did."""
    from engine.evaluation.strength_agreement import (
        NOT_LIFTED,
        agreement_table,
        agreements,
        measured_strengths,
    )

    found = agreements(rows)
    if not found:
        if plot:
            measured = measured_strengths(rows)
            if measured and not any(m.margin != NOT_LIFTED for m in measured.values()):
                raise ParameterError(
                    f"--strength-plot: none of the {len(measured)} IPC trials in the rows "
                    "lifted its object, so none measured a strength: choose grasps that hold "
                    "(a stronger gripper, another resting pose) and run the batch again"
                )
            raise ParameterError(
                "--strength-plot needs IPC rows with a measured strength and analytic model "
                "rows for the same grasps: run the batch with --disturb down (or all) and "
                "--models ipc,soft_point,reach,6dfc (or the models to compare)"
            )
        return False
    print("Analytic margins against the grip strength IPC measured (rank correlations):\n")
    print(agreement_table(found))
    if plot:
        from engine.evaluation.plots import strength_plot

        strength_plot(found, plot, overwrite=force)
        print(f"{prog}: strength scatter plot -> {plot}\n")
    return True


def _warn(
    prog: str,
    scored: list[tuple[str, ModelPredictions, Scores | None, list[str]]],
    labels: dict[str, PhysicalLabel],
) -> None:
    """Say on stderr which grasps each model was not scored on, and why."""
    for name, pred, _, common in scored:
        missing = sorted(set(labels) - set(common))
        unlabeled = sorted(set(pred.robustness) - set(labels))
        if unlabeled:
            print(
                f"{prog}: warning: {name}: {len(unlabeled)} grasps have no physical label "
                f"(e.g. {unlabeled[0]!r}); ignored",
                file=sys.stderr,
            )
        if missing and common:
            print(
                f"{prog}: note: {name}: scored on {len(common)} of {len(labels)} labelled "
                "grasps (the others have no result rows yet)",
                file=sys.stderr,
            )
        if pred.failed_grasps:
            print(
                f"{prog}: warning: {name}: {len(pred.failed_grasps)} grasps have only error "
                f"rows and count as predicted 0 (e.g. {pred.failed_grasps[0]!r})",
                file=sys.stderr,
            )
