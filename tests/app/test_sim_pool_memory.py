"""The simulation pool replaces, between runs, a worker that grew past its memory ceiling."""

from __future__ import annotations

from app.sim_pool import SimulationPool, process_rss_mb
from app.workers.messages import TrialJob
from engine.grasp.grasp import Grasp
from engine.grasp.params import SimulationParams
from engine.grasp.trial_plan import TrialSpec, planned_trial
from engine.scene.object_mesh import object_from_spec
from engine.scene.resting import rest_object


def test_a_worker_past_its_memory_ceiling_is_replaced_between_runs(qtbot):
    obj = rest_object(object_from_spec("cube"), 0)
    planned = planned_trial(Grasp([0, 0, 0.015], [1, 0, 0], 0.0), TrialSpec(n_trials=1), 0)
    pool = SimulationPool(n_workers=1, max_worker_memory_mb=1.0)  # every worker is above 1 MB
    try:
        pool.start()
        qtbot.waitUntil(lambda: pool.ready_count == 1, timeout=120_000)
        (before,) = pool.worker_pids
        assert (process_rss_mb(before) or 0) > 1.0
        with qtbot.waitSignal(pool.run_finished, timeout=120_000):
            pool.submit(1, [TrialJob(1, planned, obj, SimulationParams(), max_frames=2)])
        (after,) = pool.worker_pids
        assert after != before and pool.recycled_workers == 1
        # The replacement takes the next run.
        qtbot.waitUntil(lambda: pool.ready_count == 1, timeout=120_000)
        with qtbot.waitSignal(pool.run_finished, timeout=120_000):
            pool.submit(2, [TrialJob(2, planned, obj, SimulationParams(), max_frames=2)])
    finally:
        pool.shutdown()
