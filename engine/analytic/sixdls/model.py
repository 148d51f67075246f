"""Public entry point of the 6DLS model for the analysis pipeline (Algorithm 2 with a margin).

    sixdls_margin(patches, w_ext, mu, variant="6dls_ellipsoid", fine_level=0) -> dict

Conventions are those of engine.analytic.contact_patch: positions in the object frame, wrenches
on the object w = [f; tau] with tau about the centre of mass (`com`, default the frame origin),
and the contacts must supply -w_ext. The returned margin s* is the largest s with -s w_ext in
the grasp wrench space built from each jaw's linearised limit surface (success iff s* >= 1).
"""

from __future__ import annotations

import math
import time
from typing import TYPE_CHECKING

import numpy as np

from engine.analytic.contact_patch import ContactPatch
from engine.analytic.resistance_lp import Margin
from engine.analytic.sixdls.elements import elements_from_patch
from engine.analytic.sixdls.friction import DEFAULT_CHUNK
from engine.analytic.sixdls.gws import gws_margin
from engine.analytic.sixdls.twists import FINE_LEVELS
from engine.analytic.sixdls.variants import (
    ALIASES,
    VARIANTS,
    canonical_variant,
    contact_constraints,
)
from engine.errors import GraspError, ParameterError

if TYPE_CHECKING:
    from engine.analytic.params import AnalyticParams

# Elements per jaw used for the frictional wrench sampling. Fig. 7: a 300-triangle mesh is
# within 4 % of the continuous w_max; 800 keeps the 6DLS detail view near 1 s per grasp at
# fine level 0 (~50k twists) on two cores. Normal wrenches always use every element.
DEFAULT_MAX_ELEMENTS = 800


def _check_inputs(
    patches: list[ContactPatch],
    w_ext: np.ndarray,
    mu: float,
    variant: str,
    fine_level: int,
    resolution: int,
) -> np.ndarray:
    if (
        isinstance(mu, bool)
        or not isinstance(mu, int | float | np.floating | np.integer)
        or not math.isfinite(mu)
        or mu < 0
    ):
        raise ParameterError(f"mu must be a finite number >= 0 (typical 0.3-1.0) (got {mu!r})")
    w = np.asarray(w_ext, dtype=float)
    if w.shape != (6,) or not np.isfinite(w).all():
        raise ParameterError(f"w_ext must be 6 finite numbers [f; tau] (got shape {w.shape})")
    if canonical_variant(variant) not in VARIANTS:
        names = ", ".join([*VARIANTS, *ALIASES])
        raise ParameterError(f"variant must be one of {names} (got {variant!r})")
    if fine_level not in FINE_LEVELS:
        raise ParameterError(
            f"fine_level must be one of {sorted(FINE_LEVELS)} (got {fine_level!r})"
        )
    if (
        isinstance(resolution, bool)
        or not isinstance(resolution, int | np.integer)
        or not 1 <= resolution <= 3
    ):
        raise ParameterError(f"resolution must be an integer in [1, 3] (got {resolution!r})")
    if not patches:
        raise GraspError("no contact on a jaw: no contact patches given")
    return w


def sixdls_margin(
    patches: list[ContactPatch],
    w_ext: np.ndarray,
    mu: float,
    variant: str = "6dls_ellipsoid",
    fine_level: int = 0,
    *,
    com: np.ndarray | None = None,
    resolution: int = 1,
    max_elements: int = DEFAULT_MAX_ELEMENTS,
    chunk: int = DEFAULT_CHUNK,
) -> dict:
    """Margin s* of a grasp under one of the Table IV contact models.

    patches: one ContactPatch per jaw in contact. w_ext: external load on the object (6,).
    mu: friction coefficient. variant: 6dls_ellipsoid (default), 6dls_quartic,
    3dls_nonplanar_{ellipsoid,quartic}, 3dls_planar_{ellipsoid,quartic} or 6dfw (aliases 6dls,
    3dls_nonplanar, 3dls_planar). fine_level: unit-twist density (-1 coarse ... 2 dense).
    com: centre of mass the torques are about (default origin). resolution: hypercube rays per
    half side (728 vertices in 6-D at 1). max_elements: elements per jaw for the friction
    sampling (0: all). chunk: twists per vectorised block (0: automatic).

    Returns {"margin": s*, "details": {...}} with per-jaw w_max (N, N m, contact frame about the
    pressure centre, at this mu and the jaw's force), fitting errors (Eq. 14 and twist angle),
    twist counts and timings. Raises ParameterError / GraspError / SolverError (IpcGraspError)
    with a message naming the problem.
    """
    start = time.perf_counter()
    w = _check_inputs(patches, w_ext, mu, variant, fine_level, resolution)
    name = canonical_variant(variant)
    center = np.zeros(3) if com is None else np.asarray(com, dtype=float).reshape(3)
    jaws, vertex_sets = [], []
    for patch in patches:
        jaw, vertices = _jaw(
            patch, name, fine_level, resolution, float(mu), center, max_elements, chunk
        )
        jaws.append(jaw)
        vertex_sets.append(vertices)
    lp = gws_margin(vertex_sets, w)
    total = time.perf_counter() - start
    details = {
        "variant": name,
        "fine_level": fine_level,
        "resolution": resolution,
        "mu": float(mu),
        "com": center.tolist(),
        "jaws": jaws,
        "w_max": [j["w_max"] for j in jaws],
        "fitting_errors": [j["fitting_errors"] for j in jaws],
        "n_twists": int(sum(j["twists"] for j in jaws)),
        "lp_status": lp.status,
        "timings": {
            "jaws_s": [j["timings"]["total_s"] for j in jaws],
            "lp_s": lp.time_s,
            "total_s": total,
        },
    }
    return {"margin": float(lp.margin), "details": details}


def _jaw(
    patch: ContactPatch,
    variant: str,
    fine_level: int,
    resolution: int,
    mu: float,
    center: np.ndarray,
    max_elements: int,
    chunk: int,
) -> tuple[dict, np.ndarray]:
    """One jaw's details (its w_max, fit, twists, timings) and the vertices of its linearised
    limit surface at friction `mu`, wrenches about `center`."""
    t0 = time.perf_counter()
    elements = elements_from_patch(patch)
    cc = contact_constraints(
        elements,
        variant,
        fine_level,
        resolution,
        max_elements=max_elements,
        fallback_normal=np.asarray(patch.closing_direction, dtype=float),
        chunk=chunk,
    )
    scale = mu * cc.total_force
    vertices = cc.contact_vertices(mu, center)
    jaw = {
        "jaw": int(patch.jaw),
        "elements": len(elements),
        "friction_elements": cc.friction_elements,
        "total_force_n": elements.total_force,
        "pressure_center": cc.frame.origin.tolist(),
        "frame_rotation": cc.frame.rotation.tolist(),
        "w_max": (scale * cc.w_max_unit).tolist(),
        "w_max_unit": cc.w_max_unit.tolist(),
        "active_components": cc.active.tolist(),
        "fitting_errors": None if cc.errors is None else cc.errors.as_dict(),
        "fit_status": None if cc.surface is None else cc.surface.status,
        "twists": cc.twists,
        "fit_samples": cc.fit_samples,
        "vertices": len(cc.vertices_unit),
        "timings": {**cc.timings, "total_s": time.perf_counter() - t0},
    }
    return jaw, vertices


def evaluate(
    patches: tuple[ContactPatch, ...], w_ext: np.ndarray, com: np.ndarray, params: AnalyticParams
) -> Margin:
    """The registry's entry point (engine.analytic.registry, a PATCH model): `sixdls_margin`
    with the friction and limit-surface variant of `params`."""
    out = sixdls_margin(list(patches), w_ext, params.mu, params.sixdls_variant, com=com)
    return Margin(float(out["margin"]), dict(out.get("details", {})))
