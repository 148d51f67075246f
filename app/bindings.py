"""Views subscribe to the model here: the docks, the runs table, the run actions and the
progress bar follow the model's events (the window never pushes values into them)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from app.model import AppModel, Document, Run
from engine.grasp.pad_strain import pad_strain_advice
from engine.io.session import TrialRecord

if TYPE_CHECKING:  # the window wires these
    from PySide6.QtGui import QAction
    from PySide6.QtWidgets import QProgressBar

    from app.controllers.editing import EditController
    from app.grasp_dock import GraspDock
    from app.param_dock import ParamDock
    from app.tables import RunsTable


def bind_grasp_dock(model: AppModel, dock: GraspDock, editing: EditController) -> None:
    """Object info, pose list and grasp fields follow the model; edits go to `editing`."""

    def object_info(doc: Document) -> None:
        ext = np.ptp(np.asarray(doc.obj.vertices), axis=0) * 1e3
        info = f"{ext[0]:.1f} x {ext[1]:.1f} x {ext[2]:.1f} mm, {doc.obj.mass_kg * 1e3:.3g} g"
        unit = "" if doc.unit in (None, "m") else f" (unit {doc.unit})"
        selected = doc.pose_choice_of(doc.pose_index)
        dock.set_object(doc.display_name + unit, info, doc.pose_choices, selected)

    def on_document(doc: Document) -> None:
        object_info(doc)
        dock.set_grasp(doc.grasp)

    def on_edited(object_changed: bool) -> None:
        d = model.doc
        if d is None:
            return
        if object_changed:
            object_info(d)
        dock.set_grasp(d.grasp)

    model.document_changed.connect(on_document)
    model.edited.connect(on_edited)
    dock.grasp_edited.connect(lambda g: editing.set_grasp(g, "edit grasp", merge="grasp_fields"))
    dock.pose_selected.connect(editing.set_stable_pose)
    dock.default_requested.connect(editing.default_grasp)


def bind_param_dock(model: AppModel, dock: ParamDock, editing: EditController) -> None:
    """Parameter fields follow the model; edits go to `editing`, refusals show the reason."""

    def show_values(*_args: object) -> None:
        d = model.doc
        if d is None:
            return
        dock.set_values(
            d.params, d.spec.n_trials, d.spec.seed, d.analytic_force_n, d.obj.density_kg_m3,
            model.pads.resolution(),
        )  # fmt: skip
        dock.show_advice(pad_strain_advice(d.params) or "")

    def on_message(text: str, name: str = "") -> None:
        dock.show_message(text, name)  # at the field; the controller puts it on the status line
        if text:
            show_values()  # put the field back to the valid value

    model.document_changed.connect(show_values)
    model.edited.connect(show_values)
    model.psi_force_changed.connect(dock.show_psi_force)
    editing.param_message.connect(on_message)
    dock.edited.connect(editing.edit_param)
    dock.refused.connect(editing.refuse)  # a typed value out of the field's range


def bind_runs_table(model: AppModel, table: RunsTable) -> None:
    """One row per trial of the current run; selecting a row selects the trial."""

    def records(run: Run | None) -> list[TrialRecord]:
        return [] if run is None else [run.trials[k] for k in sorted(run.trials)]

    model.document_changed.connect(lambda doc: table.set_trials(records(doc.run)))
    model.run_started.connect(lambda run: table.set_trials(records(run)))
    model.run_loaded.connect(lambda run: table.set_trials(records(run)))
    model.trial_updated.connect(table.update_trial)
    model.trial_selected.connect(lambda trial, _series: table.select_trial(trial))
    table.trial_selected.connect(model.select_trial)


def bind_run_controls(
    model: AppModel, simulate: QAction, cancel: QAction, progress: QProgressBar
) -> None:
    """Simulate/Cancel enabled state and the progress bar follow the run."""

    def started(run: Run) -> None:
        simulate.setEnabled(False)
        cancel.setEnabled(True)
        progress.setVisible(True)
        progress.setRange(0, len(run.trials))
        progress.setValue(0)

    def finished(_run: Run | None, _cancelled: bool) -> None:
        simulate.setEnabled(True)
        cancel.setEnabled(False)
        progress.setVisible(False)

    model.run_started.connect(started)

    def trial_updated(_rec: TrialRecord) -> None:
        # QProgressBar.setValue repaints at once (a composition of the whole window in GL,
        # inside the pump that received the trial's end); with updates off it only schedules a
        # repaint, which joins the display clock's next composition.
        progress.setUpdatesEnabled(False)
        progress.setValue(model.trials_ended())
        progress.setUpdatesEnabled(True)

    model.trial_updated.connect(trial_updated)
    model.run_finished.connect(finished)
