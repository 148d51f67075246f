"""The grip force a Psi_th stop implies on the current grasp, computed in a worker process.

Psi_th is a strain energy; what it means as a force depends on the grasp (contact area, edge
contacts), so it is measured by squeezing: engine.grasp.calibration.force_at_psi, run by
app.workers.psi_force. The answer goes into the model (AppModel.set_psi_force); the parameter
dock shows it beside Psi_th and the analytic models use it as their grip force.
"""

from __future__ import annotations

import logging
from collections import OrderedDict

from PySide6.QtCore import QObject

from app.model import AppModel
from app.model.grip import PsiForceState, run_grip, squeeze_key
from app.worker_client import WorkerClient
from app.workers.messages import PsiForceFound, PsiForceJob
from app.workers.psi_force import psi_force_main

log = logging.getLogger(__name__)

DEBOUNCE_MS = 300  # a burst of edits (typing, the slider, gizmo drags) is one squeeze
PUMP_INTERVAL_MS = 50
NICE = 10  # like the default grasp's worker: below the GUI, above the simulation workers
CACHE = 64  # squeezes remembered (undo, redo and going back to a value need none)


class PsiForceController(QObject):
    """Keeps `AppModel.psi_force` up to date for the current grasp and parameters.

    On every change of the grasp or the parameters (`grasp_changed`) and when a run finishes:
    no Psi_th stop -> "off"; the default grasp still being found -> "waiting"; a finished run
    of this very grasp and parameters -> "run" (the force it reached); an answer already known
    for these inputs -> "done"/"error"; else "computing" and, after a debounce, a job to the
    worker process (started on first use). Only the answer for the current inputs is shown;
    answers are cached by their inputs.
    """

    def __init__(self, model: AppModel, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.model = model
        # Every answer is cached by its inputs, a stale one too: nothing computed is lost.
        self.client = WorkerClient(
            self, "ipcgrasp-psi-force", psi_force_main, self._answer, poll_ms=PUMP_INTERVAL_MS,
            args=lambda p: (p.inbox, p.outbox, NICE), debounce_ms=DEBOUNCE_MS, retries=1,
            on_stale=self._answer, on_died=self._worker_died, prepare=self._prepare,
        )  # fmt: skip
        self._sent: dict[int, tuple] = {}  # request -> inputs key
        self._cache: OrderedDict[tuple, PsiForceState] = OrderedDict()
        model.document_changed.connect(lambda _doc: self._forget())
        model.grasp_changed.connect(self.refresh)
        model.run_finished.connect(lambda _run, _cancelled: self.refresh())
        model.run_loaded.connect(lambda _run: self.refresh())

    @property
    def jobs_sent(self) -> int:
        """Squeezes sent to the worker (tests, tools)."""
        return self.client.sent

    # --- lifetime -----------------------------------------------------------------------------
    def start(self) -> None:
        """Spawn the worker process if it is not running, and start polling it."""
        self.client.start()

    def shutdown(self) -> None:
        """Stop polling and the worker process."""
        self.client.shutdown(timeout_s=1.0)

    # --- requests -----------------------------------------------------------------------------
    def _forget(self) -> None:
        """Another document: the answers known are about another object."""
        self._cache.clear()
        self._sent.clear()

    def refresh(self) -> None:
        """Put what is known about the current inputs into the model; ask for what is not."""
        m, d = self.model, self.model.doc
        if d is None:
            return
        if d.params.squeeze_stop()[0] != "psi":
            self.client.cancel_pending()
            m.set_psi_force(PsiForceState("off"))
            return
        if m.finding_default:
            self.client.cancel_pending()
            m.set_psi_force(PsiForceState("waiting"))
            return
        key = squeeze_key(d)
        known = self._cache.get(key)
        reached = run_grip(d)
        if reached is not None:
            result = known.result if known is not None else None
            self.client.cancel_pending()
            m.set_psi_force(PsiForceState("run", key, result, reached=reached))
            return
        if known is not None:
            self._cache.move_to_end(key)
            self.client.cancel_pending()
            m.set_psi_force(known)
            return
        m.set_psi_force(PsiForceState("computing", key))
        self.client.submit(PsiForceJob(self.client.new_request(), d.obj, d.grasp, d.params))

    def _prepare(self, job: PsiForceJob) -> PsiForceJob | None:
        """Send the job only if its inputs are still the ones being computed."""
        m, d = self.model, self.model.doc
        if d is None or m.psi_force.status != "computing" or m.psi_force.key != squeeze_key(d):
            return None
        self._sent[job.request] = squeeze_key(d)
        return job

    # --- answers ------------------------------------------------------------------------------
    def _answer(self, msg: PsiForceFound) -> None:
        """Cache the answer by its inputs; show it when they are the current ones."""
        key = self._sent.pop(msg.request, None)
        for older in [r for r in self._sent if r < msg.request]:
            del self._sent[older]  # the worker skipped them for this newer one
        if key is None:
            return  # a request nobody waits for any more
        if msg.result is None:
            state = PsiForceState("error", key, error=msg.error)
        else:
            state = PsiForceState("done", key, msg.result)
            log.info(
                "Psi_th force: %s (%.1f s, %d frames)",
                msg.result.describe(),
                msg.seconds,
                msg.result.frames,
            )
        self._cache[key] = state
        while len(self._cache) > CACHE:
            self._cache.popitem(last=False)
        d = self.model.doc
        if d is not None and squeeze_key(d) == key:
            self.refresh()

    def _worker_died(self, job: PsiForceJob | None, how: str) -> None:
        """The worker died again with the job sent twice (WorkerClient restarts it)."""
        key = None if job is None else self._sent.pop(job.request, None)
        if key is None:
            return
        self._cache[key] = PsiForceState(
            "error", key, error=f"the worker process died twice ({how})"
        )
        self.refresh()
