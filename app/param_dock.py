"""Parameter dock: material, friction, squeeze stop, pad, trials; advanced fields folded away.

Every field shows its unit and a tooltip, and range limits are enforced where typed (spin
boxes). Edits are reported as (name, SI value) so the main window can make them undoable.
"""

from __future__ import annotations

import math

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDoubleSpinBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QSlider,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from app.widgets.sci_spinbox import SciSpinBox
from app.widgets.unit_spinbox import unit_spinbox
from engine.grasp.params import SimulationParams
from engine.gripper.pad_geometry import PAD_PRESETS

# (field, label, unit shown, SI per shown unit, min, max, step, decimals, tooltip)
_ADVANCED = (
    ("poisson_ratio", "Poisson ratio ν", "", 1.0, 0.0, 0.499, 0.01, 3,
     "Pad Poisson ratio (silicone rubber: 0.45-0.49)."),
    ("pad_density_kg_m3", "Pad density", " kg/m³", 1.0, 100.0, 5000.0, 50.0, 0,
     "Pad mass density (silicone ≈ 1000-1200 kg/m³)."),
    ("time_step_s", "Time step h", " ms", 1e-3, 1.0, 50.0, 1.0, 1,
     "Implicit Euler time step; smaller is more accurate and slower."),
    ("closing_speed_m_s", "Closing speed", " mm/s", 1e-3, 1.0, 500.0, 10.0, 0,
     "Maximum speed of each plate while closing."),
    ("lift_speed_m_s", "Lift speed", " mm/s", 1e-3, 1.0, 500.0, 10.0, 0,
     "Speed of the plates while lifting."),
    ("lift_height_m", "Lift height", " mm", 1e-3, 0.5, 100.0, 1.0, 1,
     "How high the object's lowest point must rise for success (the paper: 20 mm)."),
)  # fmt: skip


class ParamDock(QWidget):
    edited = Signal(
        str, object
    )  # field name (SimulationParams field, n_trials, seed, ...), SI value

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._updating = False
        outer = QVBoxLayout(self)
        outer.setContentsMargins(6, 6, 6, 6)

        material = QGroupBox("Pad material and friction")
        form = QFormLayout(material)
        self.e_spin = SciSpinBox(1e5, 1e11, steps_per_decade=10)
        self.e_spin.setSuffix(" Pa")
        self.e_spin.setToolTip(
            "Young's modulus E of the pads (Pa, log scale). Silicone: 1e6-1e8 Pa; the paper's "
            "default is 1e8 Pa. Arrow keys and the slider step by 10^0.1."
        )
        self.e_slider = QSlider(Qt.Orientation.Horizontal)
        self.e_slider.setRange(50, 110)  # 10 * log10(E)
        self.e_slider.setToolTip("log10 E: drag to sweep E from 1e5 to 1e11 Pa")
        row = QHBoxLayout()
        row.addWidget(self.e_spin, 2)
        row.addWidget(self.e_slider, 3)
        form.addRow("E", row)
        self.mu_spin = unit_spinbox(
            0.0,
            2.0,
            0.05,
            3,
            "",
            "Coulomb friction coefficient μ between pads and object (typical pads 0.3-1.0).",
        )
        form.addRow("Friction μ", self.mu_spin)
        outer.addWidget(material)

        stop = QGroupBox("Squeeze stop")
        form = QFormLayout(stop)
        self.stop_combo = QComboBox()
        self.stop_combo.addItems(["strain energy Ψ_th", "closing force"])
        self.stop_combo.setToolTip(
            "Stop the squeeze when both pads' strain energies reach Ψ_th (IPC-GraspSim), or "
            "when each pad pushes with the given force."
        )
        form.addRow("Stop on", self.stop_combo)
        self.psi_spin = SciSpinBox(1e-14, 1.0, steps_per_decade=10)
        self.psi_spin.setSuffix(" J")
        self.psi_spin.setToolTip(
            "Ψ_th: pad strain energy (J) that ends the squeeze. 1e-9 J gives ≈0.2 N on the 3 cm "
            "cube at E = 1e8 Pa; Ψ grows with the square of the force (see README)."
        )
        form.addRow("Ψ_th", self.psi_spin)
        self.force_spin = unit_spinbox(
            0.001, 100.0, 0.1, 3, " N", "Closing force per pad (N) that ends the squeeze."
        )
        self.force_spin.setValue(0.5)
        form.addRow("Closing force", self.force_spin)
        self.analytic_force_spin = unit_spinbox(
            0.001, 100.0, 0.1, 3, " N",
            "Grip force per jaw assumed by the analytic models when the squeeze stops on Ψ_th "
            "(with a force stop they use that force).",
        )  # fmt: skip
        form.addRow("Analytic force", self.analytic_force_spin)
        outer.addWidget(stop)

        pad = QGroupBox("Pads")
        form = QFormLayout(pad)
        self.pad_combo = QComboBox()
        self.pad_combo.addItems(list(PAD_PRESETS))
        self.pad_combo.setToolTip(
            "Pad outline: the YuMi D-shaped 'rounded' pad or a 27.5 x 20 mm rectangle, 3 mm thick."
        )
        form.addRow("Preset", self.pad_combo)
        self.edge_spin = unit_spinbox(
            1.0,
            6.0,
            0.5,
            2,
            " mm",
            "Target tet edge length of the pad mesh (resolution); smaller is finer and slower.",
        )
        form.addRow("Resolution", self.edge_spin)
        self.resolution_label = QLabel("")
        form.addRow("", self.resolution_label)
        outer.addWidget(pad)

        trials = QGroupBox("Trials")
        form = QFormLayout(trials)
        self.trials_spin = QSpinBox()
        self.trials_spin.setRange(1, 1000)
        self.trials_spin.setToolTip(
            "Number N of trials, each with the gripper pose perturbed (σ 1 mm, 0.003 rad)."
        )
        self.trials_spin.setKeyboardTracking(False)
        form.addRow("Trials N", self.trials_spin)
        self.seed_spin = QSpinBox()
        self.seed_spin.setRange(0, 2**31 - 1)
        self.seed_spin.setToolTip(
            "Random seed of the perturbations: the same seed gives the same trials."
        )
        self.seed_spin.setKeyboardTracking(False)
        form.addRow("Seed", self.seed_spin)
        outer.addWidget(trials)

        self.advanced_box = QGroupBox("Advanced")
        self.advanced_box.setCheckable(True)
        self.advanced_box.setChecked(False)
        self.advanced_box.setToolTip("Show the advanced material, mass and time-stepping fields")
        adv_outer = QVBoxLayout(self.advanced_box)
        self._advanced_body = QWidget()
        form = QFormLayout(self._advanced_body)
        form.setContentsMargins(0, 0, 0, 0)
        self.advanced: dict[str, tuple[QDoubleSpinBox, float]] = {}
        for name, label, unit, scale, lo, hi, step, dec, tip in _ADVANCED:
            s = unit_spinbox(lo, hi, step, dec, unit, tip)
            self.advanced[name] = (s, scale)
            form.addRow(label, s)
            s.valueChanged.connect(lambda v, n=name, k=scale: self._emit(n, v * k))
        self.density_spin = unit_spinbox(
            1.0, 25000.0, 10.0, 1, " kg/m³", "Object density (uniform); sets its mass and inertia."
        )
        form.addRow("Object density", self.density_spin)
        self.mu_ground_same = QCheckBox("same as μ")
        self.mu_ground_spin = unit_spinbox(
            0.0, 2.0, 0.05, 3, "", "Friction coefficient between the object and the ground."
        )
        row = QHBoxLayout()
        row.addWidget(self.mu_ground_spin)
        row.addWidget(self.mu_ground_same)
        form.addRow("Ground μ", row)
        adv_outer.addWidget(self._advanced_body)
        self._advanced_body.setVisible(False)
        self.advanced_box.toggled.connect(self._advanced_body.setVisible)
        outer.addWidget(self.advanced_box)

        self.message = QLabel("")
        self.message.setWordWrap(True)
        self.message.setStyleSheet("color: #c0392b;")
        outer.addWidget(self.message)
        outer.addStretch(1)

        self.e_spin.valueChanged.connect(self._on_e_spin)
        self.e_slider.valueChanged.connect(self._on_e_slider)
        self.mu_spin.valueChanged.connect(lambda v: self._emit("mu", v))
        self.stop_combo.currentIndexChanged.connect(self._on_stop_mode)
        self.psi_spin.valueChanged.connect(lambda v: self._emit("psi_th_j", v))
        self.force_spin.valueChanged.connect(lambda v: self._emit("squeeze_force_n", v))
        self.analytic_force_spin.valueChanged.connect(lambda v: self._emit("analytic_force_n", v))
        self.pad_combo.currentTextChanged.connect(lambda t: self._emit("pad", t))
        self.edge_spin.valueChanged.connect(lambda v: self._emit("pad_edge_length_m", v * 1e-3))
        self.trials_spin.valueChanged.connect(lambda v: self._emit("n_trials", int(v)))
        self.seed_spin.valueChanged.connect(lambda v: self._emit("seed", int(v)))
        self.density_spin.valueChanged.connect(lambda v: self._emit("density", v))
        self.mu_ground_spin.valueChanged.connect(lambda v: self._emit("mu_ground", v))
        self.mu_ground_same.toggled.connect(self._on_ground_same)

    # --- widget -> edits ----------------------------------------------------------------------
    def _emit(self, name: str, value: object) -> None:
        if not self._updating:
            self.edited.emit(name, value)

    def _on_e_spin(self, value: float) -> None:
        if value > 0:
            self._set_quietly(self.e_slider, round(10 * math.log10(value)))
        self._emit("youngs_modulus_pa", value)

    def _on_e_slider(self, position: int) -> None:
        if self._updating:
            return
        self.e_spin.setValue(10.0 ** (position / 10.0))  # emits through _on_e_spin

    def _on_stop_mode(self, index: int) -> None:
        force = index == 1
        self._sync_stop_fields(force)
        self._emit("squeeze_force_n", self.force_spin.value() if force else None)

    def _on_ground_same(self, same: bool) -> None:
        self.mu_ground_spin.setEnabled(not same)
        self._emit("mu_ground", None if same else self.mu_ground_spin.value())

    def _sync_stop_fields(self, force: bool) -> None:
        self.psi_spin.setEnabled(not force)
        self.analytic_force_spin.setEnabled(not force)
        self.force_spin.setEnabled(force)

    @staticmethod
    def _set_quietly(widget, value) -> None:
        widget.blockSignals(True)
        widget.setValue(value)
        widget.blockSignals(False)

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
        self._updating = True
        try:
            self.e_spin.setValue(params.youngs_modulus_pa)
            self.e_slider.setValue(round(10 * math.log10(params.youngs_modulus_pa)))
            self.mu_spin.setValue(params.mu)
            force = params.squeeze_force_n is not None
            self.stop_combo.setCurrentIndex(1 if force else 0)
            self._sync_stop_fields(force)
            self.psi_spin.setValue(params.psi_th_j)
            if force:
                self.force_spin.setValue(params.squeeze_force_n)
            self.analytic_force_spin.setValue(analytic_force_n)
            self.pad_combo.setCurrentText(params.pad)
            self.edge_spin.setValue(params.pad_edge_length_m * 1e3)
            self.trials_spin.setValue(n_trials)
            self.seed_spin.setValue(seed)
            for name, (spin, scale) in self.advanced.items():
                spin.setValue(getattr(params, name) / scale)
            self.density_spin.setValue(density)
            same = params.mu_ground is None
            self.mu_ground_same.setChecked(same)
            self.mu_ground_spin.setEnabled(not same)
            self.mu_ground_spin.setValue(params.ground_mu)
            self.resolution_label.setText(resolution)
        finally:
            self._updating = False

    def show_message(self, text: str) -> None:
        self.message.setText(text)
