"""The runs table (one row per trial) and the analytic predictions table."""

from __future__ import annotations

import math

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.workers.analysis import COULD_NOT_RUN, prediction_models
from engine.analytic.registry import PATCH, ModelSpec
from engine.analytic.result import ModelResult
from engine.io.session import TrialRecord

RUN_COLUMNS = (
    "trial",
    "status",
    "outcome",
    "reason",
    "Ψ1 (J)",
    "Ψ2 (J)",
    "grip (N)",
    "lift grip (N)",
    "lift (mm)",
    "slip (mm)",
    "turn (°)",
    "frames",
    "time (s)",
)
REASON_WIDTH_PX = 320  # the reason column's widest (its whole text is the cell's tooltip)
STATUS_COLORS = {
    "done": None,
    "failed": "#fdecea",
    "cancelled": "#fef5e7",
    "running": "#eaf2f8",
    "queued": None,
}


def _fmt(v: float | None, spec: str) -> str:
    return "" if v is None or (isinstance(v, float) and not math.isfinite(v)) else format(v, spec)


def lowest_lift_grip(rec: TrialRecord) -> float | None:
    """The lower pad's grip force at its lowest during the lift and hold (N): the grip that
    decided the outcome, where "grip (N)" is the one at the end of the squeeze."""
    grips = [min(f.grip_force_n) for f in rec.frames if f.phase in ("lift", "hold")]
    return float(min(grips)) if grips else None


def _note(tip: str) -> QLabel:
    """A line of text above the table, wrapped, with `tip` saying what it means."""
    label = QLabel("")
    label.setWordWrap(True)
    label.setToolTip(tip)
    return label


def _item(text: str, tip: str = "") -> QTableWidgetItem:
    it = QTableWidgetItem(text)
    it.setFlags(it.flags() & ~Qt.ItemFlag.ItemIsEditable)
    if tip:
        it.setToolTip(tip)
    return it


class RunsTable(QTableWidget):
    """One row per trial: status, outcome, reason, Psi and forces; selecting a row emits trial_selected."""

    trial_selected = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(0, len(RUN_COLUMNS), parent)
        self.setHorizontalHeaderLabels(list(RUN_COLUMNS))
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.verticalHeader().setVisible(False)
        header = self.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        # The reason: as wide as its text up to REASON_WIDTH_PX (then scroll sideways; the
        # whole text is the tooltip of the row's status, outcome and reason), never squeezed
        # to a few letters by the other columns.
        header.setSectionResizeMode(3, QHeaderView.ResizeMode.Interactive)
        header.resizeSection(3, header.sectionSizeHint(3))
        self.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.itemSelectionChanged.connect(self._on_select)
        self._rows: dict[int, int] = {}

    def set_trials(self, records: list[TrialRecord]) -> None:
        """Show these trial records (one row each)."""
        self.blockSignals(True)
        self.setRowCount(0)
        self._rows = {}
        for rec in records:
            self._rows[rec.trial] = self.rowCount()
            self.insertRow(self.rowCount())
            self.update_trial(rec)
        self.blockSignals(False)

    def update_trial(self, rec: TrialRecord) -> None:
        """Refresh the row of `rec`."""
        row = self._rows.get(rec.trial)
        if row is None:
            return
        r = rec.result
        outcome = ""
        reason = ""
        values = [""] * (len(RUN_COLUMNS) - 4)
        if r is not None:
            outcome = "success" if r.success else "fail"
            reason = r.reason + (f": {r.error}" if r.error else "")
            if rec.status == "cancelled":  # did not finish: neither success nor failure
                outcome, reason = "", "cancelled before the end: not counted in R"
            values = [
                _fmt(r.psi1_j, ".3g"), _fmt(r.psi2_j, ".3g"), _fmt(r.grip_force_n, ".3f"),
                _fmt(lowest_lift_grip(rec), ".3f"), _fmt(r.lift_height_m * 1e3, ".2f"),
                _fmt(max(r.slip1_m, r.slip2_m) * 1e3, ".2f"), _fmt(math.degrees(r.rotation_rad), ".1f"),
                str(r.frames or len(rec.frames)),
                # A trial dropped before it started ran for no time at all: blank, not 0.0.
                _fmt(r.wall_time_s, ".1f") if r.wall_time_s > 0 or rec.frames else "",
            ]  # fmt: skip
        elif rec.frames:
            values[RUN_COLUMNS.index("frames") - 4] = str(len(rec.frames))
        cells = [str(rec.trial), rec.status, outcome, reason, *values]
        color = STATUS_COLORS.get(rec.status)
        if r is not None and rec.status == "done":
            color = "#e9f7ef" if r.success else "#fdf2e9"
        for col, text in enumerate(cells):
            it = _item(text, reason if col in (1, 2, 3) else "")
            if color:
                it.setBackground(QColor(color))
            self.setItem(row, col, it)
        self._fit_reason()

    def _fit_reason(self) -> None:
        """The reason column as wide as its longest text, at most REASON_WIDTH_PX."""
        header = self.horizontalHeader()
        items = [self.item(r, 3) for r in range(self.rowCount())]
        texts = [it.text() for it in items if it is not None]
        metrics = self.fontMetrics()
        widest = max([metrics.horizontalAdvance(t) for t in texts] or [0]) + 16
        header.resizeSection(3, max(header.sectionSizeHint(3), min(widest, REASON_WIDTH_PX)))

    def select_trial(self, trial: int) -> None:
        """Select the row of `trial` without emitting trial_selected."""
        row = self._rows.get(trial)
        if row is not None and self.currentRow() != row:
            self.selectRow(row)

    def _on_select(self) -> None:
        rows = self.selectionModel().selectedRows()
        if rows:
            row = rows[0].row()
            trial = next((t for t, r in self._rows.items() if r == row), None)
            if trial is not None:
                self.trial_selected.emit(trial)


class PredictionsPanel(QWidget):
    """Analytic models: success, margin, robustness with its 95 % interval, failure reason."""

    show_contacts_changed = Signal(bool)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        top = QHBoxLayout()
        self.status = QLabel("")
        top.addWidget(self.status, 1)
        self.contacts_box = QCheckBox("draw contacts of the selected model")
        self.contacts_box.setToolTip(
            "Draw the selected model's contact points (arrows) or patches (coloured by "
            "pressure), and the normal and friction forces it holds the weight with"
        )
        top.addWidget(self.contacts_box)
        layout.addLayout(top)
        self.force_label = _note(
            "The grip force per jaw the models assume: the force the last simulation of this "
            "grasp reached at the end of its squeeze; before one, the force the squeeze stops "
            "at (the gripper's, a force stop, or the force Ψ_th implies on this grasp)"
        )
        layout.addWidget(self.force_label)
        self.measured_label = _note(
            "The grip strength the last simulation of this grasp measured (Parameters > "
            "Disturbance): the load on the held object at which it left the grip; pulled down, "
            "as the models' margin (the multiple of its weight the grip holds)"
        )
        self.measured_label.setVisible(False)
        layout.addWidget(self.measured_label)
        self.force_n = float("nan")  # the force of the results shown (N per jaw)
        cols = (
            "model",
            "success",
            "margin s*",
            "robustness",
            "95 % interval",
            "reason, or what limits it",
            "time (s)",
        )
        # One row per model of app.workers.analysis.prediction_models (engine.analytic.registry:
        # its label and table order), read again whenever the rows are filled.
        self.models: list[ModelSpec] = prediction_models()
        self.table = QTableWidget(len(self.models), len(cols))
        self.table.setHorizontalHeaderLabels(list(cols))
        self.table.verticalHeader().setVisible(False)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(5, QHeaderView.ResizeMode.Stretch)
        layout.addWidget(self.table)
        self.results: dict[str, ModelResult] = {}
        self.pending = False  # results of an earlier grasp or force shown while updating
        self.request = 0
        self.stage = ""
        self.set_unavailable("waiting for the first analysis…")
        self.contacts_box.toggled.connect(self.show_contacts_changed)
        self.table.itemSelectionChanged.connect(
            lambda: self.show_contacts_changed.emit(self.contacts_box.isChecked())
        )

    def set_unavailable(self, why: str) -> None:
        """Show that the analytic models cannot run, and why."""
        self.results = {}
        self.pending = False
        self._set_models()
        for row, spec in enumerate(self.models):
            self.table.setItem(row, 0, _item(spec.label))
            self.table.setItem(row, 1, _item("not available", why))
            for col in range(2, 7):
                self.table.setItem(row, col, _item(""))
        self.status.setText(why)

    def set_force(self, force_n: float, text: str) -> None:
        """The grip force the results about to be shown were computed with, and its source."""
        self.force_n = float(force_n)
        self.force_label.setText(f"Grip force: {text}")

    def set_measured(self, text: str) -> None:
        """The strength the simulator measured on this grasp ("" hides the line)."""
        self.measured_label.setText(text)
        self.measured_label.setVisible(bool(text))

    def set_pending(self) -> None:
        """Mark the predictions as being recomputed: their contacts and forces, of another
        grasp or grip force, are no longer drawn (they are again with the new results)."""
        self.status.setText("updating…")
        self.pending = True
        self.stage = ""  # no stage of the new request's answer yet
        self.show_contacts_changed.emit(self.contacts_box.isChecked())

    def set_results(
        self, request: int, results: list[ModelResult], error: str = "", stage: str = "robust"
    ) -> None:
        """Show the models' results of analysis request `request`."""
        self.request = request
        self.stage = stage
        self.pending = False
        self.results = {r.model: r for r in results}
        self._set_models()
        for row, spec in enumerate(self.models):
            r = self.results.get(spec.name)
            self.table.setItem(row, 0, _item(spec.label))
            if r is None:
                self.table.setItem(row, 1, _item("not available", error))
                for col in range(2, 7):
                    self.table.setItem(row, col, _item(""))
                continue
            if r.details.get(COULD_NOT_RUN):
                # Not a prediction: no red "no", the reason in the cell's tooltip.
                self.table.setItem(row, 1, _item("could not run", r.reason))
                for col in range(2, 5):
                    self.table.setItem(row, col, _item(""))
                self.table.setItem(row, 5, _item(r.reason, r.reason))
                self.table.setItem(row, 6, _item(""))
                continue
            ok = _item("yes" if r.success else "no")
            ok.setBackground(QColor("#e9f7ef" if r.success else "#fdecea"))
            self.table.setItem(row, 1, ok)
            self.table.setItem(row, 2, _item(_fmt(float(r.margin), ".3g")))
            robust = _fmt(float(r.robustness), ".2f") or ("…" if stage == "nominal" else "")
            self.table.setItem(row, 3, _item(robust))
            lo, hi = r.robustness_ci
            ci = "" if not math.isfinite(lo) else f"[{lo:.2f}, {hi:.2f}] (n={r.samples})"
            self.table.setItem(row, 4, _item(ci))
            # Why it says no, or which part of the load runs out first (engine.analytic.
            # load_limits: the weight's pull through the grasp centre or gravity's moment).
            why = r.reason or str(r.details.get("limit_text", ""))
            self.table.setItem(row, 5, _item(why, why))
            self.table.setItem(row, 6, _item(_fmt(float(r.time_s), ".2f")))
        what = (
            "nominal pose; robustness running…"
            if stage == "nominal"
            else "nominal pose and perturbed samples"
        )
        self.status.setText(error or f"analysis #{request}: {what}")

    def _set_models(self) -> None:
        """The rows: the registry's prediction models now (one may have been registered)."""
        self.models = prediction_models()
        if self.table.rowCount() != len(self.models):
            self.table.setRowCount(len(self.models))

    def model_at(self, row: int) -> str | None:
        """The name of the model shown in table row `row` (None outside the table)."""
        return self.models[row].name if 0 <= row < len(self.models) else None

    def selected_result(self) -> tuple[str, ModelResult | None]:
        """The label and result of the selected model whose contacts are drawn; none selected:
        the most detailed analytic model that has contacts: patches (every patch model has the
        same ones) before points. No result while the predictions are updating."""
        rows = self.table.selectionModel().selectedRows()
        key = self.model_at(rows[0].row()) if rows else None
        if key is None:
            analytic = [m for m in self.models if m.analytic]
            for spec in sorted(analytic, key=lambda m: m.kind != PATCH):
                r = self.results.get(spec.name)
                if r is not None and r.contacts:
                    key = spec.name
                    break
        r = self.results.get(key) if key and not self.pending else None
        label = next((m.label for m in self.models if m.name == key), key or "")
        return label, r
