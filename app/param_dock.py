"""Parameter dock: its fields are generated from the engine's parameter declarations.

Each SimulationParams / TrialSpec field declared with a GUI group (engine.schema) gets a widget
of its declared kind, range, display unit and tooltip; a new declared parameter appears here
without code. Only the squeeze-stop choice (Psi_th or force), the analytic models' force and
the object density are composed by hand, since they are app-level choices, not one field.
Edits are reported as (name, SI value) so the controllers can make them undoable.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QScrollArea,
    QSlider,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from app.widgets.sci_spinbox import SciSpinBox
from app.widgets.unit_spinbox import CheckedIntSpinBox, checked_spinbox
from engine.grasp.params import SimulationParams
from engine.grasp.trials import TrialSpec
from engine.schema import Declared, field_spec, gui_fields

if TYPE_CHECKING:
    from app.model.grip import PsiForceState

STOP_GRIPPER, STOP_PSI, STOP_FORCE = 0, 1, 2  # the squeeze-stop choices
_UNBOUNDED = 1e9  # spin-box limit for a declaration without an upper bound (display units)
REFUSED_COLOR = "#c0392b"
ADVICE_COLOR = "#b9770e"  # the grasp dock's warnings' amber
_REFUSED_STYLE = f"QAbstractSpinBox, QComboBox {{ border: 2px solid {REFUSED_COLOR}; }}"


def _tooltip(d: Declared) -> str:
    unit = f" {d.spec.unit}" if d.spec.unit else ""
    valid = d.spec.range_text(integer=d.kind is int)
    text = f"{d.spec.help[0].upper()}{d.spec.help[1:]}. Valid: {valid}{unit}."
    if d.spec.none_means:
        text += f" Unchecked default: {d.spec.none_means}."
    return text


def _display_range(d: Declared) -> tuple[float, float]:
    """The declared range in displayed units, open ends nudged in by one displayed step."""
    scale, spec = d.spec.display_scale, d.spec
    resolution = 10.0**-spec.decimals
    lo = -_UNBOUNDED if spec.low is None else spec.low / scale
    hi = _UNBOUNDED if spec.high is None else spec.high / scale
    if spec.low is not None and not spec.low_inclusive:
        lo += resolution
    if spec.high is not None and not spec.high_inclusive:
        hi -= resolution
    return lo, hi


class FieldNote:
    """A refusal shown at its field (issue 39 point 7): a red line right under the field, a red
    border round it and the reason first in its tooltip; "" clears them."""

    def __init__(self, editor: QWidget, row: QWidget) -> None:
        self.editor = editor
        self.tip = editor.toolTip()
        self.label = QLabel("")
        self.label.setWordWrap(True)
        self.label.setStyleSheet(f"color: {REFUSED_COLOR};")
        self.label.setVisible(False)
        self.widget = QWidget()
        column = QVBoxLayout(self.widget)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(1)
        column.addWidget(row)
        column.addWidget(self.label)

    def show(self, text: str) -> None:
        """Show why the field's last value was refused ("" clears it)."""
        if text == self.label.text():
            return
        self.label.setText(text)
        self.label.setVisible(bool(text))
        self.editor.setStyleSheet(_REFUSED_STYLE if text else "")
        self.editor.setToolTip(f"Refused: {text}\n\n{self.tip}" if text else self.tip)


class FieldWidget:
    """One declared field's widget: reads and writes SI values, emits (name, SI value); its
    `note` shows a refusal right under it (`widget` holds both)."""

    def __init__(self, d: Declared, emit: Any) -> None:
        self.widget: QWidget
        self._build(d, emit)
        self.note = FieldNote(self.editor, self.widget)
        self.widget = self.note.widget

    def _build(self, d: Declared, emit: Any) -> None:
        self.decl = d
        self.name = d.name
        spec = d.spec
        self.slider: QSlider | None = None
        self.default_box: QCheckBox | None = None
        tip = _tooltip(d)
        if spec.widget == "combo":
            self.editor: QWidget = QComboBox()
            self.editor.addItems(list(spec.choices or ()))
            self.editor.setToolTip(tip)
            self.editor.currentTextChanged.connect(lambda t: emit(self.name, t))
            self.widget = self.editor
            return
        if spec.widget == "int":
            int_box = CheckedIntSpinBox(spec.label or d.name)
            top = min(int(spec.high if spec.high is not None else 2**31 - 1), 2**31 - 1)
            int_box.setRange(int(spec.low if spec.low is not None else 0), top)
            int_box.setKeyboardTracking(False)
            int_box.setToolTip(tip)
            int_box.valueChanged.connect(lambda v: emit(self.name, int(v)))
            self.editor = int_box
            self.widget = int_box
            return
        if spec.widget == "log":
            log_box = SciSpinBox(
                float(spec.low or 1e-300), float(spec.high or 1e300), 10, label=spec.label or d.name
            )
            if spec.unit:
                log_box.setSuffix(f" {spec.unit}")
            log_box.setToolTip(tip + " Arrow keys and the slider step by 10^0.1.")
            self.editor = log_box
            self.slider = QSlider(Qt.Orientation.Horizontal)
            self.slider.setRange(
                math.ceil(10 * math.log10(log_box.minimum())),
                math.floor(10 * math.log10(log_box.maximum())),
            )
            self.slider.setToolTip(f"log10 {spec.label or d.name}: drag to sweep it")
            log_box.valueChanged.connect(self._on_log_value)
            self.slider.valueChanged.connect(self._on_slider)
            self._emit = emit
            row = QHBoxLayout()
            row.setContentsMargins(0, 0, 0, 0)
            row.addWidget(log_box, 2)
            row.addWidget(self.slider, 3)
            self.widget = QWidget()
            self.widget.setLayout(row)
            return
        lo, hi = _display_range(d)
        suffix = f" {spec.display_unit or spec.unit}" if (spec.display_unit or spec.unit) else ""
        step = spec.step if spec.step is not None else 10.0 ** -(spec.decimals - 1)
        box = checked_spinbox(lo, hi, step, spec.decimals, suffix, tip, spec.label or d.name)
        box.valueChanged.connect(lambda v: emit(self.name, self._si(v)))
        self.editor = box
        self.widget = box
        if spec.widget == "optional":
            self.default_box = QCheckBox(spec.none_means or "default")
            self.default_box.setToolTip(f"Use the default: {spec.none_means}")

            def on_default(same: bool) -> None:
                box.setEnabled(not same)
                emit(self.name, None if same else self._si(box.value()))

            self.default_box.toggled.connect(on_default)
            row = QHBoxLayout()
            row.setContentsMargins(0, 0, 0, 0)
            row.addWidget(box)
            row.addWidget(self.default_box)
            self.widget = QWidget()
            self.widget.setLayout(row)

    def _si(self, shown: float) -> float:
        return shown * self.decl.spec.display_scale

    def _on_log_value(self, value: float) -> None:
        if value > 0 and self.slider is not None:
            self.slider.blockSignals(True)
            self.slider.setValue(round(10 * math.log10(value)))
            self.slider.blockSignals(False)
        self._emit(self.name, value)

    def _on_slider(self, position: int) -> None:
        assert isinstance(self.editor, SciSpinBox)
        self.editor.setValue(10.0 ** (position / 10.0))  # emits through _on_log_value

    def set_value(self, value: Any, fallback: float | None = None) -> None:
        """Show an SI value (None: the optional field's default, showing `fallback`)."""
        ed = self.editor
        if isinstance(ed, QComboBox):
            ed.setCurrentText(str(value))
            return
        if self.default_box is not None:
            self.default_box.setChecked(value is None)
            ed.setEnabled(value is not None)
            if value is None:
                value = fallback
        if value is None:  # e.g. Psi_th when the squeeze stops on a force: keep the last value
            return
        if isinstance(ed, QSpinBox):
            ed.setValue(int(value))
        elif isinstance(ed, SciSpinBox):
            ed.setValue(float(value))
            if self.slider is not None and value > 0:
                self.slider.setValue(round(10 * math.log10(float(value))))
        else:
            assert isinstance(ed, QDoubleSpinBox)
            ed.setValue(float(value) / self.decl.spec.display_scale)


class ParamDock(QWidget):
    """Material, friction, squeeze stop, pad, trials; the advanced fields folded away."""

    edited = Signal(str, object)  # field name (SimulationParams / TrialSpec / app), SI value
    refused = Signal(str, str)  # field name, why the value typed in it is not taken (its range)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._updating = False
        self.fields: dict[str, FieldWidget] = {}
        self.notes: dict[str, FieldNote] = {}  # by field name: where its refusals show
        outer = QVBoxLayout(self)
        outer.setContentsMargins(6, 6, 6, 6)

        self._group(outer, "Gripper", SimulationParams, "gripper")
        self._group(outer, "Pad material and friction", SimulationParams, "material")
        # Advice about values that are valid but unwise together (a soft pad, a strong gripper).
        self.advice_label = QLabel("")
        self.advice_label.setWordWrap(True)
        self.advice_label.setStyleSheet(f"color: {ADVICE_COLOR};")
        self.advice_label.hide()
        outer.addWidget(self.advice_label)

        self._stop_group(outer)

        pad_form = self._group(outer, "Pads", SimulationParams, "pad")
        self.resolution_label = QLabel("")
        pad_form.addRow("", self.resolution_label)
        self._group(outer, "Trials", TrialSpec, "trials")

        self._advanced_group(outer)

        # A refusal of no single field (none so far) shows here, under the dock's fields.
        self.message = QLabel("")
        self.message.setWordWrap(True)
        self.message.setStyleSheet(f"color: {REFUSED_COLOR};")
        outer.addWidget(self.message)
        outer.addStretch(1)

        # Names the tests and the controllers use for the fields they drive.
        e = self.fields["youngs_modulus_pa"]
        self.e_spin, self.e_slider = e.editor, e.slider
        self.mu_spin = self.fields["mu"].editor
        self.psi_spin = self.fields["psi_th_j"].editor
        self.pad_combo = self.fields["pad"].editor
        self.edge_spin = self.fields["pad_edge_length_m"].editor
        self.trials_spin = self.fields["n_trials"].editor
        self.seed_spin = self.fields["seed"].editor
        self.mu_ground_spin = self.fields["mu_ground"].editor
        self.mu_ground_same = self.fields["mu_ground"].default_box

        self.stop_combo.currentIndexChanged.connect(self._on_stop_mode)
        self.force_spin.valueChanged.connect(lambda v: self._emit("squeeze_stop", (None, v)))
        self.analytic_force_spin.valueChanged.connect(lambda v: self._emit("analytic_force_n", v))
        self.density_spin.valueChanged.connect(lambda v: self._emit("density", v))

    def _stop_group(self, outer: QVBoxLayout) -> None:
        """The squeeze stop: its mode, Psi_th with the grip it gives, the force, the analytic
        models' force."""
        stop = QGroupBox("Squeeze stop")
        form = QFormLayout(stop)
        self.stop_combo = QComboBox()
        self.stop_combo.addItems(["gripper's force", "strain energy Ψ_th", "closing force"])
        self.stop_combo.setToolTip(
            "Stop the squeeze when each pad pushes with the gripper's grip force, when both "
            "pads' strain energies reach Ψ_th (IPC-GraspSim), or at a force of your own."
        )
        form.addRow("Stop on", self.stop_combo)
        psi = self._field(field_spec(SimulationParams, "psi_th_j"))
        psi.set_value(1e-9)  # IPC-GraspSim's value in J, shown until a document sets one
        form.addRow(psi.decl.spec.label, psi.widget)
        # The grip force this Psi_th gives on the current grasp (app.controllers.psi_force).
        self.psi_force_label = QLabel("")
        self.psi_force_label.setWordWrap(True)
        self._stop_form = form
        form.addRow("Grip at Ψ_th", self.psi_force_label)
        form.setRowVisible(self.psi_force_label, False)
        force_decl = field_spec(SimulationParams, "squeeze_force_n")
        force_lo, force_hi = _display_range(force_decl)
        # The stop combo decides None-or-force, so the force field is a plain spin box.
        self.force_spin = checked_spinbox(
            force_lo, force_hi, force_decl.spec.step or 0.1, 3, " N", _tooltip(force_decl),
            force_decl.spec.label or "force",
        )  # fmt: skip
        self.force_spin.setValue(0.5)
        form.addRow(force_decl.spec.label, self._noted("squeeze_force_n", self.force_spin))
        self.analytic_force_spin = checked_spinbox(
            0.001, 100.0, 0.1, 3, " N",
            "Grip force per jaw assumed by the analytic models when the squeeze stops on Ψ_th "
            "until the force Ψ_th implies on this grasp is known, or when it gives none (with "
            "a force stop they use that force; after a run of the grasp, the force it reached).",
            "analytic force",
        )  # fmt: skip
        form.addRow("Analytic force", self._noted("analytic_force_n", self.analytic_force_spin))
        outer.addWidget(stop)

    def _advanced_group(self, outer: QVBoxLayout) -> None:
        """The advanced fields and the object density, folded away until checked."""
        self.advanced_box = QGroupBox("Advanced")
        self.advanced_box.setCheckable(True)
        self.advanced_box.setChecked(False)
        self.advanced_box.setToolTip("Show the advanced material, mass and time-stepping fields")
        adv_outer = QVBoxLayout(self.advanced_box)
        self._advanced_body = QWidget()
        form = QFormLayout(self._advanced_body)
        form.setContentsMargins(0, 0, 0, 0)
        for d in gui_fields(SimulationParams, "advanced"):
            fw = self._field(d)
            form.addRow(d.spec.label or d.name, fw.widget)
        self.density_spin = checked_spinbox(
            1.0, 25000.0, 10.0, 1, " kg/m³", "Object density (uniform); sets its mass and inertia.",
            "object density",
        )  # fmt: skip
        form.addRow("Object density", self._noted("density", self.density_spin))
        adv_outer.addWidget(self._advanced_body)
        self._advanced_body.setVisible(False)
        self.advanced_box.toggled.connect(self._advanced_body.setVisible)
        outer.addWidget(self.advanced_box)

    def _field(self, d: Declared) -> FieldWidget:
        fw = FieldWidget(d, self._emit)
        self.fields[d.name] = fw
        self.notes[d.name] = fw.note
        self._refuses(d.name, fw.editor)
        return fw

    def _noted(self, name: str, editor: QWidget) -> QWidget:
        """`editor` with its refusal note under it (the widget to put in the form)."""
        note = FieldNote(editor, editor)
        self.notes[name] = note
        self._refuses(name, editor)
        return note.widget

    def _refuses(self, name: str, editor: QWidget) -> None:
        refused = getattr(editor, "refused", None)
        if refused is not None:  # a typed value out of range says so, at the field
            refused.connect(lambda reason, n=name: self.refused.emit(n, reason))

    def _group(self, outer: QVBoxLayout, title: str, cls: type, group: str) -> QFormLayout:
        box = QGroupBox(title)
        form = QFormLayout(box)
        for d in gui_fields(cls, group):
            form.addRow(d.spec.label or d.name, self._field(d).widget)
        outer.addWidget(box)
        return form

    # --- widget -> edits ----------------------------------------------------------------------
    def _emit(self, name: str, value: object) -> None:
        if not self._updating:
            self.edited.emit(name, value)

    def _on_stop_mode(self, index: int) -> None:
        self._sync_stop_fields(index)
        psi_box = self.psi_spin
        assert isinstance(psi_box, SciSpinBox)
        psi = psi_box.value() if index == STOP_PSI else None
        force = self.force_spin.value() if index == STOP_FORCE else None
        self._emit("squeeze_stop", (psi, force))

    def _sync_stop_fields(self, mode: int) -> None:
        psi = self.fields["psi_th_j"]
        psi.editor.setEnabled(mode == STOP_PSI)
        if psi.slider is not None:
            psi.slider.setEnabled(mode == STOP_PSI)
        # With a force stop the analytic models use that force; with Psi_th, this field's.
        self.analytic_force_spin.setEnabled(mode == STOP_PSI)
        self.force_spin.setEnabled(mode == STOP_FORCE)

    # --- state -> widgets ---------------------------------------------------------------------
    def set_values(
        self,
        params: SimulationParams,
        n_trials: int,
        seed: int,
        analytic_force_n: float,
        density: float,
        resolution: str,
    ) -> None:
        """Show a document's values without emitting edits."""
        self._updating = True
        try:
            spec = {"n_trials": n_trials, "seed": seed}
            for name, fw in self.fields.items():
                value = spec[name] if name in spec else getattr(params, name)
                fallback = params.ground_mu if name == "mu_ground" else None
                fw.set_value(value, fallback)
            if params.squeeze_force_n is not None:
                mode = STOP_FORCE
                self.force_spin.setValue(params.squeeze_force_n)
            else:
                mode = STOP_PSI if params.psi_th_j is not None else STOP_GRIPPER
            self.stop_combo.setItemText(
                STOP_GRIPPER, f"gripper's force ({params.preset.force_max_n:g} N)"
            )
            self.stop_combo.setCurrentIndex(mode)
            self._sync_stop_fields(mode)
            self.analytic_force_spin.setValue(analytic_force_n)
            self.density_spin.setValue(density)
            self.resolution_label.setText(resolution)
        finally:
            self._updating = False

    def show_advice(self, text: str) -> None:
        """Show advice about the pad settings under the material fields ("" hides it)."""
        self.advice_label.setText(f"warning: {text}" if text else "")
        self.advice_label.setVisible(bool(text))

    def show_psi_force(self, state: PsiForceState) -> None:
        """Show the grip force of the Psi_th stop on the current grasp (an
        app.model.grip.PsiForceState; its status "off" hides the row)."""
        self.psi_force_label.setText(state.text())
        self.psi_force_label.setToolTip(state.tooltip())
        self._stop_form.setRowVisible(self.psi_force_label, state.status != "off")

    def show_message(self, text: str, name: str = "") -> None:
        """Show why the last edit of field `name` was refused at that field: under it, its
        border and its tooltip ("" clears every field's)."""
        if not text:
            for each in self.notes.values():
                each.show("")
            self.message.setText("")
            return
        if name == "squeeze_stop":  # the stop's value: Psi_th or the force
            name = "psi_th_j" if self.stop_combo.currentIndex() == STOP_PSI else "squeeze_force_n"
        note = self.notes.get(name)
        for other in self.notes.values():  # the newest refusal only: the others were put back
            if other is not note:
                other.show("")
        self.message.setText("" if note is not None else text)
        if note is None:
            return
        note.show(text)
        if not note.editor.isVisible() and self._advanced_body.isAncestorOf(note.editor):
            self.advanced_box.setChecked(True)  # a refusal is never out of sight
        # Nor scrolled out of it: the dock's scroll area brings the field and its note in.
        scroll = self.parentWidget()
        while scroll is not None and not isinstance(scroll, QScrollArea):
            scroll = scroll.parentWidget()
        if scroll is not None:
            # Once the scroll area has resized the dock to the note's new line.
            QTimer.singleShot(0, lambda: scroll.ensureWidgetVisible(note.widget, 0, 4))
