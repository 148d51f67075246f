"""One grasp through every analytic model: shared poses, contacts and load; margins and robustness.

Every model sees the same nominal pose and the same seeded perturbations (common random numbers,
so model comparisons are paired). Per pose, the jaw placement, the clearance check and the
contacts are computed once and shared; each model's reported time includes the geometry it
uses, so it is the time that model would take alone. Nothing but ParameterError (bad parameters
or model names) escapes analyze_grasp: every failure becomes a reason on that model's result.
"""

from __future__ import annotations

import math
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from engine.analytic import registry
from engine.analytic.contact_forces import ContactForces, contact_forces, held_scale
from engine.analytic.contact_patch import ContactPatch, ContactPoint
from engine.analytic.contact_points import (
    ContactFailure,
    JawView,
    ObjectGeometry,
    find_contact_points,
    jaw_views,
    object_geometry,
)
from engine.analytic.contact_profile import check_clearance, check_patch, contact_profile
from engine.analytic.load_limits import describe, limiting_part, load_parts
from engine.analytic.params import AnalyticParams
from engine.analytic.registry import POINT, ModelSpec
from engine.analytic.result import ModelResult, wilson_interval
from engine.analytic.wrench import gravity_wrench
from engine.errors import MeshError, ParameterError
from engine.grasp.grasp import Grasp
from engine.grasp.trial_plan import TrialSpec, perturbed_trials
from engine.gripper.jaws import place_jaws
from engine.gripper.pad_geometry import PadOutline
from engine.scene.resting import RestingObject


def check_models(models: list[str] | tuple[str, ...] | str) -> list[str]:
    """Validated analytic model names (engine.analytic.registry) in the given order
    (duplicates dropped); "a,b" is split."""
    if isinstance(models, str):
        models = models.split(",")
    known = registry.names(registry.analytic_models())
    out: list[str] = []
    for m in models:
        name = str(m).strip()
        if name not in known:
            raise ParameterError(f"unknown model {name!r}; choose from {', '.join(known)}")
        if name not in out:
            out.append(name)
    if not out:
        raise ParameterError(f"no model selected; choose from {', '.join(known)}")
    return out


class _PoseContacts:
    """Lazily computed, shared geometry of one gripper pose, with the time each part took."""

    def __init__(
        self, geom: ObjectGeometry, pose: np.ndarray, params: AnalyticParams, outline: PadOutline
    ) -> None:
        self.geom, self.pose, self.params, self.outline = geom, pose, params, outline
        self._cache: dict[str, tuple[object, Exception | None, float]] = {}

    def _get(self, name: str, compute: Callable[[], object]) -> object:
        if name not in self._cache:
            start = time.perf_counter()
            try:
                value, error = compute(), None
            except Exception as exc:  # kept so every model sees the same failure
                value, error = None, exc
            self._cache[name] = (value, error, time.perf_counter() - start)
        value, error, _ = self._cache[name]
        if error is not None:
            raise error
        return value

    def seconds(self, *names: str) -> float:
        return sum(self._cache[n][2] for n in names if n in self._cache)

    def views(self) -> tuple[JawView, JawView]:
        def compute() -> tuple[JawView, JawView]:
            jaws = place_jaws(self.pose, self.params.open_width_m)
            views = jaw_views(self.geom, jaws, self.outline)
            check_clearance(self.geom, views, self.outline, self.params.open_width_m)
            return views

        return self._get("views", compute)  # type: ignore[return-value]

    def points(self) -> tuple[ContactPoint, ContactPoint]:
        views = self.views()
        return self._get(  # type: ignore[return-value]
            "points", lambda: find_contact_points(self.geom, views, self.params.open_width_m)
        )

    def patches(self) -> tuple[ContactPatch, ContactPatch]:
        views = self.views()
        p = self.params
        return self._get(  # type: ignore[return-value]
            "patches",
            lambda: contact_profile(
                self.geom,
                views,
                self.outline,
                p.silicone_depth_m,
                p.closing_force_n,
                p.open_width_m,
                p.element_size_m,
            ),
        )

    def closing_directions(self) -> list[np.ndarray]:
        return [v.jaw.normal for v in self.views()]


@dataclass
class _Outcome:
    margin: float
    reason: str = ""
    seconds: float = 0.0
    details: dict = field(default_factory=dict)
    contacts: list = field(default_factory=list)
    forces: ContactForces | None = None


def _failure_reason(exc: BaseException) -> tuple[str, float]:
    """(reason, margin) for an exception raised while evaluating one pose."""
    if isinstance(exc, ContactFailure):
        # Geometric failures hold nothing; the reason is already one of FAILURE_REASONS.
        return str(exc), (math.nan if exc.reason == "invalid input" else 0.0)
    if isinstance(exc, ParameterError | MeshError):
        return f"invalid input: {exc}", math.nan
    text = str(exc) or type(exc).__name__
    if type(exc).__module__ != "engine.errors":
        text = f"{type(exc).__name__}: {text}"
    return f"solver failure: {text}", math.nan


def _evaluate(spec: ModelSpec, ctx: _PoseContacts, w_ext: np.ndarray) -> _Outcome:
    """One model on one pose, called as its kind says (engine.analytic.registry); never raises."""
    params, com = ctx.params, ctx.geom.center_of_mass
    geometry = ("views", "points") if spec.kind == POINT else ("views", "patches")
    contacts: list = []
    start: float | None = None
    try:
        if spec.kind == POINT:
            points = ctx.points()
            contacts = list(points)
            args: tuple = (points, ctx.closing_directions(), w_ext, com, params)
        else:
            patches = ctx.patches()
            contacts = list(patches)
            for patch in patches:
                check_patch(patch)
            args = (patches, w_ext, com, params)
        geometry_s = ctx.seconds(*geometry)
        start = time.perf_counter()
        result = registry.evaluator(spec)(*args)
        seconds = geometry_s + time.perf_counter() - start
        margin = float(result.margin)
        if math.isnan(margin):
            return _Outcome(math.nan, "solver failure: margin is NaN", seconds, contacts=contacts)
        # Solver tolerances can leave -1e-9 where nothing can be held.
        return _Outcome(max(margin, 0.0), "", seconds, dict(result.details), contacts)
    except Exception as exc:
        reason, margin = _failure_reason(exc)
        spent = ctx.seconds(*geometry)
        if start is not None:
            spent += time.perf_counter() - start
        return _Outcome(margin, reason, spent, contacts=contacts)


def _insufficient(margin: float) -> str:
    return (
        f"insufficient friction: s* = {margin:.3g} < 1 (the contacts hold {margin:.3g} times "
        "the object's weight)"
    )


def _summarise(model: str, nominal: _Outcome, samples: list[_Outcome]) -> ModelResult:
    reason = nominal.reason
    if not reason and not nominal.margin >= 1.0:
        reason = _insufficient(nominal.margin)
    margins = [o.margin for o in samples]
    wins = sum(1 for m in margins if m >= 1.0)
    n = len(samples)
    seconds = nominal.seconds + sum(o.seconds for o in samples)
    finite = np.array([m for m in margins if math.isfinite(m)])
    details = dict(nominal.details)
    details["nominal_time_s"] = nominal.seconds
    if n:
        details["sample_failures"] = dict(
            Counter(o.reason.split(":")[0] for o in samples if o.reason)
        )
        if len(finite):
            details["sample_margin_mean"] = float(finite.mean())
            details["sample_margin_p05"] = float(np.percentile(finite, 5))
    return ModelResult(
        model=model,
        success=not nominal.reason and nominal.margin >= 1.0,
        margin=float(nominal.margin),
        robustness=wins / n if n else math.nan,
        robustness_ci=wilson_interval(wins, n),
        reason=reason,
        time_s=seconds,
        time_per_sample_s=(sum(o.seconds for o in samples) / n) if n else nominal.seconds,
        samples=n,
        sample_margins=margins,
        contacts=nominal.contacts,
        details=details,
        forces=nominal.forces,
    )


def _all_failed(models: list[str], reason: str, samples: int) -> list[ModelResult]:
    return [
        ModelResult(
            model=m,
            success=False,
            margin=math.nan,
            reason=reason,
            samples=0 if registry.model(m).nominal_only else samples,
        )
        for m in models
    ]


def analyze_grasp(
    obj: RestingObject,
    grasp: Grasp,
    params: AnalyticParams,
    models: list[str],
    samples: int,
    seed: int,
    explain: bool = False,
) -> list[ModelResult]:
    """Every requested model's verdict on one grasp: nominal margin, robustness over samples.

    `explain`: also each model's margin against the two parts of the load on the nominal
    pose (engine.analytic.load_limits: the pull through the grasp centre, gravity's moment
    about it), in its result's details (pull_margin, moment_margin, moment_nm,
    moment_about_closing_axis_nm, limit, limit_text); two more evaluations per model; and
    the contact forces it holds the weight with (ModelResult.forces,
    engine.analytic.contact_forces)."""
    params.validate()
    names = check_models(models)
    if isinstance(samples, bool) or not isinstance(samples, int | np.integer) or samples < 0:
        raise ParameterError(f"samples must be an integer >= 0 (got {samples!r})")
    # The same offsets as the simulator's trials of this seed (engine.grasp.trials).
    sampled = perturbed_trials(
        grasp,
        TrialSpec(int(samples), seed, params.translation_sigma_m, params.rotation_sigma_rad),
    )
    outline = params.outline()
    try:
        geom = object_geometry(obj)
        if not (math.isfinite(geom.mass_kg) and geom.mass_kg > 0):
            raise ContactFailure("invalid input", f"object mass must be > 0 (got {geom.mass_kg})")
    except ContactFailure as exc:
        return _all_failed(names, str(exc), int(samples))
    w_ext = gravity_wrench(geom.mass_kg)
    poses = [grasp.pose(), *(t.pose for t in sampled)]

    specs = [registry.model(m) for m in names]
    outcomes: dict[str, list[_Outcome]] = {m: [] for m in names}
    for k, pose in enumerate(poses):
        ctx = _PoseContacts(geom, pose, params, outline)
        for spec in specs:
            if k == 0 or not spec.nominal_only:
                outcomes[spec.name].append(_evaluate(spec, ctx, w_ext))
            if k == 0 and explain:
                _explain(spec, ctx, geom, grasp, outcomes[spec.name][0])
    return [_summarise(m, outcomes[m][0], outcomes[m][1:]) for m in names]


def _explain(
    spec: ModelSpec, ctx: _PoseContacts, geom: ObjectGeometry, grasp: Grasp, nominal: _Outcome
) -> None:
    """Add the load parts' margins to the nominal outcome's details (not when it failed for a
    reason of its own: a missing contact, a collision, a jaw pushing outside its friction cone
    is the explanation)."""
    if nominal.reason:
        nominal.details["limit_text"] = nominal.reason
        return
    parts = load_parts(geom.mass_kg, geom.center_of_mass, grasp.center, grasp.axis)
    pull = _evaluate(spec, ctx, parts.pull)
    moment = _Outcome(math.inf) if parts.moment_nm == 0.0 else _evaluate(spec, ctx, parts.moment)
    nominal.details.update(
        pull_margin=pull.margin,
        moment_margin=moment.margin,
        moment_nm=parts.moment_nm,
        moment_about_closing_axis_nm=parts.about_closing_axis_nm,
        limit=limiting_part(nominal.margin, pull.margin, moment.margin),
        limit_text=describe(nominal.margin, pull.margin, moment.margin, parts),
    )
    scale = held_scale(nominal.margin)
    if scale is None or not nominal.contacts:
        return
    p = ctx.params
    try:
        forces = contact_forces(
            nominal.contacts,
            geom.mass_kg,
            geom.center_of_mass,
            p.mu,
            scale,
            p.closing_force_n,
            torsion_m=p.torsion_coefficient_m() if spec.kind == POINT else 0.0,
            cell_m=p.friction_cell_m,
        )
    except Exception as exc:  # a drawing aid: the verdict stands without it
        nominal.details["forces_error"] = f"{type(exc).__name__}: {exc}"
        return
    if not all(np.isfinite(a).all() for a in (forces.normal_n, forces.friction_n)):
        nominal.details["forces_error"] = "the contact forces are not finite"
        return
    nominal.forces = forces
