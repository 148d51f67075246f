"""`ipcgrasp grid`: the E x mu sweep as one resumable IPC batch, then F1 tables and a heat map."""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path
from typing import TYPE_CHECKING

from engine.analytic.registry import IPC, names, trial_models
from engine.cli.batch import (
    add_batch_arguments,
    config_from_args,
    execute,
    load_table,
    params_from_args,
)
from engine.cli.commands import help_of
from engine.cli.parsing import HelpFormatter
from engine.errors import ParameterError

if TYPE_CHECKING:
    from engine.batch.tasks import Task
    from engine.evaluation.grid import GridCell
    from engine.evaluation.labels import PhysicalLabel

OUTPUTS = ("grid.md", "grid.json", "f1_heatmap.png")
"""The tables and heat map `grid` writes into OUT (replaced when OUT is a grid's folder)."""


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register `ipcgrasp grid` (batch flags without E and mu, --E/--mu lists, labels, out)."""
    p = sub.add_parser(
        "grid",
        help=help_of("grid"),
        description=(
            "Run the IPC batch for every (E, mu) pair into OUT/results.csv (resumable: run the same "
            "command again to continue), then write OUT/grid.md (F1, AP and AR tables like "
            "IPC-GraspSim Tables 3.1/3.2), OUT/f1_heatmap.png and OUT/grid.json."
        ),
        formatter_class=HelpFormatter,
    )
    add_batch_arguments(p, models=False, exclude=("youngs_modulus_pa", "mu"))
    p.add_argument(
        "--E", dest="e_values", default="1e7,1e8,1e9,1e10,1e11", help="Pa, comma-separated"
    )
    p.add_argument("--mu", dest="mu_values", default="0.3,0.4,0.5,0.6", help="comma-separated")
    p.add_argument(
        "--labels", action="append", required=True, help="physical outcomes (REACH JSON)"
    )
    p.add_argument(
        "--model",
        choices=names(trial_models()),
        default=IPC,
        help="the simulator swept: IPC, or the MuJoCo rigid-pad baseline",
    )
    p.add_argument("--out", required=True, help="output folder")
    p.add_argument(
        "--evaluate-only",
        action="store_true",
        help="only (re)write the tables from OUT/results.csv",
    )
    p.add_argument("--paper-rounding", action="store_true", help="round AP, AR before F1")
    p.add_argument(
        "--force",
        action="store_true",
        help="replace grid.md, grid.json, f1_heatmap.png in an OUT folder without results.csv",
    )
    p.set_defaults(run=run)


def parse_list(text: str, option: str) -> list[float]:
    """'1e7,1e8' -> [1e7, 1e8] (finite, > 0, duplicates dropped); ParameterError otherwise."""
    out = []
    for part in str(text).split(","):
        part = part.strip()
        if not part:
            continue
        try:
            value = float(part)
        except ValueError:
            raise ParameterError(
                f"{option}: {part!r} is not a number (give e.g. 1e7,1e8)"
            ) from None
        if not value > 0 or value == float("inf"):
            raise ParameterError(f"{option}: {part!r} must be a finite number > 0")
        out.append(value)
    if not out:
        raise ParameterError(f"{option} is empty; give comma-separated values")
    return list(dict.fromkeys(out))


def run(args: argparse.Namespace) -> int:
    """Run (or resume) the E x mu batch, then write the tables; 128 + the signal (130: Ctrl+C,
    143: SIGTERM) when interrupted."""
    from engine.batch.tasks import make_tasks
    from engine.evaluation.labels import load_labels
    from engine.io.safe_write import refuse_existing

    prog = "ipcgrasp grid"
    e_values = parse_list(args.e_values, "--E")
    mu_values = parse_list(args.mu_values, "--mu")
    labels = load_labels(args.labels)
    out = Path(args.out).expanduser()
    if out.exists() and not out.is_dir():
        raise ParameterError(f"--out {out} is a file; give a folder for the grid's outputs")
    # OUT holding results.csv is a grid's folder: its tables are rewritten on every run. Anywhere
    # else an existing grid.md / grid.json / f1_heatmap.png is the user's: refused unless --force.
    replace = bool(getattr(args, "force", False)) or (out / "results.csv").is_file()
    for name in OUTPUTS:
        refuse_existing(out / name, replace)
    table = load_table(args)
    params = params_from_args(args, youngs_modulus_pa=e_values[0], mu=mu_values[0])
    model = getattr(args, "model", IPC)
    config = config_from_args(args, (model,), params)
    cell_tasks: dict[tuple[float, float], list[Task]] = {}
    for e in e_values:
        for mu in mu_values:
            cell_tasks[(e, mu)] = make_tasks(
                table, config, overrides={"youngs_modulus_pa": e, "mu": mu}
            )
    results = out / "results.csv"
    status = 0
    if not args.evaluate_only:
        tasks = [t for ts in cell_tasks.values() for t in ts]
        summary = execute(args, table, tasks, str(results), prog)
        status = summary.exit_status
    if not results.is_file():
        raise ParameterError(f"{results} does not exist yet: run the grid without --evaluate-only")
    write_outputs(
        out,
        results,
        cell_tasks,
        labels,
        e_values,
        mu_values,
        args.paper_rounding,
        model,
        overwrite=replace,
    )
    return status


def write_outputs(
    out: Path,
    results: Path,
    cell_tasks: dict[tuple[float, float], list[Task]],
    labels: dict[str, PhysicalLabel],
    e_values: list[float],
    mu_values: list[float],
    paper_rounding: bool,
    model: str = IPC,
    *,
    overwrite: bool = True,
) -> None:
    """Score the finished rows of `model` in `results` per (E, mu) cell; write grid.md/.json,
    heat map (atomically; existing ones are refused unless `overwrite`)."""
    from engine.batch.results_store import read_results
    from engine.batch.tasks import STATUS_OK
    from engine.evaluation.grid import grid_cells, markdown_table, values
    from engine.evaluation.labels import predictions_from_rows
    from engine.io.safe_write import atomic_write_text

    rows = read_results([results])
    configs = {t.config_id for ts in cell_tasks.values() for t in ts}
    rows = [r for r in rows if r.get("model") == model and r.get("config") in configs]
    ok = {r["task_key"] for r in rows if r.get("status") == STATUS_OK}
    complete = _complete_grasps(cell_tasks, {r["task_key"] for r in rows})
    n_grasps = len({t.grasp.grasp_id for ts in cell_tasks.values() for t in ts})
    cells = grid_cells(
        predictions_from_rows(rows),
        labels,
        e_values,
        mu_values,
        n_grasps,
        complete,
        paper_rounding,
        model=model,
    )
    note = (
        f"{'IPC' if model == IPC else 'MuJoCo'} model, {len(ok)} finished trials in {results.name}; {n_grasps} grasps per cell. "
        "Scores as `ipcgrasp evaluate` (paper's AP/AR/F1). (k/N grasps): cell not finished yet; bold: best."
    )
    text = "\n".join(
        [
            markdown_table(cells, "f1", "## F1"),
            markdown_table(cells, "ap", "## AP"),
            markdown_table(cells, "ar", "## AR"),
            note,
            "",
        ]
    )
    atomic_write_text(out / "grid.md", text, overwrite=overwrite)
    atomic_write_text(out / "grid.json", _grid_json(cells), overwrite=overwrite)
    from engine.evaluation.plots import heatmap

    heatmap(values(cells, "f1"), e_values, mu_values, out / "f1_heatmap.png", overwrite=overwrite)
    print(markdown_table(cells, "f1", "F1 (rows E in Pa, columns mu)"))
    print(f"tables -> {out / 'grid.md'}, heat map -> {out / 'f1_heatmap.png'}")


def _complete_grasps(
    cell_tasks: dict[tuple[float, float], list[Task]], finished: set[str]
) -> dict[tuple[float, float], int]:
    """Per (E, mu) cell, the grasps all of whose tasks have a row in `finished`."""
    complete: dict[tuple[float, float], int] = {}
    for cell, ts in cell_tasks.items():
        per_grasp: dict[str, list[str]] = defaultdict(list)
        for t in ts:
            per_grasp[t.grasp.grasp_id].append(t.key)
        complete[cell] = sum(all(k in finished for k in keys) for keys in per_grasp.values())
    return complete


def _grid_json(cells: list[list[GridCell]]) -> str:
    """grid.json: one object per cell with its completeness and scores."""
    return (
        json.dumps(
            [
                {
                    "E": c.youngs_modulus_pa,
                    "mu": c.mu,
                    "complete": c.complete,
                    "grasps_finished": c.grasps_finished,
                    "grasps_total": c.grasps_total,
                    "scores": c.scores.as_json() if c.scores else None,
                }
                for row in cells
                for c in row
            ],
            indent=2,
        )
        + "\n"
    )
