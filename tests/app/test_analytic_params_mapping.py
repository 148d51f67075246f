"""One mapping from the simulation's parameters to the analytic models' (issue 38).

Every caller that runs an analytic model for a simulated gripper gets the same jaw opening and
closing force from engine.analytic.from_simulation: batch rows, `ipcgrasp analyze --gripper`,
the app's analysis worker, and the Soft Point ranker of the sampler (`ipcgrasp sample`, the
app's sample worker) and of the default grasp. They must equal the gripper preset's stroke and
the simulation's grip force (the squeeze's force stop, else the preset's maximum force). Before
the mapping was shared, batch rows used AnalyticParams' YuMi defaults (50 mm, 20 N) for every
gripper.

No QApplication: the worker bodies and the model are Qt-free.
"""

from __future__ import annotations

import pytest

import engine.analytic.ranking as ranking
import engine.grasp.sampler as sampler
from app.model.document import Document
from app.model.grip import PsiForceState, analytic_force
from app.workers.analysis import job_analytic_params
from app.workers.messages import AnalysisJob, DefaultGraspJob, SampleJob
from app.workers.sampling import default_grasp_of, sample_grasps_for
from engine.analytic.params import AnalyticParams
from engine.batch.grasp_table import read_grasp_table
from engine.batch.tasks import make_tasks
from engine.cli import analyze as analyze_cli
from engine.cli import batch as batch_cli
from engine.cli.main import build_parser, main
from engine.errors import GraspError
from engine.grasp.params import SimulationParams
from engine.gripper.presets import GRIPPERS

# A force inside every preset's range for the force-stop cases (Robotiq: 20-235 N).
CASES = [(name, None) for name in GRIPPERS] + [
    ("yumi", 15.0),
    ("franka_hand", 50.0),
    ("robotiq_2f85", 100.0),
]


@pytest.fixture(scope="module")
def cube() -> Document:
    return Document.open_object("cube", find_default=False)


def _flags(gripper: str, force: float | None) -> list[str]:
    return ["--gripper", gripper, *([] if force is None else ["--squeeze-force", str(force)])]


def _batch(tmp_path, gripper: str, force: float | None) -> AnalyticParams:
    """The analytic params of a batch task made from the command's flags."""
    grasps = tmp_path / "grasps.csv"
    grasps.write_text("grasp_id,object,center_x,center_y,center_z,axis_x,axis_y,axis_z\n")
    with grasps.open("a") as f:
        f.write("g,cube,0,0,0.015,1,0,0\n")
    argv = ["batch", str(grasps), "--out", str(tmp_path / "r.csv"), *_flags(gripper, force)]
    args = build_parser(["batch"]).parse_args(argv)
    params = batch_cli.params_from_args(args)
    config = batch_cli.config_from_args(args, ("reach",), params)
    (task,) = make_tasks(read_grasp_table(grasps), config)
    return task.analytic_params()


def _analyze(gripper: str, force: float | None) -> AnalyticParams:
    """`ipcgrasp analyze --gripper X` (with --closing-force F when the simulation stops at F)."""
    extra = [] if force is None else ["--closing-force", str(force)]
    args = build_parser(["analyze"]).parse_args(["analyze", "--gripper", gripper, *extra])
    return analyze_cli.params_from_args(args)


def _app_worker(cube: Document, params: SimulationParams) -> AnalyticParams:
    """The app's analysis worker with the grip force the window chooses before any run."""
    doc = Document.open_object("cube", params=params, mesh=cube.mesh, find_default=False)
    force = analytic_force(doc, PsiForceState("off")).force_n
    job = AnalysisJob(1, None, doc.grasp, params, (), 0, 0, force)
    return job_analytic_params(job)


def _rankers(monkeypatch, tmp_path, cube: Document, params: SimulationParams, cli: bool) -> dict:
    """The params of the Soft Point ranker the sampler and the default grasp are given."""
    seen: dict[str, AnalyticParams] = {}

    def fake_sample(obj, settings, n, seed, rank=None, **kwargs):
        seen[where] = rank.params
        return []

    def fake_choose(obj, params, rank, seed=0):
        seen[where] = rank.params
        raise GraspError("stop: only the ranker is looked at")

    monkeypatch.setattr(sampler, "sample_grasps", fake_sample)
    monkeypatch.setattr(ranking, "choose_default_grasp", fake_choose)
    where = "app sample worker"
    sample_grasps_for(SampleJob(1, cube.obj, params, 5, 0))
    where = "default grasp"
    default_grasp_of(DefaultGraspJob(1, cube.obj, params, 0))
    if cli:  # `ipcgrasp sample` has --gripper but no force stop
        where = "ipcgrasp sample"
        out = tmp_path / "sampled.csv"
        main(["sample", "cube", "--gripper", params.gripper, "--out", str(out)])
    return seen


@pytest.mark.parametrize(("gripper", "force"), CASES)
def test_every_caller_gives_the_models_the_simulated_gripper(
    gripper, force, cube, tmp_path, monkeypatch
):
    """Batch, analyze --gripper, the app's analysis worker and the sampler's rankers all give
    the models the preset's opening and the simulation's grip force."""
    params = SimulationParams.for_gripper(gripper, squeeze_force_n=force)
    preset = GRIPPERS[gripper]
    expected = (preset.stroke_m, preset.force_max_n if force is None else force)
    got = {
        "batch": _batch(tmp_path, gripper, force),
        "ipcgrasp analyze": _analyze(gripper, force),
        "app analysis worker": _app_worker(cube, params),
        **_rankers(monkeypatch, tmp_path, cube, params, cli=force is None),
    }
    assert len(got) == (6 if force is None else 5)
    for where, p in got.items():
        assert (p.open_width_m, p.closing_force_n) == expected, where
        assert p.pad == preset.pad, where
