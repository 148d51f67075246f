"""The energy terms of one implicit-Euler time step: what each term provides, and the sum they
are assembled into.

All terms are divided by h^2 so they are in J and the barrier gradient is a force in N. A time
step's potential (engine.ipc.potential) is a list of terms, like PolyFEM's forms and
ipc-toolkit's potentials:

- `InternalTerm` (engine.ipc.internal_term): inertia, gravity, pad elasticity, the object's
  orthogonality energy; first in every list, its fixed Hessian pattern is the base of the sum;
- `ContactTerm` (engine.ipc.contact_term): the ipctk barrier and lagged friction over the
  collision vertices, with CCD as its max step;
- `ActuatorTerm` (engine.ipc.actuator_term): force-controlled jaws over the closing coordinate.

A term adds its gradient and Hessian into an `Assembly` in whichever space it lives in (all
DOFs, the collision vertices' coordinates, or the closing coordinate); the assembly maps each
into the reduced unknowns (engine.ipc.reduction). A new energy is one module implementing
`Term` and its place in the list (engine.ipc.stepper builds the lists).
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import TYPE_CHECKING, Protocol

import numpy as np
import scipy.sparse as sp

from engine.ipc.reduction import Reduction
from engine.ipc.sparse_products import csr_times

if TYPE_CHECKING:
    from engine.ipc.internal_term import InternalHessian


class Term(Protocol):
    """One energy of a time step's incremental potential (J, divided by h^2)."""

    def value(self, u: np.ndarray) -> float:
        """The energy at any trial u (inf where it is not admissible)."""
        ...

    def add_gradient(self, u: np.ndarray, out: Assembly) -> None:
        """Add the gradient at the current iterate u to `out`."""
        ...

    def add_gradient_hessian(self, u: np.ndarray, project: bool, out: Assembly) -> None:
        """Add the gradient and Hessian (PSD-projected when `project`) at u to `out`."""
        ...

    def max_step(self, u: np.ndarray, du_free: np.ndarray, du: np.ndarray) -> float:
        """The largest fraction in [0, 1] of the step (reduced `du_free`, all DOFs `du`) that
        this term admits."""
        ...

    def begin(self, u: np.ndarray) -> None:
        """A solve starts at u."""
        ...

    def accept(self, u: np.ndarray) -> bool:
        """u (the last trial evaluated) is the new iterate; True if the energy's form changed."""
        ...

    def structure(self) -> Hashable:
        """What of this term's Hessian pattern can change between iterates (None: nothing)."""
        ...


class Assembly:
    """The gradient and Newton matrix of a sum of terms over the reduced unknowns.

    The internal term is added first and sets the fixed pattern (`set_internal`); the others add
    into it: over all DOFs (restricted), over the collision coordinates (through J^T, their
    Hessian kept apart as engine.ipc.potential.ReducedHessian's contact part), or over the
    closing coordinate of force-driven plates.
    """

    def __init__(self, reduction: Reduction) -> None:
        self.reduction = reduction
        self._gradient: np.ndarray | None = None
        self._closing = 0.0  # dE/ds, added last (see `gradient`)
        self.internal: InternalHessian | None = None
        # Hessians over the collision coordinates, summed in this order where they are mapped
        # to the unknowns (Reduction.upper_triplets), not as scipy matrices (~50 us a sum).
        self.collision_hessians: list[sp.csr_matrix | sp.csc_matrix] = []

    @property
    def gradient(self) -> np.ndarray | None:
        """The summed reduced gradient (None before the first term). The closing coordinate's
        contributions are added after all others, whatever the terms' order: floating-point
        sums depend on their order, and this one keeps the iterates of the potential written
        as internal + contact + actuator."""
        if self._gradient is None or not self._closing:
            return self._gradient
        g = self._gradient.copy()
        g[self.reduction.s_index] += self._closing
        return g

    def _add(self, g: np.ndarray) -> None:
        self._gradient = g if self._gradient is None else self._gradient + g

    def add_full_gradient(self, g: np.ndarray) -> None:
        """Add a gradient over all DOFs."""
        self._add(self.reduction.restrict(g))

    def set_internal(self, hessian: InternalHessian) -> None:
        """The fixed-pattern Hessian (the internal term's) that the others add into."""
        self.internal = hessian

    def add_collision_gradient(self, g: np.ndarray) -> None:
        """Add a gradient over the collision vertices' coordinates (3 n_collision,)."""
        self._add(csr_times(self.reduction.jacobian_t, g))

    def add_collision_hessian(self, h: sp.csr_matrix | sp.csc_matrix | None) -> None:
        """Add a Hessian over the collision vertices' coordinates (None: nothing)."""
        if h is not None:
            self.collision_hessians.append(h)

    def add_closing_gradient(self, value: float) -> None:
        """Add dE/ds of the closing coordinate s."""
        if self._gradient is None:
            raise ValueError("the internal term must be added first")
        self._closing += value

    def add_closing_curvature(self, value: float) -> None:
        """Add d^2E/ds^2 (the closing coordinate's diagonal is in the internal pattern: the
        glued vertices' mass, FreeInternalLayout)."""
        if self.internal is None:
            raise ValueError("the internal term must be added first")
        self.internal.add_diagonal(self.reduction.s_index, value)
