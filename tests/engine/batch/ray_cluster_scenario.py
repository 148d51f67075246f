"""Multi-node Ray on one machine (ray.cluster_utils.Cluster): run by test_ray_cluster.py in a
subprocess (Ray's start-up warnings must not meet pytest's warnings-as-errors).

    python tests/engine/batch/ray_cluster_scenario.py all TMPDIR
        starts a head and 2 nodes (1 CPU each), then
        node loss: a 16-task batch; the third node is removed as soon as a task runs on it;
        driver kill: on the 2 remaining nodes, a driver process is SIGKILLed mid-batch and a
        second one resumes; prints one JSON line: a summary of each results file.
    python tests/engine/batch/ray_cluster_scenario.py drive ADDRESS CSV TMPDIR
        one driver (used by the driver kill).
"""

from __future__ import annotations

import csv
import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(REPO))

from engine.batch.grasp_table import read_grasp_table  # noqa: E402
from engine.batch.results_store import ResultsStore  # noqa: E402
from engine.batch.runner import run_batch  # noqa: E402
from engine.batch.tasks import BatchConfig, Task, base_row, make_tasks  # noqa: E402

N_TASKS = 16
TASK_S = 1.0
CUBE_ROW = ["cube", "0", "0", "0.015", "1", "0", "0"]


def slow_task(task: Task) -> dict:
    """Defined in __main__, so Ray ships it by value; notes the node it ran on in 'reason'."""
    import ray

    node = ray.get_runtime_context().get_node_id()
    started = Path(os.environ["SCENARIO_TMP"]) / "started"
    (started / f"{task.key}-{node[:8]}-{os.getpid()}").touch()
    time.sleep(TASK_S)
    return {**base_row(task), "status": "ok", "success": True, "reason": f"node {node[:8]}"}


def make(tmp: Path) -> list[Task]:
    grasps = tmp / "grasps.csv"
    header = [
        "grasp_id",
        "object",
        "center_x",
        "center_y",
        "center_z",
        "axis_x",
        "axis_y",
        "axis_z",
    ]
    with grasps.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerows([[f"g{i}", *CUBE_ROW] for i in range(N_TASKS)])
    return make_tasks(read_grasp_table(str(grasps)), BatchConfig(models=("reach",)))


def summary(out: Path) -> dict:
    """Rows per grasp (one task per grasp: each must appear exactly once), statuses, nodes."""
    with out.open(newline="") as f:
        rows = list(csv.DictReader(f))
    counts = Counter(r["grasp_id"] for r in rows)
    return {
        "rows": len(rows),
        "missing": sorted({f"g{i}" for i in range(N_TASKS)} - set(counts)),
        "doubled": sorted(k for k, n in counts.items() if n > 1),
        "statuses": dict(Counter(r["status"] for r in rows)),
        "nodes": dict(Counter(r["reason"] for r in rows)),
    }


def node_loss(tmp: Path, cluster, node) -> dict:
    import threading

    all_tasks = make(tmp)
    out = tmp / "node_loss.csv"
    store = ResultsStore(str(out))
    info = store.open()
    removed = node.node_id[:8]

    def remove_when_busy() -> None:  # as soon as a task runs on the node
        deadline = time.monotonic() + 300
        while not any(removed in p.name for p in (tmp / "started").iterdir()):
            if time.monotonic() > deadline:
                return
            time.sleep(0.05)
        cluster.remove_node(node, allow_graceful=False)

    remover = threading.Thread(target=remove_when_busy, daemon=True)
    remover.start()
    try:
        result = run_batch(
            all_tasks, store, info, backend="ray", ray_address=cluster.address, fn=slow_task
        )
    finally:
        store.close()
    remover.join(timeout=10)
    started_there = sum(removed in p.name for p in (tmp / "started").iterdir())
    return {
        **summary(out),
        "ran": result.ran,
        "started_on_removed": started_there,
        "finished_on_removed": summary(out)["nodes"].get(f"node {removed}", 0),
    }


def drive(address: str, out: Path, tmp: Path) -> None:
    all_tasks = make(tmp)
    store = ResultsStore(str(out))
    info = store.open()
    try:
        run_batch(all_tasks, store, info, backend="ray", ray_address=address, fn=slow_task)
    finally:
        store.close()


def driver_kill(tmp: Path, cluster) -> dict:
    out = tmp / "driver_kill.csv"
    cmd = [sys.executable, __file__, "drive", cluster.address, str(out), str(tmp)]
    first = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        lines = out.read_text().count("\n") if out.exists() else 0
        if lines >= 1 + 4:  # header and 4 rows
            break
        if first.poll() is not None:
            raise RuntimeError("the first driver ended before it was killed")
        time.sleep(0.1)
    first.send_signal(signal.SIGKILL)
    first.wait()
    killed_after = out.read_text().count("\n") - 1
    subprocess.run(cmd, check=True, timeout=300, capture_output=True)
    return {**summary(out), "killed_after": killed_after}


def main(tmp: Path) -> dict:
    from ray.cluster_utils import Cluster

    os.environ["SCENARIO_TMP"] = str(tmp)  # the nodes' workers inherit it
    (tmp / "started").mkdir(exist_ok=True)
    cluster = Cluster(
        initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False}
    )
    try:
        nodes = [cluster.add_node(num_cpus=1) for _ in range(2)]
        cluster.wait_for_nodes()
        return {
            "node_loss": node_loss(tmp, cluster, nodes[1]),
            "driver_kill": driver_kill(tmp, cluster),
        }
    finally:
        cluster.shutdown()


if __name__ == "__main__":
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    if sys.argv[1] == "drive":
        drive(sys.argv[2], Path(sys.argv[3]), Path(sys.argv[4]))
    else:
        print("RESULT " + json.dumps(main(Path(sys.argv[2]))))
