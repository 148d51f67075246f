"""Compare runs: pin the trial shown, then every later run is drawn against it (dashed curves
in the plots, outlined pads and object in the view) and what differs in their inputs is
listed above the runs table."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from app.model import AppModel
from app.model.compare import PinnedTrial

if TYPE_CHECKING:  # the window wires these; importing them here would be circular
    from PySide6.QtWidgets import QLabel

    from app.ui import Feedback


class CompareController:
    """Simulation > Pin trial for comparison / End comparison, and the comparison's text.

    `label` (a QLabel above the runs table) says what the shown run is compared with and what
    differs; it is hidden when nothing is pinned."""

    def __init__(
        self,
        model: AppModel,
        label: QLabel,
        ui: Feedback,
        view: Callable[[], str] = lambda: "overlay",
    ) -> None:
        self.model = model
        self.label = label
        self.ui = ui
        self.view = view  # how the view draws the pinned trial: "overlay" or "side"
        for event in (model.pinned_changed, model.run_started, model.run_loaded):
            event.connect(lambda *_a: self.refresh())
        model.document_changed.connect(lambda _doc: self.refresh())
        model.edited.connect(lambda _changed: self.refresh())
        self.refresh()

    def pin(self) -> bool:
        """Pin the trial shown in the timeline (it needs frames)."""
        pinned = self.model.pin_shown_trial()
        if pinned is None:
            self.ui.status(
                "no trial with frames is shown: simulate, or pick a trial in the Runs table"
            )
            return False
        self.ui.status(
            f"{pinned.label} pinned: the next runs are drawn against it (dashed curves, "
            "outlined pads); Simulation > End comparison stops"
        )
        return True

    def end(self) -> None:
        """End the comparison."""
        self.model.unpin()
        self.ui.status("comparison ended")

    def text(self) -> str:
        """What the label says ("" when nothing is pinned)."""
        pinned: PinnedTrial | None = self.model.pinned
        if pinned is None:
            return ""
        changes = self.model.comparison()
        where = "beside the shown run" if self.view() == "side" else "outlined"
        head = f"Compared with {pinned.label} (dashed in the plots, {where} in the view)"
        if not changes:
            return f"{head}: same parameters and grasp"
        return f"{head}; differs in: " + "; ".join(changes)

    def refresh(self) -> None:
        """Update the label."""
        text = self.text()
        self.label.setText(text)
        self.label.setToolTip(text)
        self.label.setVisible(bool(text))
