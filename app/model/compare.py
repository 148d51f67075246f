"""Comparing runs (Qt-free): a pinned trial kept aside while other runs are made, what differs
between its inputs and the shown run's, and its frame at a given time of the trial."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from app.model.trial_series import TrialSeries
from engine import schema
from engine.grasp.grasp import Grasp
from engine.grasp.params import SimulationParams
from engine.io.session import TrialRecord


@dataclass(frozen=True, eq=False)
class PinnedTrial:
    """A trial kept for comparison: its inputs, frames and time series."""

    label: str  # "run 2, trial 0"
    run_id: int
    trial: int
    grasp: Grasp
    params: SimulationParams
    record: TrialRecord
    series: TrialSeries
    pad_faces: np.ndarray  # surface triangles of its pads (its parameters' pad mesh)

    def frame_at(self, time_s: float) -> int:
        """The pinned frame nearest simulated time `time_s` (its last one past its end; -1
        without frames)."""
        t = self.series.time_s
        if not t or not math.isfinite(time_s):
            return -1
        return int(np.argmin(np.abs(np.asarray(t) - time_s)))


def _text(value: object, unit: str) -> str:
    if value is None:
        return "none"
    if isinstance(value, float):
        return f"{value:.3g}{' ' + unit if unit else ''}"
    return str(value)


def _differences(pinned: SimulationParams, shown: SimulationParams) -> list[tuple[str, str, str]]:
    """(label, pinned value, shown value) of every field that differs, in declaration order,
    values with their unit (label and unit from the field's declaration, engine.schema)."""
    out = []
    for d in schema.declared(SimulationParams):
        a, b = getattr(pinned, d.name), getattr(shown, d.name)
        if a == b or (isinstance(a, float) and isinstance(b, float) and math.isclose(a, b)):
            continue
        out.append((d.spec.label or d.name, _text(a, d.spec.unit), _text(b, d.spec.unit)))
    return out


def param_changes(pinned: SimulationParams, shown: SimulationParams) -> list[str]:
    """What differs between two runs' parameters, one line per field in declaration order:
    "E 1e+07 Pa → 1e+08 Pa"."""
    return [f"{label} {a} → {b}" for label, a, b in _differences(pinned, shown)]


def grasp_change(pinned: Grasp, shown: Grasp) -> str:
    """How far the shown run's grasp is from the pinned one's ("" when it is the same)."""
    moved = float(np.linalg.norm(shown.center - pinned.center)) * 1e3
    turned = math.degrees(math.acos(min(1.0, abs(float(np.dot(shown.axis, pinned.axis))))))
    angle = abs(math.degrees(shown.approach_angle_rad - pinned.approach_angle_rad))
    if moved < 1e-6 and turned < 1e-6 and angle < 1e-6:
        return ""
    return f"grasp moved {moved:.1f} mm, axis turned {turned:.1f}°, approach {angle:.1f}°"


COMPARE_VIEWS = ("overlay", "side")  # the pinned trial outlined over the shown one, or beside it


def side_labels(
    pinned: SimulationParams, shown: SimulationParams, pinned_grasp: Grasp, shown_grasp: Grasp
) -> tuple[list[str], list[str]]:
    """What each run of a side-by-side comparison is labelled with: the values of the
    parameters that differ, as "E 1e+08 Pa", pinned first, then shown (the grasp's move on
    the shown side when it moved)."""
    diffs = _differences(pinned, shown)
    left = [f"{label} {a}" for label, a, _ in diffs]
    right = [f"{label} {b}" for label, _, b in diffs]
    moved = grasp_change(pinned_grasp, shown_grasp)
    if moved:
        right.append(moved)
    return left, right
