"""Shared test helpers: where the reference data of ../shared/data lives."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO.parent / "shared" / "data"
REFERENCE_CUBE = SHARED_DATA / "reach_cube" / "cube_3cm.obj"
REACH_JSON = SHARED_DATA / "reach_cube" / "reach_cube_3cm.json"


def reach_table():  # -> engine.batch.grasp_table.GraspTable
    """The REACH cube's grasp table; skips the calling test when ../shared/data is absent."""
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


# Under pytest-xdist with --dist loadscope (scripts/test runs the suite on two workers), tests
# that share a machine-wide resource run one after another on one worker, the rest one by one
# wherever a worker is free: these modules' tests start batch drivers with process pools or Ray
# clusters (Ray's ports and /tmp/ray sessions are per machine) and kill them, and the GUI tests
# drive windows on one X display, where two windows take the keyboard focus and the screen from
# each other. (xdist's own --dist loadgroup cannot group them under pytest 9: it renames the
# items' node ids through an attribute pytest 9 no longer reads.)
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
# The modules of tests/app that need no QApplication and no display (tests/app/conftest.py marks
# the others gui), and the modules elsewhere whose tests open the app's window (the wheel's smoke
# test).
GUI_FREE_APP_MODULES = frozenset(
    {
        "test_model_app.py",
        "test_controllers_headless.py",
        "test_workers.py",
        "test_settings.py",
        "test_dataset_model.py",
        "test_compare_labels.py",
        "test_analytic_params_mapping.py",
    }
)
GUI_MODULES_ELSEWHERE = frozenset({"test_wheel.py"})


def shared_resource(nodeid: str) -> str | None:
    """The machine-wide resource a test uses ("processes", "gui"), None for none."""
    path = nodeid.split("::", 1)[0]
    name = path.rsplit("/", 1)[-1]
    if name in SERIAL_MODULES:
        return "processes"
    in_app = path.startswith("tests/app/") and name not in GUI_FREE_APP_MODULES
    return "gui" if in_app or name in GUI_MODULES_ELSEWHERE else None


@pytest.hookimpl(optionalhook=True, tryfirst=True)
def pytest_xdist_make_scheduler(config, log):
    if config.getvalue("dist") != "loadscope":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class SharedResourceScheduling(LoadScopeScheduling):
        """Each shared resource's tests one unit of work, every other test its own."""

        def _split_scope(self, nodeid: str) -> str:
            return shared_resource(nodeid) or nodeid

    return SharedResourceScheduling(config, log)
