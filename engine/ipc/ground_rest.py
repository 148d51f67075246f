"""Where a body resting on the ground sits in the barrier's contact layer.

The log barrier holds a resting body at the gap where the ground pairs' normal forces carry its
weight. A body placed anywhere else in the layer is pushed towards that gap in the first time
step: at dhat/2, with a barrier stiffness sized for a 20 N grip, the barrier launches a 3 g cube
upwards and the next steps spend Newton iterations bringing it back.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import brentq

from engine.ipc import ipctk_gateway as ipc

# The gap is found to this fraction of dhat (a few nanometres at dhat = 0.1 mm).
GAP_TOL = 1e-5


def equilibrium_lift(heights_m: np.ndarray, weight_n: float, dhat: float, kappa: float) -> float:
    """The vertical shift (m) of a rigidly moved vertex set, resting on the plane z = 0 at
    `heights_m`, after which the barrier's vertex-plane forces sum to `weight_n` (N).

    Each vertex pair carries ipctk's barrier force at its gap (unit weight, as the solver's
    plane-vertex pairs). Raises ValueError if the vertices within dhat of the lowest cannot
    carry the weight even at GAP_TOL dhat (a barrier stiffness far too low for the body).
    """
    z = np.asarray(heights_m, dtype=float)
    if weight_n <= 0.0 or not len(z):
        return 0.0
    offsets = z - z.min()
    near = offsets[offsets < dhat]

    def excess(gap: float) -> float:
        d = gap + near
        return float(ipc.barrier_pair_forces(d[d < dhat], dhat, kappa).sum()) - weight_n

    low = dhat * GAP_TOL
    if excess(low) <= 0.0:
        raise ValueError(
            f"the barrier (kappa {kappa:g}) cannot carry {weight_n:g} N on {len(near)} ground "
            f"contacts even {low:g} m above the ground: the object is too heavy for the contact "
            "layer; give its true mass, or a larger dhat (--dhat)"
        )
    gap = brentq(excess, low, dhat, xtol=dhat * GAP_TOL)
    return float(gap - z.min())
