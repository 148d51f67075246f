"""The engine stays headless: nothing under engine/ imports Qt, VTK or the app package; and it
stays in rooms of bounded size: no file over 500 lines, no class over 400, no function over 80
(issue 38), but for the few exceptions listed here with their reasons."""

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


# --- size limits (issue 38) ---------------------------------------------------------------------
# Counted as tools/editors show them: a file's lines; a class's or function's from its `class` /
# `def` line to its last line (docstring and comments included, decorators not). Nested
# functions and methods count on their own.
MAX_FILE_LINES = 500
MAX_CLASS_LINES = 400
MAX_FUNCTION_LINES = 80

# What may exceed a limit, up to the size given, and why. At most five entries; an entry is
# "path" for a file, "path:Name" for a class or function ("path:Class.method" for a method).
SIZE_EXCEPTIONS: dict[str, int] = {
    # SimulationParams is the parameter declarations: one `param(...)` field per parameter with
    # its unit, range, help, flag and GUI widget (474 lines at the limits' introduction),
    # declared once for validation, flags, the dock, CSV columns and sessions. Split into groups
    # it would scatter the one place a parameter is declared. The ceiling leaves room for a few
    # more parameters.
    "engine/grasp/params.py:SimulationParams": 520,
    # The file is that class plus its module's few lines (508 at the limits' introduction); its
    # helpers (for_gripper, squeeze_stop, the gripper checks) could move out, but engine/grasp
    # was another session's work when the limits came in.
    "engine/grasp/params.py": 560,
}


def _definitions(tree: ast.AST, prefix: str = "") -> list[tuple[str, str, int]]:
    """(kind, qualified name, lines) of every class and function in `tree`, nested ones too."""
    found = []
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            name = prefix + node.name
            kind = "class" if isinstance(node, ast.ClassDef) else "function"
            assert node.end_lineno is not None
            found.append((kind, name, node.end_lineno - node.lineno + 1))
            found += _definitions(node, name + ".")
        else:
            found += _definitions(node, prefix)
    return found


def size_violations(root: Path, exceptions: dict[str, int], folder: str = "engine") -> list[str]:
    """One line per file, class or function under root/folder over its limit (or over its
    exception's ceiling)."""
    limits = {"file": MAX_FILE_LINES, "class": MAX_CLASS_LINES, "function": MAX_FUNCTION_LINES}
    problems = []
    for path in sorted((root / folder).rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        source = path.read_text(encoding="utf-8")
        sizes = [("file", rel, source.count("\n"))]
        sizes += [(k, f"{rel}:{n}", lines) for k, n, lines in _definitions(ast.parse(source))]
        for kind, key, lines in sizes:
            limit = exceptions.get(key, limits[kind])
            if lines > limit:
                problems.append(f"{key}: {kind} of {lines} lines (at most {limit})")
    return problems


def test_engine_files_classes_and_functions_stay_within_their_limits():
    """No engine file over 500 lines, class over 400, function over 80, except SIZE_EXCEPTIONS
    (each up to its ceiling, with the reason). Split by what the code holds: small modules with
    one job, named for it. app/ is out of scope for now: another session splits it."""
    assert len(SIZE_EXCEPTIONS) <= 5, "at most five exceptions to the size limits"
    problems = size_violations(REPO, SIZE_EXCEPTIONS)
    assert not problems, "over the size limits (issue 38):\n" + "\n".join(problems)


def test_size_check_flags_a_file_a_class_and_a_function_past_their_limits(tmp_path):
    """Self-check: a 501-line file holding a 401-line class and an 81-line method fails, and an
    exception lets only its own entry through, up to its ceiling."""
    method = [
        "    def long(self):",
        *(f"        x{i} = {i}" for i in range(79)),
        "        return 0",
    ]
    lines = ["class Big:", *method, *(f"    y{i} = {i}" for i in range(401 - 1 - len(method)))]
    lines += [""] * (501 - len(lines))
    source = "\n".join(lines) + "\n"
    (tmp_path / "engine").mkdir()
    (tmp_path / "engine" / "big.py").write_text(source)
    assert source.count("\n") == 501
    assert size_violations(tmp_path, {}) == [
        "engine/big.py: file of 501 lines (at most 500)",
        "engine/big.py:Big: class of 401 lines (at most 400)",
        "engine/big.py:Big.long: function of 81 lines (at most 80)",
    ]
    allowed = {"engine/big.py": 501, "engine/big.py:Big": 401, "engine/big.py:Big.long": 80}
    assert size_violations(tmp_path, allowed) == [
        "engine/big.py:Big.long: function of 81 lines (at most 80)"
    ]
