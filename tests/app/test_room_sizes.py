"""app/ keeps rooms of bounded size, as engine/ does (tests/test_architecture.py, issue 38): no
file over 500 lines, no class over 400, no function over 80, counted the same way."""

from __future__ import annotations

from pathlib import Path

from tests.test_architecture import size_violations

REPO = Path(__file__).resolve().parents[2]


def app_size_violations(root: Path) -> list[str]:
    """One line per file, class or function under root/app over its limit (no exceptions)."""
    return size_violations(root, {}, folder="app")


def test_app_files_classes_and_functions_stay_within_their_limits():
    problems = app_size_violations(REPO)
    assert not problems, "over the size limits (issue 38):\n" + "\n".join(problems)


def test_the_app_size_check_flags_a_long_function(tmp_path):
    """Self-check: an 81-line function under app/ fails."""
    (tmp_path / "app").mkdir()
    body = "\n".join(f"    x{i} = {i}" for i in range(79))
    (tmp_path / "app" / "long.py").write_text(f"def long():\n{body}\n    return 0\n")
    assert app_size_violations(tmp_path) == ["app/long.py:long: function of 81 lines (at most 80)"]
