"""The gripper actuator's energy on the closing coordinate s: a force hold does work F per jaw,
and the force-limited servo (a Huber function of the lag s - c) pushes like a stiff spring
until each jaw pushes with F, and never harder: |dE/ds| <= 2 F plus the fingers' inertia."""

from __future__ import annotations

import numpy as np
import pytest

from engine.ipc.actuator_term import SERVO_LAG_M, ActuatorTerm

H = 0.01
FINGER_KG = 0.02
F = 20.0


class _Closing:
    """A one-unknown stand-in for engine.ipc.reduction.Reduction: u = [s]."""

    closing = np.ones(1)

    def closing_travel(self, u: np.ndarray, reference: np.ndarray) -> float:
        return float(u[0] - reference[0])


def _term(command: float | None, speed: float = 0.0) -> ActuatorTerm:
    return ActuatorTerm(_Closing(), np.zeros(1), F, FINGER_KG, speed, H, command_m=command)  # type: ignore[arg-type]


def _inertia_gradient(s: float, speed: float = 0.0) -> float:
    return 2.0 * FINGER_KG / H**2 * (s - speed * H)


def test_force_hold_does_work_f_per_jaw():
    term = _term(None)
    for s in (-1e-3, 0.0, 2e-4):
        assert term.reduced_gradient(np.array([s])) == pytest.approx(
            -2.0 * F + _inertia_gradient(s)
        )


@pytest.mark.parametrize("lag", [-1e-3, -3 * SERVO_LAG_M, 3 * SERVO_LAG_M, 1e-3])
def test_servo_pushes_with_the_force_limit_once_it_lags(lag):
    """Beyond SERVO_LAG_M of lag the servo's force is exactly F per jaw, towards the command."""
    c = 2.5e-4
    term = _term(c)
    u = np.array([c + lag])
    servo = term.reduced_gradient(u) - _inertia_gradient(u[0])
    assert servo == pytest.approx(2.0 * F * np.sign(lag))
    assert term.reduced_hessian(u) == pytest.approx(2.0 * FINGER_KG / H**2)


def test_servo_is_a_stiff_spring_near_the_command():
    c = 2.5e-4
    term = _term(c)
    lag = 0.4 * SERVO_LAG_M
    u = np.array([c + lag])
    servo = term.reduced_gradient(u) - _inertia_gradient(u[0])
    assert servo == pytest.approx(2.0 * F / SERVO_LAG_M * lag)
    assert term.reduced_hessian(u) == pytest.approx(2.0 * FINGER_KG / H**2 + 2.0 * F / SERVO_LAG_M)


def test_servo_energy_derivatives_agree_with_finite_differences():
    """The Newton solve relies on value, gradient and Hessian being one function (C1 Huber)."""
    c = 2.5e-4
    term = _term(c, speed=0.01)
    step = 1e-9
    for s in np.linspace(c - 5 * SERVO_LAG_M, c + 5 * SERVO_LAG_M, 23):
        u = np.array([s])
        fd = (term.value(u + step) - term.value(u - step)) / (2 * step)
        assert term.reduced_gradient(u) == pytest.approx(fd, rel=1e-5, abs=1e-6)
        if abs(abs(s - c) - SERVO_LAG_M) > 2 * step:  # away from the Huber kink
            fd2 = (term.reduced_gradient(u + step) - term.reduced_gradient(u - step)) / (2 * step)
            assert term.reduced_hessian(u) == pytest.approx(fd2, rel=1e-5)
