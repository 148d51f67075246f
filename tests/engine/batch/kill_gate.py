"""`ipcgrasp batch` whose tasks each wait for a token before they hand in their row, so a test
decides how many rows a run can write (test_random_kills: a run can never finish before its kill,
however loaded the machine).

Run it as `python -c "import sys; from tests.engine.batch.kill_gate import main;
sys.exit(main(sys.argv[1:]))" batch ...` with GATE_VAR naming a folder (the pool workers and
Ray's inherit the environment). A task computes its row as usual, then takes one token (a file
in `<folder>/tokens`, claimed by renaming it) before returning it; a file `<folder>/open` lets
every task through. `release(folder, n)` adds n tokens. Without GATE_VAR nothing waits.

BUILD_VAR pins the engine build every process of the run reports (engine.version.build_id, in
rows and task keys): a checkout shared with other work may commit engine code while the test
runs, and the resumed runs would then refuse the earlier runs' rows as another build's.
"""

from __future__ import annotations

import functools
import os
import time
import uuid
from pathlib import Path

import engine.version

GATE_VAR = "IPCGRASP_TEST_KILL_GATE"
BUILD_VAR = "IPCGRASP_TEST_BUILD_ID"


def _pin_build(build: str) -> None:
    """Make this process's (cached) build_id() return `build`: first call it with git's
    answers faked to give `build` (the cache then keeps it)."""
    release, _, local = build.partition("+e")
    tree, _, dirty = local.partition(".")
    root = Path(engine.version.__file__).resolve().parent.parent
    answers = {"--show-toplevel": str(root), "HEAD:engine": tree, "--porcelain": dirty}
    git = engine.version._git
    engine.version._git = lambda _root, *args: next(  # type: ignore[assignment]
        (v for k, v in answers.items() if k in args), None
    )
    try:
        engine.version.build_id.cache_clear()
        engine.version.build_id()
    finally:
        engine.version._git = git
    assert release == engine.version.__version__ and engine.version.build_id() == build


if os.environ.get(BUILD_VAR) and "+e" in os.environ[BUILD_VAR]:
    _pin_build(os.environ[BUILD_VAR])  # on import: before anything here asks for the build

from engine.batch.task_run import run_task  # noqa: E402
from engine.batch.tasks import Task  # noqa: E402


def _take_token(folder: Path) -> None:
    """Wait until `folder` is open or holds a token, and take the token."""
    tokens, taken = folder / "tokens", folder / "taken"
    while not (folder / "open").exists():
        for name in sorted(os.listdir(tokens)):
            try:
                os.rename(tokens / name, taken / f"{name}.{os.getpid()}")
            except FileNotFoundError:
                continue  # another worker took it
            return
        time.sleep(0.01)


def gated_run_task(task: Task) -> dict:
    """`run_task`, whose row waits for a token."""
    row = run_task(task)
    folder = os.environ.get(GATE_VAR)
    if folder:
        _take_token(Path(folder))
    return row


def make_gate(folder: Path, open_: bool = False) -> Path:
    """A gate in `folder` (created): closed (no token), or `open_`."""
    for sub in ("tokens", "taken"):
        (folder / sub).mkdir(parents=True, exist_ok=True)
    if open_:
        (folder / "open").touch()
    return folder


def release(folder: Path, n: int = 1) -> None:
    """Let `n` more rows through."""
    for _ in range(n):
        (folder / "tokens" / uuid.uuid4().hex).touch()


def waiting_tokens(folder: Path) -> int:
    return len(os.listdir(folder / "tokens"))


def main(argv: list[str]) -> int:
    """`ipcgrasp` (engine.cli.main) with every batch task gated."""
    import engine.batch.runner as runner
    from engine.cli.main import main as cli

    runner.run_batch = functools.partial(runner.run_batch, fn=gated_run_task)  # type: ignore[assignment]
    return cli(argv)
