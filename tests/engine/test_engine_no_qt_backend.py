"""The engine draws its plots with matplotlib's Agg canvas and never selects a Qt backend.

import-linter's forbidden contract ([tool.importlinter] in pyproject.toml) can name only
top-level external packages, and the engine does use matplotlib, so its Qt backends
(matplotlib.backends.backend_qt*, `matplotlib.use("QtAgg")`) are checked here instead.
"""

from __future__ import annotations

import ast
from pathlib import Path

ENGINE = Path(__file__).resolve().parents[2] / "engine"


def qt_backend_uses(source: str, filename: str = "<string>") -> list[tuple[int, str]]:
    """(line, what) for every import of a matplotlib Qt backend or `*.use("qt...")` in source."""
    found = []
    for node in ast.walk(ast.parse(source, filename=filename)):
        modules: list[str] = []
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            modules = [node.module]
            if node.module == "matplotlib.backends":
                modules += [f"matplotlib.backends.{alias.name}" for alias in node.names]
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in {"use", "switch_backend"}
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and str(node.args[0].value).lower().startswith("qt")
        ):
            found.append((node.lineno, f"{node.func.attr}({node.args[0].value!r})"))
        found += [
            (node.lineno, m) for m in modules if m.startswith("matplotlib.backends.backend_qt")
        ]
    return sorted(found)


def test_scanner_flags_qt_backends():
    assert qt_backend_uses("import matplotlib.backends.backend_qtagg") == [
        (1, "matplotlib.backends.backend_qtagg")
    ]
    assert qt_backend_uses("from matplotlib.backends.backend_qt5agg import FigureCanvas") == [
        (1, "matplotlib.backends.backend_qt5agg")
    ]
    assert qt_backend_uses("from matplotlib.backends import backend_qtagg") == [
        (1, "matplotlib.backends.backend_qtagg")
    ]
    assert qt_backend_uses("import matplotlib\nmatplotlib.use('QtAgg')") == [(2, "use('QtAgg')")]


def test_scanner_allows_agg():
    source = (
        "from matplotlib.backends.backend_agg import FigureCanvasAgg\n"
        "import matplotlib\nmatplotlib.use('Agg')\n"
    )
    assert qt_backend_uses(source) == []


def test_engine_never_uses_a_matplotlib_qt_backend():
    files = sorted(ENGINE.rglob("*.py"))
    assert files, f"no Python files found under {ENGINE}"
    problems = [
        f"{path}:{line}: {what}"
        for path in files
        for line, what in qt_backend_uses(path.read_text(encoding="utf-8"), str(path))
    ]
    assert not problems, "engine/ must plot with Agg, not a Qt backend:\n" + "\n".join(problems)
