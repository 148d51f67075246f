"""Parametric contact surfaces of the 6DLS paper (Table I, Section IV-D) and their quadrature.

A surface is sigma(u, v) on a (u, v) rectangle with analytic partial derivatives. The object
lies on the side opposite to the outward normal; elements carry the INWARD normal (the jaw's
push). Integrals (Eq. 3, 6, 7) are sums over a tensor Gauss-Legendre grid whose nodes are
PatchElements with force p |sigma_u x sigma_v| w_u w_v, so parametric and meshed surfaces share
the frictional-wrench code.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from engine.analytic.sixdls.elements import PatchElements
from engine.analytic.sixdls.pressure import HertzPressure, PowerLawPressure, UniformPressure

Field = Callable[[np.ndarray, np.ndarray], np.ndarray]
Pressure = Callable[[np.ndarray], np.ndarray]


@dataclass(frozen=True, eq=False)
class ParametricSurface:
    """sigma(u, v) for (u, v) in u_range x v_range, with sigma_u, sigma_v."""

    name: str
    sigma: Field
    sigma_u: Field
    sigma_v: Field
    u_range: tuple[float, float]
    v_range: tuple[float, float]
    outward_sign: float = (
        1.0  # sign making outward_sign * sigma_u x sigma_v point out of the object
    )
    radii: tuple[float, ...] = (1.0,)  # shape radii; the Hertz radius is 1.8 * max(radii)
    axis: np.ndarray | None = field(default=None)  # straight generator direction (cylinders)

    def outward_normals(self, u: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(unit outward normals, |sigma_u x sigma_v|) at (u, v)."""
        c = np.cross(self.sigma_u(u, v), self.sigma_v(u, v)) * self.outward_sign
        jac = np.linalg.norm(c, axis=-1)
        return c / np.where(jac > 0, jac, 1.0)[..., None], jac


def _stack(*cols: np.ndarray) -> np.ndarray:
    shape = np.broadcast(*cols).shape
    return np.stack([np.broadcast_to(c, shape) for c in cols], axis=-1)


def elliptic_cylinder(
    a: float = 1.0,
    b: float = 0.5,
    u_range: tuple[float, float] = (0.0, np.pi),
    v_range: tuple[float, float] = (0.0, 1.0),
    offset: tuple[float, float, float] = (0.0, 0.0, 0.0),
    name: str = "elliptic_cylinder",
) -> ParametricSurface:
    """[a cos u, b sin u, v] - offset (S2 with a = 1, b = 1/2; S1 with a = b = 1)."""
    off = np.asarray(offset, dtype=float)
    zero = np.zeros(())
    return ParametricSurface(
        name,
        lambda u, v: _stack(a * np.cos(u), b * np.sin(u), v + zero) - off,
        lambda u, v: _stack(-a * np.sin(u), b * np.cos(u), 0.0 * v + zero),
        lambda u, v: _stack(0.0 * u, 0.0 * u, 1.0 + 0.0 * u + 0.0 * v),
        u_range,
        v_range,
        1.0,
        (a, b),
        np.array([0.0, 0.0, 1.0]),
    )


def cylinder(
    radius: float = 1.0,
    u_range: tuple[float, float] = (0.0, np.pi),
    v_range: tuple[float, float] = (0.0, 1.0),
    offset: tuple[float, float, float] = (0.0, 0.0, 0.0),
) -> ParametricSurface:
    """S1: [cos u, sin u, v], (u, v) in [0, pi] x [0, 1] (the unit half cylinder)."""
    return elliptic_cylinder(radius, radius, u_range, v_range, offset, name="cylinder")


def ellipsoid(
    a: float = 1.0, b: float = 0.5, c: float = 0.6, name: str = "ellipsoid"
) -> ParametricSurface:
    """S4: [a cos u cos v, b cos u sin v, c sin u], (u, v) in [-pi/2, pi/2] x [0, pi]."""
    return ParametricSurface(
        name,
        lambda u, v: _stack(
            a * np.cos(u) * np.cos(v), b * np.cos(u) * np.sin(v), c * np.sin(u) + 0.0 * v
        ),
        lambda u, v: _stack(
            -a * np.sin(u) * np.cos(v), -b * np.sin(u) * np.sin(v), c * np.cos(u) + 0.0 * v
        ),
        lambda u, v: _stack(-a * np.cos(u) * np.sin(v), b * np.cos(u) * np.cos(v), 0.0 * u * v),
        (-0.5 * np.pi, 0.5 * np.pi),
        (0.0, np.pi),
        -1.0,  # sigma_u x sigma_v points to the centre
        (a, b, c),
    )


def sphere(radius: float = 1.0) -> ParametricSurface:
    """S3: [cos u cos v, cos u sin v, sin u], (u, v) in [-pi/2, pi/2] x [0, pi]."""
    return ellipsoid(radius, radius, radius, name="sphere")


def elliptic_paraboloid(
    a: float = 1.0, b: float = 0.5, name: str = "elliptic_paraboloid"
) -> ParametricSurface:
    """S6: [a v cos u, b v sin u, v^2], (u, v) in [0, pi] x [0, 1]; the object lies above it."""
    return ParametricSurface(
        name,
        lambda u, v: _stack(a * v * np.cos(u), b * v * np.sin(u), v * v + 0.0 * u),
        lambda u, v: _stack(-a * v * np.sin(u), b * v * np.cos(u), 0.0 * u * v),
        lambda u, v: _stack(a * np.cos(u) + 0.0 * v, b * np.sin(u) + 0.0 * v, 2.0 * v + 0.0 * u),
        (0.0, np.pi),
        (0.0, 1.0),
        1.0,
        (a, b),
    )


def paraboloid() -> ParametricSurface:
    """S5: [v cos u, v sin u, v^2], (u, v) in [0, pi] x [0, 1]."""
    return elliptic_paraboloid(1.0, 1.0, name="paraboloid")


def paper_surfaces() -> dict[str, ParametricSurface]:
    """S1..S6 of Table I."""
    return {
        "S1": cylinder(),
        "S2": elliptic_cylinder(),
        "S3": sphere(),
        "S4": ellipsoid(),
        "S5": paraboloid(),
        "S6": elliptic_paraboloid(),
    }


def section_iv_d_patch() -> ParametricSurface:
    """The Section IV-D example: [0.02 cos u, 0.02 sin u, v] - [0, 0.018, -0.04], in metres.

    u in [pi/4, 3 pi/4], v in [-0.05, -0.03]: a patch of a 20 mm radius cylinder expressed in
    the local contact frame C whose origin is the pressure centre (Appendix C).
    """
    return elliptic_cylinder(
        0.02,
        0.02,
        (0.25 * np.pi, 0.75 * np.pi),
        (-0.05, -0.03),
        (0.0, 0.018, -0.04),
        name="section_iv_d",
    )


@dataclass(frozen=True, eq=False)
class SurfaceGrid:
    """Quadrature nodes of a surface: points, outward normals and area weights."""

    points: np.ndarray  # (n,3)
    outward: np.ndarray  # (n,3)
    area_weights: np.ndarray  # (n,) |sigma_u x sigma_v| w_u w_v

    @property
    def area(self) -> float:
        """Total surface area, the sum of the quadrature weights (m^2)."""
        return float(self.area_weights.sum())

    @property
    def centroid(self) -> np.ndarray:
        """Geometric centre (area-weighted)."""
        return self.area_weights @ self.points / self.area


def surface_grid(surface: ParametricSurface, nu: int = 200, nv: int = 200) -> SurfaceGrid:
    """Tensor Gauss-Legendre nodes (nu x nv) on the (u, v) rectangle (vectorised)."""
    xu, wu = np.polynomial.legendre.leggauss(int(nu))
    xv, wv = np.polynomial.legendre.leggauss(int(nv))
    (u0, u1), (v0, v1) = surface.u_range, surface.v_range
    u = 0.5 * (u1 - u0) * xu + 0.5 * (u1 + u0)
    v = 0.5 * (v1 - v0) * xv + 0.5 * (v1 + v0)
    w = np.outer(wu * 0.5 * (u1 - u0), wv * 0.5 * (v1 - v0))
    uu, vv = np.meshgrid(u, v, indexing="ij")
    pts = surface.sigma(uu, vv)
    nrm, jac = surface.outward_normals(uu, vv)
    return SurfaceGrid(pts.reshape(-1, 3), nrm.reshape(-1, 3), (jac * w).reshape(-1))


def surface_elements(
    surface: ParametricSurface,
    pressure: Pressure,
    nu: int = 200,
    nv: int = 200,
    total_force: float | None = None,
) -> PatchElements:
    """Quadrature nodes as elements: force p dS, inward normal.

    `total_force` rescales the pressure so int p dS equals it (1 gives the paper's p_hat);
    None keeps the pressure as given.
    """
    grid = surface_grid(surface, nu, nv)
    forces = pressure(grid.points) * grid.area_weights
    if total_force is not None:
        forces = forces * (total_force / forces.sum())
    return PatchElements(grid.points, -grid.outward, forces)


def hertz_pressure(surface: ParametricSurface, nu: int = 200, nv: int = 200) -> HertzPressure:
    """The 6DLS Hertzian pressure: centre = geometric centre, R = 1.8 max(radii), p0 = 1."""
    grid = surface_grid(surface, nu, nv)
    return HertzPressure(grid.centroid, 1.8 * max(surface.radii), surface.axis)


def power_law_pressure(
    surface: ParametricSurface,
    k: float,
    direction: tuple[float, float, float] = (1.0, 0.0, 0.0),
    center: tuple[float, float, float] = (0.0, 0.0, 0.0),
    nu: int = 400,
    nv: int = 400,
) -> PowerLawPressure:
    """Eq. 20 with r measured from `center` along `direction`; r_max over the surface.

    The defaults suit Table I's surfaces (symmetric about the yz-plane, apex towards +y):
    r is the lateral distance |x| and the pressure peaks at the apex line.
    """
    d = np.asarray(direction, dtype=float)
    d = d / np.linalg.norm(d)
    c = np.asarray(center, dtype=float)
    (u0, u1), (v0, v1) = surface.u_range, surface.v_range
    uu, vv = np.meshgrid(np.linspace(u0, u1, nu), np.linspace(v0, v1, nv), indexing="ij")
    r_max = float(np.abs((surface.sigma(uu, vv) - c) @ d).max())
    return PowerLawPressure(c, d, r_max, float(k))


def uniform_pressure(value: float = 1.0) -> UniformPressure:
    """p = value."""
    return UniformPressure(value)


def rectangle(
    width: float,
    height: float,
    center: tuple[float, float, float] = (0.0, 0.0, 0.0),
    normal_axis: int = 2,
    outward_positive: bool = True,
    name: str = "rectangle",
) -> ParametricSurface:
    """A flat width x height rectangle centred at `center`, normal to axis `normal_axis`.

    The outward normal is +axis (`outward_positive`) or -axis: e.g. the +z face of a cube has
    normal_axis = 2 and outward_positive = True. Spans the next axis (width) and the one after.
    """
    c = np.asarray(center, dtype=float)
    e1, e2 = np.eye(3)[(normal_axis + 1) % 3], np.eye(3)[(normal_axis + 2) % 3]
    zero = np.zeros(())
    return ParametricSurface(
        name,
        lambda u, v: c + (u + zero)[..., None] * e1 + (v + zero)[..., None] * e2,
        lambda u, v: np.broadcast_to(e1, (*np.broadcast(u, v).shape, 3)),
        lambda u, v: np.broadcast_to(e2, (*np.broadcast(u, v).shape, 3)),
        (-0.5 * width, 0.5 * width),
        (-0.5 * height, 0.5 * height),
        1.0 if outward_positive else -1.0,
        (0.5 * max(width, height),),
    )
