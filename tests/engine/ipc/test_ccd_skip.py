"""The contact term skips the CCD query for Newton steps too short to matter
(ContactTerm.step_is_free): every pair is at least min(its distance, dhat) apart and a pair's
distance changes by at most the sum of its vertices' moves, so such a step never brings a pair
within half its distance. Checked on a real squeeze and lift: whenever the skip fires, the full
CCD query it replaces allows the whole step, and the skip does fire (else it saves nothing)."""

from __future__ import annotations

import numpy as np
import pytest

from engine.ipc import ipctk_gateway as ipc
from engine.ipc.contact_term import ContactTerm

pytestmark = pytest.mark.slow


def test_a_skipped_ccd_query_would_have_allowed_the_whole_step(monkeypatch):
    from engine.grasp.params import SimulationParams
    from engine.grasp.trials import TrialSpec, plan_trials, run_trial
    from tests.conftest import reach_scene

    obj, grasp = reach_scene(5)
    (nominal,) = plan_trials(grasp, TrialSpec())
    params = SimulationParams.from_values(youngs_modulus_pa=1e8, mu=0.4, auto_open_m=0.02)

    skipped: list[float] = []
    queried = 0
    original = ContactTerm.step_is_free

    def checked(self: ContactTerm, dx: np.ndarray) -> bool:
        nonlocal queried
        free = original(self, dx)
        queried += 1
        if free:
            x = self.system.collision_vertices(self._current)
            skipped.append(ipc.collision_free_stepsize(self.system.collision_mesh, x, x + dx))
        return free

    monkeypatch.setattr(ContactTerm, "step_is_free", checked)
    result = run_trial(obj, nominal, params)
    assert result.reason == "lifted", result.error
    assert skipped, "the skip never fired"
    assert len(skipped) < queried, "the skip fired on every step, CCD never ran"
    assert all(alpha == 1.0 for alpha in skipped)
