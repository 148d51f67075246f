"""Controllers without a window: editing + undo, runs, sessions and the CSV export, driven
against the Qt-free model with fake user feedback and a fake simulation pool.

No QApplication is created: the controllers use only Qt's non-widget classes here
(QUndoStack, QObject), so these run without a display.
"""

from __future__ import annotations

import csv
from types import SimpleNamespace

import numpy as np
import pytest
from PySide6.QtGui import QUndoStack
from PySide6.QtWidgets import QMessageBox

from app.controllers.editing import EditController
from app.controllers.exports import ExportController
from app.controllers.runs import RunController
from app.controllers.sessions import SessionController
from app.model import AppModel, Document
from app.workers.messages import FramePacket
from engine.grasp.frames import TrialResult
from engine.io.frames_npz import CONTACT_COLUMNS
from engine.io.session import load_session

Button = QMessageBox.StandardButton


class FakeUi:
    """Records status lines and errors; answers questions from a script."""

    def __init__(self) -> None:
        self.statuses: list[str] = []
        self.errors: list[str] = []
        self.questions: list[str] = []
        self.answers: list = []
        self.save_to: str | None = None

    def status(self, text: str, log_it: bool = True) -> None:
        self.statuses.append(text)

    def error(self, title: str, message: str) -> None:
        self.errors.append(f"{title}: {message}")

    def question(self, title: str, text: str, buttons=None):
        self.questions.append(text)
        return self.answers.pop(0)

    def ask_replace_results(self, n_trials: int):
        self.questions.append(f"replace {n_trials}")
        return self.answers.pop(0)

    def save_path(self, title: str, filt: str, suffix: str, proposed: str = ""):
        self.proposed = proposed
        return self.save_to


class FakePool:
    """The simulation pool's interface, recording what was submitted."""

    def __init__(self) -> None:
        self.running = False
        self.submitted: list = []
        self.cancelled = 0

    def is_running(self) -> bool:
        return self.running

    def submit(self, run_id, jobs) -> None:
        self.submitted.append((run_id, jobs))
        self.running = True

    def cancel(self) -> None:
        self.cancelled += 1
        self.running = False


@pytest.fixture(scope="module")
def cube_mesh():
    return Document.open_object("cube").mesh


@pytest.fixture
def app(cube_mesh):
    """Model + every headless controller, wired like the window wires them."""
    model = AppModel()
    model.set_document(Document.open_object("cube", mesh=cube_mesh))
    ui, pool = FakeUi(), FakePool()
    ask = {"on": True}
    sessions = SessionController(
        model, pool, ui, lambda: [(0.1, 0.1, 0.1), (0, 0, 0), (0, 0, 1)],
        lambda: ask["on"], lambda on: ask.update(on=on),
    )  # fmt: skip
    runs = RunController(model, pool, ui, sessions.confirm_replace_results)
    editing = EditController(model, QUndoStack(), ui)
    return SimpleNamespace(
        model=model, ui=ui, pool=pool, sessions=sessions, runs=runs, editing=editing, ask=ask
    )


def _finish(model, runs, pool, frames: int = 2) -> None:
    """Play the worker's part: frames for every trial, then the results."""
    run = model.doc.run
    for k in sorted(run.trials):
        runs.on_trial_started(k)
        for i in range(frames):
            f = _frame_like(model, i)
            # One strain energy density per pad vertex, as a worker sends (sessions check it).
            energy = np.zeros(len(model.pads.pad.vertices))
            runs.on_frame(FramePacket(0, run.run_id, k, f, (energy, energy)))
        runs.on_trial_ended(k, TrialResult(trial=k, success=k == 0, reason="x"), "done")
    pool.running = False
    runs.on_run_finished(run.run_id, False)


def _frame_like(model, i):
    from engine.grasp.frames import Frame

    pad = model.pads.pad
    return Frame(
        i, 0.01 * i, "squeeze", (pad.vertices, pad.vertices), np.eye(4), 0.0, 0.0, (0.0, 0.0),
        (0.0, 0.0), dict.fromkeys(CONTACT_COLUMNS, 0), 1e-3, 0.0, 1, True,
    )  # fmt: skip


def test_edits_undo_and_redo(app):
    model, editing = app.model, app.editing
    stack = editing.undo_stack
    g0 = model.doc.grasp
    assert editing.edit_param("mu", 0.8)
    assert editing.edit_param("mu", 0.7)  # merges with the previous mu edit
    assert stack.count() == 1 and model.doc.params.mu == pytest.approx(0.7)
    editing.set_grasp(type(g0)(g0.center + np.array([0, 0, 0.002]), g0.axis, 0.0), "move")
    assert stack.count() == 2 and model.doc.grasp.center[2] > g0.center[2]
    stack.undo()
    np.testing.assert_allclose(model.doc.grasp.center, g0.center)
    stack.undo()
    assert model.doc.params.mu != pytest.approx(0.7)
    stack.redo()
    assert model.doc.params.mu == pytest.approx(0.7)  # the merged edit


def test_refused_edits_report_the_reason(app):
    model, editing = app.model, app.editing
    messages: list[str] = []
    fields: list[str] = []
    editing.param_message.connect(lambda text, name: (messages.append(text), fields.append(name)))
    assert not editing.edit_param("poisson_ratio", 0.7)
    assert not editing.edit_param("density", -5.0)
    assert "poisson_ratio" in messages[0] and "density" in messages[1]
    assert fields[:2] == ["poisson_ratio", "density"]  # each shown at its field
    assert app.ui.statuses[-1] == messages[1]  # it names the field: not twice
    assert editing.undo_stack.count() == 0 and model.doc.params.poisson_ratio == 0.45
    assert editing.edit_param("n_trials", 3) and messages[-1] == ""


def test_stable_pose_and_click_to_place(app):
    model, ui, editing = app.model, app.ui, app.editing
    editing.set_stable_pose(2)
    assert model.doc.pose_index == 2
    editing.undo_stack.undo()
    assert model.doc.pose_index == 0
    assert editing.place_grasp_at(np.array([0.015, 0.006, 0.006]), np.array([1.0, 0, 0]))
    np.testing.assert_allclose(model.doc.grasp.axis, [-1.0, 0.0, 0.0], atol=1e-6)
    assert "mm apart" in ui.statuses[-1]


def test_simulate_submits_the_planned_trials(app):
    model, ui, pool, runs, editing = app.model, app.ui, app.pool, app.runs, app.editing
    editing.edit_param("n_trials", 2)
    assert runs.start_simulation(max_frames=4)
    run_id, jobs = pool.submitted[-1]
    assert run_id == model.doc.run.run_id and [j.trial for j in jobs] == [0, 1]
    assert not runs.start_simulation()  # one run at a time
    assert "already running" in ui.statuses[-1]
    _finish(model, runs, pool)
    assert [r.status for r in model.doc.run.trials.values()] == ["done", "done"]
    assert "1/2 trials lifted" in ui.statuses[-1]


def test_an_invalid_grasp_is_not_simulated(app):
    model, ui, pool, runs = app.model, app.ui, app.pool, app.runs
    model.set_grasp_check(False, "jaw 1 misses the object")
    assert not runs.start_simulation()
    assert "misses" in ui.errors[-1] and not pool.submitted


def test_a_new_run_asks_before_replacing_unsaved_results(app, tmp_path):
    model, ui, pool, runs, ask = app.model, app.ui, app.pool, app.runs, app.ask
    assert runs.start_simulation()
    _finish(model, runs, pool)
    first = model.doc.run
    ui.answers = [(Button.Cancel, False)]
    assert not runs.start_simulation() and model.doc.run is first
    ui.save_to = str(tmp_path / "study")
    ui.answers = [(Button.Save, True)]  # save first, and don't ask again
    assert runs.start_simulation()
    assert len(load_session(tmp_path / "study.ipcgrasp.json").trials[0].frames) == 2
    assert ask["on"] is False
    _finish(model, runs, pool)
    assert runs.start_simulation()  # no question any more
    assert ui.questions == ["replace 1", "replace 1"]


def test_discard_questions_and_saving_while_running(app, tmp_path):
    model, ui, pool, sessions, runs = app.model, app.ui, app.pool, app.sessions, app.runs
    assert runs.start_simulation()
    ui.answers = [Button.No]
    assert not sessions.confirm_discard("quit") and pool.running
    assert not sessions.save_session(tmp_path / "s")
    assert "Simulation running" in ui.errors[-1]
    ui.answers = [Button.Yes, Button.Discard]  # stop the trials, then drop the results
    assert sessions.confirm_discard("quit") and pool.cancelled == 1
    assert "not saved" in ui.questions[-1]
    assert sessions.save_session(tmp_path / "s") and not model.doc.dirty
    assert sessions.confirm_discard("quit")  # saved: no question
    assert len(ui.questions) == 3


def test_csv_export_without_a_window(app, tmp_path):
    model, ui, pool, runs, editing = app.model, app.ui, app.pool, app.runs, app.editing

    exports = ExportController(model, None, SimpleNamespace(results={}), ui, None)
    assert not exports.export_csv(tmp_path / "none.csv")
    assert "Nothing to export" in ui.errors[-1]
    editing.edit_param("n_trials", 2)
    runs.start_simulation()
    _finish(model, runs, pool)
    assert exports.export_csv(tmp_path / "r.csv")
    with (tmp_path / "r.csv").open(newline="") as f:
        rows = list(csv.DictReader(f))
    assert [r["trial"] for r in rows] == ["0", "1"] and rows[0]["status"] == "done"
    assert rows[0]["analytic_exact_success"] == ""


def test_save_dialogs_propose_a_file_name(app, tmp_path):
    """Issue 15: the session dialog proposes the object's name; once saved, the session's."""
    app.sessions.save_as()  # cancelled: save_to is None
    assert app.ui.proposed == "example_cube.ipcgrasp.json"
    doc = app.model.doc
    assert doc.suggested_path("_results.csv") == "example_cube_results.csv"
    doc.path = tmp_path / "study.ipcgrasp.json"
    assert doc.suggested_path("_view.png") == str(tmp_path / "study_view.png")
    app.sessions.save_as()
    assert app.ui.proposed == str(tmp_path / "study.ipcgrasp.json")
