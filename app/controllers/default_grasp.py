"""The default grasp, found in a worker process: a file opened or a resting pose chosen gets a
ProvisionalGrasp at once, and the grasp found replaces it when the worker answers."""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject

from app.model import AppModel, ProvisionalGrasp
from app.undo import StateCommand
from app.worker_client import WorkerClient
from app.workers.messages import DefaultGraspFound, DefaultGraspJob
from app.workers.sampling import sample_main
from engine.errors import Setting
from engine.grasp.default_grasp import THROUGH_CENTRE
from engine.grasp.grasp import Grasp

if TYPE_CHECKING:  # the window wires these; importing them here would be circular
    from PySide6.QtGui import QUndoStack

    from app.ui import Feedback

log = logging.getLogger(__name__)

PUMP_INTERVAL_MS = 20
NICE = 10
"""The worker's niceness: below the GUI (0), so the event loop keeps the CPU it needs, and
above the simulation and analysis workers (19), which on two cores would otherwise stretch a
one-second search to several."""
FINDING = "finding a grasp that fits the gripper…"
"""What the status line and the grasp dock say while the default grasp is being found."""


# Where the app's controls for the settings an engine message names are (the command line
# says their flags instead: engine.errors.Setting.cli_words).
_CONTROLS = {
    "gripper": "Parameters > Gripper",
    "stable_pose": "Object and grasp > Resting pose",
    "unit": "File > Reopen with another unit",
    "body": "File > Reopen with another body",
}


def setting_in_app_words(setting: Setting) -> str:
    """A setting an engine message names, as the app's control: a gripper preset "the Franka
    Hand, 80 mm (Parameters > Gripper)", the resting pose "the resting pose (Object and grasp >
    Resting pose)", a parameter by its label in the parameter dock."""
    control = _CONTROLS.get(setting.name)
    if control is None:
        label = _parameter_label(setting.name)
        return f"{label} (Parameters)" if label else setting.cli_words()
    if setting.name == "gripper" and setting.note:
        return f"the {setting.note} ({control})"
    what = setting.name.replace("_", " ")
    return f"another {what} ({control})" if setting.value is None else f"the {what} ({control})"


def _parameter_label(name: str) -> str:
    """The parameter dock's label of SimulationParams field `name` ("" if it is none)."""
    from engine import schema
    from engine.grasp.params import SimulationParams

    for d in schema.declared(SimulationParams):
        if d.name == name:
            return d.spec.label
    return ""


def problem_text(msg: DefaultGraspFound) -> str:
    """Why no grasp fits, naming the app's controls (the command line's flags when the engine
    gave no fields)."""
    return msg.problem.render(setting_in_app_words) if msg.problem is not None else msg.error


def found_text(msg: DefaultGraspFound) -> str:
    """The status line for a default grasp found: how it was chosen and, when even it cannot
    carry the object's weight, the engine's warning naming the grippers whose grasp can."""
    if msg.how == THROUGH_CENTRE:
        text = f"default grasp {THROUGH_CENTRE} (checked in {msg.seconds:.1f} s)"
    else:
        text = f"default grasp: the {msg.how}, found in {msg.seconds:.1f} s"
    if msg.weak is not None:
        text += f". Warning: {msg.weak.render(setting_in_app_words)}"
    return text


class DefaultGraspController(QObject):
    """Finds the default grasp (engine.analytic.ranking.default_grasp_for: through the centre
    of mass when it fits, else the best sampled grasp: 0.2-1.5 s) in its own worker process,
    never on the GUI thread.

    Whenever the model's grasp is a ProvisionalGrasp (a file opened, a pose chosen, an undo
    back to one), a job for it is sent; the newest job wins and the answer to any other is
    ignored. The answer replaces that provisional grasp wherever it is: the document's grasp
    and the states of the undo history (so undo and redo of "rest on pose K" give the grasp
    found, and opening a file adds no undo step). When no grasp fits the gripper, the
    provisional grasp stays as a plain Grasp (checked and drawn red) and the status line shows
    the engine's reason, which names a preset whose stroke fits. A worker that dies is
    restarted and the job sent again once.
    """

    def __init__(
        self, model: AppModel, undo_stack: QUndoStack, ui: Feedback, parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self.model = model
        self.undo_stack = undo_stack
        self.ui = ui
        self.client = WorkerClient(
            self, "ipcgrasp-default-grasp", sample_main, self._on_answer, poll_ms=PUMP_INTERVAL_MS,
            args=lambda p: (p.inbox, p.outbox, NICE), retries=1, on_died=self._worker_died,
        )  # fmt: skip
        self._target: ProvisionalGrasp | None = None  # the provisional grasp being resolved
        self.last_message = ""  # the status of the last answer (tests, tools)
        model.document_changed.connect(lambda _doc: self._follow())
        model.edited.connect(lambda _changed: self._follow())

    @property
    def busy(self) -> bool:
        """True while a default grasp is being found."""
        return self._target is not None

    @property
    def results_ignored(self) -> int:
        """Answers that came for a stale request (tests, tools)."""
        return self.client.stale_answers

    def start(self) -> None:
        """Spawn the worker process now (the app does this at start: the first file opened
        then waits for the search only, not for a new interpreter)."""
        self.client.start()

    def shutdown(self) -> None:
        """Stop polling and the worker process."""
        self._target = None
        self.client.shutdown(timeout_s=1.0)

    # --- requests -----------------------------------------------------------------------------
    def _follow(self) -> None:
        """Search for the current provisional grasp; forget a search the user has left."""
        d = self.model.doc
        grasp = None if d is None else d.grasp
        if isinstance(grasp, ProvisionalGrasp):
            if grasp is not self._target:
                self._find(grasp)
        elif self._target is not None:
            # Another object, an undo, a grasp placed by hand: the answer will be stale.
            log.info("default grasp search %d left: the grasp changed", self.client.latest)
            self._target = None
            self.client.forget()

    def _find(self, provisional: ProvisionalGrasp) -> None:
        d = self.model.doc
        assert d is not None
        self._target = provisional
        self.client.submit(DefaultGraspJob(self.client.new_request(), d.obj, d.params, 0))
        self.ui.status(
            f"{FINDING[:-1]} ({d.params.preset.label}, {d.params.open_width_m * 1e3:.0f} mm)…"
        )

    # --- answers ------------------------------------------------------------------------------
    def _on_answer(self, msg: object) -> None:
        if isinstance(msg, DefaultGraspFound) and self._target is not None:
            self._answer(msg)

    def _worker_died(self, job: DefaultGraspJob | None, how: str) -> None:
        """The worker died again with the job sent twice (WorkerClient restarts it)."""
        if self._target is None or job is None:
            return
        self._resolve(
            self._target, self._target.resolved(), f"finding the default grasp failed: the worker "
            f"process died twice ({how}); place a grasp with a right-click or Edit > Sample grasps",
        )  # fmt: skip

    def _answer(self, msg: DefaultGraspFound) -> None:
        target = self._target
        assert target is not None
        if msg.grasp is None:
            self._resolve(target, target.resolved(), problem_text(msg))
            return
        if msg.weak is not None:
            log.warning("default grasp %d: %s", msg.request, msg.weak)
            words = msg.weak.render(setting_in_app_words)
            self.model.default_warning = (msg.grasp, words)
        self._resolve(target, msg.grasp, found_text(msg))

    def _resolve(self, provisional: ProvisionalGrasp, grasp: Grasp, text: str) -> None:
        """Put `grasp` where `provisional` is: in the undo history's states and, when it is
        current, in the document (an edit that is not an undo step)."""
        self._target = None
        self.last_message = text
        for k in range(self.undo_stack.count()):
            cmd = self.undo_stack.command(k)
            if isinstance(cmd, StateCommand):
                if cmd.old.grasp is provisional:
                    cmd.old = replace(cmd.old, grasp=grasp)
                if cmd.new.grasp is provisional:
                    cmd.new = replace(cmd.new, grasp=grasp)
        d = self.model.doc
        if d is not None and d.grasp is provisional:
            self.model.apply_edit(replace(self.model.edit_state(), grasp=grasp))
        self.ui.status(text)
