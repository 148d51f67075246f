"""The engine stays headless: nothing under engine/ imports Qt, VTK or the app package."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
ENGINE = REPO / "engine"

FORBIDDEN = frozenset(
    {
        "PySide6",
        "PyQt5",
        "PyQt6",
        "shiboken6",
        "pyvista",
        "pyvistaqt",
        "vtk",
        "vtkmodules",
        "app",
    }
)


def forbidden_imports(source: str, filename: str = "<string>") -> list[tuple[int, str]]:
    """(line, module) for every absolute import of a FORBIDDEN top-level package in `source`.

    Covers `import X`, `from X import ...`, and `importlib.import_module("X")` /
    `__import__("X")` with a literal name. Relative imports (`from .app import`) are the
    engine's own modules and are allowed.
    """
    found = []
    for node in ast.walk(ast.parse(source, filename=filename)):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        elif isinstance(node, ast.Call) and node.args:
            func = node.func
            called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            arg = node.args[0]
            if called in {"import_module", "__import__"} and isinstance(arg, ast.Constant):
                names = [str(arg.value)]
        found += [(node.lineno, n) for n in names if n.split(".")[0] in FORBIDDEN]
    return sorted(found)


def engine_files() -> list[Path]:
    return sorted(ENGINE.rglob("*.py"))


def test_scanner_flags_a_forbidden_import():
    """Self-check: the scanner must be able to fail."""
    assert forbidden_imports("import PySide6.QtCore") == [(1, "PySide6.QtCore")]
    assert forbidden_imports("x = 1\nfrom pyvista import Plotter") == [(2, "pyvista")]
    assert forbidden_imports("import importlib\nimportlib.import_module('vtk')") == [(2, "vtk")]
    assert forbidden_imports("import app.main_window") == [(1, "app.main_window")]


def test_scanner_allows_relative_and_lookalike_imports():
    assert forbidden_imports("from .app import x\nimport application\nimport numpy") == []


def test_engine_sources_import_no_gui_package():
    files = engine_files()
    assert files, f"no Python files found under {ENGINE}"
    problems = [
        f"{path.relative_to(REPO)}:{line}: imports {name}"
        for path in files
        for line, name in forbidden_imports(path.read_text(encoding="utf-8"), str(path))
    ]
    assert not problems, "engine/ must stay headless (no Qt/VTK/app):\n" + "\n".join(problems)


_IMPORT_ALL = """
import importlib, json, pkgutil, sys, traceback
import engine
failed = {}
def onerror(name):
    failed.setdefault(name, traceback.format_exc())
for info in pkgutil.walk_packages(engine.__path__, "engine.", onerror=onerror):
    if info.name in failed:
        continue
    try:
        importlib.import_module(info.name)
    except Exception:
        failed[info.name] = traceback.format_exc()
forbidden = set(json.loads(sys.argv[1]))
loaded = sorted(m for m in sys.modules if m.split(".")[0] in forbidden)
print(json.dumps({"failed": failed, "loaded": loaded}))
"""


def test_importing_every_engine_module_loads_no_gui_package():
    result = subprocess.run(
        [sys.executable, "-c", _IMPORT_ALL, json.dumps(sorted(FORBIDDEN))],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert result.returncode == 0, f"import subprocess failed:\n{result.stderr}"
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert not report["failed"], "engine modules that fail to import:\n" + "\n".join(
        f"{name}:\n{tb}" for name, tb in report["failed"].items()
    )
    assert not report["loaded"], (
        f"importing engine loaded GUI modules {report['loaded']}; engine/ must stay headless"
    )
