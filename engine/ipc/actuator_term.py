"""The gripper's actuator in one time step: force-controlled closing of both jaws and the
fingers' inertia, over the closing coordinate of force-driven plates (engine.ipc.reduction).
"""

from __future__ import annotations

import numpy as np

from engine.ipc.reduction import Reduction
from engine.ipc.terms import Assembly

# The force-limited servo's lag at full force (m): its position spring is force / SERVO_LAG_M
# stiff (2e7 N/m at 20 N, like 3 mm of pad at E = 1e8 Pa).
SERVO_LAG_M = 1e-6


class ActuatorTerm:
    """The gripper's force-controlled closing: each jaw pushed with up to `force_n` along its normal.

    With s the closing travel of each jaw beyond the step's reference (engine.ipc.reduction):
    - a force hold (`command_m` None): E = -2 F s, the work of the actuator on both jaws;
    - a force-limited position servo (`command_m` = c, the travel commanded this step):
      E = 2 H(s - c) with H the Huber function of slope F: the jaw follows the command like a
      stiff spring (F per `servo_error_m` of lag) until it pushes with F, then with F only, as
      a current-limited gripper motor closing at its speed does;
    plus the inertia of the two fingers (mass m_f each) against the closing speed of the
    previous step, m_f (s - s_hat)^2 / h^2 with s_hat = h v_closing.
    """

    def __init__(
        self,
        reduction: Reduction,
        reference: np.ndarray,
        force_n: float,
        finger_mass_kg: float,
        closing_speed_m_s: float,
        h: float,
        command_m: float | None = None,
        servo_error_m: float = SERVO_LAG_M,
        max_closing_m: float = np.inf,
    ) -> None:
        """`max_closing_m`: the most the closing coordinate may move in one Newton iteration."""
        if reduction.closing is None:
            raise ValueError("an actuator needs force-driven plates (a closing coordinate)")
        self.reduction = reduction
        self.reference = reference
        self.force_n = float(force_n)
        self.k = 2.0 * finger_mass_kg / (h * h)  # d^2E/ds^2 of the fingers' inertia
        self.s_hat = closing_speed_m_s * h
        self.command_m = command_m
        self.e0 = float(servo_error_m)
        self.max_closing_m = float(max_closing_m)

    def travel(self, u: np.ndarray) -> float:
        """s: each jaw's closing travel beyond the reference (m)."""
        return self.reduction.closing_travel(u, self.reference)

    def value(self, u: np.ndarray) -> float:
        """Actuator work and finger inertia (J)."""
        s = self.travel(u)
        inertia = 0.5 * self.k * (s - self.s_hat) ** 2
        if self.command_m is None:
            return -2.0 * self.force_n * s + inertia
        e = abs(s - self.command_m)
        f = self.force_n
        servo = 0.5 * f / self.e0 * e * e if e <= self.e0 else f * (e - 0.5 * self.e0)
        return 2.0 * servo + inertia

    def reduced_gradient(self, u: np.ndarray) -> float:
        """dE/ds (N)."""
        s = self.travel(u)
        inertia = self.k * (s - self.s_hat)
        if self.command_m is None:
            return -2.0 * self.force_n + inertia
        e = s - self.command_m
        f = self.force_n
        servo = f / self.e0 * e if abs(e) <= self.e0 else f * np.sign(e)
        return 2.0 * float(servo) + inertia

    def reduced_hessian(self, u: np.ndarray) -> float:
        """d^2E/ds^2 (N/m)."""
        if self.command_m is None:
            return self.k
        stiff = abs(self.travel(u) - self.command_m) <= self.e0
        return self.k + (2.0 * self.force_n / self.e0 if stiff else 0.0)

    # --- the Term protocol (engine.ipc.terms) ------------------------------------------------
    def add_gradient(self, u: np.ndarray, out: Assembly) -> None:
        """Add dE/ds at u to `out`."""
        out.add_closing_gradient(self.reduced_gradient(u))

    def add_gradient_hessian(self, u: np.ndarray, project: bool, out: Assembly) -> None:
        """Add dE/ds and d^2E/ds^2 at u to `out` (the curvature is never negative)."""
        out.add_closing_gradient(self.reduced_gradient(u))
        out.add_closing_curvature(self.reduced_hessian(u))

    def max_step(self, u: np.ndarray, du_free: np.ndarray, du: np.ndarray) -> float:
        """At most `max_closing_m` of closing per iteration.

        A jaw pressed by a force is a stiff contact only once it touches: from a light touch,
        Newton's model would close it by centimetres and CCD would stop it deep in the barrier.
        """
        ds = abs(float(du_free[self.reduction.s_index]))
        return self.max_closing_m / ds if ds > self.max_closing_m else 1.0

    def begin(self, u: np.ndarray) -> None:
        """Nothing to prepare."""

    def accept(self, u: np.ndarray) -> bool:
        """Its form never changes within a step."""
        return False

    def structure(self) -> None:
        """One diagonal entry, always present."""
        return None
