"""The grasp models, declared once: name, table label, kind, nominal-only flag, evaluate function
and place in tables.

Every list of models is read from here: `analyze --models`, `batch --models`, `grid --model`,
the analytic pipeline's dispatch (engine.analytic.pipeline), the order of `ipcgrasp evaluate`'s
tables (engine.evaluation.labels), the app's predictions table and its CSV export columns.

Standard library only, so `ipcgrasp analyze --help` and `batch --help` list the models without
loading them: a model's evaluate function is named by a "module:function" path and imported on
first use (a module starting with "." is relative to engine.analytic, which keeps the built-in
paths right in the wheel, where the package is ipcgrasp.engine.analytic). It lives in
engine.analytic because that is the lowest layer every user (the pipeline, batch, evaluation,
the commands and the app) may import; the trial models' entries are names only.

Kinds and what their evaluate function is called with (it returns an object with `margin`, the
multiple of the object's weight the contacts hold, and a `details` dict, such as
engine.analytic.resistance_lp.Margin):

- POINT: `evaluate(points, closing_directions, w_ext, com, params)`: the two jaws'
  ContactPoints (engine.analytic.contact_patch), each jaw's closing direction, the external
  wrench (6,), the centre of mass (3,) and the AnalyticParams;
- PATCH: `evaluate(patches, w_ext, com, params)`: the two jaws' ContactPatches;
- TRIAL: a simulated trial (IPC, the MuJoCo baseline): no evaluate function, one batch task per
  planned trial, run by engine.batch.tasks.

A model of your own: `register(ModelSpec("mine", "Mine", PATCH, 70, "mypackage.mine:evaluate"))`
before the batch or the app starts. Batch tasks and the app's analysis jobs carry their models'
entries, so worker processes (spawned, or on Ray) register them too; the module must be
importable there.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from engine.errors import ParameterError

TRIAL, POINT, PATCH = "trial", "point", "patch"
KINDS = (TRIAL, POINT, PATCH)

IPC = "ipc"
MUJOCO = "mujoco"

_NAME = re.compile(r"^[a-z0-9][a-z0-9_]*$")  # lower case: batch lower-cases --models
_PATH = re.compile(r"^\.?[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*:[A-Za-z_][A-Za-z0-9_]*$")


@dataclass(frozen=True)
class ModelSpec:
    """One model's registry entry (plain data: it travels to worker processes)."""

    name: str  # what --models, result rows and the tables' keys say ("soft_point")
    label: str  # what the app's tables say ("Soft point")
    kind: str  # TRIAL, POINT or PATCH
    order: int  # place in tables and in the default --models of analyze (ascending)
    evaluate: str = ""  # "module:function" (analytic kinds); "." + module: in engine.analytic
    nominal_only: bool = False  # too slow for robustness samples: analyze only, not batches

    def __post_init__(self) -> None:
        if not _NAME.match(self.name):
            raise ParameterError(
                f"model name {self.name!r} must be lower-case letters, digits and '_'"
            )
        if self.kind not in KINDS:
            raise ParameterError(
                f"model {self.name!r}: kind {self.kind!r} is not one of {', '.join(KINDS)}"
            )
        if self.analytic and not _PATH.match(self.evaluate):
            raise ParameterError(
                f"model {self.name!r}: evaluate {self.evaluate!r} must be 'module:function'"
            )
        if not self.analytic and self.evaluate:
            raise ParameterError(f"trial model {self.name!r} has no evaluate function")

    @property
    def analytic(self) -> bool:
        """Evaluated at contacts (POINT or PATCH), not simulated."""
        return self.kind != TRIAL


_BUILT_IN = (
    ModelSpec(IPC, "IPC", TRIAL, 0),
    ModelSpec("soft_point", "Soft point", POINT, 10, ".soft_point:evaluate"),
    ModelSpec("reach", "REACH", PATCH, 20, ".reach:evaluate"),
    ModelSpec("6dfc", "6DFC", PATCH, 30, ".sixdfc:evaluate"),
    # Seconds per grasp (cvxpy SDPs): a detail view, not Monte-Carlo.
    ModelSpec("6dls", "6DLS", PATCH, 40, ".sixdls.model:evaluate", nominal_only=True),
    ModelSpec("exact", "Exact area", PATCH, 50, ".exact_area:evaluate"),
    ModelSpec(MUJOCO, "MuJoCo (rigid pads)", TRIAL, 60),
)
BUILT_IN = frozenset(m.name for m in _BUILT_IN)

_REGISTRY: dict[str, ModelSpec] = {m.name: m for m in _BUILT_IN}


def register(spec: ModelSpec) -> ModelSpec:
    """Add a model (a user's own, a test's). Registering the same entry again is a no-op;
    another entry under a name in use is refused (ParameterError)."""
    known = _REGISTRY.get(spec.name)
    if known is not None and known != spec:
        raise ParameterError(f"a model named {spec.name!r} is registered already: {known}")
    _REGISTRY[spec.name] = spec
    return spec


def unregister(name: str) -> None:
    """Remove a model added with `register` (the built-in models stay)."""
    if name in BUILT_IN:
        raise ParameterError(f"{name!r} is a built-in model and cannot be removed")
    _REGISTRY.pop(name, None)


def model(name: str) -> ModelSpec:
    """The entry of `name`; ParameterError lists the registered models."""
    try:
        return _REGISTRY[name]
    except KeyError:
        raise ParameterError(
            f"unknown model {name!r}; choose from {', '.join(m.name for m in models())}"
        ) from None


def models() -> list[ModelSpec]:
    """Every registered model, in table order."""
    return sorted(_REGISTRY.values(), key=lambda m: (m.order, m.name))


def names(specs: list[ModelSpec] | None = None) -> tuple[str, ...]:
    """The names of `specs` (default: every model), in table order."""
    return tuple(m.name for m in (models() if specs is None else specs))


def trial_models() -> list[ModelSpec]:
    """The simulated models (one batch task per planned trial): IPC, MuJoCo."""
    return [m for m in models() if not m.analytic]


def analytic_models() -> list[ModelSpec]:
    """The models evaluated at contacts (`ipcgrasp analyze`), nominal-only ones included."""
    return [m for m in models() if m.analytic]


def batch_models() -> list[ModelSpec]:
    """The models a batch runs: the trial models and the analytic ones with robustness."""
    return [m for m in models() if not m.nominal_only]


def evaluator(spec: ModelSpec) -> Callable[..., Any]:
    """The evaluate function of an analytic model, its module imported on first use.

    Looked up at each call (the module is in sys.modules after the first: microseconds), so
    the function is the module's current one. RuntimeError when its module does not import (a
    missing optional dependency) or lacks the function: the pipeline reports it as that model's
    failure.
    """
    if not spec.analytic:
        raise ParameterError(f"{spec.name!r} is a trial model: it is simulated, not evaluated")
    module_name, function = spec.evaluate.split(":")
    try:
        module = importlib.import_module(module_name, package=__package__)
    except ImportError as exc:
        fix = (
            "reinstall ipcgrasp with its dependencies"
            if spec.name in BUILT_IN
            else f"install what {module_name} needs"
        )
        raise RuntimeError(f"the {spec.label} model is not available ({exc}); {fix}") from exc
    fn = getattr(module, function, None)
    if not callable(fn):
        raise RuntimeError(
            f"the {spec.label} model is not available ({module.__name__} has no function "
            f"{function})"
        )
    return fn
