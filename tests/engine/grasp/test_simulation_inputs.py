"""Bad simulation input gets a clear error naming the problem and the fix."""

from __future__ import annotations

import math

import numpy as np
import pytest

from engine.errors import GraspError, ParameterError
from engine.grasp.grasp import Grasp
from engine.grasp.params import SimulationParams
from engine.grasp.simulation import GraspSimulation, build_pad
from engine.scene.object_mesh import BUILTIN_CUBE_MASS_KG, builtin_cube, load_object_mesh
from engine.scene.resting import rest_object


@pytest.fixture(scope="module")
def cube():
    return rest_object(builtin_cube(), 0, mass_kg=BUILTIN_CUBE_MASS_KG)


@pytest.mark.parametrize(
    "field, value, message",
    [
        ("youngs_modulus_pa", math.nan, r"youngs_modulus_pa \(--E\) is nan; give a finite"),
        ("youngs_modulus_pa", 0.0, r"youngs_modulus_pa \(--E\) must be in \[10000, 1e\+12\] Pa"),
        ("youngs_modulus_pa", -1e8, r"must be in \[10000, 1e\+12\] Pa \(got -1"),
        ("mu", -0.1, r"mu \(--mu\) must be in \[0, 3\] \(got -0.1\)"),
        ("mu", math.inf, "finite"),
        ("psi_th_j", 0.0, r"psi_th_j \(--psi-th\) must be in \[1e-15, 1\] J"),
        ("poisson_ratio", 0.5, r"poisson_ratio \(--nu\) must be in \[0, 0.5\)"),
        ("time_step_s", math.nan, r"time_step_s \(--time-step\) is nan"),
        ("squeeze_force_n", -2.0, r"squeeze_force_n \(--squeeze-force\) must be in \(0, 1000\] N"),
        ("max_newton_iterations", 2.5, "max_newton_iterations .* must be an integer"),
        ("pad", "oval", "pad .* must be one of rounded, rectangular"),
        ("squeeze_force_n", 30.0, "30 N is outside the ABB YuMi smart gripper's range 0.01-20 N"),
        ("gripper", "panda", "gripper .* must be one of yumi, franka_hand, robotiq_2f85"),
    ],
)
def test_bad_parameters_are_named(field, value, message):
    with pytest.raises(ParameterError, match=message):
        SimulationParams(**{field: value}).validate()


def test_grasp_that_misses_the_object(cube):
    params = SimulationParams()
    grasp = Grasp(center=[0.0, 0.045, 0.015], axis=[1.0, 0.0, 0.0])
    with pytest.raises(GraspError, match=r"misses the object.*Move the grasp"):
        GraspSimulation(cube, grasp.pose(), params, pad=build_pad(params))


def test_open_jaws_intersecting_a_too_wide_object():
    wide = rest_object(builtin_cube(size_m=0.06), 0, mass_kg=0.01)
    params = SimulationParams()
    grasp = Grasp(center=[0.0, 0.0, 0.03], axis=[1.0, 0.0, 0.0])
    with pytest.raises(
        GraspError,
        match=r"60\.0 mm wide along the closing axis and the ABB YuMi smart gripper opens 50 mm"
        r".*larger stroke \(Franka Hand, Robotiq 2F-85\)",
    ):
        GraspSimulation(wide, grasp.pose(), params, pad=build_pad(params))
    # The same object fits a gripper with a longer stroke.
    franka = SimulationParams.for_gripper("franka_hand")
    GraspSimulation(wide, grasp.pose(), franka, pad=build_pad(franka))


def test_open_jaws_below_the_ground(cube):
    params = SimulationParams()
    grasp = Grasp(center=[0.0, 0.0, 0.004], axis=[1.0, 0.0, 0.0])
    with pytest.raises(GraspError, match="below the ground plane; raise the grasp"):
        GraspSimulation(cube, grasp.pose(), params, pad=build_pad(params))


def test_mesh_in_millimetres_is_detected(tmp_path):
    import trimesh

    path = tmp_path / "cube_mm.stl"
    trimesh.creation.box((30.0, 30.0, 30.0)).export(path)
    with pytest.raises(Exception, match="millimetres"):
        load_object_mesh(path)
    mesh = load_object_mesh(path, unit="mm")
    assert np.allclose(np.ptp(mesh.vertices, axis=0), 0.03)


def test_auto_open_widens_the_jaws_until_they_clear_the_object():
    """IPC-GraspSim opens the jaws in 1 mm steps until they clear the object by 1 mm."""
    wide = rest_object(builtin_cube(size_m=0.052), 0, mass_kg=0.01)
    grasp = Grasp(center=[0.0, 0.0, 0.026], axis=[1.0, 0.0, 0.0])
    with pytest.raises(GraspError, match="open jaws intersect the object"):
        GraspSimulation(wide, grasp.pose(), SimulationParams(), pad=build_pad(SimulationParams()))
    params = SimulationParams(auto_open_m=0.01)
    sim = GraspSimulation(wide, grasp.pose(), params, pad=build_pad(params))
    assert sim.open_width_m == pytest.approx(0.054)  # 52 mm + 2 x 1 mm clearance, 1 mm steps
