"""The Ray backend writes the same rows as the local pool for the same tasks and seeds."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys

import pytest

from engine.batch.tasks import TIMING_COLUMNS
from tests.conftest import REPO
from tests.engine.batch.conftest import CUBE_ROW, read_rows, write_grasps

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        importlib.util.find_spec("ray") is None,
        reason="ray is not installed (pip install 'ipcgrasp[ray]'); the Ray backend is optional",
    ),
]


def run_batch(grasps, out, *extra: str) -> None:
    # In a subprocess: Ray's start-up warnings must not meet pytest's warnings-as-errors.
    cmd = [sys.executable, "-m", "engine.cli.main", "batch", str(grasps), "--out", str(out)]
    cmd += ["--trials", "2", "--workers", "2", "--seed", "5", "--quiet", *extra]
    env = {**os.environ, "PYTHONPATH": str(REPO), "RAY_USAGE_STATS_ENABLED": "0"}
    proc = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr


def comparable(rows):
    return sorted(
        ({k: v for k, v in r.items() if k not in TIMING_COLUMNS} for r in rows),
        key=lambda r: r["task_key"],
    )


def test_ray_and_local_backends_write_the_same_rows(tmp_path):
    grasps = write_grasps(tmp_path / "g.csv", [["a", *CUBE_ROW]])
    local, ray = tmp_path / "local.csv", tmp_path / "ray.csv"
    run_batch(grasps, local)
    run_batch(grasps, ray, "--backend", "ray")
    a, b = read_rows(local), read_rows(ray)
    assert len(a) == len(b) == 2
    assert comparable(a) == comparable(b)
    assert {r["pid"] for r in b} != {r["pid"] for r in a}
    # Resuming on Ray skips what is done.
    before = ray.read_bytes()
    run_batch(grasps, ray, "--backend", "ray")
    assert ray.read_bytes() == before
