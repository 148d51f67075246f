"""Opening: mesh files, sessions, the example cube, drag and drop and the recent-files menu."""

from __future__ import annotations

import logging
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

import numpy as np
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QMenu, QMessageBox

from app import mesh_units
from app import settings as app_settings
from app.controllers.default_grasp import FINDING, setting_in_app_words
from app.controllers.sessions import SESSION_FILTER
from app.model import AppModel, Document
from app.model.app_model import success_summary
from engine.errors import IpcGraspError, MeshError
from engine.io.session import (
    ARRAYS_SUFFIX,
    NEXT_ARRAYS_SUFFIX,
    SessionError,
    load_session,
    resolve_object,
)
from engine.scene.mesh_repair import SeveralBodiesError
from engine.scene.object_mesh import (
    MAX_DIAGONAL_M,
    MIN_DIAGONAL_M,
    UNIT_SCALE_M,
    ObjectSizeError,
)

log = logging.getLogger(__name__)
MESH_FILTER = "Meshes (*.obj *.stl *.ply *.off *.glb)"


class OpenController:
    """Loads documents into the model; errors go to a dialog, never an exception.

    `confirm_discard(what)` asks before unsaved results or running trials are dropped;
    `viewport` shows the object (a failure there keeps the previous document); `clear_undo`
    empties the undo stack; `set_title` names the window after the file.
    """

    def __init__(
        self, model: AppModel, viewport: Any, ui: Any, confirm_discard: Callable[[str], bool],
        clear_undo: Callable[[], None], set_title: Callable[[str], None], recent_menu: QMenu,
    ) -> None:  # fmt: skip
        self.model = model
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
        ask_body: bool = False, pose_index: int = 0,
    ) -> bool:  # fmt: skip
        """Open a mesh file or a session; errors go to a dialog, never an exception.

        A mesh's length unit is `unit`, else the one chosen for this file before, else metres
        when that gives a graspable size; otherwise (or with `ask_unit`) the user chooses it,
        with the unit its size suggests preselected. A file holding several bodies opens the
        body chosen for it before, else (or with `ask_body`) the user chooses one. Both choices
        are remembered per file (app.settings.MESH_UNIT, MESH_BODY). The default grasp is found
        in a worker process afterwards (DefaultGraspController)."""
        p = Path(path)
        if not self.confirm_discard("open another file"):
            return False
        if p.name.endswith((".json", ARRAYS_SUFFIX, NEXT_ARRAYS_SUFFIX)):
            return self.open_session(p)
        if unit is None:
            unit = app_settings.MESH_UNIT.get(p) if not ask_unit else None
            if unit is None:
                extents = mesh_units.file_extents(p)
                diagonal = math.hypot(*extents) if extents is not None else math.nan
                if extents is not None and (ask_unit or not mesh_units.plausible(diagonal, "m")):
                    unit = self._ask_unit(p, extents, diagonal)
                    if unit is None:
                        self.ui.status(f"opening {p.name} cancelled")
                        return False
        body: str | None = None
        try:
            try:
                doc = Document.open_object(str(p), unit, find_default=False)
            except SeveralBodiesError as several:
                bodies = [b for b in several.bodies if b.startswith("body ")]
                body = None if ask_body else app_settings.MESH_BODY.get(p)
                if (
                    body is not None
                    and body != "all"
                    and not (body.isdigit() and int(body) < len(bodies))
                ):
                    body = None  # the file has changed since: ask again
                if body is None:
                    body = self.ui.choose_body(p.name, bodies, self._open_body(p))
                if body is None:
                    self.ui.status(f"opening {p.name} cancelled")
                    return False
                doc = Document.open_object(str(p), unit, body=body, find_default=False)
            if 0 < pose_index < len(doc.poses):  # the resting pose kept (another unit)
                doc.set_pose(pose_index, find_default=False)
        except ObjectSizeError:
            self.ui.error("Cannot open the mesh", self._size_refusal(p, unit))
            return False
        except MeshError as exc:
            self.ui.error("Cannot open the mesh", exc.render(setting_in_app_words))
            return False
        except IpcGraspError as exc:
            self.ui.error("Cannot open the mesh", str(exc))
            return False
        except Exception as exc:  # a reader bug must not take the app down
            log.exception("reading %s failed", p)
            self.ui.error("Cannot open the mesh", f"{type(exc).__name__}: {exc}")
            return False
        ok = self.set_document(doc, p.name)
        if ok:
            self.add_recent(p)
            if body is not None:
                app_settings.MESH_BODY.set(p, body)
            if unit is not None:
                app_settings.MESH_UNIT.set(p, unit)
                self._status(
                    f"opened {p.name} in {mesh_units.UNIT_NAMES[unit]}: "
                    f"{mesh_units.size_text(tuple(np.ptp(doc.mesh.vertices, axis=0)), 'm')}; "
                    "File > Reopen with another unit changes it"
                )
        return ok

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

    def _ask_unit(
        self, p: Path, extents: tuple[float, float, float], diagonal: float
    ) -> str | None:
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
        return cast("str | None", self.ui.choose_unit(p.name, choices, suggested, note))

    @staticmethod
    def _size_refusal(p: Path, unit: str | None) -> str:
        """The engine's size refusal (ObjectSizeError) in the app's words: the size in the unit
        read and the app's way to choose another."""
        extents = mesh_units.file_extents(p)
        size = mesh_units.size_text(extents, unit or "m") if extents else "of an unusual size"
        name = mesh_units.UNIT_NAMES.get(unit or "m", unit or "metres")
        return (
            f"{p.name} read in {name} is {size}: an object must be "
            f"{MIN_DIAGONAL_M * 1e3:g} mm to {MAX_DIAGONAL_M:g} m across to be grasped. "
            "Open it again and choose the unit it was saved in (File > Reopen with another "
            "unit), or rescale the mesh."
        )

    def open_session(self, path: Path) -> bool:
        """Open a saved session (its runs, frames and camera)."""
        try:
            session = load_session(path)
            mesh, note = resolve_object(
                session, path, allow_outside=lambda mesh_path: self._read_outside(path, mesh_path)
            )
            doc = Document.from_session(session, mesh, path)
        except (SessionError, IpcGraspError) as exc:
            self.ui.error("Cannot open the session", str(exc))
            return False
        except Exception as exc:
            log.exception("reading the session %s failed", path)
            self.ui.error("Cannot open the session", f"{type(exc).__name__}: {exc}")
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
            f"opened {label}: {len(doc.mesh.vertices)} vertices, {len(doc.poses)} stable poses"
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

    def drag_enter(self, event: Any) -> None:
        """Accept a drag that carries a local file."""
        urls = event.mimeData().urls()
        if urls and urls[0].isLocalFile():
            event.acceptProposedAction()

    def drop(self, event: Any) -> None:
        """Open the first dropped local file."""
        urls = [u for u in event.mimeData().urls() if u.isLocalFile()]
        if urls:
            event.acceptProposedAction()
            # Open after the drop returns: a modal dialog inside a drop handler blocks the source.
            path = urls[0].toLocalFile()
            QTimer.singleShot(0, lambda: self.open_path(path))
