"""Twist sampling, normalisation, the ellipsoid and SOS-convex quartic fits, and linearisation."""

from __future__ import annotations

import numpy as np
import pytest

from engine.analytic.sixdls.ellipsoid import fit_ellipsoid
from engine.analytic.sixdls.linearize import fitting_errors, hypercube_directions, linearize
from engine.analytic.sixdls.normalize import downsample_indices, normalize_samples
from engine.analytic.sixdls.polynomials import monomial_exponents, sos_convexity_maps
from engine.analytic.sixdls.quartic import fit_quartic
from engine.analytic.sixdls.surfaces import cylinder, surface_elements, uniform_pressure
from engine.analytic.sixdls.twists import (
    FINE_LEVELS,
    fibonacci_hemisphere,
    sample_unit_twists,
    sampled_wrenches,
)
from engine.errors import ParameterError


@pytest.fixture(scope="module")
def s1_samples():
    """Normalised, down-sampled S1 wrenches at fine level 0 (Algorithm 1 up to the fit)."""
    el = surface_elements(cylinder(), uniform_pressure(), 40, 40, total_force=1.0)
    local = el.transformed(np.eye(3), el.pressure_center)
    twists = sample_unit_twists(np.ptp(local.positions, axis=0), fine_level=0)
    samples = normalize_samples(sampled_wrenches(local, twists), twists.xi, 2.0)
    keep = downsample_indices(samples.wrenches)
    return samples, keep


def test_twist_sampling_appendix_d():
    """Appendix D: Fibonacci axes with the exact axes, offsets, pitches, rotations, translations."""
    pts = fibonacci_hemisphere(13)
    assert np.linalg.norm(pts, axis=1) == pytest.approx(np.ones(13))
    for axis in np.eye(3):
        assert np.any(np.all(np.isclose(pts, axis), axis=1))
    twists = sample_unit_twists(np.array([2.0, 1.0, 0.3]), fine_level=0)
    xi = twists.xi
    omega = np.linalg.norm(xi[:, 3:], axis=1)
    translations = omega == 0
    assert np.all(np.isclose(omega[~translations], 1.0))  # unit twists, |omega| = 1 (Eq. 2)
    assert np.linalg.norm(xi[translations, :3], axis=1) == pytest.approx(1.0)
    assert translations.sum() == 2 * 250
    pitch = np.sum(xi[~translations, :3] * xi[~translations, 3:], axis=1)  # h = v . omega
    l_mean = np.mean([2.0, 1.0, 0.3])
    assert np.unique(np.round(pitch / l_mean, 9)) == pytest.approx([-0.25, 0.0, 0.25])
    # 13 offset directions x 25^2 offsets x 3 pitches + 250 x 3 through o + 250 translations, x2.
    assert len(twists) == 2 * (13 * 625 * 3 + 750 + 250)
    for level in FINE_LEVELS:
        assert len(sample_unit_twists(np.array([1.0, 1.0, 0.1]), level)) > 50
    with pytest.raises(ParameterError):
        sample_unit_twists(np.ones(3), 7)


def test_normalisation_and_downsampling_eq_9(s1_samples):
    """Eq. 9: every normalised component lies in [-1, 1] with max 1; at most 3^6 fit samples."""
    samples, keep = s1_samples
    assert len(samples.active) == 6
    assert np.abs(samples.wrenches).max(axis=0) == pytest.approx(np.ones(6))
    assert 100 < len(keep) <= 729
    assert np.linalg.norm(samples.normals, axis=1) == pytest.approx(1.0)


def test_ellipsoid_fit_is_positive_definite(s1_samples):
    """Eq. 10: A_e positive definite; fitted to S1 with a small wrench error (Eq. 14)."""
    samples, keep = s1_samples
    ls = fit_ellipsoid(samples.wrenches[keep], samples.normals[keep])
    assert np.allclose(ls.matrix, ls.matrix.T)
    assert np.linalg.eigvalsh(ls.matrix).min() > 0
    err = fitting_errors(ls, samples.wrenches, samples.normals)
    assert err.wrench_error < 0.05  # design note: 0.026 with the authors' objective
    assert err.twist_angle_deg < 25.0


def test_quartic_fit_is_sos_convex(s1_samples):
    """Eq. 11-13: Gram matrix M PSD, V1 vec(M) = V2 A_q holds, f2 convex along random lines."""
    samples, keep = s1_samples
    ls = fit_quartic(samples.wrenches[keep], samples.normals[keep])
    assert len(ls.coefficients) == 126 and ls.gram.shape == (36, 36)
    assert np.linalg.eigvalsh(ls.gram).min() > 0
    v1, v2 = sos_convexity_maps(6)
    assert v1.shape == (441, 1296) and v2.shape == (441, 126)
    residual = v1 @ ls.gram.reshape(-1, order="F") - v2 @ ls.coefficients
    assert np.abs(residual).max() < 1e-6 * np.abs(ls.coefficients).max()
    rng = np.random.default_rng(0)
    for _ in range(200):
        x0, d = rng.normal(size=6), rng.normal(size=6)
        t = np.linspace(-2, 2, 41)
        f = ls.value(x0 + t[:, None] * d)
        assert np.all(np.diff(f, 2) >= -1e-9 * np.abs(f).max())
        assert np.linalg.eigvalsh(ls.hessian(x0)).min() > -1e-9
    err = fitting_errors(ls, samples.wrenches, samples.normals)
    ell = fitting_errors(fit_ellipsoid(samples.wrenches[keep]), samples.wrenches, samples.normals)
    assert err.wrench_error < 0.05
    assert err.twist_angle_deg < ell.twist_angle_deg  # the quartic follows the twists better


def test_sos_maps_match_the_hessian_identity():
    """Eq. 12 for d = 3: V2 c holds the coefficients of z^T Hess f(x) z for f = c^T m(x)."""
    rng = np.random.default_rng(1)
    d = 3
    exps = monomial_exponents(d)
    c = rng.normal(size=len(exps))
    _, v2 = sos_convexity_maps(d)
    # f = sum c_k x^alpha_k; compare z^T H z at random points with the polynomial from V2 c.
    from engine.analytic.sixdls.quartic import QuarticLS

    x, z = rng.normal(size=d), rng.normal(size=d)
    h = np.zeros((d, d))
    for k, alpha in enumerate(exps):
        for b in range(d):
            for e in range(d):
                beta = alpha.copy()
                beta[b] -= 1
                beta[e] -= 1
                if beta.min() >= 0:
                    h[b, e] += c[k] * alpha[b] * (alpha[e] - (b == e)) * np.prod(x**beta)
    pairs = [(a, b) for a in range(d) for b in range(a, d)]
    poly = sum(
        (v2 @ c)[i * len(pairs) + j] * x[a] * x[cc] * z[b] * z[e]
        for i, (a, cc) in enumerate(pairs)
        for j, (b, e) in enumerate(pairs)
    )
    assert poly == pytest.approx(z @ h @ z)
    assert QuarticLS(c, np.eye(d * d)).dim == d


def test_hypercube_linearisation_eq_15(s1_samples):
    """Eq. 15: 3^6 - 1 = 728 hypercube rays, every vertex on the fitted surface (f = 1)."""
    assert len(hypercube_directions(6, 1)) == 728
    assert len(hypercube_directions(6, 2)) == 5**6 - 3**6
    assert len(hypercube_directions(3, 1)) == 26
    samples, keep = s1_samples
    for ls in (
        fit_ellipsoid(samples.wrenches[keep]),
        fit_quartic(samples.wrenches[keep]),
    ):
        pts = linearize(ls, 6, 1)
        assert len(pts) == 728
        assert ls.value(pts) == pytest.approx(np.ones(728), abs=1e-9)
        dirs = hypercube_directions(6, 1)
        cos = (
            np.sum(pts * dirs, axis=1) / np.linalg.norm(pts, axis=1) / np.linalg.norm(dirs, axis=1)
        )
        assert cos == pytest.approx(np.ones(728))  # on the rays
