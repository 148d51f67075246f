"""How hard the squeeze presses the pads: their nominal compressive strain at the force cap,
and advice when a soft pad meets a strong gripper.

Silicone-soft pads (E about 1 MPa) are the setting that agrees best with the physical REACH
cube (docs/validation.md, "Which pad setting to use"), pressed there with the YuMi's 20 N: a
strain of 4 % over the pad's face. The same pad under the Franka Hand's 70 N or the Robotiq
2F-85's 235 N is compressed by 13-43 % (more where the object touches part of the face), far
from where it was checked, and its trials took 4.0 and 5.6 times the default pad's on the
public meshes (benchmarks/results/real_meshes_soft_pad.md, per-trial medians).
"""

from __future__ import annotations

import math

from engine.grasp.params import SimulationParams
from engine.gripper.pad_geometry import pad_outline

STRAIN_ADVICE = 0.10
"""Above this nominal strain the settings get advice (2.5 times the validated 1 MPa pad's)."""


def nominal_pad_strain(params: SimulationParams) -> float:
    """F / (E A): the squeeze's force cap per jaw (N) over the pad's modulus (Pa) and the area
    of its contact face (m^2), the compression of a pad pressed flat over its whole face."""
    area = pad_outline(params.pad, params.pad_edge_length_m).area_m2
    return params.squeeze_force_cap_n / (params.youngs_modulus_pa * area)


def pad_strain_advice(params: SimulationParams) -> str | None:
    """A sentence for the user when the pads would be strained beyond STRAIN_ADVICE (None
    otherwise): how much, what it costs, and the E or force stop that keeps them within it."""
    strain = nominal_pad_strain(params)
    if strain <= STRAIN_ADVICE:
        return None
    area = pad_outline(params.pad, params.pad_edge_length_m).area_m2
    force = params.squeeze_force_cap_n
    e_pa = params.youngs_modulus_pa
    squeezed = (
        f"compressed by about {100 * strain:.0f} %"
        if strain < 1.0
        else f"pressed beyond their own thickness (a nominal strain of {100 * strain:.0f} %)"
    )
    return (
        f"pads of E = {e_pa / 1e6:.3g} MPa pressed with up to {force:g} N per jaw are "
        f"{squeezed} over their whole face (more where the object touches part of it): "
        "beyond the 4 % at which soft pads were checked against the physical cube (1 MPa at "
        "20 N); a 1 MPa pad at 70-235 N took 4-6 times the default pad's time on scanned "
        "objects. Use E >= "
        f"{_two_digits(force / (STRAIN_ADVICE * area) / 1e6, up=True):g} MPa, or a force stop "
        f"(--squeeze-force, the app's Closing force) <= "
        f"{_two_digits(STRAIN_ADVICE * e_pa * area, up=False):g} N"
    )


def _two_digits(x: float, up: bool) -> float:
    """x to two significant digits, rounded up or down (so that the value shown works)."""
    scale = 10.0 ** (math.floor(math.log10(x)) - 1)
    k = x / scale
    return (math.ceil(k - 1e-9) if up else math.floor(k + 1e-9)) * scale
