"""Sample grasps: candidates from a worker process, drawn as glyphs; a click picks one."""

from __future__ import annotations

import logging
import math
from typing import Any

from PySide6.QtCore import QObject

from app.model import AppModel
from app.worker_pump import Pump
from app.workers import WorkerProcess
from app.workers.messages import SampledGrasps, SampleJob
from app.workers.sampling import sample_main

log = logging.getLogger(__name__)

DEFAULT_COUNT = 30
"""Grasps one "Sample grasps" asks for."""


class SamplingController(QObject):
    """Edit > Sample grasps: runs engine.grasp.sampler in its own process (it holds the GIL for
    a second or two) and puts the ranked candidates in the model; `choose(k)` makes candidate
    k the grasp (undoable, through the edit controller)."""

    def __init__(
        self, model: AppModel, editing: Any, ui: Any, parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self.model = model
        self.editing = editing
        self.ui = ui
        self.count = DEFAULT_COUNT
        self._worker: WorkerProcess | None = None
        self._pump = Pump(self, 50, self._drain)
        self._request = 0
        self.busy = False

    def sample(self) -> bool:
        """Ask for `count` sampled grasps of the current object, pose and gripper."""
        d = self.model.doc
        if d is None:
            return False
        if self._worker is None or not self._worker.alive():
            if self._worker is not None:
                self._worker.close_queues()
            self._worker = WorkerProcess("ipcgrasp-sampler")
            self._worker.start(sample_main, self._worker.inbox, self._worker.outbox)
        self._request += 1
        self._worker.send(SampleJob(self._request, d.obj, d.params, self.count, int(d.spec.seed)))
        self.busy = True
        self._pump.start()
        self.ui.status(
            f"sampling {self.count} grasps for the {d.params.preset.label} "
            f"({d.params.open_width_m * 1e3:.0f} mm)…"
        )
        return True

    def _drain(self) -> None:
        worker = self._worker
        if worker is None:
            return
        for msg in worker.drain():
            if isinstance(msg, SampledGrasps) and msg.request == self._request:
                self._answer(msg)
        if self.busy and not worker.alive():
            self.busy = False
            self._pump.stop()
            self.ui.status(f"grasp sampling stopped: the worker died ({worker.exit_description()})")

    def _answer(self, msg: SampledGrasps) -> None:
        self.busy = False
        self._pump.stop()
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
        self._pump.stop()
        if self._worker is not None:
            self._worker.stop(timeout_s=1.0)
            self._worker = None
