"""Long Newton directions are checked by CCD along a short prefix first (ContactTerm.max_step's
probe, CCD_PROBE_M): a stop found there is the move's stop, since the straight move's prefix
is the move's own path up to that point; only a free prefix sends the probe further. Checked
on a real squeeze and lift: every probed answer equals, to round-off, the plain CCD query
over the whole move (ipctk's broad phase over every pair the move sweeps), the probe fires,
and its broad phases hold fewer candidate pairs than the whole move's would."""

from __future__ import annotations

import numpy as np
import pytest

from engine.ipc import contact_term
from engine.ipc import ipctk_gateway as ipc
from engine.ipc.contact_term import ContactTerm

pytestmark = pytest.mark.slow


def test_a_probed_step_equals_the_plain_query_over_the_whole_move(monkeypatch):
    from engine.grasp.params import SimulationParams
    from engine.grasp.trials import TrialSpec, plan_trials, run_trial
    from tests.conftest import reach_scene

    obj, grasp = reach_scene(5)
    (nominal,) = plan_trials(grasp, TrialSpec())
    params = SimulationParams.from_values(youngs_modulus_pa=1e8, mu=0.4, auto_open_m=0.02)
    probed: list[tuple[float, float, int, int]] = []
    original = ContactTerm.max_step

    def checked(self: ContactTerm, u: np.ndarray, du_free: np.ndarray, du: np.ndarray) -> float:
        got = original(self, u, du_free, du)
        s = self.system
        x = s.collision_vertices(u)
        dx = (s.jacobian @ du).reshape(-1, 3)
        if np.abs(dx).max() > contact_term.CCD_PROBE_M:
            whole = ipc.collision_free_stepsize(s.collision_mesh, x, x + dx)
            sweep = ipc.swept_candidates(s.collision_mesh, x, x + dx, 2.0 * self.dhat)
            probe = self._cover.candidates
            probed.append((got, whole, len(probe), len(sweep)))
        return got

    monkeypatch.setattr(ContactTerm, "max_step", checked)
    result = run_trial(obj, nominal, params)
    assert result.reason == "lifted", result.error
    assert probed, "no Newton direction moved a vertex beyond the probe's reach"
    got, whole, probe_pairs, sweep_pairs = (np.array(v) for v in zip(*probed, strict=True))
    np.testing.assert_allclose(got, whole, rtol=1e-6, atol=1e-12)
    assert (probe_pairs <= sweep_pairs).all()
    assert probe_pairs.sum() < sweep_pairs.sum()
