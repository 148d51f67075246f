"""One grip force for the window (Qt-free): what a run reached at the end of its squeezes, what
a Psi_th stop implies on the current grasp, and the force the analytic models use.

The force a Psi_th implies comes from the engine (engine.grasp.calibration.force_at_psi, run in
a worker process by app.controllers.psi_force); this module only decides which force applies
and how the window says where it comes from.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from app.model.document import Document
from engine.grasp.calibration import PsiStopForce
from engine.grasp.grasp import Grasp
from engine.grasp.params import SimulationParams

# What the squeeze does not depend on: the lift and hold (a new value needs no new squeeze).
_LIFT_ONLY = ("lift_speed_m_s", "lift_ramp_s", "lift_height_m", "slip_tolerance_m", "hold_time_s")


def same_grasp(g: Grasp, h: Grasp) -> bool:
    """Equal centre, axis and approach angle (Grasp holds arrays: == cannot compare it)."""
    return g is h or (
        np.array_equal(g.center, h.center)
        and np.array_equal(g.axis, h.axis)
        and g.approach_angle_rad == h.approach_angle_rad
    )


def squeeze_key(doc: Document) -> tuple:
    """What a squeeze of the document's grasp depends on: the object (document and its
    version), the grasp and the parameters less the lift's."""
    defaults = SimulationParams()
    params = replace(doc.params, **{k: getattr(defaults, k) for k in _LIFT_ONLY})
    g = doc.grasp
    grasp = (tuple(np.asarray(g.center, float)), tuple(np.asarray(g.axis, float)))
    return (id(doc), doc.version, grasp, float(g.approach_angle_rad), params)


@dataclass(frozen=True)
class RunGrip:
    """The grip force per pad a finished run reached at the end of its squeezes (mean over
    its finished trials that gripped)."""

    grip_force_n: tuple[float, float]
    trials: int

    @property
    def mean_n(self) -> float:
        """Mean of the two pads (N): the force per jaw."""
        return 0.5 * (self.grip_force_n[0] + self.grip_force_n[1])

    def text(self) -> str:
        """e.g. "2.21 / 2.21 N per pad reached in the simulation (mean of 3 trials)"."""
        g = self.grip_force_n
        of = f" (mean of {self.trials} trials)" if self.trials > 1 else ""
        return f"{g[0]:.3g} / {g[1]:.3g} N per pad reached in the simulation{of}"


def run_grip(doc: Document | None) -> RunGrip | None:
    """The squeeze force the document's run reached, when that run has finished and was made
    with the document's current object, grasp and parameters (an edit since makes it another
    grasp's force) and at least one of its finished trials gripped; else None."""
    if doc is None or doc.run is None:
        return None
    run = doc.run
    if not run.finished() or run.object_version != doc.version or run.params != doc.params:
        return None
    if not same_grasp(run.grasp, doc.grasp):
        return None
    grips = [
        (r.result.grip_force1_n, r.result.grip_force2_n)
        for r in run.trials.values()
        if r.status in ("done", "failed") and r.result is not None
    ]
    grips = [g for g in grips if math.isfinite(g[0]) and math.isfinite(g[1])]
    if not grips:
        return None
    a = np.mean(np.array(grips), axis=0)
    return RunGrip((float(a[0]), float(a[1])), len(grips))


@dataclass(frozen=True)
class PsiForceState:
    """What the window knows about the grip force of the Psi_th stop on the current grasp.

    status: "off" (the squeeze does not stop on Psi_th), "waiting" (the default grasp is being
    found), "computing", "done" (`result`: the engine's answer, which may be "no grip" with
    its reason), "error" (`error`: the grasp cannot be squeezed, e.g. it is invalid), "run"
    (`reached`: a finished run of this very grasp and parameters; `result` if known too).
    """

    status: str
    key: tuple | None = None
    result: PsiStopForce | None = None
    error: str = ""
    reached: RunGrip | None = None

    def text(self) -> str:
        """The label beside Psi_th."""
        r = self.result
        if self.status == "run" and self.reached is not None:
            return self.reached.text()
        if self.status == "waiting":
            return "waiting for the grasp…"
        if self.status == "computing":
            return "computing…"
        if self.status == "error":
            return f"no force: {self.error}"
        if self.status != "done" or r is None:
            return ""
        g, psi = r.grip_force_n, r.psi_j
        if r.stopped_by == "psi" and g is not None:
            return f"≈ {g[0]:.3g} / {g[1]:.3g} N per pad on this grasp"
        if r.stopped_by == "gripper" and g is not None and psi is not None:
            return (
                f"the gripper's {r.gripper_force_n:g} N is reached first "
                f"(Ψ = {max(psi):.2g} J < Ψ_th): grip {g[0]:.3g} / {g[1]:.3g} N per pad"
            )
        return f"no grip: {r.reason.split(':')[0]}"

    def tooltip(self) -> str:
        """The whole story (the engine's reason in full)."""
        if self.status == "error":
            return self.error
        r = self.result
        head = (
            "The grip force per pad with which a squeeze stopping at Ψ_th ends on the current "
            "grasp: the simulator's own squeeze, computed in a worker process (Ψ/F² varies "
            "about 100x between grasps, so no formula gives it)."
        )
        if self.status == "run" and self.reached is not None:
            return head + " Shown: the force the last simulation of this grasp reached."
        return head + ("" if r is None else f"\n\n{r.describe()}")

    @property
    def force_n(self) -> float | None:
        """The force per jaw the Psi_th stop gives on this grasp (mean of the pads), if known."""
        if self.reached is not None:
            return self.reached.mean_n
        r = self.result
        if self.status in ("done", "run") and r is not None and r.grip_force_n is not None:
            return r.grip_mean_n
        return None


@dataclass(frozen=True)
class AnalyticForce:
    """The grip force per jaw the analytic models use, and where it comes from."""

    force_n: float
    source: str  # "simulation", "gripper", "force stop", "psi", "field"

    def text(self) -> str:
        """e.g. "at 12.3 N, the simulation's squeeze force"."""
        where = {
            "simulation": "the simulation's squeeze force",
            "gripper": "the gripper's force, where the squeeze stops",
            "force stop": "the squeeze's force stop",
            "psi": "the force Ψ_th implies on this grasp",
            "field": "the Analytic force field (the force Ψ_th implies is not known yet)",
        }[self.source]
        return f"at {self.force_n:.3g} N, {where}"


def analytic_force(
    doc: Document, psi_force: PsiForceState, psi_key: tuple | None = None
) -> AnalyticForce:
    """The grip force for the analytic models: the force a finished run of this grasp reached
    at the end of its squeezes; else the force the squeeze stops at (the gripper's or the one
    set); with a Psi_th stop, the force it implies on this grasp (`psi_force`, when it is for
    `psi_key`), else the Analytic force field."""
    reached = run_grip(doc)
    if reached is not None:
        return AnalyticForce(reached.mean_n, "simulation")
    kind, value = doc.params.squeeze_stop()
    if kind == "force":
        source = "force stop" if doc.params.squeeze_force_n is not None else "gripper"
        return AnalyticForce(value, source)
    implied = psi_force.force_n if psi_key is None or psi_force.key == psi_key else None
    if implied is not None and implied > 0:
        return AnalyticForce(implied, "psi")
    return AnalyticForce(doc.analytic_force_n, "field")


def measured_strength_text(doc: Document | None) -> str:
    """The grip strength the document's finished run measured on the current grasp (its
    nominal trial, with a Disturbance other than off), in the analytic models' unit beside
    theirs: "Measured by IPC: margin 429 (pulled down, it left the grip at 12.6 N); along
    40 N, ...". "" when there is none (no such run, or one made before an edit)."""
    from engine.grasp.strength import DIRECTIONS, measured_margin, unit_of

    if run_grip(doc) is None or doc is None or doc.run is None:
        return ""
    if doc.run.params.disturb == "off":
        return ""
    nominal = doc.run.trials.get(0)
    r = None if nominal is None else nominal.result
    if r is None:
        return ""
    if not r.success:
        return f"Measured by IPC: margin 0 (the nominal trial did not lift: {r.reason})"
    if not r.strength:
        return "Measured by IPC: no strength (the disturbance test failed: see the log)"
    held = set(filter(None, r.strength_held.split(";")))
    parts = [
        f"{d} {r.strength[d]:.3g} {unit_of(d)}" + (" (held at the cap)" if d in held else "")
        for d in DIRECTIONS
        if d in r.strength
    ]
    text = "Measured by IPC (nominal trial): "
    if "down" in r.strength:
        margin = measured_margin(r.strength_weights["down"])
        text += f"margin {margin:.3g} ((pull down at slip + weight) / weight); "
    return text + "the load it left the grip at: " + ", ".join(parts)
