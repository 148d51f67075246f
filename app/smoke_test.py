"""`ipcgrasp gui --smoke-test`: the whole app path in a minute, for CI and packaged bundles.

Opens the main window with the example object (or the given file), checks the default grasp is
drawn and valid, streams a short simulation from a worker process, renders a streamed frame,
saves a session, opens a small data set (a grasp table: listed, drawn, a grasp shown) and exits
0; any failure prints the step and the reason and exits 1.
"""

from __future__ import annotations

import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:  # Qt loads only when the smoke test runs
    from PySide6.QtCore import QCoreApplication

SMOKE_FRAMES = 6  # frames of the squeeze to stream: enough to prove the pipeline, fast


class SmokeFailure(Exception):
    """A smoke-test step failed (the message says why)."""

    pass


def wait_until(
    app: QCoreApplication, predicate: Callable[[], bool], timeout_s: float, what: str
) -> float:
    """Process events until `predicate()`; returns the wait in seconds or raises SmokeFailure."""
    start = time.perf_counter()
    while not predicate():
        if time.perf_counter() - start > timeout_s:
            raise SmokeFailure(f"timed out after {timeout_s:.0f} s waiting for {what}")
        app.processEvents()
        time.sleep(0.005)
    return time.perf_counter() - start


def _non_blank(img: np.ndarray) -> float:
    """Share of pixels that differ from the most common colour (the background)."""
    flat = img.reshape(-1, img.shape[-1])[:, :3].astype(int)
    keys = flat[:, 0] * 65536 + flat[:, 1] * 256 + flat[:, 2]
    _values, counts = np.unique(keys, return_counts=True)
    return 1.0 - counts.max() / len(keys)


# A grasp table of the built-in cube (the format `ipcgrasp sample` writes): three top-down
# grasps, the last one across the cube's other axis.
SMOKE_GRASPS = """grasp_id,object,center_x,center_y,center_z,axis_x,axis_y,axis_z,approach_angle
centre,cube,0,0,0.015,1,0,0,0
off_centre,cube,0,0.004,0.015,1,0,0,0
across,cube,0,0,0.015,0,1,0,0
"""


def _open_data_set(window: Any, folder: Path) -> str:
    """File > Open data set on a small grasp table: its grasps listed and drawn as glyphs, the
    second one shown when chosen. Returns what was checked."""
    table = folder / "grasps.csv"
    table.write_text(SMOKE_GRASPS)
    if not window.datasets.open_path(table):
        raise SmokeFailure("; ".join(window.ui.errors) or "the data set did not open")
    ds = window.model.dataset
    rows = window.dataset_dock.proxy.rowCount()
    glyphs = window.viewport.dataset.poly
    if ds is None or rows != 3 or glyphs is None or glyphs.n_cells != 12:
        raise SmokeFailure(
            f"the data set shows {rows} rows and {0 if glyphs is None else glyphs.n_cells} glyph "
            "segments (3 and 12 expected)"
        )
    if not window.datasets.show_grasp(1) or not np.allclose(
        window.doc.grasp.center, [0, 0.004, 0.015]
    ):
        raise SmokeFailure(f"choosing a data-set grasp did not show it: {window.ui.errors}")
    return "a data set of 3 grasps listed, drawn and shown"


def _simulate(app: QCoreApplication, window: Any) -> tuple[Any, float]:
    """A short run (SMOKE_FRAMES frames) streamed from a worker and shown: its trial's record
    and the seconds from Simulate to the first frame."""
    if not window.runs.start_simulation(max_frames=SMOKE_FRAMES):
        raise SmokeFailure("; ".join(window.ui.errors) or "could not start")
    shown: list[int] = []
    window.scene.frame_displayed.connect(lambda trial, i: shown.append(i))
    wait_until(app, lambda: bool(shown), 120, "a streamed frame on screen")
    first_frame_s = (window.sim.first_frame_at or 0) - (window.sim.submitted_at or 0)
    wait_until(app, lambda: not window.sim.is_running(), 180, "the run to finish")
    run = window.doc.run
    if run is None or not run.trials:
        raise SmokeFailure("the run recorded no trial")
    rec = run.trials[0]
    if not rec.frames:
        raise SmokeFailure(f"no frames arrived ({rec.status}: {rec.result})")
    if rec.status == "failed":
        reason = f"{rec.result.reason} {rec.result.error}" if rec.result else "no result"
        raise SmokeFailure(f"the trial failed: {reason}")
    return rec, first_frame_s


def _rendered_share(window: Any, screenshot: str | None) -> float:
    """The share of the 3D view drawn (not background); saves the window to `screenshot`."""
    img = window.viewport.screenshot()
    share = _non_blank(img)
    if share < 0.05:
        raise SmokeFailure(f"the rendered frame looks blank ({share:.1%} non-background pixels)")
    if screenshot:
        Path(screenshot).parent.mkdir(parents=True, exist_ok=True)
        window.grab().save(screenshot)
    return share


def run_smoke_test(
    app: QCoreApplication, path: str | None, screenshot: str | None, workers: int | None
) -> int:
    """Run the smoke test in `app`; returns the exit code (0 OK, 1 failed)."""
    from app.main_window import MainWindow

    t0 = time.perf_counter()
    step = "creating the main window"
    window = None
    try:
        window = MainWindow(n_workers=workers or 1)
        window.ui.quiet = True
        window.show()
        wait_until(app, window.isVisible, 30, "the window to show")
        step = "opening the object"
        ok = window.opening.open_path(path) if path else window.opening.load_example()
        if not ok or window.doc is None:
            raise SmokeFailure("; ".join(window.ui.errors) or "no document")
        step = "drawing the default grasp"
        if (
            len(window.viewport.gripper.pad_actors) != 2
            or len(window.viewport.gripper.plate_actors) != 2
        ):
            raise SmokeFailure("the gripper (two pads, two backing plates) is not drawn")
        wait_until(app, lambda: window.model.grasp_valid is not None, 120, "the grasp check")
        if not window.model.grasp_valid:
            raise SmokeFailure(f"the default grasp is invalid: {window.model.grasp_reason}")
        step = "waiting for the simulation worker"
        wait_until(app, lambda: window.sim.ready_count > 0, 180, "a warmed-up worker process")
        step = "simulating"
        rec, first_frame_s = _simulate(app, window)
        step = "rendering"
        share = _rendered_share(window, screenshot)
        step = "saving a session"
        with tempfile.TemporaryDirectory() as tmp:
            if not window.sessions.save_session(Path(tmp) / "smoke"):
                raise SmokeFailure("; ".join(window.ui.errors))
            step = "opening a data set"
            opened = _open_data_set(window, Path(tmp))
        print(
            f"ipcgrasp smoke test: OK ({len(rec.frames)} frames streamed from a worker process, "
            f"first frame {first_frame_s:.2f} s after Simulate, {share:.0%} of the view drawn, "
            f"{opened}, {time.perf_counter() - t0:.1f} s total)",
            flush=True,
        )
        code = 0
    except SmokeFailure as exc:
        print(f"ipcgrasp smoke test: FAILED while {step}: {exc}", file=sys.stderr, flush=True)
        code = 1
    except Exception as exc:
        import traceback

        traceback.print_exc()
        print(
            f"ipcgrasp smoke test: FAILED while {step}: {type(exc).__name__}: {exc}",
            file=sys.stderr,
            flush=True,
        )
        code = 1
    finally:
        if window is not None:
            if window.doc is not None:
                window.doc.dirty = False
            window.shutdown()
            window.deleteLater()
            app.processEvents()
    return code
