"""Errors the engine raises for bad input or failed computations.

Every message names the problem and what the user can do about it.
"""


class IpcGraspError(Exception):
    """Base class: a problem the user can act on (the message says how)."""


class MeshError(IpcGraspError, ValueError):
    """A mesh that cannot be used (missing, unreadable, not watertight, wrong units)."""


class ParameterError(IpcGraspError, ValueError):
    """A parameter outside its valid range (NaN, E <= 0, mu < 0, ...)."""


class GraspError(IpcGraspError, ValueError):
    """A grasp that cannot be executed (misses the object, open jaws collide, too wide)."""


class SolverError(IpcGraspError, RuntimeError):
    """The time-step solver failed (Newton did not converge, line search stalled)."""


class NewtonNotConverged(SolverError):
    """Newton used its iterations without converging (`iterations` of them)."""

    def __init__(self, message: str, iterations: int) -> None:
        super().__init__(message)
        self.iterations = iterations
