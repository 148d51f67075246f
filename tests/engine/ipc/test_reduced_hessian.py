"""The Newton matrix kept as two parts (engine.ipc.potential.ReducedHessian: the internal terms
in their fixed pattern and the contact Hessian mapped through the reduced Jacobian as triplets)
is the sum internal + J^T H_c J, and PatternLdl factorizes it as it factorizes that sum; the
internal part's upper triangle scattered straight into the factorization's data is its
gathered data to the bit. Checked on every Newton matrix of a real squeeze and lift,
force-driven jaws (the closing coordinate's curvature) included."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from engine.ipc import potential, reduction
from engine.ipc.pattern_ldl import Part, PatternLdl
from engine.ipc.sparse_factors import LdlFactor


def _assert_same_arrays(got: tuple[np.ndarray, np.ndarray, np.ndarray], want: sp.csc_matrix):
    np.testing.assert_array_equal(got[0], want.indptr)
    np.testing.assert_array_equal(got[1], want.indices)
    np.testing.assert_array_equal(got[2].view(np.int64), want.data.view(np.int64))  # bits


def test_contact_parts_are_summed_as_scipy_sums_them():
    """reduction._summed_csc equals scipy's a + b (+ c) to the bit: shared entries summed,
    an entry of one part alone kept, sums of exactly zero (and -0.0 entries) dropped; CSR parts
    and parts with unsorted or repeated rows too (those through scipy)."""
    rng = np.random.default_rng(3)
    for trial in range(20):
        parts = []
        for _ in range(2 + trial % 2):
            m = sp.random(30, 30, density=0.15, random_state=rng, format="csc")
            m.data = rng.choice([-1.5, -0.0, 0.25, 1.0, 3.0], size=m.nnz)
            parts.append(m)
        parts[1] = parts[1] - parts[0].multiply(parts[0] != 0) * (trial % 3 == 0)  # cancels
        if trial % 4 == 1:
            parts[0] = parts[0].tocsr()
        total = parts[0]
        for p in parts[1:]:
            total = total + p
        _assert_same_arrays(reduction._summed_csc(parts), total.tocsc())
    coo = sp.coo_matrix(([1.0, 2.0, 3.0], ([2, 0, 2], [1, 1, 1])), shape=(3, 3))
    unsorted = sp.csc_matrix((coo.data, coo.row, np.array([0, 0, 3, 3])), shape=(3, 3))
    assert not unsorted.has_canonical_format
    other = sp.csc_matrix(np.eye(3))
    _assert_same_arrays(reduction._summed_csc([unsorted, other]), (unsorted + other).tocsc())


@pytest.mark.slow
def _entries(part: Part) -> tuple[np.ndarray, np.ndarray]:
    """(keys, values) of a part; a ScatteredPart scattered into a vector of its own."""
    if isinstance(part, tuple):
        return part
    values = np.zeros(len(part.keys))
    part.scatter_into(values, np.arange(len(part.keys)))
    return part.keys, values


def _upper_sum(parts: list[Part], n: int) -> sp.csr_matrix:
    entries = [_entries(part) for part in parts]
    keys = np.concatenate([k for k, _ in entries])
    values = np.concatenate([v for _, v in entries])
    cols, rows = np.divmod(keys, n)
    return sp.csr_matrix((values, (rows, cols)), shape=(n, n))


def test_parts_sum_to_the_newton_matrix_and_factorize_alike(monkeypatch):
    from engine.grasp.params import SimulationParams
    from engine.grasp.trials import TrialSpec, plan_trials, run_trial
    from tests.conftest import reach_scene

    obj, grasp = reach_scene(5)
    (nominal,) = plan_trials(grasp, TrialSpec())
    params = SimulationParams.from_values(youngs_modulus_pa=1e8, mu=0.4, auto_open_m=0.02)
    original = potential.IncrementalPotential.gradient_hessian
    ldl = PatternLdl()
    seen = {"matrices": 0, "with_contact": 0, "force_driven": 0, "summed": 0}

    def checked(self, u, project):
        g, h = original(self, u, project)
        assert isinstance(h, potential.ReducedHessian)
        full = h.tocsr()
        n = full.shape[0]
        expected = sp.triu(h.layout.with_data(h.internal_data)).tocsr()
        if h.contact:
            r = self.reduction
            contact = h.contact[0]
            for part in h.contact[1:]:
                contact = contact + part
            expected = expected + sp.triu(r.jacobian_t @ (contact @ r.jacobian))
            seen["with_contact"] += 1
            seen["summed"] += len(h.contact) > 1
            # The parts (barrier, friction) are summed as scipy sums them, to the bit.
            _assert_same_arrays(reduction._summed_csc(h.contact), contact.tocsc())
            # Entries at the object's DOFs and the closing coordinate come summed, once each.
            keys, _ = r.upper_triplets(h.contact)
            cols, rows = np.divmod(keys, n)
            at_hub = (r.hub_slot[rows] >= 0) | (r.hub_slot[cols] >= 0)
            assert len(np.unique(keys[at_hub])) == int(at_hub.sum())
        assert abs(_upper_sum(h.upper_parts(), n) - expected).max() <= 1e-12 * abs(expected).max()
        # The internal part scatters its upper triangle straight from the pads' data: summed
        # in the order the gathered data sums it, the same to the bit.
        keys, scattered = _entries(h.internal)
        assert keys is h.layout.upper_keys
        np.testing.assert_array_equal(scattered, h.internal_data[h.layout.upper_index])
        assert abs(sp.triu(full) - expected).max() <= 1e-12 * abs(expected).max()
        factor = ldl.factor(h)
        fresh = LdlFactor.of(full)
        if fresh.definite:
            assert factor is not None
            x, y = factor.solve(g), fresh.solve(g)
            assert np.abs(x - y).max() <= 1e-8 * np.abs(y).max()
        seen["matrices"] += 1
        seen["force_driven"] += self.reduction.force_driven
        return g, h

    monkeypatch.setattr(potential.IncrementalPotential, "gradient_hessian", checked)
    result = run_trial(obj, nominal, params)
    assert result.reason == "lifted", result.error
    assert seen["with_contact"] > 20 and seen["force_driven"] > 20 and seen["summed"] > 20, seen
