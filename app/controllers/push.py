"""The push: Ctrl + drag on the held object during the hold re-simulates the shown trial and
then pushes it with the force the drag asks for (app.model.pushing: a drag across the object's
size asks for the grip's friction 2 mu F), in a worker, its frames streaming as a run's do;
the status line says whether the grip held."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from app.model import AppModel
from app.model.pushing import PushTarget, push_target
from engine.grasp.push import Push

if TYPE_CHECKING:  # the window wires these; importing them here would be circular
    from app.controllers.runs import RunController
    from app.timeline import Timeline
    from app.ui import Feedback
    from app.viewport import Viewport

MIN_PUSH_WEIGHTS = 0.01  # a release this close to the press is a click, not a push


class PushController:
    """Answers the view's push gesture (app/push_gesture.py) and starts the push's run."""

    def __init__(
        self, model: AppModel, viewport: Viewport, timeline: Timeline, runs: RunController,
        ui: Feedback,
    ) -> None:  # fmt: skip
        self.model = model
        self.viewport = viewport
        self.timeline = timeline
        self.runs = runs
        self.ui = ui
        self.target: PushTarget | None = None
        viewport.push_allowed = self.begin
        viewport.push_dragged.connect(self.preview)
        viewport.push_released.connect(self.release)
        viewport.push_cancelled.connect(self.cancel)

    def begin(self) -> bool:
        """A Ctrl + press on the object: whether the shown frame may be pushed (else why not,
        in the status line)."""
        if self.runs.pool.is_running():
            self.ui.status("a simulation is running: push once it has ended (Esc cancels it)")
            return False
        target = push_target(self.model.doc, self.model.trial, self.timeline.index)
        if isinstance(target, str):
            self.ui.status(target)
            self.target = None
            return False
        self.target = target
        self.ui.status(target.describe(np.zeros(3)), log_it=False)
        return True

    def preview(self, start: np.ndarray, end: np.ndarray) -> None:
        """The drag moved: the arrow and the force it asks for."""
        if self.target is None:
            return
        self.viewport.push_arrow.show(start, end)
        self.ui.status(self.target.describe(self.target.force(end - start)), log_it=False)

    def release(self, point: np.ndarray, start: np.ndarray, end: np.ndarray) -> bool:
        """The drag ended: push with its force at `point` (the object's resting frame)."""
        target, self.target = self.target, None
        self.viewport.push_arrow.clear()
        if target is None:
            return False
        force = target.force(end - start)
        if float(np.linalg.norm(force)) < MIN_PUSH_WEIGHTS * target.weight_n:
            self.ui.status("no push: drag from the object in the push's direction (Ctrl held)")
            return False
        push = Push(
            (float(force[0]), float(force[1]), float(force[2])),
            (float(point[0]), float(point[1]), float(point[2])),
        )
        return self.runs.start_push(target, push)

    def cancel(self) -> None:
        """Esc during the drag."""
        self.target = None
        self.viewport.push_arrow.clear()
        self.ui.status("push cancelled")
