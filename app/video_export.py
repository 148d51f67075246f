"""MP4/GIF export of one trial, rendered off-screen in a spawned process (no Qt there).

Off-screen rendering at ~15 frames/s (llvmpipe) would block the GUI for a minute on a long
trial, so a child process renders with its own pyvista Plotter and reports progress on a queue.
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


def even_size(width: int, height: int, block: int = 16) -> tuple[int, int]:
    """Frame size rounded down to whole macro-blocks (H.264 needs even sizes; imageio would
    otherwise rescale to multiples of 16 with a warning)."""
    return max(block, width // block * block), max(block, height // block * block)


def render_video(job: VideoJob, progress: Any, cancel: Any) -> None:
    """Render every frame of `job` into its file; puts ("progress", i, n), then ("done", path,
    frames) or ("error", message) or ("cancelled", frames) on `progress`."""
    import pyvista as pv

    from app.sim_worker import lower_priority

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
        pl = pv.Plotter(off_screen=True, window_size=list(job.window_size))
        pl.renderers.set_background(BACKGROUND[0], top=BACKGROUND[1])
        v = np.asarray(job.object_vertices)
        # The view's scene: unlit ground with its grid, and the colour bar (same framing as
        # the screen: the camera position and view angle come from the view).
        ground = ground_plane(v)
        pl.add_mesh(ground, color=GROUND_COLOR, lighting=False)
        pl.add_mesh(ground, style="wireframe", color=GRID_COLOR, line_width=1, lighting=False)
        obj_actor = pl.add_mesh(_polydata(v, job.object_faces), color=OBJECT_COLOR)
        pads, plates = [], []
        for k in (0, 1):
            poly = _polydata(job.shapes.pad_local[k], job.shapes.pad_faces)
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
        if job.fields is not None and job.field_title:
            pl.scalar_bars.add_scalar_bar(
                job.field_title, mapper=pads[0][1].mapper, vertical=True, position_x=0.88,
                position_y=0.25, height=0.5, width=0.06, n_labels=4, fmt="%.2g",
                color="#222222", title_font_size=12, label_font_size=11, render=False,
            )  # fmt: skip
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
