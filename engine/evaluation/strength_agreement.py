"""How well each analytic model's margin tracks the grip strength the simulator measured.

A batch run with `--disturb down` (or `all`) records, for each IPC trial that lifted, the pull
down at which the held object left the grip (engine.grasp.disturbance). The analytic models'
margin is the multiple of the object's weight their contacts hold against gravity, so the
measured margin in the same unit is (pull at slip + weight) / weight
(engine.grasp.strength.measured_margin); a grasp whose nominal trial did not lift held less
than its weight and is ranked below every measured one (margin 0). Per model, over the grasps
both give a value: Spearman's rank correlation (does the model order grasps as the simulator
does) and Kendall's tau, with the points for a scatter plot.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field

from engine.analytic import registry
from engine.batch.tasks import STATUS_OK
from engine.grasp.strength import measured_margin
from engine.io.results_csv import cell_float, flag_cell

NOT_LIFTED = 0.0
"""The measured margin of a grasp whose nominal trial did not lift its object."""


@dataclass(frozen=True)
class MeasuredStrength:
    """One grasp's measured margin (NOT_LIFTED when it did not lift) and whether the pull down
    was still held at the ramp's cap (then the margin is a lower bound)."""

    margin: float
    held_at_cap: bool = False


@dataclass
class Agreement:
    """One analytic model against the measured margins."""

    model: str
    label: str
    grasp_ids: list[str] = field(default_factory=list)
    predicted: list[float] = field(default_factory=list)
    measured: list[float] = field(default_factory=list)
    spearman: float = math.nan
    kendall: float = math.nan

    @property
    def grasps(self) -> int:
        """How many grasps both gave a margin for."""
        return len(self.grasp_ids)


def measured_strengths(rows: list[dict[str, str]]) -> dict[str, MeasuredStrength]:
    """grasp_id -> the measured margin of its nominal IPC trial (trial 0), for the grasps whose
    row says whether it lifted and, when it did, carries a pull down at slip."""
    out: dict[str, MeasuredStrength] = {}
    for row in rows:
        if row.get("model") != "ipc" or row.get("status") != STATUS_OK:
            continue
        if row.get("trial", "") not in ("0", ""):
            continue
        gid = row.get("grasp_id", "")
        if not flag_cell(row, "success"):
            out[gid] = MeasuredStrength(NOT_LIFTED)
            continue
        k = cell_float(row.get("strength_down_weights"))
        if math.isfinite(k):
            held = "down" in row.get("strength_held", "").split(";")
            out[gid] = MeasuredStrength(measured_margin(k), held)
    return out


def agreements(rows: list[dict[str, str]]) -> list[Agreement]:
    """Each analytic model's margins in `rows` against the measured ones, registry order; []
    when no row carries a measured strength."""
    from scipy.stats import kendalltau, spearmanr

    measured = measured_strengths(rows)
    if not any(m.margin != NOT_LIFTED for m in measured.values()):
        return []
    predicted: dict[str, dict[str, float]] = defaultdict(dict)
    for row in rows:
        if row.get("status") != STATUS_OK or row.get("grasp_id") not in measured:
            continue
        margin = cell_float(row.get("margin"))
        if math.isfinite(margin):
            predicted[row.get("model", "")][row.get("grasp_id", "")] = margin
    out = []
    for spec in registry.models():
        if not spec.analytic or spec.name not in predicted:
            continue
        a = Agreement(spec.name, spec.label)
        for gid, margin in sorted(predicted[spec.name].items()):
            a.grasp_ids.append(gid)
            a.predicted.append(margin)
            a.measured.append(measured[gid].margin)
        if a.grasps >= 3 and len(set(a.predicted)) > 1 and len(set(a.measured)) > 1:
            a.spearman = float(spearmanr(a.predicted, a.measured).statistic)
            a.kendall = float(kendalltau(a.predicted, a.measured).statistic)
        out.append(a)
    return out


def agreement_table(rows: list[Agreement]) -> str:
    """Markdown: per model, grasps compared and the rank correlations."""
    lines = [
        "| model | grasps | Spearman rho | Kendall tau |",
        "|---|---|---|---|",
    ]
    for a in rows:
        rho = "-" if math.isnan(a.spearman) else f"{a.spearman:.2f}"
        tau = "-" if math.isnan(a.kendall) else f"{a.kendall:.2f}"
        lines.append(f"| {a.label} | {a.grasps} | {rho} | {tau} |")
    return "\n".join(lines) + "\n"
