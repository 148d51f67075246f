"""Per-contact frictional constraint sets of the contact models compared in Table IV.

Every variant turns one contact's elements into (a) frictional vertices per unit mu and unit
normal-force sum, in a local contact frame about its origin, and (b) the contact's normal
wrench, so the GWS test (Eq. 17-19) is shared. The contact frame has z along the net normal
force (the grasp axis for a symmetric contact), x, y in the contact plane (elements.py).

- 6dls_ellipsoid / 6dls_quartic (proposed): Algorithm 1 on all six components: sample unit
  twists (Appendix D), frictional wrenches (Eq. 4-6), normalise by w_max (Eq. 9), down-sample,
  fit the ellipsoid (Eq. 10) or SOS-convex quartic (Eq. 13), linearise by hypercube rays
  (Eq. 15-16, 728 vertices).
- 3dls_nonplanar_ellipsoid / _quartic ([16]): the real, curved contact, but only planar
  sliding (rotations about axes along z, translations in the xy plane) and only the three
  "major" components f_x, f_y, tau_z are fitted by a 3-D LS (26 vertices); the other three
  components are zero. In the paper's experiments these are f_y, f_z, tau_x with x the grasp axis.
- 3dls_planar_ellipsoid / _quartic (traditional): the contact is projected along z onto the
  plane through its pressure centre (the paper projects along the grasp axis onto the yz-plane);
  every element pushes along z with its force's z component F_i n_i.z, so the planar contact
  carries the measured squeeze force (the paper scales each model's pressure to the jaw's force
  sensor reading of the grasp-axis component). Planar sliding, 3-D LS in (f_x, f_y, tau_z).
- 6dfw: no limit surface; the sampled 6-D frictional wrenches themselves are the vertices:
  the down-sampled set the 6DLS fits use (at most 729; the paper's contacts had ~600 samples,
  drawn at random, which made that variant less repeatable; ours come from the fixed grid).

Normal wrenches use the contact's own elements (all but 3dls_planar) or the projected ones.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from engine.analytic.params import SIXDLS_VARIANTS
from engine.analytic.sixdls.elements import (
    ContactFrame,
    PatchElements,
    coarsen_elements,
    contact_frame,
)
from engine.analytic.sixdls.ellipsoid import EllipsoidLS, fit_ellipsoid
from engine.analytic.sixdls.friction import DEFAULT_CHUNK
from engine.analytic.sixdls.linearize import FitErrors, denormalize, fitting_errors, linearize
from engine.analytic.sixdls.normalize import downsample_indices, normalize_samples
from engine.analytic.sixdls.quartic import QuarticLS, fit_quartic
from engine.analytic.sixdls.twists import sample_planar_twists, sample_unit_twists, sampled_wrenches
from engine.errors import GraspError

VARIANTS = SIXDLS_VARIANTS
ALIASES = {
    "6dls": "6dls_ellipsoid",
    "3dls_nonplanar": "3dls_nonplanar_ellipsoid",
    "3dls_planar": "3dls_planar_ellipsoid",
}
PLANAR_COMPONENTS = np.array([0, 1, 5])  # f_x, f_y, tau_z in the contact frame


@dataclass(frozen=True, eq=False)
class ContactConstraints:
    """One contact's frictional vertices and normal wrench, ready for the GWS test."""

    frame: ContactFrame
    total_force: float  # F = sum F_i of the elements the friction was computed for, N
    vertices_unit: np.ndarray  # (M,6) frictional vertices per unit mu F, frame C about its origin
    normal_wrench_local: np.ndarray  # (6,) normal wrench in C about its origin, N and N m
    w_max_unit: np.ndarray  # (6,) max |w_k| over the sampled twists per unit mu F, frame C
    active: np.ndarray  # components the limit surface was fitted in
    surface: EllipsoidLS | QuarticLS | None
    errors: FitErrors | None
    twists: int
    fit_samples: int
    friction_elements: int = 0  # elements the frictional wrenches were computed with
    timings: dict = field(default_factory=dict)

    def contact_vertices(self, mu: float, com: np.ndarray) -> np.ndarray:
        """(M,6) c_m = Ad(mu F s_m + w_perp) in the object frame about `com` (Eq. 17)."""
        local = mu * self.total_force * self.vertices_unit + self.normal_wrench_local
        return self.frame.wrench_to_parent(local, com)


def canonical_variant(variant: str) -> str:
    """The full variant name (accepts the short aliases 6dls, 3dls_planar, 3dls_nonplanar)."""
    return ALIASES.get(variant, variant)


def _fit(model: str, wrenches: np.ndarray, normals: np.ndarray) -> EllipsoidLS | QuarticLS:
    return (
        fit_quartic(wrenches, normals) if model == "quartic" else fit_ellipsoid(wrenches, normals)
    )


@dataclass(frozen=True, eq=False)
class FittedLimitSurface:
    """A limit surface fitted to sampled wrenches and its linearisation."""

    vertices: np.ndarray  # (M,6) per unit mu F, zero in the inactive components
    w_max: np.ndarray  # (6,)
    active: np.ndarray
    surface: EllipsoidLS | QuarticLS | None
    errors: FitErrors | None
    fit_samples: int
    timings: dict


def fit_and_linearize(
    wrenches: np.ndarray,
    twists: np.ndarray,
    size: float,
    model: str,
    resolution: int = 1,
    components: np.ndarray | None = None,
) -> FittedLimitSurface:
    """Algorithm 1 after the sampling: normalise (Eq. 9), down-sample, fit, linearise (Eq. 15-16).

    `components` restricts the fit to those wrench components (3-D limit surfaces). Vertices
    are kept inside the box |w_k| <= w_max,k: the sampled axis twists reach each w_max,k
    exactly, so the true limit surface lies in that box, and a fit that is loose in a
    direction the samples do not pin down (coarse fine levels) cannot create friction there.
    """
    timings: dict[str, float] = {}
    if components is not None:
        mask = np.isin(np.arange(6), components)
        wrenches = np.where(mask, wrenches, 0.0)
        twists = np.where(mask, twists, 0.0)
    t0 = time.perf_counter()
    samples = normalize_samples(wrenches, twists, size)
    if len(samples.active) == 0:
        return FittedLimitSurface(
            np.zeros((0, 6)), samples.w_max, samples.active, None, None, 0, timings
        )
    keep = downsample_indices(samples.wrenches)
    timings["normalize_s"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    surface = _fit(model, samples.wrenches[keep], samples.normals[keep])
    timings["fit_s"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    errors = fitting_errors(surface, samples.wrenches, samples.normals)
    points = linearize(surface, len(samples.active), resolution)
    points /= np.maximum(np.abs(points).max(axis=1, keepdims=True), 1.0)
    vertices = denormalize(points, samples.w_max, samples.active)
    timings["linearize_s"] = time.perf_counter() - t0
    return FittedLimitSurface(
        vertices, samples.w_max, samples.active, surface, errors, len(keep), timings
    )


def project_to_plane(
    elements: PatchElements, origin: np.ndarray, normal: np.ndarray
) -> PatchElements:
    """Elements moved along `normal` onto the plane through `origin`, pushing along `normal`.

    Each keeps the component F_i max(n_i . normal, 0) of its force: its share of the squeeze.
    The line of action of that force is unchanged, so the normal wrench about any point is the
    `normal` component of the original one.
    """
    depth = (elements.positions - origin) @ normal
    return PatchElements(
        elements.positions - depth[:, None] * normal,
        np.broadcast_to(normal, elements.normals.shape).copy(),
        elements.forces * np.clip(elements.normals @ normal, 0.0, None),
    )


def contact_constraints(
    elements: PatchElements,
    variant: str,
    fine_level: int = 0,
    resolution: int = 1,
    max_elements: int = 0,
    fallback_normal: np.ndarray | None = None,
    chunk: int = DEFAULT_CHUNK,
) -> ContactConstraints:
    """One contact's constraints for a Table IV variant.

    `elements` (object frame) give the frame and the normal wrench; the frictional wrenches
    use them merged to at most `max_elements` (0: all) on a grid in the contact frame, so
    the result does not depend on the object frame.
    """
    variant = canonical_variant(variant)
    frame = contact_frame(elements, fallback_normal)
    fr = coarsen_elements(elements, max_elements, frame)
    if variant.startswith("3dls_planar"):
        z = frame.rotation[:, 2]
        elements = project_to_plane(elements, frame.origin, z)
        fr = project_to_plane(fr, frame.origin, z)
        if elements.total_force <= 0 or fr.total_force <= 0:
            raise GraspError("degenerate contact patch: no element pushes along the contact normal")
        o = elements.pressure_center
        frame = ContactFrame(
            o, frame.rotation, np.ptp(elements.transformed(frame.rotation, o).positions, axis=0)
        )
    local_fr = fr.transformed(frame.rotation, frame.origin).normalized()
    normal_local = elements.transformed(frame.rotation, frame.origin).normal_wrench()

    timings: dict[str, float] = {}
    t0 = time.perf_counter()
    planar_motion = variant.startswith("3dls")
    sampler = sample_planar_twists if planar_motion else sample_unit_twists
    twists = sampler(frame.extents, fine_level)
    xi = twists.xi
    wrenches = sampled_wrenches(local_fr, twists, chunk=chunk)
    timings["wrenches_s"] = time.perf_counter() - t0

    if variant == "6dfw":
        samples = normalize_samples(wrenches, xi, frame.size)
        keep = downsample_indices(samples.wrenches) if len(samples.active) else np.zeros(0, int)
        return ContactConstraints(
            frame,
            fr.total_force,
            wrenches[keep],
            normal_local,
            samples.w_max,
            samples.active,
            None,
            None,
            len(xi),
            len(keep),
            len(fr),
            timings,
        )
    model = "quartic" if variant.endswith("quartic") else "ellipsoid"
    components = PLANAR_COMPONENTS if planar_motion else None
    fit = fit_and_linearize(wrenches, xi, frame.size, model, resolution, components)
    timings.update(fit.timings)
    return ContactConstraints(
        frame,
        fr.total_force,
        fit.vertices,
        normal_local,
        fit.w_max,
        fit.active,
        fit.surface,
        fit.errors,
        len(xi),
        fit.fit_samples,
        len(fr),
        timings,
    )
