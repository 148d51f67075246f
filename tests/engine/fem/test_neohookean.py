"""Neo-Hookean tet elasticity: energy laws, derivatives, PSD projection, sparse assembly."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy.spatial.transform import Rotation

from engine.errors import MeshError, ParameterError
from engine.fem.element_hessian_cache import ElementHessianCache
from engine.fem.neohookean import (
    HessianAssembler,
    elastic_energy,
    elastic_energy_per_tet,
    elastic_gradient,
    elastic_hessian,
    lame_parameters,
    stress_hessian,
    tet_rest,
)
from engine.gripper.pad_geometry import mesh_pad, pad_outline

MU, LAM = lame_parameters(2.0e6, 0.4)


@pytest.fixture(scope="module")
def pad():
    mesh = mesh_pad(pad_outline("rectangular"), 0.006)
    return mesh.vertices, tet_rest(mesh.vertices, mesh.tets)


@pytest.fixture(scope="module")
def deformed(pad):
    """Random deformation of ~5 % of the 6 mm edge: non-trivial but nothing inverted."""
    x0, rest = pad
    rng = np.random.default_rng(7)
    x = x0 @ (np.eye(3) + 0.05 * rng.standard_normal((3, 3))).T
    x += 3e-4 * rng.standard_normal(x0.shape)
    assert np.isfinite(elastic_energy(x, rest, MU, LAM))
    return x


def _dense(rest, element_hessians):
    n = 3 * rest.n_vertices
    out = np.zeros((n, n))
    dofs = (3 * rest.tets[:, :, None] + np.arange(3)).reshape(-1, 12)
    for d, h in zip(dofs, element_hessians, strict=True):
        out[np.ix_(d, d)] += h
    return out


def _unit_cube():
    """Unit cube split into the 6 tets around its main diagonal (Kuhn triangulation)."""
    verts = np.array(list(itertools.product([0.0, 1.0], repeat=3)))
    index = {tuple(v): i for i, v in enumerate(verts)}
    tets = []
    for perm in itertools.permutations(range(3)):
        path = [np.zeros(3)]
        for axis in perm:
            path.append(path[-1] + np.eye(3)[axis])
        tets.append([index[tuple(p)] for p in path])
    tets = np.array(tets)
    d = verts[tets[:, 1:]] - verts[tets[:, :1]]
    negative = np.einsum("ti,ti->t", d[:, 0], np.cross(d[:, 1], d[:, 2])) < 0
    tets[negative] = tets[negative][:, [0, 1, 3, 2]]
    return verts, tets


def _explicit_stress_hessian(f, mu, lam):
    """d2psi/dF2 = mu Id + f33 g g^T + f3 e_ikm e_jln F_mn, built with numpy."""
    j = np.linalg.det(f)
    f3 = (lam * np.log(j) - mu) / j
    f33 = (mu + lam * (1.0 - np.log(j))) / j**2
    eps = np.zeros((3, 3, 3))
    for i, k, m in itertools.permutations(range(3)):
        eps[i, k, m] = np.linalg.det(np.eye(3)[[i, k, m]])
    g = (j * np.linalg.inv(f).T).ravel()
    d2j = np.einsum("ikm,jln,mn->ijkl", eps, eps, f).reshape(9, 9)
    return mu * np.eye(9) + f33 * np.outer(g, g) + f3 * d2j


def _clamped(h):
    w, q = np.linalg.eigh(h)
    return (q * np.maximum(w, 0.0)) @ q.T


def test_lame_parameters_follow_the_isotropic_relations():
    mu, lam = lame_parameters(1.0e6, 0.25)
    assert mu == pytest.approx(1.0e6 / 2.5)
    assert lam == pytest.approx(1.0e6 * 0.25 / (1.25 * 0.5))
    for e, nu in [(0.0, 0.3), (-1.0, 0.3), (np.nan, 0.3), (np.inf, 0.3), (1e6, 0.5), (1e6, -1.0)]:
        with pytest.raises(ParameterError):
            lame_parameters(e, nu)


def test_rest_state_has_zero_energy_and_zero_gradient(pad):
    x0, rest = pad
    scale = MU * rest.volumes.sum()
    assert abs(elastic_energy(x0, rest, MU, LAM)) < 1e-13 * scale
    energy, grad = elastic_gradient(x0, rest, MU, LAM)
    assert abs(energy) < 1e-13 * scale
    # Gradient scale: stress MU times a face area of ~edge^2.
    assert np.abs(grad).max() < 1e-10 * MU * 0.006**2


def test_energy_is_invariant_under_rigid_motion(pad, deformed):
    _, rest = pad
    rot = Rotation.from_rotvec([0.3, -1.1, 0.7]).as_matrix()
    moved = deformed @ rot.T + np.array([0.1, -0.2, 0.05])
    e0 = elastic_energy(deformed, rest, MU, LAM)
    assert e0 > 0
    assert elastic_energy(moved, rest, MU, LAM) == pytest.approx(e0, rel=1e-10)
    np.testing.assert_allclose(
        elastic_energy_per_tet(moved, rest, MU, LAM),
        elastic_energy_per_tet(deformed, rest, MU, LAM),
        rtol=1e-9,
    )


def test_energy_per_tet_sums_to_the_energy(pad, deformed):
    _, rest = pad
    per_tet = elastic_energy_per_tet(deformed, rest, MU, LAM)
    assert per_tet.shape == (len(rest.tets),)
    assert per_tet.sum() == pytest.approx(elastic_energy(deformed, rest, MU, LAM), rel=1e-12)


def test_gradient_matches_central_finite_differences(pad, deformed):
    _, rest = pad
    energy, grad = elastic_gradient(deformed, rest, MU, LAM)
    assert energy == pytest.approx(elastic_energy(deformed, rest, MU, LAM), rel=1e-12)
    h = 1e-7
    fd = np.empty_like(grad)
    flat = deformed.ravel()
    for i in range(len(flat)):
        xp, xm = flat.copy(), flat.copy()
        xp[i] += h
        xm[i] -= h
        ep = elastic_energy(xp.reshape(-1, 3), rest, MU, LAM)
        em = elastic_energy(xm.reshape(-1, 3), rest, MU, LAM)
        fd[i] = (ep - em) / (2 * h)
    assert np.linalg.norm(fd - grad) <= 1e-6 * np.linalg.norm(grad)
    # Translation invariance: internal forces sum to zero.
    np.testing.assert_allclose(
        grad.reshape(-1, 3).sum(axis=0), 0.0, atol=1e-10 * np.abs(grad).max()
    )


def test_unprojected_hessian_matches_finite_differences_of_the_gradient(pad, deformed):
    _, rest = pad
    energy, grad, blocks = elastic_hessian(deformed, rest, MU, LAM, project_psd=False)
    e_ref, g_ref = elastic_gradient(deformed, rest, MU, LAM)
    assert energy == pytest.approx(e_ref, rel=1e-12)
    np.testing.assert_allclose(grad, g_ref, rtol=1e-12, atol=1e-14 * np.abs(g_ref).max())
    dense = _dense(rest, blocks)
    h = 1e-8
    flat = deformed.ravel()
    fd = np.empty_like(dense)
    for i in range(len(flat)):
        xp, xm = flat.copy(), flat.copy()
        xp[i] += h
        xm[i] -= h
        fd[:, i] = (
            elastic_gradient(xp.reshape(-1, 3), rest, MU, LAM)[1]
            - elastic_gradient(xm.reshape(-1, 3), rest, MU, LAM)[1]
        ) / (2 * h)
    assert np.abs(fd - dense).max() <= 1e-6 * np.abs(dense).max()
    np.testing.assert_array_equal(blocks, np.transpose(blocks, (0, 2, 1)))


def test_projected_blocks_are_psd_and_unchanged_where_already_psd(pad):
    x0, rest = pad
    rng = np.random.default_rng(3)
    # Stretch varying from 0.06 to 1.94 along a: compressed tets are indefinite, others not.
    x = x0 @ (np.eye(3) + 0.05 * rng.standard_normal((3, 3))).T
    x[:, 0] += 0.15 * 0.0275 * np.sin(2 * np.pi * x0[:, 0] / 0.0275)
    x += 2e-5 * rng.standard_normal(x.shape)
    assert np.isfinite(elastic_energy(x, rest, MU, LAM))
    _, _, raw = elastic_hessian(x, rest, MU, LAM, project_psd=False)
    _, _, proj = elastic_hessian(x, rest, MU, LAM, project_psd=True)
    raw_min = np.linalg.eigvalsh(raw).min(axis=1)
    proj_eigs = np.linalg.eigvalsh(proj)
    assert np.all(proj_eigs.min(axis=1) >= -1e-9 * proj_eigs.max(axis=1))
    scale = np.abs(raw).max(axis=(1, 2))
    indefinite = raw_min < -1e-9 * scale
    assert indefinite.any() and (~indefinite).any()
    diff = np.abs(proj - raw).max(axis=(1, 2))
    assert np.all(diff[~indefinite] <= 1e-9 * scale[~indefinite])
    assert np.all(diff[indefinite] > 1e-6 * scale[indefinite])


@pytest.mark.parametrize("scale", [0.2, 1e-6, 0.0])
def test_analytic_eigensystem_projection_equals_brute_force_eigh_clamp(scale):
    rng = np.random.default_rng(11)
    tested = 0
    while tested < 100:
        f = np.eye(3) + scale * rng.standard_normal((3, 3))
        if np.linalg.det(f) < 0.1:
            continue
        tested += 1
        explicit = _explicit_stress_hessian(f, MU, LAM)
        ref = np.abs(explicit).max()
        unprojected = stress_hessian(f, MU, LAM, project_psd=False)
        assert np.abs(unprojected - explicit).max() <= 1e-8 * ref
        projected = stress_hessian(f, MU, LAM, project_psd=True)
        assert np.abs(projected - _clamped(explicit)).max() <= 1e-8 * ref
        via_eigh = stress_hessian(f, MU, LAM, project_psd=True, projection="eigh")
        assert np.abs(via_eigh - _clamped(explicit)).max() <= 1e-8 * ref


def test_eigh_and_analytic_element_projections_agree(pad):
    x0, rest = pad
    rng = np.random.default_rng(5)
    x = x0 @ (np.eye(3) + 0.2 * rng.standard_normal((3, 3))).T
    for project in (True, False):
        e1, g1, h1 = elastic_hessian(x, rest, MU, LAM, project, projection="analytic")
        e2, g2, h2 = elastic_hessian(x, rest, MU, LAM, project, projection="eigh")
        assert e1 == e2
        np.testing.assert_array_equal(g1, g2)
        assert np.abs(h1 - h2).max() <= 1e-8 * np.abs(h2).max()


def test_inverted_or_flat_tet_has_infinite_energy(pad):
    x0, rest = pad
    x = _with_inverted_tet(x0, rest)
    per_tet = elastic_energy_per_tet(x, rest, MU, LAM)
    assert per_tet[0] == np.inf
    assert elastic_energy(x, rest, MU, LAM) == np.inf
    assert elastic_gradient(x, rest, MU, LAM)[0] == np.inf
    energy, _, blocks = elastic_hessian(x, rest, MU, LAM)
    assert energy == np.inf
    assert np.all(blocks[0] == 0.0)
    # Flat: vertex 3 in the plane of the other three.
    tet = rest.tets[0]
    x[tet[3]] = (x0[tet[0]] + x0[tet[1]] + x0[tet[2]]) / 3.0
    assert elastic_energy_per_tet(x, rest, MU, LAM)[0] == np.inf


def test_small_uniaxial_strain_matches_laterally_constrained_linear_elasticity():
    verts, tets = _unit_cube()
    rest = tet_rest(verts, tets)
    assert rest.volumes.sum() == pytest.approx(1.0)
    eps = 1e-4
    x = verts * np.array([1.0 + eps, 1.0, 1.0])
    linear = 0.5 * (LAM + 2 * MU) * eps**2 * 1.0
    assert elastic_energy(x, rest, MU, LAM) == pytest.approx(linear, rel=0.01)
    # The H = F - I formulation keeps precision at tiny strains too.
    x = verts * np.array([1.0 + 1e-8, 1.0, 1.0])
    linear = 0.5 * (LAM + 2 * MU) * 1e-16
    assert elastic_energy(x, rest, MU, LAM) == pytest.approx(linear, rel=1e-6)


def test_assembled_matrix_equals_the_dense_sum_of_element_blocks(pad, deformed):
    _, rest = pad
    _, _, blocks = elastic_hessian(deformed, rest, MU, LAM)
    assembler = HessianAssembler(rest)
    k = assembler.assemble(blocks)
    assert k.shape == (3 * rest.n_vertices, 3 * rest.n_vertices)
    assert k.format == "csr" and k.has_sorted_indices
    dense = _dense(rest, blocks)
    assert np.abs(k.toarray() - dense).max() <= 1e-12 * np.abs(dense).max()
    assert (k - k.T).count_nonzero() == 0
    # Same pattern every call; values follow the blocks.
    k2 = assembler.assemble(2.0 * blocks)
    np.testing.assert_array_equal(k2.indices, k.indices)
    np.testing.assert_allclose(k2.data, 2.0 * k.data)
    with pytest.raises(ParameterError):
        assembler.assemble(blocks[:-1])
    # Editing a returned matrix in place leaves the assembler's pattern intact.
    assembler.assemble(np.zeros_like(blocks)).eliminate_zeros()
    assert np.abs(assembler.assemble(blocks).toarray() - dense).max() <= 1e-12 * np.abs(dense).max()


def test_rest_data_rejects_badly_oriented_or_malformed_tets():
    verts, tets = _unit_cube()
    with pytest.raises(MeshError, match="non-positive rest volume"):
        tet_rest(verts, tets[:, [0, 2, 1, 3]])
    with pytest.raises(MeshError):
        tet_rest(verts, tets + 8)
    with pytest.raises(MeshError):
        tet_rest(verts, tets.astype(float))
    rest = tet_rest(verts, tets)
    with pytest.raises(ParameterError):
        elastic_energy(verts[:-1], rest, MU, LAM)
    with pytest.raises(ParameterError):
        elastic_energy(verts, rest, -1.0, LAM)


@pytest.mark.parametrize("project", [True, False])
def test_assembled_hessian_data_equals_the_element_blocks_scattered(pad, deformed, project):
    """The Newton path's first assembly (ElementHessianCache: element blocks scattered as they
    are computed; unprojected from the explicit d2psi/dF2, no SVD) gives the energy, the
    gradient and the assembled matrix of elastic_hessian's blocks: bit for bit when projected,
    to round-off when exact. A tet inverted in x adds nothing, as in elastic_hessian."""
    x0, rest = pad
    asm = HessianAssembler(rest)
    for x in (deformed, _with_inverted_tet(x0, rest)):
        energy, grad, blocks = elastic_hessian(x, rest, MU, LAM, project_psd=project)
        cache = ElementHessianCache(rest, MU, LAM, asm)
        e_data, g_data, data = cache.energy_gradient_data(x, project)
        assert e_data == energy
        np.testing.assert_array_equal(g_data, grad)
        expected = asm.assemble_data(blocks)
        if project:
            np.testing.assert_array_equal(data, expected)
        else:
            assert np.abs(data - expected).max() <= 1e-12 * np.abs(expected).max()


def _with_inverted_tet(x0: np.ndarray, rest) -> np.ndarray:
    """x0 with vertex 3 of tet 0 reflected through the plane of the other three."""
    x = x0.copy()
    tet = rest.tets[0]
    p0, p1, p2 = x[tet[0]], x[tet[1]], x[tet[2]]
    normal = np.cross(p1 - p0, p2 - p0)
    normal /= np.linalg.norm(normal)
    x[tet[3]] -= 2.0 * np.dot(x[tet[3]] - p0, normal) * normal
    assert not np.isfinite(elastic_energy(x, rest, MU, LAM))
    return x
