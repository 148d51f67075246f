"""Undoable edits: every grasp or parameter change is a snapshot of the editable state."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import ClassVar

from PySide6.QtGui import QUndoCommand

from app.model.edit_state import EditState

MERGE_WINDOW_S = 1.0  # edits of one field this close together (a slider drag) undo as one

__all__ = ["MERGE_WINDOW_S", "EditState", "StateCommand"]


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
        """Apply the new state."""
        self._apply(self.new)

    def undo(self) -> None:
        """Apply the old state."""
        self._apply(self.old)

    def id(self) -> int:
        """Qt's merge id: one per merge key, -1 (never merge) without one."""
        if self.merge_key is None:
            return -1
        return StateCommand._ids.setdefault(self.merge_key, len(StateCommand._ids) + 1)

    def mergeWith(self, other: QUndoCommand) -> bool:
        """Absorb `other` if it edits the same field within the merge window."""
        if not isinstance(other, StateCommand) or other.merge_key != self.merge_key:
            return False
        if other.stamp - self.stamp > MERGE_WINDOW_S:
            return False
        self.new = other.new
        self.stamp = other.stamp
        return True
