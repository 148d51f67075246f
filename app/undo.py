"""Undoable edits: every grasp or parameter change is a snapshot of the editable state."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from PySide6.QtGui import QUndoCommand

from engine.grasp.grasp import Grasp
from engine.grasp.params import SimulationParams

MERGE_WINDOW_S = 1.0  # edits of one field this close together (a slider drag) undo as one


@dataclass(frozen=True, eq=False)
class EditState:
    """What the user edits: grasp, parameters, trials, seed, analytic force, density, pose."""

    grasp: Grasp
    params: SimulationParams
    n_trials: int
    seed: int
    analytic_force_n: float
    density_kg_m3: float | None
    pose_index: int

    def same_as(self, other: EditState) -> bool:
        """Field-wise equality (Grasp holds arrays, so dataclass == cannot compare it)."""
        g, h = self.grasp, other.grasp
        same_grasp = (
            np.array_equal(g.center, h.center)
            and np.array_equal(g.axis, h.axis)
            and g.approach_angle_rad == h.approach_angle_rad
        )
        rest = ("params", "n_trials", "seed", "analytic_force_n", "density_kg_m3", "pose_index")
        return same_grasp and all(getattr(self, k) == getattr(other, k) for k in rest)


class StateCommand(QUndoCommand):
    """Switch between two EditStates; consecutive edits of one field merge."""

    _ids: ClassVar[dict[str, int]] = {}

    def __init__(
        self,
        apply: Callable[[EditState], None],
        old: EditState,
        new: EditState,
        text: str,
        merge_key: str | None = None,
    ) -> None:
        super().__init__(text)
        self._apply = apply
        self.old, self.new = old, new
        self.merge_key = merge_key
        self.stamp = time.monotonic()

    def redo(self) -> None:
        self._apply(self.new)

    def undo(self) -> None:
        self._apply(self.old)

    def id(self) -> int:
        if self.merge_key is None:
            return -1
        return StateCommand._ids.setdefault(self.merge_key, len(StateCommand._ids) + 1)

    def mergeWith(self, other: QUndoCommand) -> bool:
        if not isinstance(other, StateCommand) or other.merge_key != self.merge_key:
            return False
        if other.stamp - self.stamp > MERGE_WINDOW_S:
            return False
        self.new = other.new
        self.stamp = other.stamp
        return True
