"""Exports of the selected trial or the run: CSV, ParaView series, screenshot, video."""

from __future__ import annotations

import logging
import math
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
from PySide6.QtCore import QObject, Qt
from PySide6.QtWidgets import QProgressDialog, QWidget

from app.model import AppModel
from app.model.forces import ForceView
from app.model.pad_fields import Fields
from app.tables import lowest_lift_grip
from app.worker_client import WorkerClient
from app.workers.analysis import prediction_models
from app.workers.video import render_video
from app.workers.video_job import SideBySide, VideoJob, even_size
from engine.errors import IpcGraspError
from engine.grasp.frames import TrialResult
from engine.io.results_csv import OUTCOME_COLUMNS, context_columns, open_results_writer, result_row
from engine.io.session import TrialRecord
from engine.io.trial_exports import TrialExport, TrialFrames
from engine.scene.object_facts import ObjectFacts
from engine.scene.object_mesh import UNIT_SCALE_M

if TYPE_CHECKING:  # the window wires these; importing them here would be circular
    from app.tables import PredictionsPanel
    from app.ui import Feedback
    from app.viewport import Viewport

log = logging.getLogger(__name__)
ANALYTIC_COLUMNS = ("success", "margin", "robustness")
VIDEO_POLL_MS = 50


class ExportController(QObject):
    """File > Export ...: each export has a dialog entry point and a path-taking method.

    `predictions` gives the analytic results for the CSV (a dict model key -> result);
    `viewport` renders the screenshot and gives the video's camera and size; `force_view`
    gives how the view draws a trial's contact forces when it shows them (else None), and the
    video draws them the same way; `side_by_side` gives the pinned trial the view shows beside
    it (else None), and the video shows it beside it too.
    """

    def __init__(
        self, model: AppModel, viewport: Viewport, predictions: PredictionsPanel, ui: Feedback,
        parent: QWidget,
        force_view: Callable[[TrialRecord], ForceView | None] = lambda _rec: None,
        side_by_side: Callable[[TrialRecord], SideBySide | None] = lambda _rec: None,
    ) -> None:  # fmt: skip
        super().__init__(parent)
        self.model = model
        self.force_view = force_view
        self.side_by_side = side_by_side
        self.viewport = viewport
        self.predictions = predictions
        self.ui = ui
        self._window = parent
        self.video: dict | None = None  # the running video export
        self.last_export: dict | None = None  # path, frames, error of the last video export

    # --- CSV ----------------------------------------------------------------------------------
    def export_csv_dialog(self) -> None:
        """Ask for a file and export the results as CSV."""
        path = self.ui.save_path(
            "Export results", "CSV (*.csv)", ".csv", self._proposed("_results.csv")
        )
        if path:
            self.export_csv(path)

    def _proposed(self, tail: str) -> str:
        """The file name a save dialog proposes; "{}" in `tail` is the selected trial."""
        d = self.model.doc
        if d is None:
            return ""
        trial = max(self.model.trial, 0)
        return d.suggested_path(tail.format(trial))

    def export_csv(self, path: str | Path) -> bool:
        """One row per trial: inputs (object, grasp, every parameter, seed), outcome, and the
        analytic predictions of the run's grasp."""
        d = self.model.doc
        if d is None or d.run is None:
            self.ui.error("Nothing to export", "Run a simulation first (F5).")
            return False
        run = d.run
        ctx = context_columns(
            d.object_source,
            d.mesh.sha256,
            d.pose_index,
            run.grasp,
            run.params,
            run.spec.seed,
            mesh=d.mesh,
        )
        ctx["n_trials"] = run.spec.n_trials
        ctx.update(ObjectFacts.of(d.obj).columns())  # unit, scale, mass, density, size
        # What reproduces the run from the row alone: the file's unit (the document's: a
        # session's mesh does not carry it) and the force the analytic models assumed
        # (app.model.grip.analytic_force).
        unit = d.unit or "m"
        ctx["object_unit"] = unit
        ctx["object_scale_m"] = UNIT_SCALE_M.get(unit, 1.0)
        # The predictions in the row are the panel's: the force they were computed with.
        shown = float(getattr(self.predictions, "force_n", math.nan))
        ctx["analytic_force_n"] = shown if math.isfinite(shown) else self.model.closing_force_n
        analytic = {}
        for spec in prediction_models():  # the analytic rows of the predictions table
            if not spec.analytic:
                continue
            r = self.predictions.results.get(spec.name)
            for col in ANALYTIC_COLUMNS:
                analytic[f"analytic_{spec.name}_{col}"] = "" if r is None else getattr(r, col)
        columns = [*ctx, "status", *OUTCOME_COLUMNS, "grip_min_lift_hold_n", *analytic]
        try:
            # The save dialog asked before replacing the file.
            f, writer = open_results_writer(path, columns, overwrite=True)
        except IpcGraspError as exc:
            self.ui.error("Cannot export CSV", str(exc))
            return False
        with f:
            for k in sorted(run.trials):
                rec = run.trials[k]
                result = rec.result or TrialResult(trial=k, success=False, reason=rec.status)
                row = result_row(ctx, result)
                row["status"] = rec.status
                if rec.status == "cancelled":  # not finished: no outcome (left out of R)
                    row["success"] = ""
                lowest = lowest_lift_grip(rec)
                row["grip_min_lift_hold_n"] = "" if lowest is None else lowest
                row.update(analytic)
                writer.writerow(row)
        self.ui.status(f"results written to {path}")
        return True

    # --- a trial's frames (engine.io.trial_exports) and the screenshot ------------------------
    def export_trial_dialog(self, fmt: TrialExport) -> None:
        """Ask for a file and export the selected trial's frames in format `fmt`."""
        path = self.ui.save_path(
            f"Export {fmt.label}",
            fmt.file_filter,
            fmt.suffix,
            self._proposed("_trial{}" + fmt.suffix),
        )
        if path:
            self.export_trial(fmt, path)

    def export_trial(self, fmt: TrialExport, path: str | Path) -> Path | None:
        """The selected trial's frames (object and pads, the pads' strain energy density) in
        format `fmt`; the path written, None after an error dialog."""
        d = self.model.doc
        rec = self.model.selected_record()
        pad = self.model.pads.pad
        if d is None or rec is None or not rec.frames or pad is None:
            self.ui.error("Nothing to export", "Select a trial with frames first.")
            return None
        if len(rec.energy_density) != len(rec.frames):
            self.model.fill_energy(rec)
        trial = TrialFrames(
            rec.frames, d.obj.vertices, d.obj.faces, pad.surface_faces, rec.energy_density
        )
        try:
            out = fmt.write(path, trial, overwrite=True)  # the save dialog asked first
        except IpcGraspError as exc:
            self.ui.error(f"Cannot export the {fmt.label}", str(exc))
            return None
        self.ui.status(f"{fmt.label} written to {out}")
        return out

    def screenshot_dialog(self) -> None:
        """Ask for a file and save the 3D view as a PNG (Ctrl+P)."""
        path = self.ui.save_path(
            "Save screenshot", "PNG image (*.png)", ".png", self._proposed("_view.png")
        )
        if path:
            self.save_screenshot(path)

    def save_screenshot(self, path: str | Path) -> bool:
        """Save the 3D view as a PNG."""
        try:
            Path(path).parent.mkdir(parents=True, exist_ok=True)
            self.viewport.screenshot(str(path))
        except (OSError, ValueError) as exc:
            self.ui.error("Cannot save the screenshot", f"{path}: {exc}")
            return False
        self.ui.status(f"screenshot saved to {path}")
        return True

    # --- video --------------------------------------------------------------------------------
    def export_video_dialog(self) -> None:
        """Ask for a file and render the selected trial as MP4 or GIF."""
        path = self.ui.save_path(
            "Export video", "MP4 video (*.mp4);;Animated GIF (*.gif)", ".mp4",
            self._proposed("_trial{}.mp4"),
        )  # fmt: skip
        if not path:
            return
        w, h = self.viewport.window_size()
        options = self.ui.video_options(w, h, 20)
        if options is not None:
            width, fps = options
            self.export_video(path, fps=fps, width=width)

    def export_video(self, path: str | Path, fps: int = 20, width: int | None = None) -> bool:
        """Render the selected trial off-screen in a child process, with a progress dialog.

        Returns at once; when it ends, self.last_export holds (path, frames, error) and
        self.video is None.
        """
        m = self.model
        d, rec, shapes = m.doc, m.selected_record(), m.pads.shapes
        if d is None or rec is None or not rec.frames or shapes is None:
            self.ui.error("Nothing to export", "Select a trial with frames first.")
            return False
        if self.video is not None:
            self.ui.error("Export running", "Wait for the current export to finish.")
            return False
        p = Path(path)
        # Rendered into a hidden partial file next to the target and renamed over it only when
        # complete: a cancelled or failed export leaves an existing video untouched. The
        # suffix stays last so the writer still picks the format from it.
        partial = p.with_name(f".{p.stem}.partial{p.suffix}")
        try:
            p.parent.mkdir(parents=True, exist_ok=True)
            with open(partial, "wb"):
                pass
        except OSError as exc:
            self.ui.error(
                "Cannot export the video",
                f"{p} is not writable ({exc.strerror}); choose another folder",
            )
            return False
        mode = self.viewport.color_mode
        fields: list[Fields] | None = None
        fmax = 1.0
        if mode != "none":
            per_frame = [m.fields_for(rec, i, mode) for i in range(len(rec.frames))]
            fields = [f for f in per_frame if f is not None]
            if len(fields) != len(per_frame):  # no pad or no run parameters: plain colours
                fields = None
            fmax = m.field_range(rec, mode)
        w, h = self.viewport.window_size()
        if width is not None and width > 0:  # the view's aspect (and so its framing) at `width`
            w, h = int(width), max(16, round(int(width) * h / max(w, 1)))
        job = VideoJob(
            str(partial), np.asarray(d.obj.vertices), np.asarray(d.obj.faces), shapes, rec.gripper_pose,
            list(rec.frames), fields, fmax, self.viewport.camera_position(), even_size(w, h), fps,
            f"trial {rec.trial}", self.viewport.view_angle_deg(),
            self.viewport.field_title() if fields is not None else "", self.force_view(rec),
            self.side_by_side(rec),
        )  # fmt: skip
        # One process per export: the job goes in with the start, progress comes back.
        client = WorkerClient(
            self, "ipcgrasp-video", render_video, self._video_message, poll_ms=VIDEO_POLL_MS,
            args=lambda p: (job, p.outbox, p.cancel), restart=False,
            on_died=lambda _job, how: self._finish_video(("error", f"the export process died ({how})")),
        )  # fmt: skip
        client.start()
        dialog = QProgressDialog(f"Rendering {p.name}…", "Cancel", 0, len(rec.frames), self._window)
        dialog.setWindowTitle("Export video")
        dialog.setMinimumDuration(0)
        dialog.setWindowModality(Qt.WindowModality.WindowModal)
        self.video = {"client": client, "dialog": dialog, "path": str(p), "partial": str(partial)}
        self.last_export = None
        dialog.canceled.connect(client.cancel)
        return True

    def _video_message(self, msg: tuple) -> None:
        v = self.video
        if v is None:
            return
        if msg[0] == "progress":
            v["dialog"].setValue(msg[1])
        else:
            self._finish_video(msg)

    def _finish_video(self, msg: tuple) -> None:
        v, self.video = self.video, None
        if v is None:
            return
        v["dialog"].reset()
        v["dialog"].deleteLater()
        v["client"].shutdown(timeout_s=2.0)
        partial = Path(v["partial"])
        if msg[0] == "done":
            try:
                os.replace(partial, v["path"])
            except OSError as exc:
                msg = ("error", f"cannot move the rendered video to {v['path']}: {exc.strerror}")
        if msg[0] != "done":
            partial.unlink(missing_ok=True)
        if msg[0] == "done":
            self.last_export = {"path": v["path"], "frames": msg[2], "error": ""}
            self.ui.status(f"video written to {v['path']} ({msg[2]} frames)")
        elif msg[0] == "cancelled":
            self.last_export = {"path": v["path"], "frames": msg[1], "error": "cancelled"}
            self.ui.status("video export cancelled")
        else:
            self.last_export = {"path": v["path"], "frames": 0, "error": msg[1]}
            self.ui.error("Video export failed", msg[1])

    def shutdown(self) -> None:
        """Cancel a running video export."""
        if self.video is not None:
            self.video["client"].shutdown(timeout_s=0.0)
            self._finish_video(("cancelled", 0))
