"""The app's state (document, run, selection, grasp validity) with change events; no Qt.

Controllers change the state through the methods here; views subscribe to the events and
redraw from the state. Nothing here touches a widget, so the whole model runs in a test
without a display.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path

import numpy as np

from app.model.compare import PinnedTrial, grasp_change, param_changes
from app.model.dataset import DataSet
from app.model.dataset_browsing import DataSetBrowsing
from app.model.document import Document, ProvisionalGrasp, Run, build_pad
from app.model.edit_state import EditState
from app.model.events import Event
from app.model.grip import (
    AnalyticForce,
    PsiForceState,
    RunGrip,
    analytic_force,
    run_grip,
    squeeze_key,
)
from app.model.pad_fields import Fields, PadFields
from app.model.pushing import PushTarget, push_run, push_summary
from app.model.trial_series import TrialSeries
from app.workers.messages import FramePacket, TrialJob
from engine.grasp.antipodal import contacts_along_axis
from engine.grasp.frames import TrialResult
from engine.grasp.params import SimulationParams
from engine.grasp.push import Push
from engine.grasp.sampler import GraspCandidate
from engine.grasp.trials import plan_trials
from engine.io.session import TrialRecord

FINAL_STATUSES = ("done", "failed", "cancelled")


def success_summary(records: Iterable[TrialRecord]) -> str:
    """How many trials lifted the object, and R. Cancelled trials did not finish: they are
    left out of R and counted apart ("1 of 1 finished trials lifted (2 cancelled), R = 1.00")."""
    recs = list(records)
    finished = [r for r in recs if r.status in ("done", "failed") and r.result is not None]
    cancelled = sum(r.status == "cancelled" for r in recs)
    ok = sum(bool(r.result.success) for r in finished if r.result is not None)
    n = len(finished)
    if not cancelled:
        return f"{ok}/{len(recs)} trials lifted the object (R = {ok / max(len(recs), 1):.2f})"
    if n == 0:
        return f"no trial finished ({cancelled} cancelled)"
    return f"{ok} of {n} finished trials lifted ({cancelled} cancelled), R = {ok / n:.2f}"


class AppModel(DataSetBrowsing):
    """Everything the window shows, with an event per kind of change.

    Events (arguments in brackets):
      document_changed (doc)    a new document is current (no grasp check yet)
      edited (object_changed)   grasp, parameters, trials, seed, pose or density were set
      grasp_changed ()          the grasp or its inputs changed: validity unknown, re-check
      grasp_checked (valid, reason)  the grasp check answered
      run_started (run)         a run's trials are queued
      trial_updated (record)    a trial's status or result changed
      frame_added (trial, index)  a frame streamed in (stored; drawing is up to the views)
      run_finished (run, cancelled)
      trial_selected (trial, series)  the trial shown in the timeline changed
      saved (path)              the document was saved (no unsaved results)
      candidates_changed (candidates)  sampled grasps were set or cleared (engine
                                GraspCandidates, best first; cleared when the object, its pose
                                or the gripper changes)
      dataset_changed (dataset)  a data set was opened (None: closed); it outlives documents
      dataset_selected (index)  the data-set grasp shown changed (-1: none)
      run_loaded (run)          a recorded run (a data set's trial with frames) replaces the run
      pinned_changed (pinned)   a trial was pinned for comparison (None: the comparison ended)
      psi_force_changed (state)  what is known about the grip force of the Psi_th stop on the
                                current grasp changed (app.model.grip.PsiForceState)
    """

    def __init__(self) -> None:
        self.doc: Document | None = None
        self.mode = "edit"  # "edit": open gripper at the grasp; "play": a trial's frames
        self.trial = -1  # trial shown in the timeline
        self.grasp_valid: bool | None = None  # None: not checked yet
        self.grasp_reason = ""
        # The jaw contacts apart along the axis, between the open jaws (None: the line misses).
        self.grasp_width_mm: float | None = None
        # The default grasp's warning that it cannot carry the object's weight, with the grasp
        # it is about: shown while that grasp is the document's (grasp_warning).
        self.default_warning: tuple[object, str] | None = None
        self.series: dict[int, TrialSeries] = {}
        self.run_counter = 0
        self.run_started_at = 0.0
        self.pads = PadFields()
        self.document_changed = Event("document_changed")
        self.edited = Event("edited")
        self.grasp_changed = Event("grasp_changed")
        self.grasp_checked = Event("grasp_checked")
        self.run_started = Event("run_started")
        self.trial_updated = Event("trial_updated")
        self.frame_added = Event("frame_added")
        self.run_finished = Event("run_finished")
        self.trial_selected = Event("trial_selected")
        self.saved = Event("saved")
        self.candidates: list[GraspCandidate] = []
        self.candidates_changed = Event("candidates_changed")
        self.dataset: DataSet | None = None
        self.dataset_index = -1  # the data-set grasp shown (index into dataset.grasps)
        self.dataset_changed = Event("dataset_changed")
        self.dataset_selected = Event("dataset_selected")
        self.run_loaded = Event("run_loaded")
        self.pinned: PinnedTrial | None = None  # a trial kept to compare other runs with
        self.pinned_changed = Event("pinned_changed")
        self.psi_force = PsiForceState("off")
        self.psi_force_changed = Event("psi_force_changed")

    # --- document -----------------------------------------------------------------------------
    @property
    def unsaved_results(self) -> bool:
        """A run with frames or results that is not saved yet."""
        d = self.doc
        return (
            d is not None
            and d.dirty
            and d.run is not None
            and any(r.frames or r.result is not None for r in d.run.trials.values())
        )

    def set_document(self, doc: Document, keep_run: bool = False) -> None:
        """Make `doc` current; its run (a session's trials) is kept only with `keep_run`."""
        self.doc = doc
        doc.dirty = False
        self.series = {}
        self.trial = -1
        self.mode = "edit"
        self.pads.reset()
        self.pads.update(doc.params)
        if keep_run and doc.run is not None:
            for rec in doc.run.trials.values():
                self.series[rec.trial] = TrialSeries.from_frames(rec.frames)
        else:
            doc.run = None
        self.set_candidates([])
        self.document_changed.emit(doc)
        # The grasp first (views draw the open gripper), then a session's first trial, so the
        # view shows the frame the timeline shows, not the open gripper.
        self._grasp_changed()
        if doc.run is not None and doc.run.trials:
            self.select_trial(min(doc.run.trials))

    def mark_saved(self, path: Path) -> None:
        """The document now lives in `path` and has no unsaved results."""
        if self.doc is None:
            return
        self.doc.path = path
        self.doc.dirty = False
        self.doc.saved_run = self.doc.run
        self.saved.emit(path)

    @property
    def finding_default(self) -> bool:
        """The grasp is a stand-in (ProvisionalGrasp) while a worker finds the default grasp:
        views show "finding a grasp", the analysis waits for the grasp found."""
        return self.doc is not None and isinstance(self.doc.grasp, ProvisionalGrasp)

    @property
    def grasp_warning(self) -> str:
        """The default grasp's warning while the document's grasp is the one it is about."""
        w = self.default_warning
        return w[1] if w is not None and self.doc is not None and self.doc.grasp is w[0] else ""

    # --- editing ------------------------------------------------------------------------------
    def edit_state(self) -> EditState:
        """The current editable state (what undo/redo snapshots)."""
        d = self.doc
        assert d is not None
        return EditState(
            d.grasp, d.params, d.spec.n_trials, d.spec.seed, d.analytic_force_n,
            d.density_kg_m3, d.pose_index,
        )  # fmt: skip

    def apply_edit(self, s: EditState) -> None:
        """Make `s` current (undo/redo and every edit go through here)."""
        d = self.doc
        if d is None:
            return
        object_changed = False
        if s.pose_index != d.pose_index:
            d.set_pose(s.pose_index, find_default=False)  # the state's grasp follows
            object_changed = True
        if s.density_kg_m3 != d.density_kg_m3:
            d.set_density(s.density_kg_m3)
            object_changed = True
        gripper = (d.params.gripper, d.params.open_width_m, d.params.pad, d.params.mu)
        if object_changed or gripper != (s.params.gripper, s.params.open_width_m, s.params.pad,
                                         s.params.mu):  # fmt: skip
            self.set_candidates([])  # sampled for another object, pose or gripper
        d.grasp = s.grasp
        d.params = s.params
        d.spec = replace(d.spec, n_trials=s.n_trials, seed=s.seed)
        d.analytic_force_n = s.analytic_force_n
        self.pads.update(d.params)
        self.edited.emit(object_changed)
        self._grasp_changed()

    def set_candidates(self, candidates: list[GraspCandidate]) -> None:
        """Show these sampled grasps (best first); [] clears them."""
        if not candidates and not self.candidates:
            return
        self.candidates = list(candidates)
        self.candidates_changed.emit(self.candidates)

    def _grasp_changed(self) -> None:
        d = self.doc
        if d is None:
            return
        self.grasp_valid = None
        contacts = contacts_along_axis(d.obj, d.grasp, d.params.open_width_m)
        self.grasp_width_mm = (
            None
            if contacts is None
            else float(np.dot(contacts[1] - contacts[0], d.grasp.axis)) * 1e3
        )
        self.mode = "edit"
        self.grasp_changed.emit()

    def set_grasp_check(self, valid: bool, reason: str) -> None:
        """The answer of the grasp check for the current grasp."""
        self.grasp_valid = valid
        self.grasp_reason = reason
        self.grasp_checked.emit(valid, reason)

    @property
    def closing_force_n(self) -> float:
        """The grip force per jaw the analytic models use (see `analytic_force`)."""
        return self.analytic_force().force_n

    def analytic_force(self) -> AnalyticForce:
        """The grip force the analytic models use and its source: the force a finished run of
        the current grasp and parameters reached at the end of its squeezes; else the force
        the squeeze stops at (the gripper's or the one set); with a Psi_th stop, the force it
        implies on this grasp once computed, else the Analytic force field."""
        d = self.doc
        assert d is not None
        return analytic_force(d, self.psi_force, squeeze_key(d))

    def run_grip(self) -> RunGrip | None:
        """The squeeze force the finished run of the current grasp and parameters reached."""
        return run_grip(self.doc)

    def set_psi_force(self, state: PsiForceState) -> None:
        """What is known about the grip force of the Psi_th stop on the current grasp."""
        if state == self.psi_force:
            return
        self.psi_force = state
        self.psi_force_changed.emit(state)

    # --- runs ---------------------------------------------------------------------------------
    def begin_run(self, max_frames: int | None = None) -> list[TrialJob]:
        """Plan the trials of the current grasp (engine plan_trials), make them the current
        run (queued) and return one job per trial for the worker processes."""
        d = self.doc
        assert d is not None
        self.run_counter += 1
        run = d.new_run(self.run_counter)
        jobs = []
        for planned in plan_trials(d.grasp, d.spec):
            k = planned.index
            run.trials[k] = TrialRecord(k, planned.pose, "queued")
            jobs.append(TrialJob(run.run_id, planned, d.obj, d.params, max_frames))
        self._start(run, 0)
        return jobs

    def begin_push(self, target: PushTarget, push: Push) -> list[TrialJob]:
        """Make the run that re-simulates `target`'s trial and then pushes the held object the
        current run (queued); its one job for a worker."""
        d = self.doc
        assert d is not None
        self.run_counter += 1
        run, planned = push_run(target, push, self.run_counter)
        d.run = run
        d.dirty = True
        obj = run.obj if run.obj is not None else d.obj
        self._start(run, planned.index)
        return [TrialJob(run.run_id, planned, obj, run.params, push=push)]

    def _start(self, run: Run, shown: int) -> None:
        """The run's trials are queued: empty series, the run's clock, trial `shown` shown."""
        self.series = {k: TrialSeries.empty() for k in run.trials}
        self.pads.reset_ranges()
        self.trial = -1
        self.run_started_at = time.perf_counter()
        self.run_started.emit(run)
        self.select_trial(shown)

    def _record(self, trial: int, run_id: int | None = None) -> TrialRecord | None:
        d = self.doc
        if d is None or d.run is None or (run_id is not None and run_id != d.run.run_id):
            return None
        return d.run.trials.get(trial)

    def trial_started(self, trial: int) -> None:
        """A worker started `trial` of the current run."""
        rec = self._record(trial)
        if rec is not None:
            rec.status = "running"
            self.trial_updated.emit(rec)

    def add_frame(self, packet: FramePacket) -> bool:
        """Store a streamed frame (every frame is kept for the timeline); False if it belongs
        to no current trial."""
        rec = self._record(packet.trial, packet.run_id)
        if rec is None:
            return False
        rec.frames.append(packet.frame)
        rec.energy_density.append(packet.energy)
        if rec.status == "queued":
            rec.status = "running"
        self.series.setdefault(packet.trial, TrialSeries.empty()).append(packet.frame)
        self.frame_added.emit(packet.trial, len(rec.frames) - 1)
        return True

    def end_trial(self, trial: int, result: TrialResult, status: str) -> None:
        """A trial ended with `status` (done, failed or cancelled)."""
        rec = self._record(trial)
        if rec is not None:
            rec.result = result
            rec.status = status
            self.trial_updated.emit(rec)

    def finish_run(self, cancelled: bool) -> None:
        """Every trial of the current run has ended (run is None if the document changed)."""
        d = self.doc
        self.run_finished.emit(None if d is None else d.run, cancelled)

    def trials_ended(self) -> int:
        """How many trials of the current run have ended."""
        d = self.doc
        if d is None or d.run is None:
            return 0
        return sum(r.status in FINAL_STATUSES for r in d.run.trials.values())

    def run_summary(self, cancelled: bool) -> str:
        """One line on the run that just ended (for the status bar)."""
        d = self.doc
        if d is None or d.run is None:
            return ""
        took = time.perf_counter() - self.run_started_at
        word = "cancelled" if cancelled else "finished"
        pushed = push_summary(d.run)
        return f"run {word}: {success_summary(d.run.trials.values())} in {took:.1f} s" + (
            f"; {pushed}" if pushed else ""
        )

    # --- selection and frames -----------------------------------------------------------------
    def select_trial(self, trial: int) -> None:
        """Show `trial` of the current run in the timeline (play mode if it has frames)."""
        d = self.doc
        if d is None or d.run is None or trial not in d.run.trials:
            return
        self.trial = trial
        series = self.series.setdefault(trial, TrialSeries.from_frames(d.run.trials[trial].frames))
        self.trial_selected.emit(trial, series)
        if len(series):
            self.mode = "play"

    def selected_record(self) -> TrialRecord | None:
        """The record of the trial shown in the timeline, if any."""
        return self._record(self.trial)

    def field_params(self) -> SimulationParams | None:
        """The parameters the shown frames were simulated with."""
        d = self.doc
        if d is None:
            return None
        return d.run.params if d.run is not None else d.params

    def fields_for(self, rec: TrialRecord, index: int, mode: str) -> Fields | None:
        """Colour field of a frame of `rec` for colour mode `mode`."""
        params = self.field_params()
        return None if params is None else self.pads.fields_for(rec, index, mode, params)

    def field_range(self, rec: TrialRecord, mode: str) -> float:
        """Top of the colour scale of `rec` for `mode`."""
        params = self.field_params()
        return 1.0 if params is None else self.pads.field_range(rec, mode, params)

    def fill_energy(self, rec: TrialRecord) -> None:
        """Compute the energy fields of frames stored without them."""
        d = self.doc
        if d is not None and d.run is not None:
            self.pads.fill_energy(rec, d.run.params)

    # --- comparing runs -----------------------------------------------------------------------
    def pin_shown_trial(self) -> PinnedTrial | None:
        """Keep the trial shown in the timeline (with its frames) to compare the next runs
        with; None when no trial with frames is shown."""
        d, rec = self.doc, self.selected_record()
        if d is None or d.run is None or rec is None or not rec.frames:
            return None
        series = TrialSeries.from_frames(rec.frames)
        label = f"run {d.run.run_id}, trial {rec.trial}"
        faces = np.asarray(build_pad(d.run.params).surface_faces)
        self.pinned = PinnedTrial(
            label, d.run.run_id, rec.trial, d.run.grasp, d.run.params, rec, series, faces
        )
        self.pinned_changed.emit(self.pinned)
        return self.pinned

    def unpin(self) -> None:
        """End the comparison."""
        if self.pinned is not None:
            self.pinned = None
            self.pinned_changed.emit(None)

    def comparison(self) -> list[str]:
        """What differs between the pinned trial's run and the shown run (while the pinned run
        is the one shown, or there is none: the current settings, which the next run uses):
        parameter lines, then the grasp's move; [] when nothing does."""
        d, pinned = self.doc, self.pinned
        if d is None or pinned is None:
            return []
        other = d.run is not None and d.run.run_id != pinned.run_id
        params, grasp = (d.run.params, d.run.grasp) if other and d.run else (d.params, d.grasp)
        lines = param_changes(pinned.params, params)
        moved = grasp_change(pinned.grasp, grasp)
        return [*lines, moved] if moved else lines
