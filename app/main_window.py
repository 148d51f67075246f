"""The main window: lays out the docks and wires menus, toolbar and shortcuts to controllers.

State lives in the Qt-free model (app.model.AppModel); controllers (app.controllers) change it;
views follow its events (app.bindings, app.controllers.scene). Every user action is a method
of a controller (window.opening.open_path, window.editing.set_grasp, window.runs.start_simulation,
...), so tests and the smoke test drive the real window the way a user does.
"""

from __future__ import annotations

import logging

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QCloseEvent, QDragEnterEvent, QDropEvent, QIcon, QUndoStack
from PySide6.QtWidgets import (
    QDockWidget,
    QLabel,
    QMainWindow,
    QProgressBar,
    QScrollArea,
    QSplitter,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from app import bindings
from app import logs as app_logs
from app.analysis_client import AnalysisClient
from app.controllers.analysis import AnalysisController
from app.controllers.compare import CompareController
from app.controllers.dataset import DataSetController
from app.controllers.default_grasp import DefaultGraspController
from app.controllers.editing import EditController
from app.controllers.exports import ExportController
from app.controllers.opening import OpenController
from app.controllers.psi_force import PsiForceController
from app.controllers.push import PushController
from app.controllers.runs import RunController
from app.controllers.sampling import SamplingController
from app.controllers.scene import SceneController
from app.controllers.sessions import SessionController
from app.dataset_dock import DataSetDock
from app.grasp_dock import GraspDock
from app.help_overlay import NEXT_STEPS, HelpOverlay, shortcut_rows
from app.log_view import LogView, app_data_dir
from app.menus import Menus
from app.model import AppModel, Document
from app.param_dock import ParamDock
from app.plots import TimePlots
from app.reading_client import ReadingClient
from app.resources import icon_path
from app.sim_pool import SimulationPool
from app.tables import PredictionsPanel, RunsTable
from app.timeline import Timeline
from app.ui import Feedback
from app.viewport import Viewport

log = logging.getLogger(__name__)


class MainWindow(QMainWindow):
    """ipcgrasp's main window."""

    def __init__(self, n_workers: int | None = None, start_workers: bool = True) -> None:
        super().__init__()
        self.setWindowTitle("ipcgrasp")
        icon = icon_path()
        if icon is not None:
            self.setWindowIcon(QIcon(str(icon)))
        self.resize(1400, 900)
        self.setAcceptDrops(True)
        self.log_hub = app_logs.install(app_data_dir())
        self.help_overlay: HelpOverlay | None = None

        # Model, views, worker pools.
        self.model = AppModel()
        self.undo_stack = QUndoStack(self)
        self.viewport = Viewport(self)
        self.timeline = Timeline()
        self.plots = TimePlots()
        self.runs_table = RunsTable()
        self.predictions = PredictionsPanel()
        self.param_dock = ParamDock()
        self.grasp_dock = GraspDock()
        self.dataset_dock = DataSetDock()
        self.log_view = LogView(self.log_hub)
        self._build_layout()
        self.ui = Feedback(self, self.status_label)
        self.sim = SimulationPool(self, n_workers)
        self.checker = AnalysisClient(self, check=True, models=(), name="ipcgrasp-check")
        self.analysis = AnalysisClient(self, check=False, name="ipcgrasp-analysis")

        self._build_controllers()  # and the menus (app/menus.py)
        self._bind_views()
        if start_workers:
            self.sim.start()
            self.checker.start()
            self.analysis.start()
            self.defaults.start()
            self.reader.start()
        self.scene.start()

    def _build_controllers(self) -> None:
        """The controllers, in the order they depend on one another, and the menus."""
        # The scene first: it draws the grasp before the analysis requests it.
        self.scene = SceneController(
            self.model, self.viewport, self.timeline, self.plots, self.predictions,
            self.grasp_dock, self.ui, self.sim, self,
        )  # fmt: skip
        # Before the analysis: on a grasp change it knows the force Psi_th implies (if known)
        # when the analysis asks for the models' grip force. Its worker starts on first use.
        self.psi_force = PsiForceController(self.model, self)
        self.analysis_ctl = AnalysisController(
            self.model, self.checker, self.analysis, self.predictions, self
        )
        self.editing = EditController(self.model, self.undo_stack, self.ui)
        self.defaults = DefaultGraspController(self.model, self.undo_stack, self.ui, self)
        self.sampling = SamplingController(self.model, self.editing, self.ui, self)
        self.sessions = SessionController(
            self.model, self.sim, self.ui, self.viewport.camera_position,
            lambda: self.menus.ask_replace_action.isChecked(), self._set_ask_replace,
        )  # fmt: skip
        self.runs = RunController(
            self.model, self.sim, self.ui, self.sessions.confirm_replace_results,
            lambda: self.timeline.follow_live,
        )  # fmt: skip
        self.runs.connect_pool(self.sim)
        self.pushing = PushController(self.model, self.viewport, self.timeline, self.runs, self.ui)
        self.exports = ExportController(
            self.model, self.viewport, self.predictions, self.ui, self,
            force_view=self.scene.video_force_view, side_by_side=self.scene.video_side_by_side,
        )  # fmt: skip
        self.menus = Menus(self)  # actions, menus, toolbar, shortcuts (app/menus.py)
        self.reader = ReadingClient(self)  # files are read in its worker process
        self.opening = OpenController(
            self.model, self.viewport, self.ui, self.reader, self.sessions.confirm_discard,
            self.undo_stack.clear, self._set_title, self.menus.recent_menu,
        )  # fmt: skip
        self.compare = CompareController(
            self.model, self.compare_label, self.ui, lambda: self.scene.compare_view
        )
        self.menus.side_by_side_action.toggled.connect(lambda _on: self.compare.refresh())
        self.datasets = DataSetController(
            self.model, self.dataset_dock, self.viewport, self.opening, self.editing, self.runs,
            self.sim, self.ui, self.sessions.confirm_discard,
            self.sessions.confirm_replace_results, self._show_dataset_dock,
            self.scene.update_quality, self,
        )  # fmt: skip

    @property
    def doc(self) -> Document | None:
        """The model's document (None before anything is opened)."""
        return self.model.doc

    # --- layout -------------------------------------------------------------------------------
    def _dock(self, title: str, widget: QWidget, area: Qt.DockWidgetArea, name: str) -> QDockWidget:
        d = QDockWidget(title, self)
        d.setObjectName(name)
        d.setWidget(widget)
        self.addDockWidget(area, d)
        return d

    @staticmethod
    def _scroll(widget: QWidget) -> QScrollArea:
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(widget)
        # Wide enough for the content and its vertical scroll bar: the docks scroll only
        # vertically (a horizontal bar hid the fields' right edge).
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        bar = scroll.verticalScrollBar().sizeHint().width()
        needed = widget.minimumSizeHint().width() + bar + 2 * scroll.frameWidth()
        scroll.setMinimumWidth(max(430, needed))
        return scroll

    def _build_layout(self) -> None:
        self.setCentralWidget(self.viewport.widget)
        right = Qt.DockWidgetArea.RightDockWidgetArea
        side = QWidget()
        lay = QVBoxLayout(side)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addWidget(self.grasp_dock)
        self.grasp_dock_widget = self._dock("Object and grasp", self._scroll(side), right, "grasp")
        self.param_dock_widget = self._dock(
            "Parameters", self._scroll(self.param_dock), right, "params"
        )
        self.tabifyDockWidget(self.grasp_dock_widget, self.param_dock_widget)
        self.grasp_dock_widget.raise_()
        left = Qt.DockWidgetArea.LeftDockWidgetArea
        self.dataset_dock_widget = self._dock("Data set", self.dataset_dock, left, "dataset")
        self.dataset_dock_widget.hide()  # File > Open data set shows it (View > Data set)

        timeline_box = QWidget()
        tl = QVBoxLayout(timeline_box)
        tl.setContentsMargins(0, 0, 0, 0)
        tl.addWidget(self.timeline)
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(self.plots)
        self.bottom_tabs = QTabWidget()
        runs_box = QWidget()
        rl = QVBoxLayout(runs_box)
        rl.setContentsMargins(0, 0, 0, 0)
        rl.setSpacing(2)
        self.compare_label = QLabel("")  # what the shown run is compared with (compare runs)
        self.compare_label.setWordWrap(True)
        rl.addWidget(self.compare_label)
        rl.addWidget(self.runs_table, 1)
        self.bottom_tabs.addTab(runs_box, "Runs")
        self.bottom_tabs.addTab(self.predictions, "Analytic predictions")
        split.addWidget(self.bottom_tabs)
        split.setSizes([700, 700])
        tl.addWidget(split, 1)
        bottom = Qt.DockWidgetArea.BottomDockWidgetArea
        self.timeline_dock = self._dock("Timeline", timeline_box, bottom, "timeline")
        self.log_dock = self._dock("Log", self.log_view, bottom, "log")
        self.log_dock.hide()  # View > Log
        self.resizeDocks([self.timeline_dock], [300], Qt.Orientation.Vertical)
        self.resizeDocks([self.grasp_dock_widget], [380], Qt.Orientation.Horizontal)

        self.status_label = QLabel("ready")
        self.progress = QProgressBar()
        self.progress.setMaximumWidth(220)
        self.progress.setVisible(False)
        self.statusBar().addWidget(self.status_label, 1)
        self.statusBar().addPermanentWidget(self.progress)

    def _bind_views(self) -> None:
        m = self.model
        bindings.bind_grasp_dock(m, self.grasp_dock, self.editing)
        bindings.bind_param_dock(m, self.param_dock, self.editing)
        bindings.bind_runs_table(m, self.runs_table)
        menus = self.menus
        bindings.bind_run_controls(m, menus.simulate_action, menus.cancel_action, self.progress)
        self.viewport.picked.connect(self.editing.place_grasp_at)
        self.viewport.hovered.connect(self.editing.preview_at)
        m.candidates_changed.connect(self.viewport.show_candidates)
        self.viewport.candidate_clicked.connect(self.sampling.choose)
        self.editing.preview_changed.connect(self.viewport.show_grasp_preview)
        m.run_started.connect(lambda _run: self.viewport.clear_grasp_preview())
        m.document_changed.connect(lambda _doc: self.viewport.clear_grasp_preview())
        self.viewport.gizmo_moved.connect(self.editing.on_gizmo)
        self.sim.workers_ready.connect(lambda n: self.ui.status(f"{n} simulation worker(s) ready"))
        self.analysis_ctl.predictions_shown.connect(
            lambda _r: self.scene.show_contacts(self.predictions.contacts_box.isChecked())
        )

    def show_help(self) -> HelpOverlay:
        """The keys and clicks (F1 or ?): every action's shortcut and the view's mouse."""
        if self.help_overlay is not None and self.help_overlay.isVisible():
            self.help_overlay.close()
            return self.help_overlay
        actions = [a for a in self.actions() if isinstance(a, QAction)]
        self.help_overlay = HelpOverlay(self, shortcut_rows(actions), NEXT_STEPS)
        self.help_overlay.show()
        return self.help_overlay

    def _show_dataset_dock(self) -> None:
        self.dataset_dock_widget.show()
        self.dataset_dock_widget.raise_()
        self.resizeDocks([self.dataset_dock_widget], [520], Qt.Orientation.Horizontal)

    def _set_title(self, label: str) -> None:
        self.setWindowTitle(f"ipcgrasp - {label}")

    def _set_ask_replace(self, ask: bool) -> None:
        self.menus.ask_replace_action.setChecked(ask)  # toggled saves the preference

    def use_pool(self, pool: SimulationPool) -> None:
        """Run simulations on `pool` from now on (benchmarks swap in a cold pool)."""
        self.sim = pool
        self.runs.connect_pool(pool)
        self.sessions.pool = pool
        self.scene.pool = pool
        self.datasets.pool = pool

    # --- Qt events ----------------------------------------------------------------------------
    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        """Accept dragged local files."""
        self.opening.drag_enter(event)

    def dropEvent(self, event: QDropEvent) -> None:
        """Open a dropped file."""
        self.opening.drop(event)

    def closeEvent(self, event: QCloseEvent) -> None:
        """Ask before losing results or running trials, then shut down."""
        if not self.sessions.confirm_discard("quit"):
            event.ignore()
            return
        self.shutdown()
        event.accept()

    def shutdown(self) -> None:
        """Stop timers, workers and the view (idempotent)."""
        self.scene.stop()
        self.datasets.shutdown()
        self.log_view.stop()
        self.exports.shutdown()
        self.sampling.shutdown()
        self.defaults.shutdown()
        self.reader.shutdown()
        self.psi_force.shutdown()
        self.sim.shutdown()
        self.checker.shutdown()
        self.analysis.shutdown()
        self.viewport.close()
        log.info("window closed")
