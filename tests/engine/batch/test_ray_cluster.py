"""A batch on a 3-node Ray cluster (one machine) survives a lost node and a killed driver:
every task's row exactly once."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys

import pytest

from tests.conftest import REPO

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        importlib.util.find_spec("ray") is None,
        reason="ray is not installed (pip install 'ipcgrasp[ray]'); the Ray backend is optional",
    ),
]
SCENARIO = REPO / "tests" / "engine" / "batch" / "ray_cluster_scenario.py"


@pytest.fixture(scope="module")
def cluster_run(tmp_path_factory) -> dict:
    """One 3-node cluster: the node-loss batch, then the driver-kill batch on what is left."""
    tmp = tmp_path_factory.mktemp("ray_cluster")
    env = {**os.environ, "PYTHONPATH": str(REPO), "RAY_USAGE_STATS_ENABLED": "0"}
    proc = subprocess.run(
        [sys.executable, str(SCENARIO), "all", str(tmp)],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    line = next(x for x in proc.stdout.splitlines() if x.startswith("RESULT "))
    return json.loads(line.removeprefix("RESULT "))


def test_a_batch_loses_a_node_mid_run_and_still_writes_every_row_once(cluster_run):
    r = cluster_run["node_loss"]
    assert r["rows"] == 16 and not r["missing"] and not r["doubled"], r
    assert r["statuses"] == {"ok": 16}, r
    # The node was removed with a task running on it: that task was run again elsewhere.
    assert r["started_on_removed"] > r["finished_on_removed"], r


def test_a_killed_driver_resumes_on_the_cluster_with_every_row_once(cluster_run):
    r = cluster_run["driver_kill"]
    assert 4 <= r["killed_after"] < 16, r
    assert r["rows"] == 16 and not r["missing"] and not r["doubled"], r
    assert r["statuses"] == {"ok": 16}, r
