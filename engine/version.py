"""Which engine produced a result: the release version plus, in a git checkout, the commit.

Result rows and batch task keys carry `build_id()`, so rows computed by different solver code
are never silently taken for one another (a resumed batch refuses to mix them).
"""

from __future__ import annotations

import functools
import subprocess
from pathlib import Path

from engine import __version__


def _git(root: Path, *args: str) -> str | None:
    try:
        out = subprocess.run(
            ["git", "-C", str(root), *args],
            capture_output=True,
            text=True,
            timeout=5,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() if out.returncode == 0 else None


@functools.cache
def build_id() -> str:
    """`__version__`, plus `+e<tree>` (and `.dirty`) when run from a git checkout.

    <tree> is git's hash of the committed engine/ folder, so it changes with the engine's code
    and with nothing else (docs, tests, app); `.dirty` marks uncommitted engine changes. An
    installed wheel has no work tree around it and reports the release version alone.
    """
    root = Path(__file__).resolve().parent.parent
    top = _git(root, "rev-parse", "--show-toplevel")
    if top is None or Path(top).resolve() != root:
        return __version__
    tree = _git(root, "rev-parse", "--short=10", "HEAD:engine")
    if not tree:
        return __version__
    # Only the engine's own code decides results: docs, tests or app edits do not count as dirty.
    dirty = _git(root, "status", "--porcelain", "--untracked-files=no", "--", "engine")
    return f"{__version__}+e{tree}{'.dirty' if dirty else ''}"
