"""Small gripper glyphs: the sampled grasps (coloured by quality) and a data set's grasps
(coloured by outcome, the one shown outlined). The view picks them by their actor's cells."""

from __future__ import annotations

import numpy as np
import pyvista as pv

from app.scene_style import (
    CANDIDATE_CMAP,
    DATASET_SELECTED_COLOR,
    UNKNOWN_COLOR,
    candidate_glyphs,
    gripper_glyphs,
)
from app.visuals.base import Visual

DATASET_TUBES_MAX = 300  # data-set glyphs drawn as tubes up to this many grasps, else lines


class GlyphVisual(Visual):
    """Glyphs in one actor called `name`; `poly` the glyph lines drawn (the picker's cell ids
    index it: an actor's mapper.dataset may be the output of pyvista's scalars filter, empty
    until rendered), `indices` the grasp each glyph stands for, `index_name` its cell data."""

    name = ""
    index_name = "glyph"
    poly: pv.PolyData | None = None
    indices: list[int]

    def forget(self) -> None:
        self.poly, self.indices = None, []

    @property
    def actor(self) -> pv.Actor | None:
        """The glyphs' actor, None when none are drawn."""
        return self.scene.actors.get(self.name) if self.poly is not None else None

    def clear(self) -> None:
        """Remove the glyphs."""
        self.scene.remove(self.name)
        self.forget()

    def index_of_cell(self, cell: int) -> int | None:
        """The grasp index of the glyph holding line `cell` of `poly`."""
        if self.poly is None or not 0 <= cell < self.poly.n_cells:
            return None
        return self.indices[int(self.poly.cell_data[self.index_name][cell])]


class CandidatesVisual(GlyphVisual):
    """Sampled grasps (Edit > Sample grasps), red (lowest quality) to green."""

    name = "candidates"
    index_name = "candidate"

    def show(self, candidates: list) -> None:
        """Draw engine GraspCandidates ([] removes them)."""
        self.clear()
        if not candidates:
            return
        poly = candidate_glyphs(candidates)
        q = np.asarray(poly.cell_data["quality"])
        lo, hi = float(q.min()), float(q.max())
        self.scene.add_mesh(
            poly, scalars="quality", preference="cell", cmap=CANDIDATE_CMAP,
            clim=(lo, hi if hi > lo else lo + 1.0), line_width=4,
            render_lines_as_tubes=True, show_scalar_bar=False, name=self.name,
        )  # fmt: skip
        self.poly, self.indices = poly, list(range(len(candidates)))


class DatasetVisual(GlyphVisual):
    """A data set's grasps, red (failed) to green (lifted), grey when unknown."""

    name = "dataset"
    # The arrays last drawn and their glyphs: the same arrays again (another resting pose)
    # reuse the glyphs.
    _cached: tuple[np.ndarray, np.ndarray, pv.PolyData] | None = None

    def show(
        self,
        indices: list[int],
        poses: np.ndarray | None,
        widths: np.ndarray | None,
        values: np.ndarray | None,
        transform: np.ndarray | None = None,
    ) -> None:
        """`poses` (N,4,4) in the object's mesh frame, placed by `transform` (mesh -> resting
        frame), `values` in [0, 1] red to green, NaN grey; `indices` their data-set indices
        ([] removes them)."""
        matrix = np.eye(4) if transform is None else np.asarray(transform)
        cached = self._cached
        if not len(indices) or poses is None or widths is None or values is None:
            self._cached = None
        elif cached is None or cached[0] is not poses or cached[1] is not values:
            self._cached = (poses, values, gripper_glyphs(poses, widths, values))
        elif self.actor is not None:
            self.actor.user_matrix = matrix  # the glyphs drawn, the object resting otherwise
            return
        self.clear()
        if self._cached is None:
            return
        poly = self._cached[2]
        # Tubes read best, but cost ~0.1 ms per glyph per render with software GL: many
        # glyphs are drawn as thin lines.
        many = len(indices) > DATASET_TUBES_MAX
        actor = self.scene.add_mesh(
            poly, scalars="value", preference="cell", cmap=CANDIDATE_CMAP, clim=(0.0, 1.0),
            nan_color=UNKNOWN_COLOR, line_width=1 if many else 3,
            render_lines_as_tubes=not many, show_scalar_bar=False, name=self.name,
        )  # fmt: skip
        actor.user_matrix = matrix
        self.poly, self.indices = poly, list(indices)


class DatasetSelectionVisual(Visual):
    """The outline of the data-set grasp shown."""

    _key: tuple[bytes, float] | None = None  # the grasp outlined

    def forget(self) -> None:
        self._key = None

    def show(self, pose: np.ndarray | None, width: float = 0.0) -> None:
        """Outline the glyph of the grasp at `pose` of contact `width` (None removes it)."""
        key = None if pose is None else (np.asarray(pose).tobytes(), float(width))
        if key is not None and key == self._key and self.scene.has("dataset_selected"):
            return  # drawn already
        self._key = key
        self.scene.remove("dataset_selected")
        if pose is not None:
            poly = gripper_glyphs(np.asarray(pose)[None], np.array([width]), np.zeros(1))
            self.scene.add_mesh(
                poly, color=DATASET_SELECTED_COLOR, line_width=7, render_lines_as_tubes=True,
                pickable=False, name="dataset_selected",
            )  # fmt: skip
