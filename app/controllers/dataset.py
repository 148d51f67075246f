"""File > Open data set: the browser's controller. Opens a grasp CSV, a REACH JSON or a batch
results CSV (app.model.dataset), draws its grasps on the object as glyphs coloured by outcome,
shows the grasp chosen in the table or the view (an undoable edit of the grasp, resting pose and
mass), replays a trial's frames from the batch's frames folder, and re-simulates the grasp
through the usual Simulate path."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QTimer

from app.model import AppModel, Document
from app.model.dataset import (
    DataSet,
    DataSetGrasp,
    SimTrial,
    physical_text,
    robustness_lines,
)
from app.model.dataset_placement import (
    glyph_arrays,
    placement,
    pose_on,
)
from app.workers.messages import ReadDataSetJob
from engine.errors import IpcGraspError

if TYPE_CHECKING:  # the window wires these; importing them here would be circular
    from app.controllers.editing import EditController
    from app.controllers.opening import OpenController
    from app.controllers.runs import RunController
    from app.dataset_dock import DataSetDock
    from app.sim_pool import SimulationPool
    from app.ui import Feedback
    from app.viewport import Viewport

log = logging.getLogger(__name__)
DATASET_FILTER = "Data sets (*.csv *.json);;All files (*)"
QUALITY_PAUSE_MS = 400  # anti-aliasing back this long after the last grasp chosen


class DataSetController(QObject):
    """The data-set browser: opening, glyphs, selection, replay and re-simulation.

    `opening` shows a document (OpenController.set_document); `editing` pushes undoable edits;
    `runs` starts simulations (RunController); `confirm_discard(what)` and `confirm_replace()`
    ask before results are dropped; `show_dock()` raises the browser; `restore_quality()` puts
    the view's idle quality back (SceneController.update_quality).
    """

    def __init__(
        self, model: AppModel, dock: DataSetDock, viewport: Viewport, opening: OpenController,
        editing: EditController, runs: RunController, pool: SimulationPool, ui: Feedback,
        confirm_discard: Callable[[str], bool],
        confirm_replace: Callable[[], bool], show_dock: Callable[[], None],
        restore_quality: Callable[[], None], parent: QObject | None = None,
    ) -> None:  # fmt: skip
        super().__init__(parent)
        self.model = model
        self.dock = dock
        self.viewport = viewport
        self.opening = opening
        self.editing = editing
        self.runs = runs
        self.pool = pool
        self.ui = ui
        self.confirm_discard = confirm_discard
        self.confirm_replace = confirm_replace
        self.show_dock = show_dock
        self.last_open_s = 0.0  # how long the last open took (benchmarks, status line)
        self._glyphs: tuple[tuple, tuple] | None = None  # (data set, object, colour) -> arrays
        # While grasps are being chosen the view renders without anti-aliasing (a full-screen
        # pass that costs ~50 ms with software GL); it comes back once the choosing pauses.
        self.restore_quality = restore_quality
        self._quality_timer = QTimer(self)
        self._quality_timer.setSingleShot(True)
        self._quality_timer.setInterval(QUALITY_PAUSE_MS)
        self._quality_timer.timeout.connect(restore_quality)
        model.dataset_changed.connect(self._on_dataset)
        model.dataset_selected.connect(lambda _i: self._draw_selection())
        model.document_changed.connect(lambda _doc: self.redraw())
        model.edited.connect(lambda changed: self.redraw() if changed else self._draw_selection())
        dock.grasp_selected.connect(self.show_grasp)
        dock.trial_chosen.connect(self.replay)
        dock.resimulate_requested.connect(self.resimulate)
        dock.frames_folder_requested.connect(self.choose_frames_folder)
        dock.colour_changed.connect(lambda _c: self.redraw())
        viewport.dataset_clicked.connect(self.show_grasp)

    def shutdown(self) -> None:
        """Stop the timer that puts the view's quality back (the view is closing)."""
        self._quality_timer.stop()

    @property
    def dataset(self) -> DataSet | None:
        """The open data set."""
        return self.model.dataset

    # --- opening ------------------------------------------------------------------------------
    def open_dialog(self) -> None:
        """File > Open data set…"""
        path = self.ui.open_path("Open a data set", DATASET_FILTER)
        if path:
            self.open_path(path)

    def open_path(self, path: str | Path, frames_dir: str | Path | None = None) -> bool:
        """Open `path` as a data set (`frames_dir`: a batch's frames folder; default: the one
        found next to a results CSV) and show its first listed grasp. Errors go to a dialog."""
        start = time.perf_counter()
        job = ReadDataSetJob(0, str(path), None if frames_dir is None else str(frames_dir))
        answer = self.opening.reader.read(job, f"Reading the data set {Path(path).name}")
        if answer is None:
            self.ui.status(f"opening the data set {Path(path).name} cancelled")
            return False
        if not isinstance(answer.value, DataSet):
            exc = answer.error
            text = str(exc) if isinstance(exc, IpcGraspError) else f"{type(exc).__name__}: {exc}"
            self.ui.error("Cannot open the data set", text)
            return False
        ds = answer.value
        self.model.set_dataset(ds)
        self.show_dock()
        shown = next(
            (i for i in self.dock.visible_grasps() if ds.grasps[i].mesh_pose is not None), None
        )
        if shown is not None:
            self.dock.select_grasp(shown)
            self.show_grasp(shown)
        self.last_open_s = time.perf_counter() - start
        for note in ds.notes:
            log.info("data set %s: %s", ds.path.name, note)
        shown_text = f"; showing {ds.grasps[shown].grasp_id}" if shown is not None else ""
        self.ui.status(
            f"opened data set {ds.path.name}: {ds.summary()} ({self.last_open_s:.1f} s)"
            + shown_text
        )
        return True

    def choose_frames_folder(self) -> bool:
        """Ask for the batch's frames folder and reopen the results with it."""
        ds = self.dataset
        if ds is None:
            return False
        folder = self.ui.open_folder("The batch's frames folder (--frames DIR)")
        return self.open_path(ds.path, folder) if folder else False

    def _on_dataset(self, ds: DataSet | None) -> None:
        self.dock.set_dataset(ds)
        self.redraw()

    # --- glyphs -------------------------------------------------------------------------------
    def redraw(self) -> None:
        """Draw the data set's grasps on the shown object (none when it shows another)."""
        ds, obj, d = self.dataset, self.model.dataset_object(), self.model.doc
        if ds is None or obj is None or d is None:
            self.viewport.show_dataset([], None, None, None)
            self.viewport.show_dataset_selection(None)
            return
        key = (id(ds), obj.key, self.dock.colour_column())
        if self._glyphs is None or self._glyphs[0] != key:  # else only the resting pose changed
            self._glyphs = (key, glyph_arrays(ds, obj.key, key[2]))
        indices, poses, widths, values = self._glyphs[1]
        self.viewport.show_dataset(indices, poses, widths, values, d.obj.pose_transform)
        self._draw_selection()

    def _draw_selection(self) -> None:
        g, obj, d = self.model.selected_dataset_grasp(), self.model.dataset_object(), self.model.doc
        if g is None or obj is None or d is None or g.object_key != obj.key or g.mesh_pose is None:
            self.viewport.show_dataset_selection(None)
            return
        self.viewport.show_dataset_selection(pose_on(obj, g, d.obj.pose_transform), g.width_m)

    # --- showing a grasp ----------------------------------------------------------------------
    def show_grasp(self, index: int) -> bool:
        """Make data-set grasp `index` the current grasp (opening its object if the window shows
        another), list its trials; an undoable edit of grasp, resting pose and mass."""
        ds = self.dataset
        if ds is None or not 0 <= index < len(ds.grasps):
            return False
        g = ds.grasps[index]
        self.dock.select_grasp(index)
        if g.mesh_pose is None:
            self.model.select_dataset_grasp(index)
            self.dock.set_grasp(g)
            self.ui.status(f"grasp {g.grasp_id} cannot be shown: {g.error or 'no grasp pose'}")
            return False
        obj = ds.objects[g.object_key]
        current = self.model.dataset_object()
        if current is None or current.key != obj.key:
            if not self.confirm_discard("show another object's grasp"):
                return False
            try:
                doc = Document.open_object(
                    obj.spec_text,
                    obj.unit,
                    mesh=obj.mesh,
                    body=obj.body,
                    find_default=False,
                    poses=obj.poses or None,
                    choices=obj.choices or None,
                )
                # Opened at the grasp: no default grasp to find, no second edit.
                p = placement(obj, g, doc)
                if p.pose_index != doc.pose_index:
                    doc.set_pose(p.pose_index, find_default=False)
                if p.density_kg_m3 != doc.density_kg_m3:
                    doc.set_density(p.density_kg_m3)
                doc.grasp = placement(obj, g, doc).grasp
            except IpcGraspError as exc:
                self.ui.error("Cannot open the data set's object", str(exc))
                return False
            if not self.opening.set_document(doc, obj.mesh.name):
                return False
        edit = self.model.dataset_edit(g)
        if edit is None:
            return False
        state, same = edit
        self.viewport.set_quality(False)
        self._quality_timer.start()
        self.editing.push(state, f"show data-set grasp {g.grasp_id}")
        self.model.select_dataset_grasp(index)
        note = ""
        if not same:
            note = (
                f"its recorded resting pose is none of the object's stable poses: shown on the "
                f"closest, pose {state.pose_index}"
            )
        self.dock.set_grasp(g, note)
        self.ui.status(self._describe(g, state.pose_index) + (f"; {note}" if note else ""))
        return True

    @staticmethod
    def _describe(g: DataSetGrasp, pose: int) -> str:
        parts = [f"data-set grasp {g.grasp_id} on resting pose {pose}"]
        if g.physical:
            parts.append(f"physical {physical_text(g)}")
        parts += robustness_lines(g, " ({})")
        if g.frames_trials():
            parts.append("choose a trial below to replay it")
        return ", ".join(parts)

    # --- trials -------------------------------------------------------------------------------
    def replay(self, trial: SimTrial) -> bool:
        """Load `trial`'s frames into the timeline (the shown grasp's trial)."""
        if self.model.doc is None or trial.frames_file is None:
            return False
        if self.pool.is_running():
            self.ui.status("a simulation is running: replay its trial once it ends (Esc cancels)")
            return False
        g = self.model.selected_dataset_grasp()
        if g is not None and trial not in g.trials:
            return False
        if not self.confirm_replace():
            return False
        try:
            rec = self.model.load_recorded_trial(trial)
        except (IpcGraspError, ValueError, KeyError) as exc:
            self.ui.error("Cannot replay the trial", str(exc))
            return False
        self.dock.select_trial(trial)
        self.ui.status(
            f"replaying {trial.model} trial {trial.trial} of {g.grasp_id if g else ''}: "
            f"{len(rec.frames)} frames, {trial.outcome} ({trial.reason}); Space plays, the "
            "arrow keys step"
        )
        return True

    def resimulate(self) -> bool:
        """Simulate the shown grasp now with the current parameters; a batch grasp gets its
        batch's trial count and seed, so the same perturbed poses run."""
        g = self.model.selected_dataset_grasp()
        d = self.model.doc
        if g is None or d is None:
            return False
        edit = self.model.dataset_edit(g)
        if edit is not None:
            state = edit[0]
            if g.plan is not None:
                state = replace(state, n_trials=g.plan[0], seed=g.plan[1])
            else:
                state = replace(state, n_trials=d.spec.n_trials, seed=d.spec.seed)
            self.editing.push(state, f"re-simulate data-set grasp {g.grasp_id}")
        return bool(self.runs.start_simulation())
