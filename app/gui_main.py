"""`ipcgrasp gui [MESH|SESSION] [--smoke-test]`: start the desktop app."""

from __future__ import annotations

import argparse
import logging
import multiprocessing as mp
import os
import sys
import traceback
from types import TracebackType

from engine import __version__
from engine.scene.mesh_units import UNIT_SCALE_M


def build_parser() -> argparse.ArgumentParser:
    """The `ipcgrasp gui` command line."""
    p = argparse.ArgumentParser(
        prog="ipcgrasp gui",
        description="The ipcgrasp desktop app. Without a path it opens the example cube.",
    )
    p.add_argument(
        "path", nargs="?", help="a mesh (OBJ, STL, PLY, OFF, GLB) or a session (.ipcgrasp.json)"
    )
    p.add_argument("--unit", choices=list(UNIT_SCALE_M), help="length unit of the mesh file")
    p.add_argument(
        "--smoke-test",
        action="store_true",
        help="open the window, place the default grasp, stream a short simulation from a "
        "worker process, render a frame, and exit 0 (non-zero with the reason on failure)",
    )
    p.add_argument("--screenshot", metavar="PNG", help="with --smoke-test: save the window here")
    p.add_argument("--workers", type=int, help="simulation worker processes (default: cores - 1)")
    p.add_argument("--version", action="version", version=f"ipcgrasp {__version__}")
    return p


def _excepthook(
    exc_type: type[BaseException], exc: BaseException, tb: TracebackType | None
) -> None:
    """Uncaught exceptions in Qt slots: report in a dialog instead of silently hanging."""
    text = "".join(traceback.format_exception(exc_type, exc, tb))
    logging.getLogger("app").critical("uncaught exception:\n%s", text)
    try:
        from PySide6.QtWidgets import QApplication, QMessageBox

        if QApplication.instance() is not None:
            QMessageBox.critical(
                None,
                "ipcgrasp: unexpected error",
                f"{exc_type.__name__}: {exc}\n\nDetails are in the log (View > Log).",
            )
    except Exception:
        pass


def gui_main(argv: list[str]) -> int:
    """Run the app (or its smoke test); returns the exit code."""
    mp.freeze_support()  # a frozen app's spawned workers must not start another GUI
    args = build_parser().parse_args(argv)
    if args.workers is not None and args.workers < 1:
        print("ipcgrasp gui: error: --workers must be >= 1", file=sys.stderr)
        return 2
    try:
        from PySide6.QtWidgets import QApplication
    except ImportError as exc:
        print(
            f"ipcgrasp gui: the desktop app needs the gui extra ({exc}); install it from the "
            "checkout with pip install '.[gui]' (or the built wheel: pip install "
            "'dist/ipcgrasp-<version>-py3-none-any.whl[gui]'; ipcgrasp is not on PyPI)",
            file=sys.stderr,
        )
        return 2
    if sys.platform.startswith("linux") and not (
        os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
    ):
        print(
            "ipcgrasp gui: error: no display (DISPLAY is not set). Run it on a desktop, or "
            "headless under Xvfb: xvfb-run -a ipcgrasp gui --smoke-test",
            file=sys.stderr,
        )
        return 2

    app = QApplication.instance() or QApplication(sys.argv[:1])
    app.setApplicationName("ipcgrasp")
    app.setOrganizationName("ipcgrasp")
    app.setApplicationVersion(__version__)
    QApplication.setDesktopFileName(
        "ipcgrasp"
    )  # static (QGuiApplication); instance() is typed QCoreApplication

    from app.main_window import MainWindow
    from app.qt_binding_check import binding_problem

    problem = binding_problem()
    if problem:
        print(f"ipcgrasp gui: error: {problem}", file=sys.stderr)
        if not args.smoke_test:
            from PySide6.QtWidgets import QMessageBox

            QMessageBox.critical(None, "ipcgrasp: broken Qt binding", problem)
        return 2

    if args.smoke_test:
        from app.smoke_test import run_smoke_test

        return run_smoke_test(app, args.path, args.screenshot, args.workers)

    sys.excepthook = _excepthook
    window = MainWindow(n_workers=args.workers)
    window.show()
    if args.path:
        if not window.opening.open_path(args.path, args.unit):
            window.opening.load_example()
    else:
        window.opening.load_example()
    return int(app.exec())
