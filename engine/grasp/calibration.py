"""Relate the squeeze stop threshold Psi_th (J) to the closing force (N) it produces.

IPC-GraspSim stops the squeeze on pad strain energy because its IPC could not measure force;
this product measures both. `psi_for_forces` squeezes with a force-controlled stop and reports
the pad strain energies reached, so a user can pick Psi_th for a target grip force.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from engine.grasp.grasp import Grasp
from engine.grasp.params import SimulationParams
from engine.grasp.simulation import GraspSimulation, build_pad
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
