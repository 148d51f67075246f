"""Runs: Simulate / Cancel, and the trials' frames and results coming back from the pool."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from app.model import AppModel
from app.workers.messages import FramePacket
from engine.grasp.frames import TrialResult
from engine.grasp.push import Push

if TYPE_CHECKING:  # the window wires these; importing them here would be circular
    from app.model.pushing import PushTarget
    from app.sim_pool import SimulationPool
    from app.ui import Feedback

log = logging.getLogger(__name__)


class RunController:
    """Starts runs on the simulation pool and feeds what streams back into the model.

    `pool` has submit(run_id, jobs), cancel(), is_running() and the signals trial_started,
    frame_arrived, trial_ended, run_finished (app.sim_pool.SimulationPool, or a fake in tests).
    `confirm_replace` asks before unsaved results are replaced; `follow_live` says whether the
    timeline follows the live trial.
    """

    def __init__(
        self,
        model: AppModel,
        pool: SimulationPool,
        ui: Feedback,
        confirm_replace: Callable[[], bool],
        follow_live: Callable[[], bool] = lambda: True,
    ) -> None:
        self.model = model
        self.pool = pool
        self.ui = ui
        self.confirm_replace = confirm_replace
        self.follow_live = follow_live

    def connect_pool(self, pool: SimulationPool) -> None:
        """Use `pool` and listen to its signals (the window calls this once per pool)."""
        self.pool = pool
        pool.trial_started.connect(self.on_trial_started)
        pool.frame_arrived.connect(self.on_frame)
        pool.trial_ended.connect(self.on_trial_ended)
        pool.run_finished.connect(self.on_run_finished)

    def start_simulation(self, max_frames: int | None = None) -> bool:
        """Run the N planned trials of the current grasp in the worker processes (F5); each
        trial stops after `max_frames` frames when given (the smoke test's short run)."""
        m = self.model
        if m.doc is None:
            return False
        if self.pool.is_running():
            self.ui.status("a simulation is already running (Esc cancels it)")
            return False
        if m.finding_default:
            self.ui.status("the default grasp is still being found: Simulate once it is shown")
            return False
        if m.grasp_valid is False:
            self.ui.error("Invalid grasp", f"{m.grasp_reason}\n\nMove the grasp before simulating.")
            return False
        if not self.confirm_replace():
            return False
        jobs = m.begin_run(max_frames)
        assert m.doc.run is not None
        self.pool.submit(m.doc.run.run_id, jobs)
        self.ui.status(f"simulating {len(jobs)} trial(s)…")
        return True

    def start_push(self, target: PushTarget, push: Push) -> bool:
        """Re-simulate `target`'s trial and push the held object (app/controllers/push.py)."""
        if self.pool.is_running() or self.model.doc is None:
            return False
        if not self.confirm_replace():
            return False
        jobs = self.model.begin_push(target, push)
        assert self.model.doc.run is not None
        self.pool.submit(self.model.doc.run.run_id, jobs)
        self.ui.status(
            f"pushing trial {jobs[0].trial} with {push.magnitude_n:.2f} N after its hold "
            "(the trial runs again first)…"
        )
        return True

    def cancel_simulation(self) -> None:
        """Stop the run (Esc); the frames so far are kept."""
        if self.pool.is_running():
            self.pool.cancel()
            self.ui.status("cancelling… the frames so far are kept")

    def on_trial_started(self, trial: int) -> None:
        """A worker took `trial`: mark it running, show it if the timeline follows live."""
        self.model.trial_started(trial)
        if self.follow_live() and self.model.trial != trial:
            self.model.select_trial(trial)

    def on_frame(self, packet: FramePacket) -> None:
        """Store a streamed frame (drawing happens on the display clock, newest wins)."""
        self.model.add_frame(packet)

    def on_trial_ended(self, trial: int, result: TrialResult, status: str) -> None:
        """Record a trial's outcome."""
        self.model.end_trial(trial, result, status)
        if status == "failed":
            self.ui.status(f"trial {trial} failed: {result.reason} {result.error}".strip())

    def on_run_finished(self, run_id: int, cancelled: bool) -> None:
        """Every trial ended: tell the views, then summarise."""
        self.model.finish_run(cancelled)
        summary = self.model.run_summary(cancelled)
        if summary:
            self.ui.status(summary)
