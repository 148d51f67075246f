"""The kept element Hessians (engine.fem.element_hessian_cache): the energy and gradient are always
exact, and the assembled Hessian equals the exact one except in tets whose deformation gradient
moved by at most the reuse tolerance since their block was computed."""

from __future__ import annotations

import numpy as np
import pytest

from engine.errors import ParameterError
from engine.fem.element_hessian_cache import ElementHessianCache
from engine.fem.neohookean import HessianAssembler, elastic_hessian, lame_parameters, tet_rest
from engine.gripper.pad_geometry import mesh_pad, pad_outline

MU, LAM = lame_parameters(1.0e8, 0.45)


@pytest.fixture(scope="module")
def pad():
    mesh = mesh_pad(pad_outline("rectangular"), 0.006)
    rest = tet_rest(mesh.vertices, mesh.tets)
    return mesh.vertices, rest, HessianAssembler(rest)


def _exact(x, rest, asm, project):
    """(energy, gradient, assembled data) of the exact path: every element block computed."""
    energy, grad, blocks = elastic_hessian(x, rest, MU, LAM, project_psd=project)
    return energy, grad, asm.assemble_data(blocks)


def _strained(x0: np.ndarray, strain: float, seed: int) -> np.ndarray:
    """x0 under a random homogeneous deformation F = I + strain * G, |G_ij| ~ 1."""
    g = np.random.default_rng(seed).standard_normal((3, 3))
    return x0 @ (np.eye(3) + strain * g).T


@pytest.mark.parametrize("project", [False, True])
def test_without_tolerance_every_call_equals_the_exact_assembly(pad, project):
    """tol = 0 recomputes every tet that moved at all: the kept data track the exact assembly
    through a sequence of states, to the round-off of adding differences."""
    x0, rest, asm = pad
    cache = ElementHessianCache(rest, MU, LAM, asm, tol=0.0)
    for k in range(4):
        x = _strained(x0, 0.02 * (k + 1), seed=k)
        e, g, data = cache.energy_gradient_data(x, project)
        e_ref, g_ref, data_ref = _exact(x, rest, asm, project)
        assert e == e_ref
        np.testing.assert_array_equal(g, g_ref)
        assert np.abs(data - data_ref).max() <= 1e-12 * np.abs(data_ref).max()


def test_tets_within_the_tolerance_keep_their_block_and_the_rest_are_recomputed(pad):
    """A homogeneous strain change of 5e-5 (below tol = 1e-3 in every entry of F) keeps every
    block: the data are those of the first state, off from the exact ones by about the change's
    share of the stiffness; a change of 5e-3 (above tol) recomputes every tet exactly."""
    x0, rest, asm = pad
    cache = ElementHessianCache(rest, MU, LAM, asm, tol=1e-3)
    x1 = _strained(x0, 0.01, seed=1)
    _, _, first = cache.energy_gradient_data(x1, False)
    assert cache.recomputed == len(rest.tets)

    step = np.eye(3) + 5e-5 * np.array([[1.0, -1.0, 0.5], [0.2, -0.8, 1.0], [-1.0, 0.3, 0.6]])
    x2 = x1 @ step.T
    e2, g2, kept = cache.energy_gradient_data(x2, False)
    e_ref, g_ref, exact = _exact(x2, rest, asm, False)
    assert cache.recomputed == len(rest.tets)  # nothing recomputed
    np.testing.assert_array_equal(kept, first)
    assert e2 == e_ref  # energy and gradient exact regardless
    np.testing.assert_array_equal(g2, g_ref)
    error = np.abs(kept - exact).max() / np.abs(exact).max()
    assert 0.0 < error < 1e-3

    x3 = x1 @ (np.eye(3) + 5e-3 * np.diag([1.0, -1.0, 0.5])).T
    _, _, data3 = cache.energy_gradient_data(x3, False)
    assert cache.recomputed == 2 * len(rest.tets)
    _, _, exact3 = _exact(x3, rest, asm, False)
    assert np.abs(data3 - exact3).max() <= 1e-12 * np.abs(exact3).max()


def test_exact_and_projected_blocks_are_kept_apart(pad):
    """A projected assembly never reuses an exact (possibly indefinite) block: after an exact
    call at a compressed state, the projected call equals the projected assembly."""
    x0, rest, asm = pad
    cache = ElementHessianCache(rest, MU, LAM, asm)
    x = x0 @ np.diag([1.0, 1.0, 0.7]).T  # 30 % compression: exact blocks are indefinite
    _, _, exact = cache.energy_gradient_data(x, False)
    _, _, projected = cache.energy_gradient_data(x, True)
    _, _, projected_ref = _exact(x, rest, asm, True)
    np.testing.assert_array_equal(projected, projected_ref)
    assert np.abs(exact - projected).max() > 1e-3 * np.abs(projected).max()


def test_an_inverted_tet_drops_its_block_and_is_recomputed_when_it_recovers(pad):
    """An inverted tet contributes no block (as in elastic_hessian); once valid again it is
    recomputed even if its F is back within the tolerance of the kept one."""
    x0, rest, asm = pad
    cache = ElementHessianCache(rest, MU, LAM, asm)
    cache.energy_gradient_data(x0, False)
    inverted = x0.copy()
    tet = rest.tets[0]
    p0, p1, p2 = inverted[tet[0]], inverted[tet[1]], inverted[tet[2]]
    normal = np.cross(p1 - p0, p2 - p0)
    normal /= np.linalg.norm(normal)
    inverted[tet[3]] -= 2.0 * np.dot(inverted[tet[3]] - p0, normal) * normal
    e, _, data = cache.energy_gradient_data(inverted, False)
    _, _, data_ref = _exact(inverted, rest, asm, False)
    assert not np.isfinite(e)
    scale = np.abs(data_ref).max()
    assert np.abs(data - data_ref).max() <= 1e-12 * scale  # the inverted tet's block is gone
    _, _, back = cache.energy_gradient_data(x0, False)
    _, _, back_ref = _exact(x0, rest, asm, False)
    assert np.abs(back - back_ref).max() <= 1e-12 * scale


def test_a_negative_tolerance_is_refused(pad):
    _, rest, asm = pad
    with pytest.raises(ParameterError, match="tolerance"):
        ElementHessianCache(rest, MU, LAM, asm, tol=-1.0)
