"""A toy analytic model registered at run time (engine.analytic.registry): the proof that a model
declared in one registry entry reaches analyze, batch rows (spawned workers too), `evaluate`
and the app's predictions table.

Its margin is Coulomb's law for two jaws pressing with the closing force F against the weight
m g, whatever the contacts: s* = 2 mu F / (m g). It ignores the geometry, so a test knows the
exact margin of any grasp that touches the object.
"""

from __future__ import annotations

import numpy as np

from engine.analytic.contact_patch import ContactPatch
from engine.analytic.params import AnalyticParams
from engine.analytic.registry import PATCH, ModelSpec
from engine.analytic.resistance_lp import Margin

# Order 5: before every built-in analytic model, so tables show that they follow the registry.
TOY = ModelSpec("toy", "Toy Coulomb", PATCH, 5, "tests.engine.analytic.toy_model:evaluate")


def evaluate(
    patches: tuple[ContactPatch, ...], w_ext: np.ndarray, com: np.ndarray, params: AnalyticParams
) -> Margin:
    """s* = 2 mu F / |weight| (the load's force part)."""
    weight = float(np.linalg.norm(np.asarray(w_ext, dtype=float)[:3]))
    return Margin(2.0 * params.mu * params.closing_force_n / weight, {"jaws": len(patches)})


def toy_margin(mu: float, force_n: float, mass_kg: float) -> float:
    """The margin the toy model gives an object of `mass_kg`."""
    from engine.constants import GRAVITY_M_S2

    return 2.0 * mu * force_n / (mass_kg * GRAVITY_M_S2)
