"""Small unconstrained objectives with newton_solve's interface (engine.ipc.newton.Objective),
for tests of the solver's own policies."""

from __future__ import annotations

import numpy as np


class ToyObjective:
    """The interface's bookkeeping for an objective without contacts: every step is admissible,
    the step norm and force residual are max norms. Subclasses give energy, gradient and
    gradient_hessian."""

    kind: object = "a"

    def begin(self, u: np.ndarray) -> None:
        pass

    def accept(self, u: np.ndarray) -> bool:
        return False

    def max_step(self, u: np.ndarray, du: np.ndarray) -> float:
        return 1.0

    def step(self, u: np.ndarray, du: np.ndarray, alpha: float) -> np.ndarray:
        return u + alpha * du

    def step_norm(self, du: np.ndarray) -> float:
        return float(np.abs(du).max())

    def residual(self, g: np.ndarray) -> float:
        return float(np.abs(g).max())

    def structure(self) -> object:
        return self.kind
