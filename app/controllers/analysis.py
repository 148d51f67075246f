"""Analysis: every grasp change is checked and predicted in the background processes."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal

from app.model import AppModel
from app.model.grip import AnalyticForce, measured_strength_text
from app.workers.messages import Predictions

if TYPE_CHECKING:  # the window wires these; importing them here would be circular
    from app.analysis_client import AnalysisClient
    from app.tables import PredictionsPanel

log = logging.getLogger(__name__)


class AnalysisController(QObject):
    """Sends the model's grasp to the checker and the analytic worker on every grasp change;
    the newest answers update the model (validity) and the predictions panel.

    Two processes: grasp checks must stay instant while a robustness estimate runs.
    """

    predictions_shown = Signal(int)  # analysis request number, after the panel shows it

    def __init__(
        self,
        model: AppModel,
        checker: AnalysisClient,
        analysis: AnalysisClient,
        panel: PredictionsPanel,
        parent: QObject | None,
    ) -> None:
        super().__init__(parent)
        self.model = model
        self.checker = checker
        self.analysis = analysis
        self.panel = panel
        self.force: AnalyticForce | None = None  # the force of the newest prediction request
        self._force_of: dict[int, AnalyticForce] = {}  # prediction request -> its force
        model.grasp_changed.connect(self.request)
        # The models' grip force changes when a run of this grasp finishes (the force it
        # reached) and when the force a Psi_th implies is known: predict again with it.
        model.run_finished.connect(lambda _run, _cancelled: self.on_force_changed())
        model.run_loaded.connect(lambda _run: self.on_force_changed())
        model.psi_force_changed.connect(lambda _state: self.on_force_changed())
        checker.grasp_checked.connect(self.on_grasp_checked)
        analysis.predictions_ready.connect(self.on_predictions)
        table = getattr(panel, "table", None)
        if table is not None:  # double-click the MuJoCo row: play its run on the timeline
            table.cellDoubleClicked.connect(lambda row, _col: self.play_model_run(row))

    def request(self, check: bool = True) -> None:
        """Ask both processes (only the analysis one without `check`) about the current grasp
        (debounced there)."""
        self.panel.set_measured(measured_strength_text(self.model.doc))
        d = self.model.doc
        if d is None:
            return
        self.panel.set_pending()
        if self.model.finding_default:
            # A stand-in: the grasp found replaces it, and that one is checked. Answers about
            # the grasp shown before are stale now.
            self.checker.forget()
            self.analysis.forget()
            return
        self.force = self.model.analytic_force()
        force = self.force.force_n
        key = (id(d), d.version)  # the object is sent again only when it changed
        if check:
            self.checker.request(d.obj, key, d.grasp, d.params, d.spec.seed, force)
        request = self.analysis.request(d.obj, key, d.grasp, d.params, d.spec.seed, force)
        if isinstance(request, int):
            self._force_of = {request: self.force}  # answers to older requests are ignored

    def on_force_changed(self) -> None:
        """Predict again when the grip force the models should use is no longer the one the
        newest request used (the grasp is unchanged: no new check); show the strength the
        run measured beside the models' margins."""
        self.panel.set_measured(measured_strength_text(self.model.doc))
        d = self.model.doc
        if d is None or self.model.finding_default or self.force is None:
            return
        if self.model.analytic_force() != self.force:
            self.request(check=False)

    def on_grasp_checked(self, request: int, valid: bool, reason: str) -> None:
        """The checker answered; only the answer to the newest request counts."""
        if request != self.checker.latest_request:
            return
        self.model.set_grasp_check(valid, reason)

    def on_predictions(self, request: int, msg: Predictions) -> None:
        """Show the newest predictions (nominal first, then with robustness)."""
        if request != self.analysis.latest_request:
            return
        if not msg.available:
            self.panel.set_unavailable(f"not available: {msg.error}")
        else:
            force = self._force_of.get(request)
            if force is not None and hasattr(self.panel, "set_force"):
                self.panel.set_force(force.force_n, force.text())
            self.panel.set_results(request, msg.results, msg.error, msg.stage)
        self.predictions_shown.emit(request)

    def play_model_run(self, row: int | None = None) -> bool:
        """Play the MuJoCo baseline's nominal trial on the timeline (row: the table row
        clicked; only the MuJoCo row has a run). False when there is none yet."""
        from app.mujoco_playback import load_mujoco_run
        from engine.analytic.registry import MUJOCO

        if row is not None and self.panel.model_at(row) != MUJOCO:
            return False
        result = self.panel.results.get(MUJOCO)
        return result is not None and load_mujoco_run(self.model, result)
