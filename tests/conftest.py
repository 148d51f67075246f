"""Shared test helpers: where the reference data of ../shared/data lives."""

from __future__ import annotations

from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO.parent / "shared" / "data"
REFERENCE_CUBE = SHARED_DATA / "reach_cube" / "cube_3cm.obj"
REACH_JSON = SHARED_DATA / "reach_cube" / "reach_cube_3cm.json"


def reach_table():  # -> engine.batch.grasp_table.GraspTable
    """The REACH cube's grasp table; skips the calling test when ../shared/data is absent."""
    import pytest

    from engine.batch.grasp_table import read_grasp_table

    if not REACH_JSON.exists():
        pytest.skip(f"the REACH data set is not at {REACH_JSON}")
    return read_grasp_table(REACH_JSON)


def reach_scene(index: int):  # -> (RestingObject, Grasp)
    """The resting cube and the grasp of REACH attempt `index` (skips without the data)."""
    from engine.batch.grasp_scene import build_scene

    obj, _, grasp = build_scene(reach_table().grasps[index])
    return obj, grasp


def yumi_cube_simulation(
    vertices: int | None = None, mass_kg: float | None = None
):  # -> engine.grasp.simulation.GraspSimulation
    """The built-in cube (`vertices`: its resolution, None the 8-vertex one; `mass_kg`: None
    for rest_object's default) in the YuMi at its default grasp, not yet simulated."""
    from engine.grasp.default_grasp import default_grasp
    from engine.grasp.params import SimulationParams
    from engine.grasp.simulation import GraspSimulation, build_pad
    from engine.scene.object_mesh import builtin_cube
    from engine.scene.resting import rest_object

    obj = rest_object(builtin_cube(target_vertices=vertices), 0, mass_kg=mass_kg)
    params = SimulationParams.for_gripper("yumi")
    pad = build_pad(params)
    return GraspSimulation(obj, default_grasp(obj, pad.outline).pose(), params, pad=pad)


# Under pytest-xdist (scripts/test runs the suite on two workers with --dist loadgroup), these
# modules' tests run one after another on one worker: they start batch drivers with process
# pools or Ray clusters (Ray's ports and /tmp/ray sessions are per machine) and kill them, and
# two at once would share the two cores between four pools instead of testing one.
SERIAL_MODULES = frozenset(
    {
        "test_random_kills.py",
        "test_lifetime.py",
        "test_ray_backend.py",
        "test_ray_cluster.py",
        "test_batch_cli.py",
        "test_lifeline.py",
    }
)


def pytest_collection_modifyitems(items) -> None:
    import pytest

    for item in items:
        if item.path.name in SERIAL_MODULES:
            item.add_marker(pytest.mark.xdist_group("processes"))
