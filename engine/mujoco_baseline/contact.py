"""The pad-object contact stiffness, derived from the pad's material instead of tuned.

A pad of Young's modulus E and thickness t pressed onto the object over an area A is, to first
order, a spring of stiffness k_pad = E A / t: at the grip force F it is squeezed by
delta = F t / (E A). (The IPC pad measured by `ipcgrasp calibrate-psi` on the 3 cm cube at
E = 1e8 Pa stores Psi = 2.6e-8 F^2 J, i.e. k = 1 / (2 * 2.6e-8) = 1.9e7 N/m against
E A / t = 1.7e7 N/m for the 507 mm^2 rounded pad: within 15 %.)

MuJoCo's soft contact (solref = (timeconst tc, dampratio zeta), solimp with a constant impedance
d) holds a static contact at depth r with the force f = k r / R per contact point, where
k = d / (d^2 tc^2 zeta^2) is the reference stiffness and R = (1 - d) / d * A_ii its
regulariser, A_ii the inverse mass the constraint sees (MuJoCo's diagonal approximation: the
sum of both bodies' translational `body_invweight0`). So one point has the stiffness

    k_point = 1 / (tc^2 zeta^2 (1 - d) A_ii),

and n points sharing the patch have n k_point. Setting n k_point = k_pad gives the impedance

    1 - d = n / (tc^2 zeta^2 A_ii k_pad),

with tc = 2 h (the smallest time constant MuJoCo keeps stable at time step h). The dynamics of
the contact still have the time constant tc (stable); only the static depth is the pad's.

Limits: the impedance must lie in [1e-4, 0.9999] (MuJoCo's range). A pad stiffer than
0.9999 allows (about E > 1.6e8 Pa for the rounded pad on the 3 g cube at h = 0.5 ms) is
represented as stiff as MuJoCo allows: its squeeze is deeper than the real pad's (the result
says so through `depth_ratio`); a smaller time step raises the ceiling as 1 / h^2. The pad is
rigid otherwise: it cannot wrap an edge or a corner (the IPC pad bulges around a cube edge and
spreads its pressure; MuJoCo presses with a few points on the pad's flat face), the area A is
fixed at the start of the squeeze (the pad area whose closing ray meets the object within one
pad thickness of the first touch), and the pressure is shared equally among the contact
points MuJoCo finds instead of following the pad's deformation.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

IMPEDANCE_MIN = 1e-4  # MuJoCo's mjMINIMP
IMPEDANCE_MAX = 0.9999  # MuJoCo's mjMAXIMP


@dataclass(frozen=True)
class ContactStiffness:
    """The derived pad-object contact settings and what they give."""

    pad_stiffness_n_m: float  # k_pad = E A / t, the pad's squeeze stiffness
    contact_area_m2: float  # A
    time_constant_s: float  # MuJoCo solref[0]
    damping_ratio: float  # MuJoCo solref[1]
    impedance: float  # MuJoCo solimp[0] = solimp[1]
    points: int  # contact points sharing the patch
    achieved_stiffness_n_m: float  # points * k_point with the clamped impedance

    @property
    def depth_ratio(self) -> float:
        """MuJoCo's squeeze depth over the pad's (1 unless the impedance was clamped)."""
        return self.pad_stiffness_n_m / self.achieved_stiffness_n_m

    def squeeze_depth_m(self, force_n: float) -> float:
        """The static squeeze at `force_n` in MuJoCo (m)."""
        return force_n / self.achieved_stiffness_n_m

    def solref(self) -> tuple[float, float]:
        """MuJoCo's solref (time constant s, damping ratio)."""
        return (self.time_constant_s, self.damping_ratio)

    def solimp(self) -> tuple[float, float, float, float, float]:
        """MuJoCo's solimp: a constant impedance at every depth."""
        return (self.impedance, self.impedance, 0.001, 0.5, 2.0)


def pad_stiffness(youngs_modulus_pa: float, area_m2: float, thickness_m: float) -> float:
    """k_pad = E A / t (N/m): a pad squeezed uniformly through its thickness."""
    return youngs_modulus_pa * area_m2 / thickness_m


def point_stiffness(
    time_constant_s: float, damping_ratio: float, impedance: float, inv_mass: float
) -> float:
    """The static stiffness (N/m) of one MuJoCo contact point (module docstring)."""
    return 1.0 / (time_constant_s**2 * damping_ratio**2 * (1.0 - impedance) * inv_mass)


def derive(
    youngs_modulus_pa: float,
    area_m2: float,
    thickness_m: float,
    time_step_s: float,
    inv_mass: float,
    points: int = 1,
    damping_ratio: float = 1.0,
) -> ContactStiffness:
    """The impedance that makes `points` MuJoCo contacts as stiff as the pad (clamped)."""
    k_pad = pad_stiffness(youngs_modulus_pa, area_m2, thickness_m)
    tc = 2.0 * time_step_s
    n = max(int(points), 1)
    one_minus_d = n / (tc**2 * damping_ratio**2 * inv_mass * k_pad)
    d = min(max(1.0 - one_minus_d, IMPEDANCE_MIN), IMPEDANCE_MAX)
    achieved = n * point_stiffness(tc, damping_ratio, d, inv_mass)
    return ContactStiffness(k_pad, area_m2, tc, damping_ratio, d, n, achieved)


def grip_force_from_psi(psi_th_j: float, pad_stiffness_n_m: float) -> float:
    """The force at which a linear pad of stiffness k stores Psi_th: F = sqrt(2 k Psi)."""
    return math.sqrt(2.0 * pad_stiffness_n_m * psi_th_j)
