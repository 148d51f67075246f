"""Relate the squeeze stop threshold Psi_th (J) to the closing force (N) it produces.

IPC-GraspSim stops the squeeze on pad strain energy because its IPC could not measure force;
this product measures both. `psi_for_forces` squeezes with a force-controlled stop and reports
the pad strain energies reached, so a user can pick Psi_th for a target grip force;
`force_at_psi` answers the converse: the grip force per pad a Psi_th stop ends the squeeze
with on one grasp (or why it ends without one).

No closed formula relates the two: Psi / F^2 varies about 100x between the REACH cube's grasps
(contact area, edge contacts), so each answer is a squeeze of that grasp.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from engine.errors import ParameterError
from engine.grasp.frames import Frame
from engine.grasp.grasp import Grasp
from engine.grasp.params import SimulationParams
from engine.grasp.simulation import GraspSimulation, build_pad
from engine.gripper.pad_geometry import PadMesh
from engine.scene.resting import RestingObject


@dataclass(frozen=True)
class PsiForcePoint:
    """The pad strain energies reached when the squeeze stopped at one force."""

    force_n: float  # requested squeeze force per pad
    grip_force_n: tuple[float, float]  # reached
    psi_j: tuple[float, float]  # pad strain energies at the end of the squeeze

    @property
    def psi_mean_j(self) -> float:
        """Mean of Psi1 and Psi2 (J)."""
        return 0.5 * (self.psi_j[0] + self.psi_j[1])


def psi_for_forces(
    obj: RestingObject, grasp: Grasp, params: SimulationParams, forces_n: list[float]
) -> list[PsiForcePoint]:
    """Squeeze (no lift) to each force and record Psi1, Psi2 at the end of the squeeze."""
    pad = build_pad(params)
    out = []
    for force in forces_n:
        p = replace(params, squeeze_force_n=float(force)).validate()
        sim = GraspSimulation(obj, grasp.pose(), p, pad=pad)
        last = None
        gen = sim.frames()
        for frame in gen:
            if frame.phase != "squeeze":
                gen.close()
                break
            last = frame
        if last is None:
            continue
        out.append(PsiForcePoint(float(force), last.grip_force_n, last.psi_j))
    return out


def fit_power_law(points: list[PsiForcePoint]) -> tuple[float, float]:
    """(a, b) of Psi = a F^b, least squares in log-log over the points (F = mean grip force)."""
    f = np.array([0.5 * sum(p.grip_force_n) for p in points])
    psi = np.array([p.psi_mean_j for p in points])
    ok = (f > 0) & (psi > 0)
    if ok.sum() < 2:
        return math.nan, math.nan
    b, log_a = np.polyfit(np.log(f[ok]), np.log(psi[ok]), 1)
    return float(math.exp(log_a)), float(b)


@dataclass(frozen=True)
class PsiStopForce:
    """How a squeeze with a Psi_th stop ended: the grip force per pad it implies, or why none.

    `stopped_by` is "psi" (both pads reached Psi_th: `grip_force_n` is the force this Psi_th
    implies on the grasp), "gripper" (the force-limited jaws reached the gripper's maximum
    force first: the squeeze holds there with Psi below Psi_th) or "" (the squeeze ended
    without a grip: `reason` says why, e.g. the threshold was reached before gripping).
    """

    psi_th_j: float
    stopped_by: str
    grip_force_n: tuple[float, float] | None = None  # per pad, at the end of the squeeze
    psi_j: tuple[float, float] | None = None  # pad strain energies at the end of the squeeze
    gripper_force_n: float = math.nan  # the gripper's maximum force per jaw
    reason: str = ""  # why there is no force at Psi_th ("" when stopped_by == "psi")
    frames: int = 0
    wall_time_s: float = 0.0

    @property
    def grip_mean_n(self) -> float:
        """Mean of the two pads' grip forces (N); NaN without a grip."""
        g = self.grip_force_n
        return math.nan if g is None else 0.5 * (g[0] + g[1])

    def describe(self) -> str:
        """One line for a terminal: the force Psi_th implies, or why there is none."""
        th = f"Psi_th = {self.psi_th_j:.3g} J"
        g, psi = self.grip_force_n, self.psi_j
        if self.stopped_by == "psi" and g is not None:
            return (
                f"squeeze stopped at {th}: grip {g[0]:.3g} / {g[1]:.3g} N per pad "
                "(the force this Psi_th implies on this grasp)"
            )
        if self.stopped_by == "gripper" and g is not None and psi is not None:
            return (
                f"squeeze stopped at the gripper's maximum force before {th}: grip "
                f"{g[0]:.3g} / {g[1]:.3g} N per pad, Psi = {psi[0]:.3g}, {psi[1]:.3g} J "
                f"({th} needs more than {self.gripper_force_n:g} N per jaw on this grasp)"
            )
        return f"no grip force at {th}: {self.reason}"


def squeeze_end(
    params: SimulationParams,
    last_squeeze: Frame | None,
    ended: bool,
    reason: str = "",
    frames: int = 0,
    wall_time_s: float = 0.0,
) -> PsiStopForce:
    """What a Psi_th squeeze ended with, from its last squeeze frame.

    `ended`: the trial went on past the squeeze (a lift frame followed); otherwise `reason`
    (the trial's reason and error) says why the squeeze ended without a grip.
    """
    stop, threshold = params.squeeze_stop()
    if stop != "psi":
        raise ParameterError(f"the squeeze stops on a force, not on Psi_th ({stop} {threshold})")
    grip_max = params.preset.force_max_n
    if not ended or last_squeeze is None:
        why = reason or "the squeeze did not end"
        return PsiStopForce(threshold, "", None, None, grip_max, why, frames, wall_time_s)
    grip = (float(last_squeeze.grip_force_n[0]), float(last_squeeze.grip_force_n[1]))
    psi = (float(last_squeeze.psi_j[0]), float(last_squeeze.psi_j[1]))
    # The simulator ends a Psi_th squeeze when the smaller pad energy reaches Psi_th, or, with
    # force-limited jaws, when they press with the gripper's maximum force below it.
    by = "psi" if min(psi) >= threshold else "gripper"
    why = "" if by == "psi" else "the gripper's maximum force is reached first"
    return PsiStopForce(threshold, by, grip, psi, grip_max, why, frames, wall_time_s)


def force_at_psi(
    obj: RestingObject,
    grasp: Grasp,
    params: SimulationParams,
    psi_th_j: float | None = None,
    *,
    pad: PadMesh | None = None,
    on_frame: Callable[[Frame], str | None] | None = None,
) -> PsiStopForce:
    """Squeeze `grasp` (no lift) with a Psi_th stop and return the grip force per pad at the
    stop: the force this Psi_th implies on this grasp, or why there is none.

    `psi_th_j` replaces the parameters' squeeze stop (which must otherwise be a Psi_th stop).
    The squeeze is the simulator's own (GraspSimulation.frames() up to the first frame that is
    not "squeeze"), so the force equals what a full trial reports at the end of its squeeze.
    `on_frame` may return a reason to stop early (e.g. a newer request): that reason is the
    answer's. Raises the simulator's GraspError for a grasp it refuses.
    """
    if psi_th_j is not None:
        params = replace(params, psi_th_j=float(psi_th_j), squeeze_force_n=None).validate()
    elif params.squeeze_stop()[0] != "psi":
        raise ParameterError("force_at_psi needs a Psi_th: pass psi_th_j or set params.psi_th_j")
    t0 = time.perf_counter()
    sim = GraspSimulation(
        obj, grasp.pose(), params, pad=pad if pad is not None else build_pad(params)
    )
    last: Frame | None = None
    count, ended, stopped = 0, False, ""
    gen = sim.frames()
    for frame in gen:
        if frame.phase != "squeeze":
            ended = True
            break
        last = frame
        count += 1
        if on_frame is not None:
            stopped = on_frame(frame) or ""
            if stopped:
                break
    gen.close()
    r = sim.result
    reason = stopped or r.reason + (f": {r.error}" if r.error else "")
    return squeeze_end(params, last, ended, reason, count, time.perf_counter() - t0)
