"""The data-set part of the app's model (Qt-free): the open data set, the grasp of it shown,
the edit that shows a grasp on the document and the replay of its simulated trials.
app.model.app_model.AppModel inherits it; its state (dataset, dataset_index and the events
dataset_changed, dataset_selected, run_loaded) is set up in AppModel.__init__."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

import numpy as np

from app.model.dataset import DataSet, DataSetError, DataSetGrasp, DataSetObject, SimTrial
from app.model.dataset_placement import placement, recorded_trial
from app.model.document import Document, Run
from app.model.edit_state import EditState
from app.model.events import Event
from app.model.pad_fields import PadFields
from app.model.trial_series import TrialSeries
from engine.io.session import TrialRecord


class DataSetBrowsing:
    """The data-set methods of AppModel (see the module's docstring)."""

    doc: Document | None
    dataset: DataSet | None
    dataset_index: int
    dataset_changed: Event
    dataset_selected: Event
    run_loaded: Event
    pads: PadFields
    run_counter: int
    series: dict[int, TrialSeries]
    trial: int

    if TYPE_CHECKING:  # AppModel's own

        def edit_state(self) -> EditState: ...

        def select_trial(self, trial: int) -> None: ...

    def set_dataset(self, dataset: DataSet | None) -> None:
        """Make `dataset` the open data set (None closes it)."""
        self.dataset = dataset
        self.dataset_index = -1
        self.dataset_changed.emit(dataset)

    def dataset_object(self) -> DataSetObject | None:
        """The data set's object that the document shows, if any (same mesh, same vertices)."""
        d, ds = self.doc, self.dataset
        if d is None or ds is None:
            return None
        for obj in ds.objects.values():
            m = obj.mesh
            if m is d.mesh or (
                m.source == d.mesh.source
                and m.vertices.shape == d.mesh.vertices.shape
                and np.array_equal(m.vertices, d.mesh.vertices)
            ):
                return obj
        return None

    def dataset_edit(self, g: DataSetGrasp) -> tuple[EditState, bool] | None:
        """The edit that shows data-set grasp `g` on the document (its object must be the
        document's): the stable pose resting on the grasp's support face, the grasp placed on
        it, the grasp's mass (app.model.dataset_placement.placement); and whether that is the grasp's own
        resting (the same trial up to a turn about the vertical). None when it cannot be shown."""
        d, obj = self.doc, self.dataset_object()
        if d is None or obj is None or obj.key != g.object_key or g.mesh_pose is None:
            return None
        p = placement(obj, g, d)
        state = replace(
            self.edit_state(), grasp=p.grasp, pose_index=p.pose_index, density_kg_m3=p.density_kg_m3
        )
        return state, p.same_support

    def select_dataset_grasp(self, index: int) -> None:
        """Note that data-set grasp `index` is the one shown (-1: none)."""
        self.dataset_index = index
        self.dataset_selected.emit(index)

    def selected_dataset_grasp(self) -> DataSetGrasp | None:
        """The data-set grasp shown, if any."""
        ds = self.dataset
        if ds is None or not 0 <= self.dataset_index < len(ds.grasps):
            return None
        return ds.grasps[self.dataset_index]

    def load_recorded_trial(self, trial: SimTrial) -> TrialRecord:
        """Replay a data-set trial's frames: they become the current run (nothing to save:
        the frames file is the record), placed on the document's object as it rests, and the
        timeline shows them. Raises ParameterError for a frames file that does not load."""
        d = self.doc
        assert d is not None
        rec, params = recorded_trial(trial, np.asarray(d.obj.vertices))
        pad = self.pads.pad
        n = len(rec.frames[0].pad_vertices[0]) if rec.frames else 0
        if pad is not None and n and n != len(pad.vertices):
            raise DataSetError(
                f"the trial's pads have {n} vertices, the pads of the current parameters "
                f"{len(pad.vertices)}: set the pad preset and mesh size it was simulated with "
                "(its row's param_pad and param_pad_edge_length_m) to replay it"
            )
        self.run_counter += 1
        spec = replace(d.spec, n_trials=max(d.spec.n_trials, rec.trial + 1))
        run = Run(self.run_counter, d.grasp, params or d.params, spec, {rec.trial: rec}, obj=d.obj)
        d.run = run
        d.dirty = False
        self.series = {rec.trial: TrialSeries.from_frames(rec.frames)}
        self.pads.reset_ranges()
        self.trial = -1
        self.run_loaded.emit(run)
        self.select_trial(rec.trial)
        return rec
