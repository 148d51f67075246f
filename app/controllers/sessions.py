"""Sessions: save / save as, and the questions before results or running trials are dropped."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtWidgets import QMessageBox

from app.model import AppModel
from engine.errors import IpcGraspError
from engine.io.session import SESSION_SUFFIX, SessionError, save_session

if TYPE_CHECKING:  # the window wires these; importing them here would be circular
    from app.sim_pool import SimulationPool
    from app.ui import Feedback

log = logging.getLogger(__name__)
SESSION_FILTER = f"Sessions (*{SESSION_SUFFIX})"
Button = QMessageBox.StandardButton


class SessionController:
    """Saves the model's document; asks Save / Discard / Cancel before results are lost.

    `pool` is the simulation pool (is_running, cancel); `camera` returns the view's camera
    position to store with the session; `ask_replace` and `set_ask_replace` read and write the
    "Ask before replacing unsaved results" preference.
    """

    def __init__(
        self,
        model: AppModel,
        pool: SimulationPool,
        ui: Feedback,
        camera: Callable[[], Any],
        ask_replace: Callable[[], bool],
        set_ask_replace: Callable[[bool], None],
    ) -> None:
        self.model = model
        self.pool = pool
        self.ui = ui
        self.camera = camera
        self.ask_replace = ask_replace
        self.set_ask_replace = set_ask_replace

    def save(self) -> bool:
        """Save to the session's file, or ask for one (Ctrl+S)."""
        d = self.model.doc
        if d is None:
            return False
        if d.path is None:
            return self.save_as()
        if d.replaces_saved_run():
            # A session holds one run: never drop the run saved there without asking.
            assert d.saved_run is not None
            n_current = 0 if d.run is None else len(d.run.trials)
            answer = self.ui.ask_replace_saved_run(
                Path(d.path).name, len(d.saved_run.trials), n_current
            )
            if answer == Button.Cancel:
                self.ui.status("not saved: the session file keeps its earlier run")
                return False
            if answer != Button.Yes:
                return self.save_as(_unused_session_name(Path(d.path)))
        return self.save_session(d.path)

    def save_as(self, proposed: str | None = None) -> bool:
        """Ask for a file name (proposing `proposed`, else one from the object or the session
        file) and save there."""
        d = self.model.doc
        if proposed is None:
            proposed = "" if d is None else d.suggested_path(SESSION_SUFFIX)
        path = self.ui.save_path("Save session", SESSION_FILTER, SESSION_SUFFIX, proposed)
        return self.save_session(path) if path else False

    def save_session(self, path: str | Path) -> bool:
        """Write NAME.ipcgrasp.json + .npz; refused while trials run."""
        d = self.model.doc
        if d is None:
            return False
        if self.pool.is_running():
            self.ui.error(
                "Simulation running", "Wait for the run to finish or cancel it (Esc) before saving."
            )
            return False
        extras = {"camera": [list(v) for v in self.camera()]}
        try:
            # The save dialog asked before replacing; Ctrl+S rewrites the session's own files.
            json_path, _ = save_session(path, d.to_session(extras), overwrite=True)
        except (SessionError, IpcGraspError) as exc:
            self.ui.error("Cannot save the session", str(exc))
            return False
        self.model.mark_saved(json_path)
        self.ui.status(f"session saved to {json_path}")
        return True

    def confirm_discard(self, what: str) -> bool:
        """Ask before dropping running trials or unsaved results; True to go ahead."""
        if self.pool.is_running():
            answer = self.ui.question(
                "Trials running", f"Trials are still running. Stop them and {what}?",
                Button.Yes | Button.No,
            )  # fmt: skip
            if answer != Button.Yes:
                return False
            self.pool.cancel()
        d = self.model.doc
        if d is not None and d.dirty and d.run is not None:
            answer = self.ui.question(
                "Unsaved results",
                f"The simulation results are not saved. Save them before you {what}?",
                Button.Save | Button.Discard | Button.Cancel,
            )
            if answer == Button.Cancel:
                return False
            if answer == Button.Save and not self.save():
                return False
        return True

    def confirm_replace_results(self) -> bool:
        """Before a new run replaces unsaved results: Save / Discard / Cancel, with a
        "don't ask again" box for users who iterate quickly. True to go ahead."""
        d = self.model.doc
        if d is None or d.run is None or not self.model.unsaved_results or not self.ask_replace():
            return True
        answer, remember = self.ui.ask_replace_results(len(d.run.trials))
        if answer == Button.Cancel:
            return False
        if answer == Button.Save and not self.save():
            return False
        if remember:
            self.set_ask_replace(False)  # saves the preference
        return True


def _unused_session_name(path: Path) -> str:
    """A session file name next to `path` that no file uses: study.ipcgrasp.json ->
    study_2.ipcgrasp.json (or _3, ...)."""
    stem = path.name.split(SESSION_SUFFIX)[0] if path.name.endswith(SESSION_SUFFIX) else path.stem
    k = 2
    while (path.parent / f"{stem}_{k}{SESSION_SUFFIX}").exists():
        k += 1
    return str(path.parent / f"{stem}_{k}{SESSION_SUFFIX}")
