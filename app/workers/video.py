"""MP4/GIF export of one trial, rendered off-screen in a spawned process (no Qt there).

Off-screen rendering at ~15 frames/s (llvmpipe) would block the GUI for a minute on a long
trial, so a child process renders with its own pyvista Plotter and reports progress on a queue.
With the view comparing runs side by side, the video does too: the shown trial in the left
half, the pinned one at the same simulated time in the right, one camera for both.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

import numpy as np

from app.gripper_shapes import GripperShapes
from app.model.forces import ForceView
from engine.grasp.frames import Frame

log = logging.getLogger(__name__)


@dataclass(frozen=True, eq=False)
class SideFrame:
    """The pinned trial's frame drawn beside one shown frame (plain arrays)."""

    pad_vertices: tuple[np.ndarray, np.ndarray]
    object_pose: np.ndarray  # 4x4
    plate_matrices: tuple[np.ndarray, np.ndarray] | None  # None: its plates are not drawn
    fields: tuple[np.ndarray, np.ndarray] | None  # per pad vertex, on the shown trial's scale
    label: str  # its time, phase and grip forces


@dataclass(frozen=True, eq=False)
class SideBySide:
    """A pinned trial beside the shown one: its pads' triangles, the two halves' titles (shown,
    pinned) and its frame for each shown frame (None where it has none; at least one is not)."""

    pad_faces: np.ndarray
    titles: tuple[str, str]
    frames: list[SideFrame | None]


@dataclass(frozen=True, eq=False)
class VideoJob:
    """Everything the video process needs to draw one trial (plain arrays, no VTK)."""

    path: str
    object_vertices: np.ndarray
    object_faces: np.ndarray
    shapes: GripperShapes
    gripper_pose: np.ndarray
    frames: list[Frame]
    fields: list[tuple[np.ndarray, np.ndarray]] | None  # per frame, per pad (colour mode on)
    field_max: float
    camera_position: Any
    window_size: tuple[int, int]
    fps: int = 20
    title: str = ""
    view_angle_deg: float = 30.0  # the view's camera zoom (pyvista's zoom narrows the angle)
    field_title: str = ""  # the colour bar's title ("" without colours)
    forces: ForceView | None = None  # draw the contact forces as the view does (None: no)
    side: SideBySide | None = None  # a pinned trial in the right half (None: the whole frame)


def even_size(width: int, height: int, block: int = 16) -> tuple[int, int]:
    """Frame size rounded down to whole macro-blocks (H.264 needs even sizes; imageio would
    otherwise rescale to multiples of 16 with a warning)."""
    return max(block, width // block * block), max(block, height // block * block)


def render_video(job: VideoJob, progress: Any, cancel: Any) -> None:
    """Render every frame of `job` into its file; puts ("progress", i, n), then ("done", path,
    frames) or ("error", message) or ("cancelled", frames) on `progress`."""
    import pyvista as pv

    from app.workers.simulation import lower_priority

    lower_priority()

    from app.force_arrows import ForceArrowLayer
    from app.scene_style import (
        BACKGROUND,
        GRID_COLOR,
        GROUND_COLOR,
        OBJECT_COLOR,
        PAD_COLOR,
        PLATE_COLOR,
        ground_plane,
    )
    from app.scene_style import polydata as _polydata

    try:
        side = job.side
        pl = pv.Plotter(
            off_screen=True, window_size=list(job.window_size), shape=(1, 2) if side else (1, 1),
            border=side is not None, border_color="#9a9a9a",
        )  # fmt: skip
        pl.renderers.set_background(BACKGROUND[0], top=BACKGROUND[1])
        v = np.asarray(job.object_vertices)
        colored = job.fields is not None

        def scene(pad_faces: np.ndarray, pad_points: Any) -> tuple[Any, list, list]:
            """The view's scene in the active subplot: unlit ground with its grid, the
            object, the pads (coloured on the shown trial's scale) and the plates."""
            ground = ground_plane(v)
            pl.add_mesh(ground, color=GROUND_COLOR, lighting=False)
            pl.add_mesh(ground, style="wireframe", color=GRID_COLOR, line_width=1, lighting=False)
            obj = pl.add_mesh(_polydata(v, job.object_faces), color=OBJECT_COLOR)
            pads, plates = [], []
            for k in (0, 1):
                poly = _polydata(pad_points[k], pad_faces)
                poly.point_data["field"] = np.zeros(poly.n_points)
                a = pl.add_mesh(
                    poly, scalars="field", cmap="YlOrRd", clim=[0.0, job.field_max or 1.0],
                    show_scalar_bar=False, smooth_shading=False,
                )  # fmt: skip
                a.mapper.scalar_visibility = colored
                a.prop.color = PAD_COLOR
                pads.append((poly, a))
                plates.append(
                    pl.add_mesh(
                        _polydata(job.shapes.plate_local[k], job.shapes.plate_faces),
                        color=PLATE_COLOR,
                    )
                )
            return obj, pads, plates

        # Same framing as the screen: the camera position and view angle come from the view.
        obj_actor, pads, plates = scene(job.shapes.pad_faces, job.shapes.pad_local)
        side_actors = None
        if side is not None:
            pl.add_text(side.titles[0], position="upper_left", font_size=10, color="#222222")
            pl.subplot(0, 1)
            # SideBySide holds at least one pinned frame: its pads give the right half's mesh.
            first = next(f for f in side.frames if f is not None)
            side_actors = scene(side.pad_faces, first.pad_vertices)
            pl.add_text(side.titles[1], position="upper_left", font_size=10, color="#222222")
            pl.link_views()
            pl.subplot(0, 0)
        if colored and job.field_title:
            # At the frame's right edge: in the right half when there are two.
            pl.subplot(0, 1 if side is not None else 0)
            pl.scalar_bars.add_scalar_bar(
                job.field_title, mapper=pads[0][1].mapper, vertical=True,
                position_x=0.78 if side is not None else 0.88,  # room for the labels
                position_y=0.25, height=0.5, width=0.06, n_labels=4, fmt="%.2g",
                color="#222222", title_font_size=12, label_font_size=11, render=False,
            )  # fmt: skip
            pl.subplot(0, 0)
        arrows = ForceArrowLayer(pl) if job.forces is not None else None
        if job.camera_position is not None:
            pl.camera_position = job.camera_position
            pl.camera.view_angle = job.view_angle_deg
        if job.path.lower().endswith(".gif"):
            pl.open_gif(job.path, fps=job.fps)
        else:
            pl.open_movie(job.path, framerate=job.fps, quality=7)
        n = len(job.frames)
        for i, f in enumerate(job.frames):
            if cancel.is_set():
                pl.close()
                progress.put(("cancelled", i))
                return
            for k in (0, 1):
                poly, _ = pads[k]
                poly.points = np.asarray(f.pad_vertices[k], dtype=float)
                if job.fields is not None:
                    poly.point_data["field"] = np.asarray(job.fields[i][k], dtype=float)
                plates[k].user_matrix = job.shapes.plate_matrix(
                    k, job.gripper_pose, f.plate_travel_m, f.plate_lift_m
                )
            obj_actor.user_matrix = np.asarray(f.object_pose)
            if arrows is not None and job.forces is not None:
                arrows.show(f, job.forces)
            if side is not None and side_actors is not None:
                _draw_side(pl, side_actors, side.frames[i], colored)
            pl.add_text(
                f"{job.title}  t = {f.time_s:.3f} s  {f.phase}", position="lower_left",
                font_size=10, name="label", color="#222222",
            )  # fmt: skip
            pl.write_frame()
            progress.put(("progress", i + 1, n))
        pl.close()
        progress.put(("done", job.path, n))
    except Exception as exc:
        log.exception("rendering %s failed", job.path)
        progress.put(("error", f"{type(exc).__name__}: {exc}"))


def _draw_side(pl: Any, actors: tuple[Any, list, list], g: SideFrame | None, colored: bool) -> None:
    """The pinned trial's frame `g` in the right half (hidden where it has none)."""
    obj, pads, plates = actors
    shown = g is not None
    obj.visibility = shown
    for k in (0, 1):
        poly, actor = pads[k]
        actor.visibility = shown
        plates[k].visibility = g is not None and g.plate_matrices is not None
        if g is None:
            continue
        poly.points = np.asarray(g.pad_vertices[k], dtype=float)
        actor.mapper.scalar_visibility = colored and g.fields is not None
        if colored and g.fields is not None:
            poly.point_data["field"] = np.asarray(g.fields[k], dtype=float)
        if g.plate_matrices is not None:
            plates[k].user_matrix = g.plate_matrices[k]
    if g is not None:
        obj.user_matrix = np.asarray(g.object_pose, dtype=float)
    pl.subplot(0, 1)
    pl.add_text(
        g.label if g is not None else "", position="lower_left", font_size=10, name="side_label",
        color="#222222",
    )  # fmt: skip
    pl.subplot(0, 0)
