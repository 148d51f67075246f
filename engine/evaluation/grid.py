"""The E x mu sensitivity grid (IPC-GraspSim Tables 3.1 and 3.2): scores per cell, as markdown."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from engine.batch.tasks import IPC
from engine.evaluation.labels import ModelPredictions, PhysicalLabel
from engine.evaluation.metrics import Scores, score


@dataclass(frozen=True)
class GridCell:
    """Scores of one model at one (E, mu) cell of the parameter grid (E in Pa)."""

    youngs_modulus_pa: float
    mu: float
    scores: Scores | None  # None: no grasp of this cell has both a prediction and a label
    grasps_finished: int  # grasps whose tasks have all finished
    grasps_total: int

    @property
    def complete(self) -> bool:
        """True once every grasp of the cell has finished all its tasks."""
        return self.grasps_finished >= self.grasps_total


def _close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


def grid_cells(
    predictions: list[ModelPredictions],
    labels: dict[str, PhysicalLabel],
    e_values: Sequence[float],
    mu_values: Sequence[float],
    expected_grasps: int,
    complete_grasps: dict[tuple[float, float], int] | None = None,
    paper_rounding: bool = False,
    model: str = IPC,
) -> list[list[GridCell]]:
    """cells[i][j] for E = e_values[i], mu = mu_values[j], from `model`'s predictions."""
    cells = []
    for e in e_values:
        row = []
        for mu in mu_values:
            match = [
                p
                for p in predictions
                if p.model == model
                and _close(_num(p.settings.get("E")), e)
                and _close(_num(p.settings.get("mu")), mu)
            ]
            robustness: dict[str, float] = {}
            for p in match:
                robustness.update(p.robustness)
            common = [g for g in robustness if g in labels]
            s = (
                score(
                    [robustness[g] for g in common],
                    [labels[g].outcomes for g in common],
                    paper_rounding=paper_rounding,
                )
                if common
                else None
            )
            done = (complete_grasps or {}).get((e, mu), len(robustness))
            row.append(GridCell(e, mu, s, done, expected_grasps))
        cells.append(row)
    return cells


def _num(text: str | None) -> float:
    try:
        return float(text) if text is not None else math.nan
    except ValueError:
        return math.nan


def values(cells: list[list[GridCell]], metric: str = "f1") -> np.ndarray:
    """(rows, cols) array of one Scores field (e.g. "f1") per cell; NaN without scores."""
    return np.array(
        [[getattr(c.scores, metric) if c.scores else math.nan for c in row] for row in cells]
    )


def markdown_table(cells: list[list[GridCell]], metric: str = "f1", title: str = "") -> str:
    """Rows E, columns mu, like Tables 3.1/3.2; unfinished cells show (finished/total grasps)."""
    mus = [c.mu for c in cells[0]] if cells else []
    lines = []
    if title:
        lines += [title, ""]
    lines.append("| E (Pa) \\ mu | " + " | ".join(f"{m:g}" for m in mus) + " |")
    lines.append("|---" * (len(mus) + 1) + "|")
    best = (
        np.nanmax(values(cells, metric))
        if cells and np.isfinite(values(cells, metric)).any()
        else None
    )
    for row in cells:
        out = []
        for c in row:
            if c.scores is None:
                out.append("-")
                continue
            v = getattr(c.scores, metric)
            text = f"{v:.2f}"
            if not c.complete:
                text += f" ({c.grasps_finished}/{c.grasps_total} grasps)"
            if best is not None and math.isclose(v, best) and c.complete:
                text = f"**{text}**"
            out.append(text)
        lines.append(f"| {row[0].youngs_modulus_pa:.0e} | " + " | ".join(out) + " |")
    return "\n".join(lines) + "\n"
