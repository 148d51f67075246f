"""CCD runs on more threads than the rest of a trial, and a trial is bitwise the same for it.

Law: the earliest time of impact over a set of pairs (a minimum) does not depend on the order
the pairs are visited in, so it may run on any number of threads; contact sets, energies and their derivatives are pair lists and sums whose
order TBB's scheduling changes, so they stay on one (engine.ipc.ipctk_gateway.configure_threads).
"""

from __future__ import annotations

import ipctk
import numpy as np
import pytest

from engine.cores import usable_cores
from engine.grasp.default_grasp import default_grasp
from engine.grasp.params import SimulationParams
from engine.grasp.simulation import build_pad
from engine.grasp.trials import TrialSpec, plan_trials, run_trial
from engine.ipc import ipctk_gateway as ipc
from engine.scene.object_mesh import BUILTIN_CUBE_MASS_KG, builtin_cube
from engine.scene.resting import rest_object

# The unwrapped functions (each trial wraps them afresh).
STEPSIZE = ipctk.compute_collision_free_stepsize
CANDIDATES = ipctk.Candidates
ACTIVE_COLLISIONS = ipc.active_collisions


def _trial(monkeypatch, query_threads: str):
    """The 26-vertex Table V cube's nominal trial with IPCGRASP_QUERY_THREADS = query_threads:
    its frames, its result, and the ipctk thread counts CCD queries and contact sets ran
    on."""
    monkeypatch.setenv("IPCGRASP_QUERY_THREADS", query_threads)
    monkeypatch.delenv("IPCGRASP_IPCTK_THREADS", raising=False)
    ipc.configure_threads()  # before the grasp's own queries (a trial configures it again)
    seen: dict[str, set[int]] = {"ccd": set(), "contact sets": set()}

    def counting(name, real):
        def call(*args):
            seen[name].add(ipctk.get_num_threads())
            return real(*args)

        return call

    monkeypatch.setattr(ipctk, "compute_collision_free_stepsize", counting("ccd", STEPSIZE))

    class Candidates(CANDIDATES):  # the gateway's broad-phase candidates, CCD counted
        def compute_collision_free_stepsize(self, *args):
            seen["ccd"].add(ipctk.get_num_threads())
            return super().compute_collision_free_stepsize(*args)

    monkeypatch.setattr(ipctk, "Candidates", Candidates)

    def active(*args):
        seen["contact sets"].add(ipctk.get_num_threads())
        return ACTIVE_COLLISIONS(*args)

    monkeypatch.setattr(ipc, "active_collisions", active)
    params = SimulationParams(youngs_modulus_pa=1e8, mu=0.4)
    obj = rest_object(builtin_cube(target_vertices=26), 0, mass_kg=BUILTIN_CUBE_MASS_KG)
    pad = build_pad(params)
    (nominal,) = plan_trials(default_grasp(obj, pad.outline), TrialSpec(n_trials=1))
    frames = []
    result = run_trial(obj, nominal, params, pad=pad, on_frame=frames.append)
    return frames, result, seen


@pytest.mark.skipif(usable_cores() < 2, reason="needs two cores")
def test_a_trial_is_bitwise_the_same_with_ccd_on_two_threads(monkeypatch):
    one, r1, seen1 = _trial(monkeypatch, "1")
    two, r2, seen2 = _trial(monkeypatch, "2")
    ipc.configure_threads()
    assert seen1["ccd"] == {1}
    assert seen2["ccd"] == {2}
    # Contact sets are order-dependent: they stay on one thread.
    assert seen1["contact sets"] == seen2["contact sets"] == {1}
    assert r1.success and r1.frames == r2.frames and r1.newton_iterations == r2.newton_iterations
    assert len(one) == len(two)
    for a, b in zip(one, two, strict=True):
        assert np.array_equal(a.object_pose, b.object_pose)
        for pa, pb in zip(a.pad_vertices, b.pad_vertices, strict=True):
            assert np.array_equal(pa, pb)
        assert a.grip_force_n == b.grip_force_n
        assert np.array_equal(a.contact_normal_n, b.contact_normal_n)
