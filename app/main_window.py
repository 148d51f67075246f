"""The main window: menus, docks, the 3D view, the timeline and the run/analysis controllers.

Every user action is also a method (open_path, set_grasp, edit_param, start_simulation, ...)
so tests and the smoke test drive the real window the same way a user does.
"""

from __future__ import annotations

import math
import multiprocessing as mp
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
from PySide6.QtCore import QSize, Qt, QTimer, Signal
from PySide6.QtGui import QAction, QIcon, QKeySequence, QShortcut, QUndoStack
from PySide6.QtWidgets import (
    QApplication,
    QCheckBox,
    QComboBox,
    QDockWidget,
    QFileDialog,
    QLabel,
    QMainWindow,
    QMessageBox,
    QProgressBar,
    QProgressDialog,
    QScrollArea,
    QSplitter,
    QStyle,
    QTabWidget,
    QToolBar,
    QVBoxLayout,
    QWidget,
)

from app import settings as app_settings
from app.analysis_controller import AnalysisController
from app.document import Document, build_pad, safe_default_grasp
from app.grasp_dock import GraspDock
from app.gripper_shapes import GripperShapes
from app.param_dock import ParamDock
from app.plots import TimePlots
from app.resources import icon_path
from app.sim_controller import SimulationController
from app.tables import PredictionsPanel, RunsTable
from app.timeline import Timeline
from app.trial_series import TrialSeries
from app.undo import EditState, StateCommand
from app.video_export import VideoJob, drain, even_size, render_video
from app.viewport import Viewport
from app.worker_messages import FramePacket, TrialJob
from engine.errors import GraspError, IpcGraspError, MeshError
from engine.grasp.antipodal import antipodal_grasp, contacts_along_axis, grasp_from_pose
from engine.grasp.frames import TrialResult
from engine.grasp.grasp import Grasp
from engine.grasp.trials import plan_trials
from engine.gripper.pad_fields import PadFieldEvaluator, pad_displacement
from engine.io.results_csv import OUTCOME_COLUMNS, context_columns, open_results_writer, result_row
from engine.io.session import (
    SESSION_SUFFIX,
    SessionError,
    TrialRecord,
    load_session,
    resolve_object,
    save_session,
)
from engine.io.vtk_series import write_vtk_series

MESH_FILTER = "Meshes (*.obj *.stl *.ply *.off *.glb)"
SESSION_FILTER = f"Sessions (*{SESSION_SUFFIX})"
DISPLAY_INTERVAL_MS = 33  # frames on screen at most ~30 Hz, newest wins
ANALYTIC_COLUMNS = ("success", "margin", "robustness")


class MainWindow(QMainWindow):
    """ipcgrasp's main window."""

    frame_displayed = Signal(int, int)  # trial, frame index (after it was drawn)
    predictions_shown = Signal(int)  # analysis request number

    def __init__(self, n_workers: int | None = None, start_workers: bool = True) -> None:
        super().__init__()
        self.setWindowTitle("ipcgrasp")
        icon = icon_path()
        if icon is not None:
            self.setWindowIcon(QIcon(str(icon)))
        self.resize(1400, 900)
        self.setAcceptDrops(True)
        self.quiet_errors = False  # the smoke test records errors instead of showing dialogs
        self.errors: list[str] = []
        self.doc: Document | None = None
        self._shapes: GripperShapes | None = None
        self._shapes_key: tuple | None = None
        self._grasp_valid: bool | None = None
        self._grasp_reason = ""
        self._mode = "edit"  # "edit": open gripper at the grasp; "play": a trial's frames
        self._trial = -1  # trial shown in the timeline
        self._series: dict[int, TrialSeries] = {}
        self._field_max: dict[tuple[int, str], tuple[int, float]] = {}
        self._shown: tuple | None = None
        self._run_counter = 0
        self._run_started_at = 0.0
        self._stream_dirty = ""  # status text of the newest streamed frame, not yet shown
        self._timeline_dirty = False  # frames arrived for the shown trial
        self._export = None
        self._evaluator: PadFieldEvaluator | None = None
        self.undo_stack = QUndoStack(self)

        self.viewport = Viewport(self)
        self.timeline = Timeline()
        self.plots = TimePlots()
        self.runs_table = RunsTable()
        self.predictions = PredictionsPanel()
        self.param_dock = ParamDock()
        self.grasp_dock = GraspDock()
        self._build_layout()
        self._build_actions()

        self.sim = SimulationController(self, n_workers)
        # Two processes: grasp checks must stay instant while a robustness estimate runs.
        self.checker = AnalysisController(self, check=True, models=(), name="ipcgrasp-check")
        self.analysis = AnalysisController(self, check=False, name="ipcgrasp-analysis")
        self._connect()
        if start_workers:
            self.sim.start()
            self.checker.start()
            self.analysis.start()

        self._display_timer = QTimer(self)
        self._display_timer.setInterval(DISPLAY_INTERVAL_MS)
        self._display_timer.timeout.connect(self._display_tick)
        self._display_timer.start()

    # ==========================================================================================
    # layout
    # ==========================================================================================
    def _build_layout(self) -> None:
        self.setCentralWidget(self.viewport.widget)

        def dock(title: str, widget: QWidget, area: Qt.DockWidgetArea, name: str) -> QDockWidget:
            d = QDockWidget(title, self)
            d.setObjectName(name)
            d.setWidget(widget)
            self.addDockWidget(area, d)
            return d

        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        side = QWidget()
        lay = QVBoxLayout(side)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.grasp_dock)
        scroll.setWidget(side)
        scroll.setMinimumWidth(430)
        self.grasp_dock_widget = dock(
            "Object and grasp", scroll, Qt.DockWidgetArea.RightDockWidgetArea, "grasp"
        )
        pscroll = QScrollArea()
        pscroll.setWidgetResizable(True)
        pscroll.setWidget(self.param_dock)
        pscroll.setMinimumWidth(430)
        self.param_dock_widget = dock(
            "Parameters", pscroll, Qt.DockWidgetArea.RightDockWidgetArea, "params"
        )
        self.tabifyDockWidget(self.grasp_dock_widget, self.param_dock_widget)
        self.grasp_dock_widget.raise_()

        timeline_box = QWidget()
        tl = QVBoxLayout(timeline_box)
        tl.setContentsMargins(0, 0, 0, 0)
        tl.addWidget(self.timeline)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(self.plots)
        self.bottom_tabs = QTabWidget()
        self.bottom_tabs.addTab(self.runs_table, "Runs")
        self.bottom_tabs.addTab(self.predictions, "Analytic predictions")
        split.addWidget(self.bottom_tabs)
        split.setSizes([700, 700])
        tl.addWidget(split, 1)
        self.timeline_dock = dock(
            "Timeline", timeline_box, Qt.DockWidgetArea.BottomDockWidgetArea, "timeline"
        )
        self.resizeDocks([self.timeline_dock], [300], Qt.Orientation.Vertical)
        self.resizeDocks([self.grasp_dock_widget], [380], Qt.Orientation.Horizontal)

        self.status_label = QLabel("ready")
        self.progress = QProgressBar()
        self.progress.setMaximumWidth(220)
        self.progress.setVisible(False)
        self.statusBar().addWidget(self.status_label, 1)
        self.statusBar().addPermanentWidget(self.progress)

    def _build_actions(self) -> None:
        def action(text: str, slot, shortcut=None, tip: str = "") -> QAction:
            a = QAction(text, self)
            a.triggered.connect(slot)
            if shortcut is not None:
                a.setShortcut(QKeySequence(shortcut))
            if tip:
                a.setToolTip(tip)
                a.setStatusTip(tip)
            self.addAction(a)
            return a

        self.open_action = action(
            "&Open…", self._open_dialog, QKeySequence.StandardKey.Open, "Open a mesh or a session"
        )
        self.example_action = action(
            "Open &example cube", self.load_example, None, "The built-in 3 cm, 3 g cube"
        )
        self.save_action = action(
            "&Save session",
            self._save,
            QKeySequence.StandardKey.Save,
            "Save the session (JSON + arrays)",
        )
        self.save_as_action = action(
            "Save session &as…", self._save_as, QKeySequence.StandardKey.SaveAs
        )
        self.export_csv_action = action(
            "Export results &CSV…",
            self._export_csv_dialog,
            None,
            "One row per trial with every parameter and the outcome",
        )
        self.export_video_action = action(
            "Export &video (MP4/GIF)…",
            self._export_video_dialog,
            None,
            "Render the selected trial with the current camera",
        )
        self.export_vtk_action = action(
            "Export &VTK series…",
            self._export_vtk_dialog,
            None,
            "Frames of the selected trial as a ParaView .pvd series",
        )
        self.screenshot_action = action(
            "Screenshot…", self._screenshot_dialog, "Ctrl+P", "Save the 3D view as a PNG (Ctrl+P)"
        )
        self.quit_action = action("&Quit", self.close, QKeySequence.StandardKey.Quit)
        self.undo_action = self.undo_stack.createUndoAction(self, "&Undo")
        self.undo_action.setShortcut(QKeySequence("Ctrl+Z"))
        self.redo_action = self.undo_stack.createRedoAction(self, "&Redo")
        self.redo_action.setShortcuts([QKeySequence("Ctrl+Shift+Z"), QKeySequence("Ctrl+Y")])
        self.addAction(self.undo_action)
        self.addAction(self.redo_action)
        self.simulate_action = action(
            "&Simulate",
            lambda: self.start_simulation(),  # triggered(bool) must not reach max_frames
            "F5",
            "Run N perturbed trials in worker processes (F5)",
        )
        self.cancel_action = action(
            "&Cancel",
            self.cancel_simulation,
            "Esc",
            "Stop the running trials, keeping their frames (Esc)",
        )
        self.cancel_action.setEnabled(False)
        self.default_grasp_action = action("&Default grasp", self._default_grasp)

        menu = self.menuBar().addMenu("&File")
        menu.addAction(self.open_action)
        self.recent_menu = menu.addMenu("Open &recent")
        menu.addAction(self.example_action)
        menu.addSeparator()
        menu.addAction(self.save_action)
        menu.addAction(self.save_as_action)
        menu.addSeparator()
        menu.addAction(self.export_csv_action)
        menu.addAction(self.export_video_action)
        menu.addAction(self.export_vtk_action)
        menu.addAction(self.screenshot_action)
        menu.addSeparator()
        menu.addAction(self.quit_action)
        edit = self.menuBar().addMenu("&Edit")
        edit.addAction(self.undo_action)
        edit.addAction(self.redo_action)
        edit.addAction(self.default_grasp_action)
        sim = self.menuBar().addMenu("&Simulation")
        sim.addAction(self.simulate_action)
        sim.addAction(self.cancel_action)
        sim.addSeparator()
        self.ask_replace_action = QAction("&Ask before replacing unsaved results", self)
        self.ask_replace_action.setCheckable(True)
        self.ask_replace_action.setChecked(app_settings.ask_before_replacing_results())
        self.ask_replace_action.setStatusTip(
            "Simulate offers to save the last run's results before a new run replaces them"
        )
        self.ask_replace_action.toggled.connect(app_settings.set_ask_before_replacing_results)
        sim.addAction(self.ask_replace_action)
        view = self.menuBar().addMenu("&View")
        for d in (self.grasp_dock_widget, self.param_dock_widget, self.timeline_dock):
            view.addAction(d.toggleViewAction())
        self._refresh_recent_menu()

        tb = QToolBar("Main")
        tb.setObjectName("main_toolbar")
        tb.setIconSize(QSize(18, 18))
        tb.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        self.addToolBar(tb)
        sp = QStyle.StandardPixmap
        style = self.style()
        self.open_action.setIcon(style.standardIcon(sp.SP_DialogOpenButton))
        self.save_action.setIcon(style.standardIcon(sp.SP_DialogSaveButton))
        self.simulate_action.setIcon(style.standardIcon(sp.SP_MediaPlay))
        self.cancel_action.setIcon(style.standardIcon(sp.SP_MediaStop))
        self.screenshot_action.setIcon(style.standardIcon(sp.SP_DesktopIcon))
        tb.addAction(self.open_action)
        tb.addAction(self.save_action)
        # The stack's own actions rename themselves after the command ("Undo change mu"):
        # the toolbar gets short fixed labels that follow their enabled state.
        for text, icon, source in (
            ("Undo", sp.SP_ArrowBack, self.undo_action),
            ("Redo", sp.SP_ArrowForward, self.redo_action),
        ):
            short = QAction(style.standardIcon(icon), text, self)
            short.setToolTip(f"{text} (Ctrl+Z)" if text == "Undo" else f"{text} (Ctrl+Shift+Z)")
            short.triggered.connect(source.trigger)
            short.setEnabled(source.isEnabled())
            source.enabledChanged.connect(short.setEnabled)
            tb.addAction(short)
        tb.addSeparator()
        tb.addAction(self.simulate_action)
        tb.addAction(self.cancel_action)
        tb.addSeparator()
        tb.addWidget(QLabel(" Colour pads by "))
        self.color_combo = QComboBox()
        self.color_combo.addItem("plain", "none")
        self.color_combo.addItem("strain energy density", "energy")
        self.color_combo.addItem("displacement", "displacement")
        self.color_combo.setCurrentIndex(1)
        self.color_combo.setToolTip(
            "Colour the pads of simulated frames by strain energy density or displacement"
        )
        self.color_combo.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        tb.addWidget(self.color_combo)
        self.viewport.color_mode = "energy"
        tb.addSeparator()
        tb.addAction(self.screenshot_action)

        # Timeline keys: window-wide, but a focused text field keeps its own editing keys.
        def key(seq, slot) -> None:
            sc = QShortcut(QKeySequence(seq), self)
            sc.activated.connect(slot)

        key(Qt.Key.Key_Space, self.timeline.toggle_play)
        key(Qt.Key.Key_Left, lambda: self._step(-1))
        key(Qt.Key.Key_Right, lambda: self._step(1))
        key("Shift+Left", lambda: self._step(-10))
        key("Shift+Right", lambda: self._step(10))
        key(Qt.Key.Key_Home, lambda: self._seek(0))
        key(Qt.Key.Key_End, lambda: self._seek(len(self.timeline.series) - 1))

    def _connect(self) -> None:
        self.viewport.picked.connect(self.place_grasp_at)
        self.viewport.gizmo_moved.connect(self._on_gizmo)
        self.grasp_dock.grasp_edited.connect(
            lambda g: self.set_grasp(g, "edit grasp", merge="grasp_fields")
        )
        self.grasp_dock.pose_selected.connect(self.set_stable_pose)
        self.grasp_dock.default_requested.connect(self._default_grasp)
        self.grasp_dock.gizmo_toggled.connect(self._toggle_gizmo)
        self.param_dock.edited.connect(self.edit_param)
        self.timeline.frame_changed.connect(self._on_timeline_frame)
        self.timeline.play_button.toggled.connect(lambda _on: self._update_quality())
        self.plots.seek.connect(self._seek)
        self.runs_table.trial_selected.connect(self.select_trial)
        self.color_combo.currentIndexChanged.connect(self._on_color_mode)
        self.predictions.show_contacts_changed.connect(self._on_show_contacts)
        self.sim.frame_arrived.connect(self._on_frame)
        self.sim.trial_started.connect(self._on_trial_started)
        self.sim.trial_ended.connect(self._on_trial_ended)
        self.sim.run_finished.connect(self._on_run_finished)
        self.sim.workers_ready.connect(lambda n: self._status(f"{n} simulation worker(s) ready"))
        self.checker.grasp_checked.connect(self._on_grasp_checked)
        self.analysis.predictions_ready.connect(self._on_predictions)

    # ==========================================================================================
    # errors and status
    # ==========================================================================================
    def _status(self, text: str) -> None:
        self.status_label.setText(text)

    def _error(self, title: str, message: str) -> None:
        self.errors.append(f"{title}: {message}")
        self._status(f"{title}: {message}")
        if not self.quiet_errors:
            QMessageBox.critical(self, title, message)

    # ==========================================================================================
    # opening objects and sessions
    # ==========================================================================================
    def load_example(self) -> bool:
        if not self._confirm_discard("open the example"):
            return False
        return self._set_document(Document.open_object("cube"), "example cube")

    def _open_dialog(self) -> None:
        path, _ = QFileDialog.getOpenFileName(
            self, "Open a mesh or session", "", f"{MESH_FILTER};;{SESSION_FILTER};;All files (*)"
        )
        if path:
            self.open_path(path)

    def open_path(self, path: str | Path, unit: str | None = None) -> bool:
        """Open a mesh file or a session; errors go to a dialog, never an exception."""
        p = Path(path)
        if not self._confirm_discard("open another file"):
            return False
        if p.name.endswith(".json") or p.name.endswith(".ipcgrasp.npz"):
            return self._open_session(p)
        try:
            doc = Document.open_object(str(p), unit)
        except MeshError as exc:
            msg = str(exc)
            if unit is None and "looks like millimetres" in msg:
                answer = QMessageBox.question(
                    self, "Mesh units",
                    f"{msg}\n\nLoad {p.name} as millimetres (scale by 0.001)?",
                )  # fmt: skip
                if answer == QMessageBox.StandardButton.Yes:
                    return self.open_path(p, unit="mm")
            self._error("Cannot open the mesh", msg)
            return False
        except IpcGraspError as exc:
            self._error("Cannot open the mesh", str(exc))
            return False
        except Exception as exc:  # a reader bug must not take the app down
            self._error("Cannot open the mesh", f"{type(exc).__name__}: {exc}")
            return False
        ok = self._set_document(doc, p.name)
        if ok:
            self._add_recent(p)
        return ok

    def _open_session(self, path: Path) -> bool:
        try:
            session = load_session(path)
            mesh, note = resolve_object(session, path)
            doc = Document.from_session(session, mesh, path)
        except (SessionError, IpcGraspError) as exc:
            self._error("Cannot open the session", str(exc))
            return False
        except Exception as exc:
            self._error("Cannot open the session", f"{type(exc).__name__}: {exc}")
            return False
        if note:
            QMessageBox.warning(self, "Session object", note.capitalize())
        ok = self._set_document(doc, path.name, keep_run=True)
        if ok:
            self._add_recent(path)
            if session.extras.get("camera"):
                try:
                    self.viewport.plotter.camera_position = [
                        tuple(v) for v in session.extras["camera"]
                    ]
                except (TypeError, ValueError):
                    pass
        return ok

    def _set_document(self, doc: Document, label: str, keep_run: bool = False) -> bool:
        try:
            self.viewport.show_object(doc.obj)
        except Exception as exc:
            self._error("Cannot show the object", f"{type(exc).__name__}: {exc}")
            return False
        self.doc = doc
        doc.dirty = False
        self.undo_stack.clear()
        self._series = {}
        self._field_max = {}
        self._trial = -1
        self._evaluator = None
        self._mode = "edit"
        self._refresh_object_info()
        self._sync_widgets()
        self.runs_table.set_trials([])
        self.timeline.set_series(TrialSeries.empty())
        self.plots.set_series(TrialSeries.empty())
        if keep_run and doc.run is not None:
            for rec in doc.run.trials.values():
                self._series[rec.trial] = TrialSeries.from_frames(rec.frames)
            self.runs_table.set_trials([doc.run.trials[k] for k in sorted(doc.run.trials)])
            first = min(doc.run.trials)
            self.select_trial(first)
        else:
            doc.run = None
        self._grasp_changed()
        self.setWindowTitle(f"ipcgrasp - {label}")
        self._status(
            f"opened {label}: {len(doc.mesh.vertices)} vertices, {len(doc.poses)} stable poses"
        )
        return True

    def _refresh_object_info(self) -> None:
        doc = self.doc
        if doc is None:
            return
        ext = np.ptp(np.asarray(doc.obj.vertices), axis=0) * 1e3
        info = f"{ext[0]:.1f} x {ext[1]:.1f} x {ext[2]:.1f} mm, {doc.obj.mass_kg * 1e3:.3g} g"
        self.grasp_dock.set_object(
            doc.display_name + ("" if doc.unit in (None, "m") else f" (unit {doc.unit})"),
            info,
            [p.probability for p in doc.poses],
            doc.pose_index,
        )

    def _add_recent(self, path: Path) -> None:
        app_settings.add_recent_file(path)
        self._refresh_recent_menu()

    def _refresh_recent_menu(self) -> None:
        self.recent_menu.clear()
        files = app_settings.recent_files()
        for f in files:
            a = self.recent_menu.addAction(Path(f).name)
            a.setToolTip(f)
            a.triggered.connect(lambda _=False, f=f: self.open_path(f))
        self.recent_menu.setEnabled(bool(files))

    def dragEnterEvent(self, event) -> None:
        urls = event.mimeData().urls()
        if urls and urls[0].isLocalFile():
            event.acceptProposedAction()

    def dropEvent(self, event) -> None:
        urls = [u for u in event.mimeData().urls() if u.isLocalFile()]
        if urls:
            event.acceptProposedAction()
            # Open after the drop returns: a modal dialog inside a drop handler blocks the source.
            path = urls[0].toLocalFile()
            QTimer.singleShot(0, lambda: self.open_path(path))

    # ==========================================================================================
    # editable state, undo/redo
    # ==========================================================================================
    def _state(self) -> EditState:
        d = self.doc
        assert d is not None
        return EditState(
            d.grasp,
            d.params,
            d.spec.n_trials,
            d.spec.seed,
            d.analytic_force_n,
            d.density_kg_m3,
            d.pose_index,
        )

    def _push(self, new: EditState, text: str, merge: str | None = None) -> None:
        old = self._state()
        if old.same_as(new):
            return
        self.undo_stack.push(StateCommand(self.apply_state, old, new, text, merge))

    def apply_state(self, s: EditState) -> None:
        """Make `s` current (undo/redo and every edit go through here)."""
        d = self.doc
        if d is None:
            return
        object_changed = False
        if s.pose_index != d.pose_index:
            d.set_pose(s.pose_index)
            object_changed = True
        if s.density_kg_m3 != d.density_kg_m3:
            d.set_density(s.density_kg_m3)
            object_changed = True
        d.grasp = s.grasp
        d.params = s.params
        d.spec = replace(d.spec, n_trials=s.n_trials, seed=s.seed)
        d.analytic_force_n = s.analytic_force_n
        if object_changed:
            self.viewport.show_object(d.obj)
            self._refresh_object_info()
        self._sync_widgets()
        self._grasp_changed()

    def set_grasp(self, grasp: Grasp, text: str = "move grasp", merge: str | None = None) -> None:
        if self.doc is not None:
            self._push(replace(self._state(), grasp=grasp), text, merge)

    def edit_param(self, name: str, value: object) -> bool:
        """Apply one parameter edit (SI units); invalid values are refused with the reason."""
        d = self.doc
        if d is None:
            return False
        s = self._state()
        try:
            if name == "n_trials":
                new = replace(s, n_trials=int(value))
            elif name == "seed":
                new = replace(s, seed=int(value))
            elif name == "analytic_force_n":
                new = replace(s, analytic_force_n=float(value))
            elif name == "density":
                if not (isinstance(value, int | float) and math.isfinite(value) and value > 0):
                    raise IpcGraspError(f"object density must be > 0 kg/m^3 (got {value})")
                new = replace(s, density_kg_m3=float(value))
            else:
                new = replace(s, params=replace(d.params, **{name: value}).validate())
        except (IpcGraspError, TypeError, ValueError) as exc:
            self.param_dock.show_message(str(exc))
            self._sync_widgets()  # put the field back to the valid value
            return False
        self.param_dock.show_message("")
        self._push(new, f"change {name}", merge=name)
        return True

    def set_stable_pose(self, index: int) -> None:
        d = self.doc
        if d is None or index == d.pose_index:
            return
        from engine.scene.resting import rest_object

        obj = rest_object(d.mesh, index, density_kg_m3=d.density_kg_m3)
        grasp = safe_default_grasp(obj, d.params)
        self._push(replace(self._state(), pose_index=index, grasp=grasp), f"rest on pose {index}")

    def _default_grasp(self) -> None:
        if self.doc is not None:
            self.set_grasp(safe_default_grasp(self.doc.obj, self.doc.params), "default grasp")

    def place_grasp_at(self, point: np.ndarray, normal: np.ndarray) -> bool:
        """Click-to-place: jaw 0 at `point`, the other jaw by ray casting along -normal."""
        d = self.doc
        if d is None:
            return False
        try:
            done = antipodal_grasp(d.obj, point, normal, d.grasp.approach_angle_rad)
        except GraspError as exc:
            self._status(f"cannot place a grasp there: {exc}")
            return False
        self.set_grasp(done.grasp, "place grasp")
        self._status(f"grasp placed: contacts {done.width_m * 1e3:.1f} mm apart")
        return True

    def _on_gizmo(self, matrix: np.ndarray) -> None:
        # Called from inside the widget's mouse-release handler: rebuild the widget (which
        # applying the grasp does) only after that handler has returned.
        QTimer.singleShot(0, lambda: self._apply_gizmo(matrix))

    def _apply_gizmo(self, matrix: np.ndarray) -> None:
        try:
            self.set_grasp(grasp_from_pose(matrix), "move grasp (gizmo)")
        except (IpcGraspError, ValueError) as exc:
            self._status(f"gizmo: {exc}")

    def _toggle_gizmo(self, on: bool) -> None:
        if on and self._mode != "edit":
            self._enter_edit_mode()
        self.viewport.set_gizmo(on)

    def _sync_widgets(self) -> None:
        d = self.doc
        if d is None:
            return
        key = (d.params.pad, d.params.pad_edge_length_m, d.params.pad_layers, d.params.open_width_m)
        if key != self._shapes_key:
            pad = build_pad(d.params)
            self._pad = pad
            self._shapes = GripperShapes.build(pad, d.params.open_width_m)
            self._shapes_key = key
            self._evaluator = None
        resolution = f"{len(self._pad.vertices)} vertices, {len(self._pad.tets)} tets per pad"
        self.param_dock.set_values(
            d.params,
            d.spec.n_trials,
            d.spec.seed,
            d.analytic_force_n,
            d.obj.density_kg_m3,
            resolution,
        )
        self.grasp_dock.set_grasp(d.grasp)

    # ==========================================================================================
    # grasp display and analysis
    # ==========================================================================================
    def _grasp_changed(self) -> None:
        d = self.doc
        if d is None:
            return
        self._grasp_valid = None
        contacts = contacts_along_axis(d.obj, d.grasp)
        width = (
            None
            if contacts is None
            else float(np.dot(contacts[1] - contacts[0], d.grasp.axis)) * 1e3
        )
        self.grasp_dock.set_status(None, "", width)
        self._last_width = width
        self._enter_edit_mode()
        self.predictions.set_pending()
        force = (
            d.params.squeeze_force_n if d.params.squeeze_force_n is not None else d.analytic_force_n
        )
        key = (id(d), d.version)
        self.checker.request(d.obj, key, d.grasp, d.params, d.spec.seed, force)
        self.analysis.request(d.obj, key, d.grasp, d.params, d.spec.seed, force)

    def _enter_edit_mode(self) -> None:
        d = self.doc
        if d is None or self._shapes is None:
            return
        self._mode = "edit"
        self._shown = None
        valid = self._grasp_valid is not False
        self.viewport.show_open_gripper(
            self._shapes, d.grasp, valid, self._grasp_reason if not valid else ""
        )
        if self.grasp_dock.gizmo_button.isChecked():
            self.viewport.set_gizmo(True)  # re-centred on the new grasp
        self._on_show_contacts(self.predictions.contacts_box.isChecked())

    def _on_grasp_checked(self, request: int, valid: bool, reason: str) -> None:
        if request != self.checker.latest_request:
            return  # an answer to an older edit
        self._grasp_valid = valid
        self._grasp_reason = reason
        self.grasp_dock.set_status(valid, reason, self._last_width)
        if self._mode == "edit":
            self._enter_edit_mode()

    def _on_predictions(self, request: int, msg) -> None:
        if request != self.analysis.latest_request:
            return
        if not msg.available:
            self.predictions.set_unavailable(f"not available: {msg.error}")
        else:
            self.predictions.set_results(request, msg.results, msg.error, msg.stage)
        self._on_show_contacts(self.predictions.contacts_box.isChecked())
        self.predictions_shown.emit(request)

    def _on_show_contacts(self, on: bool) -> None:
        if on and self._mode == "edit":
            self.viewport.show_contacts(self.predictions.selected_contacts())
        else:
            self.viewport.clear_contacts()

    # ==========================================================================================
    # simulation
    # ==========================================================================================
    def start_simulation(
        self, max_frames: int | None = None, crash_after: int | None = None
    ) -> bool:
        """Run N perturbed trials of the current grasp in the worker processes (F5)."""
        d = self.doc
        if d is None:
            return False
        if self.sim.is_running():
            self._status("a simulation is already running (Esc cancels it)")
            return False
        if self._grasp_valid is False:
            self._error(
                "Invalid grasp", f"{self._grasp_reason}\n\nMove the grasp before simulating."
            )
            return False
        if not self._confirm_replace_results():
            return False
        self._run_counter += 1
        run = d.new_run(self._run_counter)
        jobs = []
        for planned in plan_trials(d.grasp, d.spec):
            k = planned.index
            run.trials[k] = TrialRecord(k, planned.pose, "queued")
            jobs.append(
                TrialJob(
                    run.run_id,
                    planned,
                    d.obj,
                    d.params,
                    max_frames,
                    crash_after if k == 0 else None,
                )
            )
        self._series = {k: TrialSeries.empty() for k in run.trials}
        self._field_max = {}
        self.runs_table.set_trials([run.trials[k] for k in sorted(run.trials)])
        self.timeline.follow_live = True
        self._trial = -1
        self.select_trial(0)
        self._run_started_at = time.perf_counter()
        self.sim.submit(run.run_id, jobs)
        self.viewport.set_quality(False)  # cheaper renders while frames stream
        self.simulate_action.setEnabled(False)
        self.cancel_action.setEnabled(True)
        self.progress.setVisible(True)
        self.progress.setRange(0, len(jobs))
        self.progress.setValue(0)
        self._status(f"simulating {len(jobs)} trial(s)…")
        return True

    def cancel_simulation(self) -> None:
        if self.sim.is_running():
            self.sim.cancel()
            self._status("cancelling… the frames so far are kept")

    def _on_trial_started(self, trial: int) -> None:
        d = self.doc
        if d is None or d.run is None or trial not in d.run.trials:
            return
        d.run.trials[trial].status = "running"
        self.runs_table.update_trial(d.run.trials[trial])
        if self.timeline.follow_live and self._trial != trial:
            self.select_trial(trial)

    def _on_frame(self, packet: FramePacket) -> None:
        d = self.doc
        if d is None or d.run is None or packet.run_id != d.run.run_id:
            return
        rec = d.run.trials.get(packet.trial)
        if rec is None:
            return
        rec.frames.append(packet.frame)
        rec.energy_density.append(packet.energy)
        if rec.status == "queued":
            rec.status = "running"
        self._series.setdefault(packet.trial, TrialSeries.empty()).append(packet.frame)
        # Widgets are refreshed from the display tick, not per frame: every repaint also
        # recomposes the window around the OpenGL view, which is costly with software GL.
        self._stream_dirty = f"trial {packet.trial + 1}/{len(d.run.trials)} · {packet.frame.phase} · frame {len(rec.frames)}"
        if packet.trial == self._trial:
            self._timeline_dirty = True

    def _on_trial_ended(self, trial: int, result: TrialResult, status: str) -> None:
        d = self.doc
        if d is None or d.run is None or trial not in d.run.trials:
            return
        rec = d.run.trials[trial]
        rec.result = result
        rec.status = status
        self.runs_table.update_trial(rec)
        done = sum(r.status in ("done", "failed", "cancelled") for r in d.run.trials.values())
        self.progress.setValue(done)
        if status == "failed":
            self._status(f"trial {trial} failed: {result.reason} {result.error}".strip())

    def _update_quality(self) -> None:
        self.viewport.set_quality(not self.sim.is_running() and not self.timeline.is_playing())

    def _on_run_finished(self, run_id: int, cancelled: bool) -> None:
        self._update_quality()
        self._flush_stream()  # the timeline gets the last frames now, not at the next tick
        d = self.doc
        self.simulate_action.setEnabled(True)
        self.cancel_action.setEnabled(False)
        self.progress.setVisible(False)
        if d is None or d.run is None:
            return
        results = [r.result for r in d.run.trials.values() if r.result is not None]
        ok = sum(r.success for r in results)
        n = len(d.run.trials)
        took = time.perf_counter() - self._run_started_at
        word = "cancelled" if cancelled else "finished"
        self._status(
            f"run {word}: {ok}/{n} trials lifted the object (R = {ok / max(n, 1):.2f}) in {took:.1f} s"
        )

    # ==========================================================================================
    # timeline and frame display
    # ==========================================================================================
    def select_trial(self, trial: int) -> None:
        d = self.doc
        if d is None or d.run is None or trial not in d.run.trials:
            return
        self._trial = trial
        series = self._series.setdefault(trial, TrialSeries.from_frames(d.run.trials[trial].frames))
        self.plots.set_series(series)
        self.timeline.set_series(series)
        self.runs_table.select_trial(trial)
        if len(series):
            self._mode = "play"

    def _step(self, delta: int) -> None:
        if self._focus_is_text():
            return
        self.timeline.step(delta)

    def _seek(self, index: int) -> None:
        self.timeline.seek(index)

    def _focus_is_text(self) -> bool:
        w = QApplication.focusWidget()
        return w is not None and w.inherits("QAbstractSpinBox")

    def _on_timeline_frame(self, index: int) -> None:
        self.plots.set_current(index)
        if index >= 0:
            self._mode = "play"

    def _on_color_mode(self) -> None:
        self.viewport.color_mode = self.color_combo.currentData()
        self._shown = None

    def _fields_for(self, rec: TrialRecord, index: int) -> tuple[np.ndarray, np.ndarray] | None:
        mode = self.viewport.color_mode
        d = self.doc
        if mode == "none" or d is None:
            return None
        if mode == "energy":
            if len(rec.energy_density) != len(rec.frames):
                self._fill_energy(rec)
            return rec.energy_density[index]
        f = rec.frames[index]
        params = d.run.params if d.run is not None else d.params
        disp = pad_displacement(
            self._pad,
            f.pad_vertices,
            rec.gripper_pose,
            params.open_width_m,
            f.plate_travel_m,
            f.plate_lift_m,
        )
        return (disp[0] * 1e3, disp[1] * 1e3)

    def _fill_energy(self, rec: TrialRecord) -> None:
        """Energy fields for frames that came without them (old frame files)."""
        d = self.doc
        params = d.run.params if d is not None and d.run is not None else None
        if params is None:
            return
        if self._evaluator is None:
            self._evaluator = PadFieldEvaluator(
                self._pad, params.youngs_modulus_pa, params.poisson_ratio
            )
        ev = self._evaluator
        rec.energy_density = [
            (ev.energy_density(f.pad_vertices[0]), ev.energy_density(f.pad_vertices[1]))
            for f in rec.frames
        ]

    def _field_range(self, rec: TrialRecord) -> float:
        """Top of the colour scale for a trial: the largest per-frame 99th percentile, so a
        few stress-concentration vertices at an edge do not wash out the rest of the pad.
        Updated incrementally as frames stream in."""
        key = (rec.trial, self.viewport.color_mode)
        counted, vmax = self._field_max.get(key, (0, 0.0))
        for i in range(counted, len(rec.frames)):
            fields = self._fields_for(rec, i)
            if fields is not None:
                vmax = max(vmax, float(np.percentile(np.concatenate(fields), 99)))
        self._field_max[key] = (len(rec.frames), vmax)
        return vmax if vmax > 0 else 1.0

    def _flush_stream(self) -> None:
        """Show what streamed in since the last tick (status text, timeline range, plots)."""
        if self._stream_dirty:
            self._status(self._stream_dirty)
            self._stream_dirty = ""
        if self._timeline_dirty:
            self._timeline_dirty = False
            self.timeline.frames_added()
            self.plots.update()
            if self.timeline.follow_live:
                self._mode = "play"

    def _display_tick(self) -> None:
        """The window's one display clock (~30 Hz): refresh the streamed-run widgets, put the
        timeline's frame in the view if it changed (the newest frame wins) and render the view,
        all in one event-loop pass so Qt composes the window once per tick."""
        self._flush_stream()
        self._show_timeline_frame()
        self.viewport.render_if_dirty()

    def _show_timeline_frame(self) -> None:
        d = self.doc
        if self._mode != "play" or d is None or d.run is None or self._shapes is None:
            return
        rec = d.run.trials.get(self._trial)
        index = self.timeline.index
        if rec is None or not (0 <= index < len(rec.frames)):
            return
        key = (d.run.run_id, self._trial, index, self.viewport.color_mode)
        if key == self._shown:
            return
        self._shown = key
        f = rec.frames[index]
        fields = self._fields_for(rec, index)
        if fields is not None:
            self.viewport.set_field_range(self._field_range(rec))
        # VTK's font has no Greek letters: "Psi" in the 3D view.
        label = f"trial {self._trial}  t = {f.time_s:.3f} s  {f.phase}  Psi = {f.psi_j[0]:.2e}, {f.psi_j[1]:.2e} J  F = {f.grip_force_n[0]:.3f}, {f.grip_force_n[1]:.3f} N"
        self.viewport.show_frame(
            self._shapes,
            rec.gripper_pose,
            f.pad_vertices,
            f.object_pose,
            f.plate_travel_m,
            f.plate_lift_m,
            fields,
            label,
        )
        self.viewport.clear_contacts()
        self.frame_displayed.emit(self._trial, index)

    # ==========================================================================================
    # exports
    # ==========================================================================================
    def _selected_record(self) -> TrialRecord | None:
        d = self.doc
        if d is None or d.run is None:
            return None
        return d.run.trials.get(self._trial)

    def _ask_path(self, title: str, filt: str, suffix: str) -> str | None:
        path, _ = QFileDialog.getSaveFileName(self, title, "", filt)
        if not path:
            return None
        if not Path(path).suffix:
            path += suffix
        return path

    def _export_csv_dialog(self) -> None:
        path = self._ask_path("Export results", "CSV (*.csv)", ".csv")
        if path:
            self.export_csv(path)

    def export_csv(self, path: str | Path) -> bool:
        """One row per trial: inputs (object, grasp, every parameter, seed), outcome, and the
        analytic predictions of the run's grasp."""
        d = self.doc
        if d is None or d.run is None:
            self._error("Nothing to export", "Run a simulation first (F5).")
            return False
        run = d.run
        ctx = context_columns(
            d.object_source, d.mesh.sha256, d.pose_index, run.grasp, run.params, run.spec.seed
        )
        ctx["n_trials"] = run.spec.n_trials
        ctx["object_density_kg_m3"] = d.obj.density_kg_m3
        analytic = {}
        for key in ("soft_point", "reach", "6dfc", "exact"):
            r = self.predictions.results.get(key)
            for col in ANALYTIC_COLUMNS:
                analytic[f"analytic_{key}_{col}"] = "" if r is None else getattr(r, col)
        columns = [*ctx, "status", *OUTCOME_COLUMNS, *analytic]
        try:
            f, writer = open_results_writer(path, columns)
        except IpcGraspError as exc:
            self._error("Cannot export CSV", str(exc))
            return False
        with f:
            for k in sorted(run.trials):
                rec = run.trials[k]
                result = rec.result or TrialResult(trial=k, success=False, reason=rec.status)
                row = result_row(ctx, result)
                row["status"] = rec.status
                row.update(analytic)
                writer.writerow(row)
        self._status(f"results written to {path}")
        return True

    def _export_vtk_dialog(self) -> None:
        path = self._ask_path("Export VTK series", "ParaView series (*.pvd)", ".pvd")
        if path:
            self.export_vtk(path)

    def export_vtk(self, path: str | Path) -> Path | None:
        d = self.doc
        rec = self._selected_record()
        if d is None or rec is None or not rec.frames:
            self._error("Nothing to export", "Select a trial with frames first.")
            return None
        if len(rec.energy_density) != len(rec.frames):
            self._fill_energy(rec)
        try:
            out = write_vtk_series(
                path,
                rec.frames,
                d.obj.vertices,
                d.obj.faces,
                self._pad.surface_faces,
                rec.energy_density,
            )
        except IpcGraspError as exc:
            self._error("Cannot export the VTK series", str(exc))
            return None
        self._status(f"VTK series written to {out} (open it in ParaView)")
        return out

    def _screenshot_dialog(self) -> None:
        path = self._ask_path("Save screenshot", "PNG image (*.png)", ".png")
        if path:
            self.save_screenshot(path)

    def save_screenshot(self, path: str | Path) -> bool:
        try:
            Path(path).parent.mkdir(parents=True, exist_ok=True)
            self.viewport.screenshot(str(path))
        except (OSError, ValueError) as exc:
            self._error("Cannot save the screenshot", f"{path}: {exc}")
            return False
        self._status(f"screenshot saved to {path}")
        return True

    def _export_video_dialog(self) -> None:
        path = self._ask_path("Export video", "MP4 video (*.mp4);;Animated GIF (*.gif)", ".mp4")
        if path:
            self.export_video(path)

    def export_video(self, path: str | Path, fps: int = 20) -> bool:
        """Render the selected trial off-screen in a child process, with a progress dialog.

        Returns at once; `video_finished` state is in self.last_export (path, frames, error).
        """
        d = self.doc
        rec = self._selected_record()
        if d is None or rec is None or not rec.frames or self._shapes is None:
            self._error("Nothing to export", "Select a trial with frames first.")
            return False
        if self._export is not None:
            self._error("Export running", "Wait for the current export to finish.")
            return False
        p = Path(path)
        try:
            p.parent.mkdir(parents=True, exist_ok=True)
            with open(p, "wb"):
                pass
        except OSError as exc:
            self._error(
                "Cannot export the video",
                f"{p} is not writable ({exc.strerror}); choose another folder",
            )
            return False
        mode = self.viewport.color_mode
        fields = None
        fmax = 1.0
        if mode != "none":
            fields = [self._fields_for(rec, i) for i in range(len(rec.frames))]
            fmax = self._field_range(rec)
        w, h = self.viewport.window_size()
        job = VideoJob(
            str(p), np.asarray(d.obj.vertices), np.asarray(d.obj.faces), self._shapes, rec.gripper_pose,
            list(rec.frames), fields, fmax, self.viewport.camera_position(), even_size(w, h), fps,
            f"trial {rec.trial}",
        )  # fmt: skip
        ctx = mp.get_context("spawn")
        progress, cancel = ctx.Queue(), ctx.Event()
        proc = ctx.Process(
            target=render_video, args=(job, progress, cancel), daemon=True, name="ipcgrasp-video"
        )
        proc.start()
        dialog = QProgressDialog(f"Rendering {p.name}…", "Cancel", 0, len(rec.frames), self)
        dialog.setWindowTitle("Export video")
        dialog.setMinimumDuration(0)
        dialog.setWindowModality(Qt.WindowModality.WindowModal)
        timer = QTimer(self)
        self._export = {
            "proc": proc,
            "progress": progress,
            "cancel": cancel,
            "dialog": dialog,
            "timer": timer,
            "path": str(p),
        }
        self.last_export: dict | None = None
        dialog.canceled.connect(cancel.set)
        timer.timeout.connect(self._poll_export)
        timer.start(50)
        return True

    def _poll_export(self) -> None:
        e = self._export
        if e is None:
            return
        for msg in drain(e["progress"]):
            if msg[0] == "progress":
                e["dialog"].setValue(msg[1])
            else:
                self._finish_export(msg)
                return
        if not e["proc"].is_alive():
            for msg in drain(e["progress"]):
                if msg[0] != "progress":
                    self._finish_export(msg)
                    return
            self._finish_export(
                ("error", f"the export process died (exit code {e['proc'].exitcode})")
            )

    def _finish_export(self, msg: tuple) -> None:
        e, self._export = self._export, None
        if e is None:
            return
        e["timer"].stop()
        e["dialog"].reset()
        e["dialog"].deleteLater()
        e["proc"].join(2.0)
        e["progress"].cancel_join_thread()
        if msg[0] == "done":
            self.last_export = {"path": msg[1], "frames": msg[2], "error": ""}
            self._status(f"video written to {msg[1]} ({msg[2]} frames)")
        elif msg[0] == "cancelled":
            self.last_export = {"path": e["path"], "frames": msg[1], "error": "cancelled"}
            self._status("video export cancelled")
        else:
            self.last_export = {"path": e["path"], "frames": 0, "error": msg[1]}
            self._error("Video export failed", msg[1])

    # ==========================================================================================
    # sessions and closing
    # ==========================================================================================
    def _save(self) -> bool:
        d = self.doc
        if d is None:
            return False
        if d.path is None:
            return self._save_as()
        return self.save_session(d.path)

    def _save_as(self) -> bool:
        path = self._ask_path("Save session", SESSION_FILTER, SESSION_SUFFIX)
        return self.save_session(path) if path else False

    def save_session(self, path: str | Path) -> bool:
        d = self.doc
        if d is None:
            return False
        if self.sim.is_running():
            self._error(
                "Simulation running", "Wait for the run to finish or cancel it (Esc) before saving."
            )
            return False
        extras = {"camera": [list(v) for v in self.viewport.camera_position()]}
        try:
            json_path, _ = save_session(path, d.to_session(extras))
        except (SessionError, IpcGraspError) as exc:
            self._error("Cannot save the session", str(exc))
            return False
        d.path = json_path
        d.dirty = False
        self._add_recent(json_path)
        self.setWindowTitle(f"ipcgrasp - {json_path.name}")
        self._status(f"session saved to {json_path}")
        return True

    def _confirm_discard(self, what: str) -> bool:
        """Ask before dropping running trials or unsaved results."""
        if self.sim.is_running():
            answer = QMessageBox.question(
                self, "Trials running",
                f"Trials are still running. Stop them and {what}?",
                QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            )  # fmt: skip
            if answer != QMessageBox.StandardButton.Yes:
                return False
            self.sim.cancel()
        d = self.doc
        if d is not None and d.dirty and d.run is not None:
            answer = QMessageBox.question(
                self, "Unsaved results",
                f"The simulation results are not saved. Save them before you {what}?",
                QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Discard
                | QMessageBox.StandardButton.Cancel,
            )  # fmt: skip
            if answer == QMessageBox.StandardButton.Cancel:
                return False
            if answer == QMessageBox.StandardButton.Save and not self._save():
                return False
        return True

    def _confirm_replace_results(self) -> bool:
        """Before a new run replaces unsaved results: Save / Discard / Cancel, with a
        "don't ask again" box for users who iterate quickly."""
        d = self.doc
        has_results = (
            d is not None
            and d.run is not None
            and any(r.frames or r.result is not None for r in d.run.trials.values())
        )
        if not (has_results and d.dirty) or not self.ask_replace_action.isChecked():
            return True
        box = QMessageBox(self)
        box.setIcon(QMessageBox.Icon.Question)
        box.setWindowTitle("Unsaved results")
        n = len(d.run.trials)
        box.setText(
            f"The results of the last run ({n} trial{'s' if n != 1 else ''}) are not saved. "
            "A new simulation replaces them."
        )
        box.setInformativeText("Save them to a session file first?")
        sb = QMessageBox.StandardButton
        box.setStandardButtons(sb.Save | sb.Discard | sb.Cancel)
        box.setDefaultButton(sb.Save)
        # Parented and referenced here: a temporary wrapper would be collected and free the box.
        dont_ask = QCheckBox("Don't ask again (replace unsaved results silently)", box)
        box.setCheckBox(dont_ask)
        answer = self.ask(box)
        remember = dont_ask.isChecked()
        box.deleteLater()
        if answer == sb.Cancel:
            return False
        if answer == sb.Save and not self._save():
            return False
        if remember:
            self.ask_replace_action.setChecked(False)  # saves the preference
        return True

    def ask(self, box: QMessageBox) -> QMessageBox.StandardButton:
        """Show a prepared question box modally (tests replace this to answer it)."""
        return QMessageBox.StandardButton(box.exec())

    def closeEvent(self, event) -> None:
        if not self._confirm_discard("quit"):
            event.ignore()
            return
        self.shutdown()
        event.accept()

    def shutdown(self) -> None:
        """Stop timers, workers and the view (idempotent)."""
        self._display_timer.stop()
        if self._export is not None:
            self._export["cancel"].set()
            self._export["proc"].terminate()
            self._finish_export(("cancelled", 0))
        self.sim.shutdown()
        self.checker.shutdown()
        self.analysis.shutdown()
        self.viewport.close()
