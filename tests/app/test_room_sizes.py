"""app/ keeps rooms of bounded size, as engine/ does (tests/test_architecture.py, issue 38): no
file over 500 lines, no class over 400, no function over 80, counted the same way."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.test_architecture import (
    MAX_CLASS_LINES,
    MAX_FILE_LINES,
    MAX_FUNCTION_LINES,
    _definitions,
)

REPO = Path(__file__).resolve().parents[2]


def app_size_violations(root: Path) -> list[str]:
    """One line per file, class or function under root/app over its limit."""
    limits = {"file": MAX_FILE_LINES, "class": MAX_CLASS_LINES, "function": MAX_FUNCTION_LINES}
    problems = []
    for path in sorted((root / "app").rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        source = path.read_text(encoding="utf-8")
        sizes = [("file", rel, source.count("\n"))]
        sizes += [(k, f"{rel}:{n}", lines) for k, n, lines in _definitions(ast.parse(source))]
        problems += [
            f"{key}: {kind} of {lines} lines (at most {limits[kind]})"
            for kind, key, lines in sizes
            if lines > limits[kind]
        ]
    return problems


def test_app_files_classes_and_functions_stay_within_their_limits():
    problems = app_size_violations(REPO)
    assert not problems, "over the size limits (issue 38):\n" + "\n".join(problems)


def test_the_app_size_check_flags_a_long_function(tmp_path):
    """Self-check: an 81-line function under app/ fails."""
    (tmp_path / "app").mkdir()
    body = "\n".join(f"    x{i} = {i}" for i in range(79))
    (tmp_path / "app" / "long.py").write_text(f"def long():\n{body}\n    return 0\n")
    assert app_size_violations(tmp_path) == ["app/long.py:long: function of 81 lines (at most 80)"]
