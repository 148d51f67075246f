"""The grip force a Psi_th stop implies on the current grasp, computed in a worker process.

Psi_th is a strain energy; what it means as a force depends on the grasp (contact area, edge
contacts), so it is measured by squeezing: engine.grasp.calibration.force_at_psi, run by
app.workers.psi_force. The answer goes into the model (AppModel.set_psi_force); the parameter
dock shows it beside Psi_th and the analytic models use it as their grip force.
"""

from __future__ import annotations

import logging
from collections import OrderedDict

from PySide6.QtCore import QObject, QTimer

from app.model import AppModel
from app.model.grip import PsiForceState, run_grip, squeeze_key
from app.worker_pump import Pump
from app.workers import WorkerProcess
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
        self._worker: WorkerProcess | None = None
        self._pump = Pump(self, PUMP_INTERVAL_MS, self._drain)
        self._debounce = QTimer(self)
        self._debounce.setSingleShot(True)
        self._debounce.setInterval(DEBOUNCE_MS)
        self._debounce.timeout.connect(self._send)
        self._request = 0
        self._sent: dict[int, tuple] = {}  # request -> inputs key
        self._last_job: PsiForceJob | None = None
        self._resent = False
        self._cache: OrderedDict[tuple, PsiForceState] = OrderedDict()
        self.jobs_sent = 0  # tests, tools
        model.document_changed.connect(lambda _doc: self._forget())
        model.grasp_changed.connect(self.refresh)
        model.run_finished.connect(lambda _run, _cancelled: self.refresh())
        model.run_loaded.connect(lambda _run: self.refresh())

    # --- lifetime -----------------------------------------------------------------------------
    def start(self) -> None:
        """Spawn the worker process if it is not running, and start polling it."""
        if self._worker is None or not self._worker.alive():
            if self._worker is not None:
                self._worker.close_queues()
            self._worker = WorkerProcess("ipcgrasp-psi-force")
            self._worker.start(psi_force_main, self._worker.inbox, self._worker.outbox, NICE)
        self._pump.start()

    def shutdown(self) -> None:
        """Stop polling and the worker process."""
        self._pump.stop()
        self._debounce.stop()
        if self._worker is not None:
            self._worker.stop(timeout_s=1.0)
            self._worker = None

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
            self._debounce.stop()
            m.set_psi_force(PsiForceState("off"))
            return
        if m.finding_default:
            self._debounce.stop()
            m.set_psi_force(PsiForceState("waiting"))
            return
        key = squeeze_key(d)
        known = self._cache.get(key)
        reached = run_grip(d)
        if reached is not None:
            result = known.result if known is not None else None
            self._debounce.stop()
            m.set_psi_force(PsiForceState("run", key, result, reached=reached))
            return
        if known is not None:
            self._cache.move_to_end(key)
            self._debounce.stop()
            m.set_psi_force(known)
            return
        m.set_psi_force(PsiForceState("computing", key))
        self._debounce.start()

    def _send(self) -> None:
        m, d = self.model, self.model.doc
        if d is None or m.psi_force.status != "computing" or m.psi_force.key != squeeze_key(d):
            return
        self.start()
        assert self._worker is not None
        self._request += 1
        job = PsiForceJob(self._request, d.obj, d.grasp, d.params)
        self._sent[self._request] = squeeze_key(d)
        self._last_job, self._resent = job, False
        self._worker.send(job)
        self.jobs_sent += 1

    # --- answers ------------------------------------------------------------------------------
    def _drain(self) -> None:
        worker = self._worker
        if worker is None:
            return
        for msg in worker.drain():
            if isinstance(msg, PsiForceFound):
                self._answer(msg)
        if not worker.alive():
            self._worker_died(worker)

    def _answer(self, msg: PsiForceFound) -> None:
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

    def _worker_died(self, worker: WorkerProcess) -> None:
        log.error("the Psi_th force process died (%s); restarting it", worker.exit_description())
        self.start()
        job = self._last_job
        if job is None or job.request not in self._sent:
            return
        if not self._resent:
            self._resent = True
            assert self._worker is not None
            self._worker.send(job)
            return
        key = self._sent.pop(job.request)
        why = f"the worker process died twice ({worker.exit_description()})"
        self._cache[key] = PsiForceState("error", key, error=why)
        self.refresh()
