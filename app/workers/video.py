"""MP4/GIF export of one trial, rendered off-screen in a spawned process (no Qt there).

Off-screen rendering at ~15 frames/s (llvmpipe) would block the GUI for a minute on a long
trial, so a child process renders with its own pyvista Plotter and reports progress on a queue.
With the view comparing runs side by side, the video does too: the shown trial in the left
half, the pinned one at the same simulated time in the right, one camera for both.
"""

from __future__ import annotations

import logging
from typing import Any

import numpy as np

from app.workers.video_job import SideFrame, VideoJob

log = logging.getLogger(__name__)


def render_video(job: VideoJob, progress: Any, cancel: Any) -> None:
    """Render every frame of `job` into its file; puts ("progress", i, n), then ("done", path,
    frames) or ("error", message) or ("cancelled", frames) on `progress`."""
    from app.workers.simulation import lower_priority

    lower_priority()
    try:
        _render(job, progress, cancel)
    except Exception as exc:
        log.exception("rendering %s failed", job.path)
        progress.put(("error", f"{type(exc).__name__}: {exc}"))


def _render(job: VideoJob, progress: Any, cancel: Any) -> None:
    """Set up the off-screen plotter as the view is, then write the frames (render_video)."""
    import pyvista as pv

    from app.force_arrows import ForceArrowLayer
    from app.scene_style import BACKGROUND

    side = job.side
    pl = pv.Plotter(
        off_screen=True, window_size=list(job.window_size), shape=(1, 2) if side else (1, 1),
        border=side is not None, border_color="#9a9a9a",
    )  # fmt: skip
    pl.renderers.set_background(BACKGROUND[0], top=BACKGROUND[1])
    # Same framing as the screen: the camera position and view angle come from the view.
    obj_actor, pads, plates = _scene(pl, job, job.shapes.pad_faces, job.shapes.pad_local)
    side_actors = None
    if side is not None:
        pl.add_text(side.titles[0], position="upper_left", font_size=10, color="#222222")
        pl.subplot(0, 1)
        # SideBySide holds at least one pinned frame: its pads give the right half's mesh.
        first = next(f for f in side.frames if f is not None)
        side_actors = _scene(pl, job, side.pad_faces, first.pad_vertices)
        pl.add_text(side.titles[1], position="upper_left", font_size=10, color="#222222")
        pl.link_views()
        pl.subplot(0, 0)
    if job.fields is not None and job.field_title:
        _colour_bar(pl, job, pads[0][1].mapper)
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
            _draw_side(pl, side_actors, side.frames[i], job.fields is not None)
        pl.add_text(
            f"{job.title}  t = {f.time_s:.3f} s  {f.phase}", position="lower_left",
            font_size=10, name="label", color="#222222",
        )  # fmt: skip
        pl.write_frame()
        progress.put(("progress", i + 1, n))
    pl.close()
    progress.put(("done", job.path, n))


def _scene(
    pl: Any, job: VideoJob, pad_faces: np.ndarray, pad_points: Any
) -> tuple[Any, list, list]:
    """The view's scene in the active subplot: unlit ground with its grid, the object, the
    pads (coloured on the shown trial's scale) and the plates."""
    from app.scene_style import (
        GRID_COLOR,
        GROUND_COLOR,
        OBJECT_COLOR,
        PAD_COLOR,
        PLATE_COLOR,
        ground_plane,
    )
    from app.scene_style import polydata as _polydata

    v = np.asarray(job.object_vertices)
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
        a.mapper.scalar_visibility = job.fields is not None
        a.prop.color = PAD_COLOR
        pads.append((poly, a))
        plates.append(
            pl.add_mesh(
                _polydata(job.shapes.plate_local[k], job.shapes.plate_faces), color=PLATE_COLOR
            )
        )
    return obj, pads, plates


def _colour_bar(pl: Any, job: VideoJob, mapper: Any) -> None:
    """The pads' colour bar at the frame's right edge: in the right half when there are two."""
    side = job.side is not None
    pl.subplot(0, 1 if side else 0)
    pl.scalar_bars.add_scalar_bar(
        job.field_title, mapper=mapper, vertical=True,
        position_x=0.78 if side else 0.88,  # room for the labels
        position_y=0.25, height=0.5, width=0.06, n_labels=4, fmt="%.2g",
        color="#222222", title_font_size=12, label_font_size=11, render=False,
    )  # fmt: skip
    pl.subplot(0, 0)


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
