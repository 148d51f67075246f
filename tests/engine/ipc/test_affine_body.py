"""Affine-body object: mass matrix, Jacobian and the orthogonality energy's derivatives."""

import numpy as np

from engine.ipc.affine_body import (
    AffineBody,
    identity_state,
    orthogonality_energy,
    orthogonality_gradient_hessian,
    pose_matrix,
)


def _body() -> AffineBody:
    pts = np.array([[0.01, 0.0, 0.0], [0.0, 0.02, 0.0], [0.0, 0.0, -0.01], [0.01, 0.01, 0.01]])
    return AffineBody(pts, 0.003, np.diag([1e-7, 2e-7, 3e-7]), 2.7e-5, 1e9)


def test_jacobian_maps_rigid_motion():
    """x = p + A X: for A a rotation and p a translation the Jacobian reproduces R X + p."""
    body = _body()
    c, s = np.cos(0.3), np.sin(0.3)
    rot = np.array([[c, -s, 0], [s, c, 0], [0, 0, 1.0]])
    q = identity_state(np.array([0.1, 0.2, 0.3]))
    q[3:] = rot.T.ravel()
    x = (body.jacobian() @ q).reshape(-1, 3)
    assert np.allclose(x, body.body_points @ rot.T + [0.1, 0.2, 0.3])
    assert np.allclose(pose_matrix(q)[:3, :3], rot)


def test_mass_matrix_kinetic_energy_of_translation():
    """A translating body's kinetic energy is m v^2 / 2 (centre-of-mass frame decouples)."""
    body = _body()
    v = np.zeros(12)
    v[:3] = [1.0, 2.0, 0.5]
    assert np.isclose(0.5 * v @ body.mass_matrix() @ v, 0.5 * 0.003 * 5.25)


def test_orthogonality_energy_zero_for_rotations_and_derivatives_match_fd():
    """E = k V |A^T A - I|^2 vanishes on rotations; gradient and Hessian match finite differences."""
    kv = 1e9 * 2.7e-5
    q = identity_state(np.zeros(3))
    assert orthogonality_energy(q, kv) == 0.0
    rng = np.random.default_rng(0)
    q[3:] += 1e-2 * rng.standard_normal(9)
    _e, g, _ = orthogonality_gradient_hessian(q, kv)
    eps = 1e-7
    g_fd = np.array(
        [
            (
                orthogonality_energy(q + eps * np.eye(12)[i], kv)
                - orthogonality_energy(q - eps * np.eye(12)[i], kv)
            )
            / (2 * eps)
            for i in range(12)
        ]
    )
    assert np.allclose(g, g_fd, rtol=1e-5, atol=1e-6 * np.abs(g).max())
    # Unprojected Hessian from FD of the gradient; projection must equal it where PSD.
    h_fd = np.array(
        [
            (
                orthogonality_gradient_hessian(q + eps * np.eye(12)[i], kv)[1]
                - orthogonality_gradient_hessian(q - eps * np.eye(12)[i], kv)[1]
            )
            / (2 * eps)
            for i in range(12)
        ]
    )
    _, _, exact = orthogonality_gradient_hessian(q, kv, project=False)
    assert np.allclose(exact, 0.5 * (h_fd + h_fd.T), atol=1e-5 * np.abs(exact).max())
    w, v = np.linalg.eigh(0.5 * (h_fd + h_fd.T))
    assert w.min() < -1e-3 * w.max()  # this state is indefinite: the projection must act
    projected = (v * np.maximum(w, 0)) @ v.T
    _, _, h = orthogonality_gradient_hessian(q, kv)
    assert np.allclose(h, projected, atol=1e-5 * np.abs(h).max())
    assert np.linalg.eigvalsh(h).min() >= -1e-9 * np.abs(h).max()


def test_the_hessians_gradient_is_the_gradient_to_the_bit():
    """orthogonality_gradient_hessian computes its gradient inline from its Gram matrix: the
    same floats as orthogonality_gradient (a Newton iterate's gradient and the one its line
    search compares must not differ in the last bits), near and far from a rotation."""
    from engine.ipc.affine_body import (
        identity_state,
        orthogonality_gradient,
        orthogonality_gradient_hessian,
    )

    rng = np.random.default_rng(2)
    for i in range(200):
        q = identity_state(rng.normal(size=3))
        q[3:] += 10.0 ** rng.uniform(-8, -1) * rng.normal(size=9)
        _, g, _ = orthogonality_gradient_hessian(q, 2.7, project=bool(i % 2))
        np.testing.assert_array_equal(
            g.view(np.int64), orthogonality_gradient(q, 2.7).view(np.int64)
        )
