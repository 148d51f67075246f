"""The MuJoCo rigid-pad baseline checked against the laws it must obey.

Same cases as the IPC simulator's tests (tests/engine/grasp/test_simulation_physics.py): the 3 cm cube
of the REACH data set (or the built-in cube of the same geometry) gripped by the default grasp.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("mujoco", reason="the MuJoCo baseline needs the mujoco extra")

from engine.constants import GRAVITY_M_S2
from engine.errors import GraspError
from engine.grasp.default_grasp import default_grasp
from engine.grasp.grasp import Grasp
from engine.grasp.params import SimulationParams
from engine.grasp.trial_plan import TrialSpec, plan_trials
from engine.gripper.pad_geometry import pad_outline
from engine.mujoco_baseline import contact
from engine.mujoco_baseline.params import MujocoParams
from engine.mujoco_baseline.simulation import MujocoTrial, run_mujoco_trials
from engine.scene.object_mesh import BUILTIN_CUBE_MASS_KG, builtin_cube, load_object_mesh
from engine.scene.resting import rest_object
from tests.conftest import REFERENCE_CUBE


def _cube(mass_kg: float = BUILTIN_CUBE_MASS_KG):
    mesh = load_object_mesh(REFERENCE_CUBE) if REFERENCE_CUBE.exists() else builtin_cube()
    return rest_object(mesh, 0, mass_kg=mass_kg)


def _run(params: SimulationParams, obj=None, mj: MujocoParams | None = None):
    obj = obj if obj is not None else _cube()
    grasp = default_grasp(obj, pad_outline(params.pad))
    sim = MujocoTrial(obj, grasp.pose(), params, mj)
    frames = list(sim.frames())
    return sim, frames


@pytest.mark.parametrize(
    "capacity_over_weight, lifts", [(2.5, True), (1.25, True), (0.8, False), (0.4, False)]
)
def test_force_controlled_squeeze_follows_coulomb(capacity_over_weight, lifts):
    """Coulomb: a centred 50 g box held by two pads with normal force F lifts iff 2 mu F > m g
    (the IPC test's cases 2.5 and 0.4, plus 1.25 and 0.8: the friction limit is sharp within 25 %)."""
    mass, mu = 0.05, 0.4
    force = capacity_over_weight * mass * GRAVITY_M_S2 / (2 * mu)
    sim, _ = _run(SimulationParams(mu=mu, squeeze_force_n=force), obj=_cube(mass_kg=mass))
    r = sim.result
    assert r.grip_force1_n == pytest.approx(force, rel=0.03)
    assert r.grip_force2_n == pytest.approx(force, rel=0.03)
    assert r.success is lifts, r.reason
    if not lifts:
        assert "slipped" in r.reason


def test_cube_slips_with_mu_005_and_lifts_with_mu_04():
    """Coulomb at the default squeeze stop (Psi_th = 1e-9 J, about 0.2 N on the cube at
    E = 1e8 Pa): mu = 0.4 holds the 3 g cube (2 mu F > m g), mu = 0.05 does not."""
    held, _ = _run(SimulationParams(youngs_modulus_pa=1e8, mu=0.4, psi_th_j=1e-9))
    slipped, _ = _run(SimulationParams(youngs_modulus_pa=1e8, mu=0.05, psi_th_j=1e-9))
    weight = BUILTIN_CUBE_MASS_KG * GRAVITY_M_S2
    assert held.force_n == pytest.approx(0.18, rel=0.2)  # F = sqrt(2 E A / t Psi_th)
    assert held.result.success, held.result.reason
    assert 2 * 0.4 * held.force_n > weight
    assert not slipped.result.success
    assert "slipped" in slipped.result.reason
    assert 2 * 0.05 * slipped.force_n < weight


@pytest.mark.parametrize("youngs_modulus_pa", [1e6, 1e7, 1e8])
def test_squeeze_depth_at_the_grip_force_is_the_pads(youngs_modulus_pa):
    """Pad compliance of the contact derived from the pad (`--mj-contact pad`): at the grip
    force F the rigid pad sinks into the cube by the squeeze of a pad of modulus E, thickness t
    and contact area A, delta = F t / (E A), within 20 % (the IPC pad's measured stiffness is
    within 15 % of E A / t, see engine.mujoco_baseline.contact)."""
    force = 5.0
    params = SimulationParams(youngs_modulus_pa=youngs_modulus_pa, squeeze_force_n=force)
    sim, frames = _run(params, mj=MujocoParams(contact_model="pad", time_step_s=5e-4))
    squeezed = [f for f in frames if f.phase == "squeeze"][-1]
    outline = pad_outline(params.pad)
    depths = _pad_depths(sim)
    for k in range(2):
        # The default grasp's pads reach 2.5 mm above the cube: A is the part on the face.
        area = sim.jaws[k].area_m2
        assert 0.8 * outline.area_m2 < area <= outline.area_m2
        expected = force * outline.thickness_m / (youngs_modulus_pa * area)
        assert squeezed.grip_force_n[k] == pytest.approx(force, rel=0.03)
        assert depths[k] == pytest.approx(expected, rel=0.2)


def _pad_depths(sim: MujocoTrial) -> list[float]:
    """Deepest overlap of each pad with the object at the simulation's current state."""
    s, d = sim.scene, sim.data
    deepest = [0.0, 0.0]
    for i in range(d.ncon):
        c = d.contact[i]
        for k in range(2):
            if s.pad_geoms[k] in (c.geom1, c.geom2) and ({c.geom1, c.geom2} & s.object_geoms):
                deepest[k] = max(deepest[k], -float(c.dist))
    return deepest


def test_stiffness_derivation_inverts_mujocos_contact_law():
    """MuJoCo's static contact law f = r / (tc^2 zeta^2 (1 - d) A_ii) per point: the derived
    impedance gives n points the pad's stiffness E A / t, and is clamped at MuJoCo's 0.9999."""
    st = contact.derive(1e7, 5e-4, 0.003, 5e-4, 400.0, points=4)
    assert st.achieved_stiffness_n_m == pytest.approx(1e7 * 5e-4 / 0.003, rel=1e-9)
    assert st.depth_ratio == pytest.approx(1.0)
    stiff = contact.derive(1e11, 5e-4, 0.003, 5e-4, 400.0, points=1)
    assert stiff.impedance == contact.IMPEDANCE_MAX
    assert stiff.depth_ratio > 1.0


def test_same_seed_same_result():
    """Determinism: the same seed gives the same perturbed poses and bit-identical outcomes."""
    obj = _cube()
    params = SimulationParams(squeeze_force_n=2.0)
    grasp = default_grasp(obj, pad_outline(params.pad))
    spec = TrialSpec(n_trials=3, seed=3)
    a = run_mujoco_trials(obj, grasp, params, spec)
    b = run_mujoco_trials(obj, grasp, params, spec)
    assert [r.perturbation for r in a] == [t.perturbation_dict for t in plan_trials(grasp, spec)]
    for ra, rb in zip(a, b, strict=True):
        assert ra.perturbation == rb.perturbation
        assert (ra.success, ra.grip_force1_n, ra.lift_height_m, ra.frames) == (
            rb.success,
            rb.grip_force1_n,
            rb.lift_height_m,
            rb.frames,
        )


def test_grasp_that_misses_is_refused():
    """The IPC simulator's input checks: a grasp beside the object is refused with the reason."""
    obj = _cube()
    grasp = Grasp(center=np.array([0.0, 0.2, 0.015]), axis=np.array([1.0, 0.0, 0.0]))
    with pytest.raises(GraspError, match="misses"):
        MujocoTrial(obj, grasp.pose(), SimulationParams())
