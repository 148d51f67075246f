"""Opening: mesh files, sessions, the example cube, drag and drop and the recent-files menu."""

from __future__ import annotations

import logging
import math
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, cast

import numpy as np
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QMenu, QMessageBox

from app import mesh_units
from app import settings as app_settings
from app.controllers.default_grasp import FINDING, setting_in_app_words
from app.controllers.sessions import SESSION_FILTER
from app.model import AppModel, Document
from app.model.app_model import success_summary
from app.reading_client import ReadingClient
from app.ui import Feedback
from app.workers.messages import ObjectRead, ReadObjectJob, ReadSessionJob
from engine.errors import IpcGraspError
from engine.io.session import ARRAYS_SUFFIX, NEXT_ARRAYS_SUFFIX, Session
from engine.scene.mesh_repair import SeveralBodiesError
from engine.scene.object_mesh import (
    MAX_DIAGONAL_M,
    MIN_DIAGONAL_M,
    UNIT_SCALE_M,
    ObjectMesh,
    ObjectSizeError,
)
from engine.scene.resting import StablePose

if TYPE_CHECKING:  # the window wires these; importing them here would be circular
    from PySide6.QtGui import QDragEnterEvent, QDropEvent

    from app.viewport import Viewport

log = logging.getLogger(__name__)
MERGED = Feedback.MERGED
MESH_FILTER = "Meshes (*.obj *.stl *.ply *.off *.glb)"


def _names_body(error: Exception | None) -> bool:
    """Whether `error` is about the body chosen (out of range for the file as it is now)."""
    settings = getattr(error, "settings", ())
    return isinstance(error, SeveralBodiesError) or any(s.name == "body" for s in settings)


class OpenController:
    """Loads documents into the model; errors go to a dialog, never an exception.

    `reader` reads files in a worker process (app.reading_client);
    `confirm_discard(what)` asks before unsaved results or running trials are dropped;
    `viewport` shows the object (a failure there keeps the previous document); `clear_undo`
    empties the undo stack; `set_title` names the window after the file.
    """

    def __init__(
        self, model: AppModel, viewport: Viewport, ui: Feedback, reader: ReadingClient,
        confirm_discard: Callable[[str], bool], clear_undo: Callable[[], None],
        set_title: Callable[[str], None], recent_menu: QMenu,
    ) -> None:  # fmt: skip
        self.model = model
        self.reader = reader
        self.viewport = viewport
        self.ui = ui
        self.confirm_discard = confirm_discard
        self.clear_undo = clear_undo
        self.set_title = set_title
        self.recent_menu = recent_menu
        model.saved.connect(self._on_saved)
        self.refresh_recent_menu()

    def load_example(self) -> bool:
        """Open the built-in 3 cm cube."""
        if not self.confirm_discard("open the example"):
            return False
        return self.set_document(Document.open_object("cube", find_default=False), "example cube")

    def open_dialog(self) -> None:
        """File > Open."""
        path = self.ui.open_path(
            "Open a mesh or session", f"{MESH_FILTER};;{SESSION_FILTER};;All files (*)"
        )
        if path:
            self.open_path(path)

    def open_path(
        self, path: str | Path, unit: str | None = None, ask_unit: bool = False,
        ask_body: bool = False, pose_index: int | None = None,
    ) -> bool:  # fmt: skip
        """Open a mesh file or a session; errors go to a dialog, never an exception.

        The file is read, repaired and given its stable poses in the reading worker process
        (app.reading_client), never on the GUI thread. A mesh's length unit is `unit`, else
        the one chosen for this file before, else metres when that gives a graspable size;
        otherwise (or with `ask_unit`) the user chooses it, with the unit its size suggests
        preselected. A file holding several bodies that do not overlap opens the body chosen
        for it before, else (or with `ask_body`) the user chooses one. Both choices are
        remembered per file (app.settings.MESH_UNIT, MESH_BODY). The object rests in stable pose
        `pose_index`, else the one the user chose for this file before (MESH_POSE), else the
        most probable pose group's. The default grasp is found in another worker process
        afterwards (DefaultGraspController)."""
        p = Path(path)
        if not self.confirm_discard("open another file"):
            return False
        if p.name.endswith((".json", ARRAYS_SUFFIX, NEXT_ARRAYS_SUFFIX)):
            return self.open_session(p)
        got = self._read_mesh(p, unit, ask_unit, ask_body)
        if got is None:
            return False
        answer, unit, body = got
        mesh, poses = cast("tuple[ObjectMesh, list[StablePose]]", answer.value)
        try:
            doc = Document.open_object(
                str(p), unit, mesh=mesh, poses=poses, find_default=False,
                choices=answer.pose_choices,
            )  # fmt: skip
            pose = (
                app_settings.remembered_pose(p, len(doc.poses))
                if pose_index is None
                else pose_index
            )
            if pose is not None and 0 <= pose < len(doc.poses) and pose != doc.pose_index:
                doc.set_pose(pose, find_default=False)  # kept (another unit) or chosen before
        except IpcGraspError as exc:
            self.ui.error("Cannot open the mesh", exc.render(setting_in_app_words))
            return False
        ok = self.set_document(doc, p.name)
        if ok:
            self._remember(p, doc, unit, body)
        return ok

    def _read_mesh(
        self, p: Path, unit: str | None, ask_unit: bool, ask_body: bool
    ) -> tuple[ObjectRead, str | None, str | None] | None:
        """Read `p` in the reading worker, asking its unit and body where needed: (the answer
        with the mesh, the unit, the body), or None once the user was told why not (cancelled,
        refused)."""
        if unit is None and not ask_unit:
            unit = app_settings.MESH_UNIT.get(p)
        reading = f"Reading {p.name}"

        def read(body: str | None, extents_only: bool = False) -> ObjectRead | None:
            return self.reader.read(ReadObjectJob(0, str(p), unit, body, extents_only), reading)

        if ask_unit:
            answer = read(None, extents_only=True)
            if answer is None or answer.extents is None:
                self._refused(p, unit, answer)
                return None
            unit = self._ask_unit(p, answer.extents)
            if unit is None:
                self._cancelled(p)
                return None
        body = None if ask_body else app_settings.MESH_BODY.get(p)
        answer = read(body)
        if body is not None and answer is not None and _names_body(answer.error):
            body = None  # the file has changed since the body was chosen: ask again
            answer = read(body)
        if answer is not None and isinstance(answer.error, ObjectSizeError) and unit is None:
            if answer.extents is not None:  # not graspable in metres: which unit?
                unit = self._ask_unit(p, answer.extents)
                if unit is None:
                    self._cancelled(p)
                    return None
                answer = read(body)
        if answer is not None and isinstance(answer.error, SeveralBodiesError):
            bodies = [b for b in answer.error.bodies if b.startswith("body ")]
            body = self.ui.choose_body(p.name, bodies, self._open_body(p))
            if body is None:
                self._cancelled(p)
                return None
            answer = read(body)
        if answer is not None and answer.value is not None and ask_body:
            merged = cast("tuple[ObjectMesh, list]", answer.value)[0].repair.bodies
            if merged:  # overlapping bodies opened merged: or one of them?
                chosen = self.ui.choose_body(p.name, list(merged), self._open_body(p), True)
                if chosen is None:
                    self._cancelled(p)
                    return None
                if chosen != MERGED:
                    body = chosen
                    answer = read(body)
        if answer is None or answer.value is None:
            self._refused(p, unit, answer)
            return None
        return answer, unit, body

    def _remember(self, p: Path, doc: Document, unit: str | None, body: str | None) -> None:
        """Keep the file's unit and body for its next opening and say what was chosen."""
        self.add_recent(p)
        app_settings.MESH_BODY.set(p, body)  # None: the file's one body, or merged ones
        merged = doc.mesh.repair.bodies
        if merged:
            self._status(
                f"opened {p.name}: {len(merged)} overlapping bodies merged into one solid; "
                "File > Reopen with another body opens one of them"
            )
        if unit is not None:
            app_settings.MESH_UNIT.set(p, unit)
            self._status(
                f"opened {p.name} in {mesh_units.UNIT_NAMES[unit]}: "
                f"{mesh_units.size_text(tuple(np.ptp(doc.mesh.vertices, axis=0)), 'm')}; "
                "File > Reopen with another unit changes it"
            )

    def _cancelled(self, p: Path) -> bool:
        self.ui.status(f"opening {p.name} cancelled")
        return False

    def _refused(self, p: Path, unit: str | None, answer: ObjectRead | None) -> bool:
        """Say why `p` did not open (None: the user cancelled the read)."""
        if answer is None:
            return self._cancelled(p)
        exc = answer.error
        if isinstance(exc, ObjectSizeError) and answer.extents is not None:
            self.ui.error("Cannot open the mesh", self._size_refusal(p, unit, answer.extents))
        elif isinstance(exc, IpcGraspError):
            self.ui.error("Cannot open the mesh", exc.render(setting_in_app_words))
        else:  # a reader bug (logged by the worker) must not take the app down
            self.ui.error("Cannot open the mesh", f"{type(exc).__name__}: {exc}")
        return False

    def reopen_with_unit(self) -> bool:
        """File > Reopen with another unit: ask the current mesh file's unit and open it again."""
        d = self.model.doc
        if d is None or not Path(d.spec_text).is_file():
            self.ui.status("the current object is not a mesh file: nothing to reopen")
            return False
        return self.open_path(d.spec_text, ask_unit=True, pose_index=d.pose_index)

    def _open_body(self, p: Path) -> str | None:
        """The body option ("0", "1", ..., "all") of the document open now if it is file `p`."""
        d = self.model.doc
        if (
            d is None
            or not Path(d.spec_text).is_file()
            or Path(d.spec_text).resolve() != p.resolve()
        ):
            return None
        return d.mesh.repair.body_option or None

    def reopen_with_body(self) -> bool:
        """File > Reopen with another body: open the current mesh file again asking which of
        its bodies to open (a file with one body just opens again)."""
        d = self.model.doc
        if d is None or not Path(d.spec_text).is_file():
            self.ui.status("the current object is not a mesh file: nothing to reopen")
            return False
        return self.open_path(d.spec_text, d.unit, ask_body=True)

    def _status(self, text: str) -> None:
        """Show `text`, saying so when the default grasp is still being found."""
        if self.model.finding_default:
            text += f"; {FINDING}"
        self.ui.status(text)

    def _ask_unit(self, p: Path, extents: tuple[float, float, float]) -> str | None:
        diagonal = math.hypot(*extents)
        suggested = mesh_units.suggest_unit(diagonal)
        choices = []
        for u, name in mesh_units.UNIT_NAMES.items():
            shown = f"{name}: {mesh_units.size_text(extents, u)}"
            if not mesh_units.plausible(diagonal, u):
                shown += " (too small)" if diagonal * UNIT_SCALE_M[u] < 0.01 else " (too large)"
            elif u == suggested:
                shown += " (suggested by its size)"
            choices.append((u, shown))
        note = ""
        if not mesh_units.plausible(diagonal, "m"):
            note = (
                f"In metres it would be {mesh_units.size_text(extents, 'm')}, not a size a "
                "gripper can hold."
            )
        return self.ui.choose_unit(p.name, choices, suggested, note)

    @staticmethod
    def _size_refusal(p: Path, unit: str | None, extents: tuple[float, float, float]) -> str:
        """The engine's size refusal (ObjectSizeError) in the app's words: the size in the unit
        read (`extents` in the file's own units) and the app's way to choose another."""
        size = mesh_units.size_text(extents, unit or "m")
        name = mesh_units.UNIT_NAMES.get(unit or "m", unit or "metres")
        return (
            f"{p.name} read in {name} is {size}: an object must be "
            f"{MIN_DIAGONAL_M * 1e3:g} mm to {MAX_DIAGONAL_M:g} m across to be grasped. "
            "Open it again and choose the unit it was saved in (File > Reopen with another "
            "unit), or rescale the mesh."
        )

    def open_session(self, path: Path) -> bool:
        """Open a saved session (its runs, frames and camera), read in the reading worker."""
        allowed: set[str] = set()
        refused: set[str] = set()
        while True:
            job = ReadSessionJob(0, str(path), frozenset(allowed), frozenset(refused))
            answer = self.reader.read(job, f"Reading {path.name}")
            if answer is None:
                return self._cancelled(path)
            if answer.ask_outside is None:
                break
            outside = answer.ask_outside  # asked once per file, then read again
            (allowed if self._read_outside(path, Path(outside)) else refused).add(outside)
        exc = answer.error
        if answer.value is None:
            text = str(exc) if isinstance(exc, IpcGraspError) else f"{type(exc).__name__}: {exc}"
            self.ui.error("Cannot open the session", text)
            return False
        session, mesh, note, poses = cast(
            "tuple[Session, ObjectMesh, str, list[StablePose]]", answer.value
        )
        try:
            doc = Document.from_session(session, mesh, path, poses, answer.pose_choices)
        except IpcGraspError as exc:
            self.ui.error("Cannot open the session", str(exc))
            return False
        if note:
            self.ui.warning("Session object", note.capitalize())
        ok = self.set_document(doc, path.name, keep_run=True)
        if ok:
            self.add_recent(path)
            if doc.run is not None and doc.run.trials:
                self.ui.status(f"opened {path.name}: {success_summary(doc.run.trials.values())}")
            camera = session.extras.get("camera")
            if camera:
                try:
                    self.viewport.plotter.camera_position = [tuple(v) for v in camera]
                except (TypeError, ValueError):
                    pass
        return ok

    def _read_outside(self, session_path: Path, mesh_path: Path) -> bool:
        """Ask before reading a mesh file outside the session's folder (a session is a file
        anyone may have sent; No opens the copy of the mesh saved in the session)."""
        answer = self.ui.question(
            "Session object",
            f"{session_path.name} names the object file {mesh_path}, outside the session's "
            f"folder {session_path.parent}. Read that file?\n\nNo opens the copy of the mesh "
            "saved in the session.",
        )
        return answer == QMessageBox.StandardButton.Yes

    def set_document(self, doc: Document, label: str, keep_run: bool = False) -> bool:
        """Show `doc`'s object and make it the model's document."""
        try:
            self.viewport.show_object(doc.obj)
        except Exception as exc:
            log.exception("showing the object failed")
            self.ui.error("Cannot show the object", f"{type(exc).__name__}: {exc}")
            return False
        self.clear_undo()
        self.model.set_document(doc, keep_run)
        self.set_title(label)
        next_step = (
            ""
            if doc.run is not None
            else "; F5 simulates, a right-click places the grasp, F1 lists the keys"
        )
        self._status(
            f"opened {label}: {len(doc.mesh.vertices)} vertices, {len(doc.pose_choices)} resting poses"
            + next_step
        )
        return True

    # --- recent files and drops ---------------------------------------------------------------
    def add_recent(self, path: Path) -> None:
        """Put `path` first in File > Open recent."""
        app_settings.add_recent_file(path)
        self.refresh_recent_menu()

    def refresh_recent_menu(self) -> None:
        """Rebuild File > Open recent from the settings."""
        self.recent_menu.clear()
        files = app_settings.recent_files()
        for f in files:
            a = self.recent_menu.addAction(Path(f).name)
            a.setToolTip(f)
            a.triggered.connect(lambda _=False, f=f: self.open_path(f))
        self.recent_menu.setEnabled(bool(files))

    def _on_saved(self, path: Path) -> None:
        self.add_recent(path)
        self.set_title(path.name)

    def drag_enter(self, event: QDragEnterEvent) -> None:
        """Accept a drag that carries a local file."""
        urls = event.mimeData().urls()
        if urls and urls[0].isLocalFile():
            event.acceptProposedAction()

    def drop(self, event: QDropEvent) -> None:
        """Open the first dropped local file."""
        urls = [u for u in event.mimeData().urls() if u.isLocalFile()]
        if urls:
            event.acceptProposedAction()
            # Open after the drop returns: a modal dialog inside a drop handler blocks the source.
            path = urls[0].toLocalFile()
            QTimer.singleShot(0, lambda: self.open_path(path))
