"""Sample grasps: candidates from a worker process, drawn as glyphs; a click picks one."""

from __future__ import annotations

import logging
import math
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject

from app.model import AppModel
from app.worker_client import WorkerClient
from app.workers.messages import SampledGrasps, SampleJob
from app.workers.sampling import sample_main

if TYPE_CHECKING:  # the window wires these; importing them here would be circular
    from app.controllers.editing import EditController
    from app.ui import Feedback

log = logging.getLogger(__name__)

DEFAULT_COUNT = 30
"""Grasps one "Sample grasps" asks for."""


class SamplingController(QObject):
    """Edit > Sample grasps: runs engine.grasp.sampler in its own process (it holds the GIL for
    a second or two) and puts the ranked candidates in the model; `choose(k)` makes candidate
    k the grasp (undoable, through the edit controller)."""

    def __init__(
        self, model: AppModel, editing: EditController, ui: Feedback, parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self.model = model
        self.editing = editing
        self.ui = ui
        self.count = DEFAULT_COUNT
        self.client = WorkerClient(
            self, "ipcgrasp-sampler", sample_main, self._on_answer, poll_ms=50, restart=False,
            on_died=self._worker_died,
        )  # fmt: skip
        self.busy = False

    def sample(self) -> bool:
        """Ask for `count` sampled grasps of the current object, pose and gripper."""
        d = self.model.doc
        if d is None:
            return False
        request = self.client.new_request()
        self.client.submit(SampleJob(request, d.obj, d.params, self.count, int(d.spec.seed)))
        self.busy = True
        self.ui.status(
            f"sampling {self.count} grasps for the {d.params.preset.label} "
            f"({d.params.open_width_m * 1e3:.0f} mm)…"
        )
        return True

    def _on_answer(self, msg: object) -> None:
        if isinstance(msg, SampledGrasps):
            self._answer(msg)

    def _worker_died(self, _job: SampleJob | None, how: str) -> None:
        if self.busy:
            self.busy = False
            self.ui.status(f"grasp sampling stopped: the worker died ({how})")

    def _answer(self, msg: SampledGrasps) -> None:
        self.busy = False
        if msg.error:
            self.model.set_candidates([])
            self.ui.status(f"no sampled grasp: {msg.error}")
            return
        self.model.set_candidates(msg.candidates)
        q = [c.quality for c in msg.candidates if math.isfinite(c.quality)]
        span = f", Soft Point margin {max(q):.3g} (green) to {min(q):.3g} (red)" if q else ""
        self.ui.status(
            f"{len(msg.candidates)} sampled grasps in {msg.seconds:.1f} s{span}: click one to "
            "make it the grasp"
        )

    def choose(self, index: int) -> bool:
        """Make sampled candidate `index` the current grasp (undoable)."""
        cands = self.model.candidates
        if not 0 <= index < len(cands):
            return False
        c = cands[index]
        self.editing.set_grasp(c.grasp, "choose sampled grasp")
        self.ui.status(
            f"sampled grasp {index + 1} of {len(cands)} chosen: contacts "
            f"{c.width_m * 1e3:.1f} mm apart, Soft Point margin {c.quality:.3g}"
        )
        return True

    def shutdown(self) -> None:
        """Stop polling and the worker process."""
        self.client.shutdown(timeout_s=1.0)
