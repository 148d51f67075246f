"""What the 3D view, the timeline and the plots show: the open gripper at the grasp ("edit"
mode) or a trial's frames ("play" mode), on one ~30 Hz display clock.

Frames stream into the model as fast as the workers send them (all are kept for the
timeline); the display clock draws only the timeline's current frame, so the newest frame wins
and the window is composed once per tick however fast frames arrive.
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING

import numpy as np
from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtWidgets import QApplication

from app.controllers.default_grasp import FINDING
from app.controllers.editing import BACK_TO_REST
from app.model import AppModel, Document, Run, TrialSeries
from app.model.compare import COMPARE_VIEWS, PinnedTrial
from app.model.forces import MODES, ForceScale, ForceSizes, ForceView, force_sizes
from app.model.pushing import push_arrow_at
from app.model.side_by_side import side_by_side, side_frame, side_titles
from app.workers.video_job import SideBySide, SideFrame
from engine.io.session import TrialRecord

if TYPE_CHECKING:  # the window wires these; importing them here would be circular
    from app.grasp_dock import GraspDock
    from app.plots import TimePlots
    from app.sim_pool import SimulationPool
    from app.tables import PredictionsPanel
    from app.timeline import Timeline
    from app.ui import Feedback
    from app.viewport import Viewport

log = logging.getLogger(__name__)
DISPLAY_INTERVAL_MS = 33  # frames on screen at most ~30 Hz, newest wins
# A tick builds the newest frame's meshes and arrows, then hands the event loop back for this
# long before the widgets and the view are repainted (one composition of the window): input
# and timers run between the two halves instead of waiting for both.
PRESENT_DELAY_MS = 1
PLOTS_LIVE_INTERVAL_S = 0.25  # the plots repaint at most ~4 times a second while a run streams
COM_MARKER_SIZE = 0.03  # the centre-of-mass marker's radius over the object's diagonal


class SceneController(QObject):
    """Keeps the viewport, timeline and plots in step with the model."""

    frame_displayed = Signal(int, int)  # trial, frame index (after it was drawn)

    def __init__(
        self, model: AppModel, viewport: Viewport, timeline: Timeline, plots: TimePlots,
        predictions: PredictionsPanel, grasp_dock: GraspDock, ui: Feedback, pool: SimulationPool,
        parent: QObject | None,
    ) -> None:  # fmt: skip
        super().__init__(parent)
        self.model = model
        self.viewport = viewport
        self.timeline = timeline
        self.plots = plots
        self.predictions = predictions
        self.grasp_dock = grasp_dock
        self.ui = ui
        self.pool = pool
        self._shown: tuple | None = None  # what the view shows now (run, trial, frame, colour)
        self._frame_on_view = False  # a simulated frame is drawn (not the open gripper)
        self._stream_status = ""  # status text of the newest streamed frame, not yet shown
        self._timeline_dirty = False  # frames arrived for the shown trial
        self.show_forces = False  # contact-force arrows on the shown frame (View menu)
        self.force_mode = "points"  # per contact point or "patches" (app.model.forces.MODES)
        # A pinned trial (compare runs): "overlay" outlines it over the shown trial, "side"
        # draws it beside it (app.model.compare.COMPARE_VIEWS).
        self.compare_view = "overlay"
        # What the arrows' scale is chosen from: (trial key, frames seen, their sizes).
        self._force_sizes: tuple[tuple, int, ForceSizes] | None = None
        model.document_changed.connect(self._on_document)
        model.edited.connect(self._on_edited)
        model.grasp_changed.connect(self._on_grasp_changed)
        model.grasp_checked.connect(self._on_grasp_checked)
        model.run_started.connect(self._on_run_started)
        model.run_loaded.connect(self._on_run_loaded)
        model.pinned_changed.connect(self._on_pinned)
        model.frame_added.connect(self._on_frame_added)
        model.run_finished.connect(self._on_run_finished)
        model.trial_selected.connect(self._on_trial_selected)
        timeline.frame_changed.connect(self._on_timeline_frame)
        timeline.play_button.toggled.connect(lambda _on: self.update_quality())
        plots.seek.connect(self.seek)
        predictions.show_contacts_changed.connect(self.show_contacts)
        grasp_dock.gizmo_toggled.connect(self.toggle_gizmo)
        self._timer = QTimer(self)
        self._timer.setInterval(DISPLAY_INTERVAL_MS)
        self._timer.timeout.connect(self.tick)
        self._present_timer = QTimer(self)
        self._present_timer.setSingleShot(True)
        self._present_timer.setInterval(PRESENT_DELAY_MS)
        self._present_timer.timeout.connect(self.present)
        self._plots_shown_at = 0.0  # perf_counter of the plots' last repaint while streaming
        self._prepared = False  # this tick built the live frame: present only repaints

    # --- display clock ------------------------------------------------------------------------
    def start(self) -> None:
        """Start the display clock."""
        self._timer.start()

    def stop(self) -> None:
        """Stop the display clock (frames are still stored, not drawn)."""
        self._timer.stop()
        self._present_timer.stop()

    def tick(self) -> None:
        """The window's one display clock (~30 Hz), in two event-loop passes: this one builds
        the frame the view will show (the newest one while following a streaming run: its
        pads, plates, object and contact-force arrows), then `present` (PRESENT_DELAY_MS
        later) refreshes the streamed-run widgets and repaints them and the view together, so
        Qt composes the window once per tick and the two halves never block input as one."""
        n = len(self.timeline.series)  # the selected trial's frames, streamed ones included
        self._prepared = self.timeline.follow_live and self.model.mode == "play" and n > 0
        if self._prepared:
            self._show_timeline_frame(n - 1)
        if not self._present_timer.isActive():
            self._present_timer.start()

    def present(self) -> None:
        """Refresh the streamed-run widgets, put the timeline's frame in the view if it
        changed and repaint the view. While following live, the frame `tick` built is the one
        shown: a frame that arrived since waits for the next tick rather than being built in
        this pass."""
        prepared, self._prepared = self._prepared, False
        self.flush_stream()
        if not prepared:
            self._show_timeline_frame()
        self.viewport.render_if_dirty()

    def flush_stream(self) -> None:
        """Show what streamed in since the last tick (status text, timeline range, plots; the
        plots at most every PLOTS_LIVE_INTERVAL_S while a run streams)."""
        if self._stream_status:
            self.ui.status(self._stream_status, log_it=False)
            self._stream_status = ""
        if self._timeline_dirty:
            self._timeline_dirty = False
            self.timeline.frames_added()
            self.plots.stale = True
            if self.timeline.follow_live:
                self.model.mode = "play"
        now = time.perf_counter()
        if self.plots.stale and (
            not self.plots.throttled or now - self._plots_shown_at >= PLOTS_LIVE_INTERVAL_S
        ):
            self._plots_shown_at = now
            self.plots.refresh()

    def update_quality(self) -> None:
        """Anti-aliasing only while nothing streams or plays."""
        self.viewport.set_quality(not self.pool.is_running() and not self.timeline.is_playing())

    # --- model events -------------------------------------------------------------------------
    def _on_document(self, doc: Document) -> None:
        self._shown = None
        self._frame_on_view = False
        self.timeline.set_series(TrialSeries.empty())
        self.plots.set_series(TrialSeries.empty())

    def _on_edited(self, object_changed: bool) -> None:
        if object_changed and self.model.doc is not None:
            self.viewport.show_object(self.model.doc.obj)

    def _on_grasp_changed(self) -> None:
        pending = FINDING if self.model.finding_default else "checking…"
        warning = self.model.grasp_warning
        self.grasp_dock.set_status(None, "", self.model.grasp_width_mm, pending, warning)
        self.enter_edit_mode()

    def _on_grasp_checked(self, valid: bool, reason: str) -> None:
        warning = self.model.grasp_warning
        self.grasp_dock.set_status(valid, reason, self.model.grasp_width_mm, warning=warning)
        if self.model.mode == "edit":
            self.enter_edit_mode()

    def _on_run_started(self, run: Run) -> None:
        self.timeline.follow_live = True
        self.viewport.set_quality(False)  # cheaper renders while frames stream
        self.plots.throttled = True

    def _on_run_loaded(self, run: Run) -> None:
        # A recorded trial to replay: from its first frame, with the idle view's quality.
        self.timeline.follow_live = False
        self._shown = None
        self.update_quality()

    def _on_pinned(self, pinned: PinnedTrial | None) -> None:
        self.plots.set_pinned(
            None if pinned is None else pinned.series, getattr(pinned, "label", "")
        )
        self._shown = None
        if pinned is None:
            self.viewport.show_ghost(None)
            self.viewport.end_side_by_side()

    def _on_frame_added(self, trial: int, index: int) -> None:
        # Widgets are refreshed from the display tick, not per frame: every repaint also
        # recomposes the window around the OpenGL view, which is costly with software GL.
        d = self.model.doc
        n = 0 if d is None or d.run is None else len(d.run.trials)
        phase = self.model.series[trial].phase[index]
        self._stream_status = f"trial {trial + 1}/{n} · {phase} · frame {index + 1}"
        if trial == self.model.trial:
            self._timeline_dirty = True

    def _on_run_finished(self, run: Run | None, cancelled: bool) -> None:
        self.update_quality()
        self.plots.throttled = False
        self.flush_stream()  # the timeline gets the last frames now, not at the next tick

    def _on_trial_selected(self, trial: int, series: TrialSeries) -> None:
        self.plots.set_series(series)
        self.timeline.set_series(series)

    # --- edit mode ----------------------------------------------------------------------------
    def enter_edit_mode(self) -> None:
        """Draw the open gripper at the grasp (red with the reason when invalid)."""
        m = self.model
        shapes = m.pads.shapes
        if m.doc is None or shapes is None:
            return
        m.mode = "edit"
        self._shown = None
        if self._frame_on_view:  # a grasp edit over a simulated frame: say where the view went
            self._frame_on_view = False
            self.ui.status(f"grasp changed: {BACK_TO_REST}")
        self.viewport.show_ghost(None)  # a pinned trial is drawn beside frames only
        self.viewport.end_side_by_side()
        self.viewport.clear_forces()  # forces belong to simulated frames
        self.viewport.push_arrow.clear()  # and so does a push
        valid = m.grasp_valid is not False
        self.viewport.show_open_gripper(shapes, m.doc.grasp, valid, "" if valid else m.grasp_reason)
        if self.grasp_dock.gizmo_button.isChecked():
            self.viewport.set_gizmo(True)  # re-centred on the new grasp
        self.show_contacts(self.predictions.contacts_box.isChecked())

    def toggle_gizmo(self, on: bool) -> None:
        """Show or hide the gizmo (back to edit mode first)."""
        if on and self.model.mode != "edit":
            self.enter_edit_mode()
        self.viewport.set_gizmo(on)

    def show_contacts(self, on: bool) -> None:
        """Draw the selected model's contacts and its contact forces (edit mode only)."""
        if on and self.model.mode == "edit":
            label, r = self.predictions.selected_result()
            contacts = r.contacts if r is not None else []
            forces = None if r is None else r.forces
            self.viewport.show_contacts(contacts, forces, label, self.force_mode)
        else:
            self.viewport.clear_contacts()

    # --- timeline -----------------------------------------------------------------------------
    def step(self, delta: int) -> None:
        """Step the timeline (a focused spin box keeps its own arrow keys)."""
        w = QApplication.focusWidget()
        if w is not None and w.inherits("QAbstractSpinBox"):
            return
        self.timeline.step(delta)

    def seek(self, index: int) -> None:
        """Show frame `index` of the selected trial (also from edit mode when the timeline
        is at that frame already: Home after placing a grasp on the first frame)."""
        self.timeline.seek(index)
        if self.model.mode != "play" and len(self.timeline.series):
            self._on_timeline_frame(self.timeline.index)

    def seek_end(self) -> None:
        """Show the last frame."""
        self.seek(len(self.timeline.series) - 1)

    def set_show_forces(self, on: bool) -> None:
        """Draw the contact forces on the object of the frame shown (arrows), or not."""
        self.show_forces = bool(on)
        self._shown = None  # the next tick redraws the frame with or without them
        if not on:
            self.viewport.clear_forces()
        if self.model.mode == "play":
            self._show_timeline_frame()

    def set_force_mode(self, mode: str) -> None:
        """Draw the contact forces "points" (one arrow per contact point) or "patches" (one
        resultant per pad and patch at its centre of pressure)."""
        if mode not in MODES:
            raise ValueError(f"force mode must be one of {MODES}, got {mode!r}")
        self.force_mode = mode
        self._shown = None
        if self.show_forces and self.model.mode == "play":
            self._show_timeline_frame()
        elif self.model.mode == "edit" and self.model.doc is not None:  # a model's forces too
            self.show_contacts(self.predictions.contacts_box.isChecked())

    def force_sizes(self, rec: TrialRecord) -> ForceSizes:
        """What a trial's arrows' scale is chosen from, over all its frames so far: a scale
        grows (in 1-2-5 steps) only when frames streaming in carry larger forces."""
        run = self.model.doc.run if self.model.doc is not None else None
        key = (None if run is None else run.run_id, rec.trial, id(rec))
        seen = self._force_sizes
        if seen is None or seen[0] != key:
            seen = (key, 0, ForceSizes())
        _, done, sizes = seen
        if done < len(rec.frames):
            sizes = sizes.merged(force_sizes(rec.frames[done:]))
            seen = (key, len(rec.frames), sizes)
        self._force_sizes = seen
        return sizes

    def force_scale(self, rec: TrialRecord) -> ForceScale:
        """The arrows' scale of a trial in the current mode (app/model/forces.py)."""
        return self.force_sizes(rec).scale(self.force_mode)

    def force_view(self, rec: TrialRecord) -> ForceView:
        """How `rec`'s forces are drawn: the mode, the trial's scale, and the mass and centre
        of mass of the object the run simulated (for the weight at the centre of mass)."""
        d = self.model.doc
        obj = None if d is None else (d.run.obj if d.run is not None else None) or d.obj
        if obj is None:
            return ForceView(self.force_scale(rec), self.force_mode)
        size = float(np.linalg.norm(np.ptp(np.asarray(obj.vertices), axis=0)))
        com = tuple(float(x) for x in np.asarray(obj.center_of_mass))
        return ForceView(
            self.force_scale(rec), self.force_mode, float(obj.mass_kg),
            (com[0], com[1], com[2]), COM_MARKER_SIZE * size,
        )  # fmt: skip

    def video_force_view(self, rec: TrialRecord) -> ForceView | None:
        """How an exported video draws `rec`'s forces: as the view does, if it does."""
        return self.force_view(rec) if self.show_forces else None

    def set_compare_view(self, view: str) -> None:
        """Draw a pinned trial "overlay" (outlined over the shown trial) or "side" (beside it,
        in a half of the view of its own with the same camera)."""
        if view not in COMPARE_VIEWS:
            raise ValueError(f"compare view must be one of {COMPARE_VIEWS}, got {view!r}")
        self.compare_view = view
        self._shown = None
        if view == "overlay":
            self.viewport.end_side_by_side()
        else:
            self.viewport.show_ghost(None)
        if self.model.mode == "play":
            self._show_timeline_frame()

    def set_color_mode(self, mode: str) -> None:
        """Colour the pads by "none", "energy" or "displacement"."""
        self.viewport.color_mode = mode
        self._shown = None

    def _on_timeline_frame(self, index: int) -> None:
        self.plots.set_current(index)
        if index >= 0:
            self.model.mode = "play"

    def _show_timeline_frame(self, index: int | None = None) -> None:
        """Draw frame `index` of the selected trial (the timeline's by default)."""
        m = self.model
        d, shapes = m.doc, m.pads.shapes
        if m.mode != "play" or d is None or d.run is None or shapes is None:
            return
        rec: TrialRecord | None = d.run.trials.get(m.trial)
        if index is None:
            index = self.timeline.index
        if rec is None or not (0 <= index < len(rec.frames)):
            return
        mode = self.viewport.color_mode
        forces = (self.show_forces, self.force_mode)
        key = (d.run.run_id, m.trial, index, mode, id(m.pinned), forces, self.compare_view)
        if key == self._shown:
            return
        self._shown = key
        f = rec.frames[index]
        fields = m.fields_for(rec, index, mode)
        if fields is not None:
            self.viewport.set_field_range(m.field_range(rec, mode))
        # VTK's font has no Greek letters: "Psi" in the 3D view.
        label = (
            f"trial {m.trial}  t = {f.time_s:.3f} s  {f.phase}  "
            f"Psi = {f.psi_j[0]:.2e}, {f.psi_j[1]:.2e} J  "
            f"F = {f.grip_force_n[0]:.3f}, {f.grip_force_n[1]:.3f} N"
        )
        self.viewport.show_frame(
            shapes, rec.gripper_pose, f.pad_vertices, f.object_pose, f.plate_travel_m,
            f.plate_lift_m, fields, label,
        )  # fmt: skip
        self._frame_on_view = True
        arrow = push_arrow_at(d.run, rec, f)  # the push's arrow while it pushes
        if arrow is None:
            self.viewport.push_arrow.clear()
        else:
            self.viewport.push_arrow.show(*arrow)
        self.viewport.clear_contacts()
        if self.show_forces:
            self.viewport.show_forces(f, self.force_view(rec))
            if self.force_sizes(rec).empty:
                self.ui.status(
                    "this trial's frames carry no contact forces (MuJoCo replays and frames "
                    "files written before the forces were kept have none)",
                    log_it=False,
                )
        else:
            self.viewport.clear_forces()
        pinned = m.pinned
        k = -1 if pinned is None else pinned.frame_at(f.time_s)
        if pinned is not None and k >= 0 and self.compare_view == "side":
            self._show_side_by_side(pinned, k, d.run, mode)
        elif pinned is not None and k >= 0:
            self.viewport.show_ghost(pinned.pad_faces, pinned.record.frames[k].pad_vertices,
                                     pinned.record.frames[k].object_pose)  # fmt: skip
        self.frame_displayed.emit(m.trial, index)

    def _show_side_by_side(self, pinned: PinnedTrial, k: int, run: Run, mode: str) -> None:
        """The pinned trial's frame `k` (nearest the shown frame's time) beside the shown one,
        each half titled with its run and the values of the parameters that differ."""
        g = self._side_frame(pinned, k, run, mode)
        self.viewport.show_side_by_side(
            pinned.pad_faces, g.pad_vertices, g.object_pose, g.plate_matrices, g.fields,
            side_titles(pinned, run, self.model.trial), g.label,
        )  # fmt: skip

    def _side_frame(self, pinned: PinnedTrial, k: int, run: Run, mode: str) -> SideFrame:
        """What the right half shows for the pinned trial's frame `k` beside `run`."""
        return side_frame(pinned, k, run, self.model.pads.shapes, mode)

    def video_side_by_side(self, rec: TrialRecord) -> SideBySide | None:
        """How an exported video of `rec` (a trial of the shown run) draws the pinned trial:
        beside it at each frame's time when the view compares side by side, else None."""
        m = self.model
        d = m.doc
        if self.compare_view != "side" or m.pinned is None or d is None or d.run is None:
            return None
        return side_by_side(m.pinned, d.run, rec, m.pads.shapes, self.viewport.color_mode)
