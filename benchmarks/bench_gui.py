"""GUI responsiveness while simulations stream into the real main window.

Measures, with the example cube (or `--object MESH`, e.g. a 16k-face scan) and its default
grasp:
- time to first frame: from pressing Simulate (the F5 action) to the first streamed frame drawn
  in the 3D view, with the pre-started (warm) worker, and once with a cold worker for contrast;
- the longest gap of the Qt event loop while N full squeeze-lift trials stream (a 5 ms QTimer
  records the time between its ticks; a gap is how long the GUI could not react), plus the
  median and 99th percentile, the frames received and the frames drawn.
Writes benchmarks/results/gui.md. Needs an X server (the VTK view is an OpenGL widget):

    xvfb-run -a -s "-screen 0 1440x960x24" .venv/bin/python benchmarks/bench_gui.py [--trials 3]
        [--object MESH --out benchmarks/results/gui_scan.md]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from pathlib import Path

from gui_probe import GapProbe, fresh_settings, p99
from gui_probe import wait as _wait

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def first_frame_s(app, window) -> float:
    """Seconds from triggering Simulate to the first frame drawn (then cancels the run)."""
    drawn: list[float] = []
    conn = window.scene.frame_displayed.connect(lambda t, i: drawn.append(time.perf_counter()))
    window.doc.dirty = False
    t0 = time.perf_counter()
    window.menus.simulate_action.trigger()
    _wait(app, lambda: bool(drawn), 120)
    window.scene.frame_displayed.disconnect(conn)
    window.runs.cancel_simulation()
    _wait(app, lambda: not window.sim.is_running(), 60)
    return drawn[0] - t0


def prediction_latency_s(app, window, name: str, value: float) -> tuple[float, float]:
    """Seconds from a parameter edit to the analytic table showing the nominal predictions,
    and to the robustness estimates (the background analysis process's two stages)."""
    shown: list[tuple[float, int, str]] = []
    conn = window.analysis_ctl.predictions_shown.connect(
        lambda request: shown.append((time.perf_counter(), request, window.predictions.stage))
    )
    t0 = time.perf_counter()
    assert window.editing.edit_param(name, value)
    request = window.analysis.latest_request

    def stage_time(stage: str) -> float | None:
        return next((t for t, r, s in shown if r == request and s == stage), None)

    _wait(app, lambda: stage_time("robust") is not None, 120)
    window.analysis_ctl.predictions_shown.disconnect(conn)
    return stage_time("nominal") - t0, stage_time("robust") - t0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trials", type=int, default=3, help="full trials streamed for the gap test")
    ap.add_argument("--repeats", type=int, default=3, help="streaming runs for the gap test")
    ap.add_argument("--first-frame-runs", type=int, default=5)
    ap.add_argument("--out", default=str(ROOT / "benchmarks" / "results" / "gui.md"))
    ap.add_argument("--object", help="a mesh file to open instead of the example cube")
    args = ap.parse_args()
    if not os.environ.get("DISPLAY"):
        print(
            "bench_gui: needs an X server; run it under xvfb-run (see the docstring)",
            file=sys.stderr,
        )
        return 2

    from PySide6.QtWidgets import QApplication

    from app.main_window import MainWindow

    app = QApplication.instance() or QApplication(sys.argv[:1])
    fresh_settings()
    window = MainWindow(n_workers=1)
    window.ui.quiet = True
    window.resize(1400, 900)
    window.show()
    if args.object:
        if not window.opening.open_path(args.object):
            print(f"bench_gui: cannot open {args.object}: {window.ui.errors}", file=sys.stderr)
            return 2
    else:
        window.opening.load_example()
    _wait(app, lambda: window.sim.ready_count > 0 and window.model.grasp_valid is not None, 300)
    what = (
        f"{Path(args.object).name} ({len(window.doc.mesh.faces)} faces)"
        if args.object
        else "The example cube"
    )

    warm = [first_frame_s(app, window) for _ in range(args.first_frame_runs)]
    mu0 = window.doc.params.mu
    latency = [prediction_latency_s(app, window, "mu", mu) for mu in (0.3, 0.5, 0.45, 0.6, mu0)]

    # Cold: a worker that has not started yet (no pre-start), for contrast.
    window.sim.shutdown()
    from app.sim_pool import SimulationPool

    window.use_pool(SimulationPool(window, 1))
    cold = first_frame_s(app, window)
    _wait(app, lambda: window.sim.ready_count > 0, 300)

    # Event-loop gaps while full trials stream and the view follows the live frame, repeated:
    # the longest gap is a tail statistic and this machine is shared, so quote its median.
    window.editing.edit_param("n_trials", args.trials)
    drawn = []
    window.scene.frame_displayed.connect(lambda t, i: drawn.append(i))
    probe = GapProbe(5)
    runs = []  # per repeat: (sorted gaps, CPU in the longest gap, wall s, frames, lifted)
    for _ in range(args.repeats):
        probe.start()
        t0 = time.perf_counter()
        window.doc.dirty = False
        window.menus.simulate_action.trigger()
        _wait(app, lambda: not window.sim.is_running(), 900)
        wall = time.perf_counter() - t0
        gaps = sorted(probe.stop())
        cpu_in_longest = probe.cpu_in_longest()
        run = window.doc.run
        frames = sum(len(r.frames) for r in run.trials.values())
        lifted = sum(bool(r.result and r.result.success) for r in run.trials.values())
        runs.append((gaps, cpu_in_longest, wall, frames, lifted))
    renders = window.viewport.renders
    longest = [r[0][-1] for r in runs]
    p99s = [p99(r[0]) for r in runs]
    all_gaps = sorted(g for r in runs for g in r[0])
    total_wall = sum(r[2] for r in runs)
    over = sum(g for g in all_gaps if g > 0.1) / max(total_wall, 1e-9)
    worst = max(range(len(runs)), key=lambda i: longest[i])
    gaps, cpu_in_longest, wall, frames, lifted = runs[worst]

    # The same with the display clock stopped (frames received and stored, nothing redrawn):
    # what receiving frames costs, without rendering or composing the window.
    window.scene.stop()
    window.editing.edit_param("n_trials", 1)
    probe.start()
    window.doc.dirty = False
    window.menus.simulate_action.trigger()
    _wait(app, lambda: not window.sim.is_running(), 900)
    frozen = sorted(probe.stop())
    window.scene.start()

    def ms(x: float) -> str:
        return f"{x * 1e3:.0f}"

    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    lines = [
        "# GUI responsiveness while a simulation runs",
        "",
        f"Run {time.strftime('%Y-%m-%d %H:%M')} on {platform.node()} ({platform.machine()}, "
        f"{os.cpu_count()} cores), Python {platform.python_version()}, under Xvfb "
        f"(Mesa llvmpipe, no GPU). {what} with the default grasp, default parameters, "
        f"one pre-started simulation worker process; 1-minute load average {load:.1f} at the end "
        "(other processes share the machine). `benchmarks/bench_gui.py`.",
        "",
        "| measure | value | target |",
        "|---|---|---|",
        f"| time to first frame on screen after Simulate, warm worker (median of {len(warm)}) | "
        f"{ms(statistics.median(warm))} ms (min {ms(min(warm))}, max {ms(max(warm))}) | < 1000 ms |",
        f"| time to first frame, cold worker (no pre-start; for contrast) | {ms(cold)} ms | |",
        f"| analytic predictions after a mu edit: nominal / with robustness (median of "
        f"{len(latency)}) | {ms(statistics.median(x[0] for x in latency))} / "
        f"{ms(statistics.median(x[1] for x in latency))} ms | a fraction of a second |",
        f"| longest Qt event-loop gap while {args.trials} trials stream, median of "
        f"{args.repeats} runs | {ms(statistics.median(longest))} ms | < 100 ms |",
        f"| longest gap of each run | {', '.join(ms(g) for g in longest)} ms | |",
        f"| 99th percentile gap of each run (5 ms probe timer) | "
        f"{', '.join(ms(g) for g in p99s)} ms | |",
        f"| median gap, all runs | {ms(statistics.median(all_gaps))} ms | |",
        f"| share of the time spent in gaps longer than 100 ms | {over:.1%} | |",
        f"| CPU time the GUI process used during the longest gap of all | {ms(cpu_in_longest)} ms | |",
        f"| longest gap with the display clock stopped (1 trial; frames stored, not drawn) | "
        f"{ms(frozen[-1])} ms (median {ms(statistics.median(frozen))}) | |",
        f"| frames received, all runs / drawn (drawing is throttled to ~30 Hz) | "
        f"{sum(r[3] for r in runs)} / {len(drawn)} | |",
        f"| wall time of the {args.trials} trials, each run | "
        f"{', '.join(f'{r[2]:.1f}' for r in runs)} s ({lifted}/{args.trials} lifted the object) | |",
        f"| renders of the 3D view during the whole benchmark | {renders} | |",
        "",
        "The solver runs in a spawned worker process at the lowest CPU priority (nice 19), "
        "frames come back over a pipe and a 10 ms QTimer pump hands them to the GUI thread, "
        "which stores every frame; one 33 ms display clock refreshes the widgets and renders "
        "the newest frame in the same event-loop pass, so Qt composes the window once per "
        "tick. A gap includes one render of the view and one composition of the whole window "
        "(a QOpenGLWidget makes Qt compose the window in OpenGL; llvmpipe software rendering "
        "here, a GPU makes both shorter). The load average includes this benchmark's own "
        "GUI, worker and Xvfb processes.",
        "",
    ]
    Path(args.out).write_text("\n".join(lines))
    print("\n".join(lines))
    window.doc.dirty = False
    window.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
