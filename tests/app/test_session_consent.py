"""File > Open of a session asks before reading a mesh file outside the session's folder
(issue 42 point 7); without a display: the question goes through the controller's ui."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from types import SimpleNamespace

from PySide6.QtWidgets import QMessageBox

from app.controllers.opening import OpenController
from engine.io.session import load_session, resolve_object, save_session
from engine.scene.object_mesh import builtin_cube, load_object_mesh
from tests.engine.io.test_session_validation import make_session

Button = QMessageBox.StandardButton


class _Ui:
    def __init__(self, answer) -> None:
        self.answer = answer
        self.questions: list[str] = []

    def question(self, title: str, text: str, buttons=None):
        self.questions.append(text)
        return self.answer


def session_with_outside_mesh(tmp_path: Path) -> tuple[Path, Path]:
    """A session in tmp_path/s whose object file is tmp_path/meshes/box.obj (outside its
    folder, embedded too): (the session's JSON, the mesh file)."""
    (tmp_path / "meshes").mkdir()
    mesh_path = tmp_path / "meshes" / "box.obj"
    builtin_cube().to_trimesh().export(mesh_path)
    mesh = load_object_mesh(mesh_path)
    session = dataclasses.replace(
        make_session(), object_source=mesh.source, object_sha256=mesh.sha256, mesh=mesh
    )
    (tmp_path / "s").mkdir()
    json_path, _ = save_session(tmp_path / "s" / "study", session)
    return json_path, mesh_path


def test_the_app_asks_before_reading_a_mesh_outside_the_session_folder(tmp_path: Path):
    json_path, mesh_path = session_with_outside_mesh(tmp_path)
    loaded = load_session(json_path)
    for answer, read in ((Button.No, False), (Button.Yes, True)):
        ctrl = SimpleNamespace(ui=_Ui(answer))

        def ask(p: Path, ctrl=ctrl) -> bool:
            return OpenController._read_outside(ctrl, json_path, p)

        _, note = resolve_object(loaded, json_path, allow_outside=ask)
        (question,) = ctrl.ui.questions
        assert str(mesh_path.resolve()) in question and "outside the session's folder" in question
        assert (note == "") is read
        assert read or "copy embedded in the session" in note
