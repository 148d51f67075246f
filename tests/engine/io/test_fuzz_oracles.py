"""The fuzz suite's oracles can fail: each one reports the defect class it is there for (a
reader that returned such a value would be a silent acceptance), and passes the valid value."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from engine.evaluation.labels import PhysicalLabel
from engine.scene.object_mesh import builtin_cube
from tests.engine.io import fuzz_oracles as oracle
from tests.engine.io.test_fuzz_readers import SilentAcceptance, must_load_or_refuse

CUBE = builtin_cube()
V, F = np.array(CUBE.vertices), np.array(CUBE.faces)


def test_a_solid_passes_and_each_broken_mesh_is_reported():
    assert oracle.mesh_problems(V, F) == []
    broken = {
        "outside 0..7": (V, np.vstack([F[:-1], [[0, 1, 9]]])),
        "NaN or infinite": (np.vstack([V[:-1], [[np.nan, 0, 0]]]), F),
        "not closed": (V, F[:-1]),
        "volume of -": (V, F[:, ::-1]),  # inside out: a negative mass
        "not 1..500000": (V, F[:0]),
    }
    for problem, (v, f) in broken.items():
        assert problem in " ".join(oracle.mesh_problems(v, f)), problem


def test_header_counts_and_face_indices_of_off_ply_and_obj():
    off = b"OFF\n4 1 0\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n3 0 1 2\n"
    assert oracle.off_problems(off) == []
    assert "declares 4 vertices and 2 faces" in oracle.off_problems(off.replace(b"4 1", b"4 2"))[0]
    assert "outside 0..3" in oracle.off_problems(off.replace(b"3 0 1 2", b"3 0 1 7"))[0]
    ply = off.replace(
        b"OFF\n4 1 0\n", b"ply\nformat ascii 1.0\nelement vertex 4\nelement face 1\nend_header\n"
    )
    assert oracle.ascii_ply_problems(ply) == []
    assert (
        "declares 6 element lines"
        in oracle.ascii_ply_problems(ply.replace(b"face 1", b"face 2"))[0]
    )
    assert oracle.ascii_ply_problems(b"ply\nformat binary_little_endian 1.0\nend_header\n") is None
    assert oracle.obj_problems(b"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n") == []
    assert "vertex 4 of 3" in oracle.obj_problems(b"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 4\n")[0]
    assert "vertex 0" in oracle.obj_problems(b"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 0 1 2\n")[0]


def test_labels_counted_twice_coerced_or_dropped_are_reported():
    record = {"obj": "c", "attempt": 0, "trial": 0, "result": True}
    one = {"c/0": PhysicalLabel("c/0", (True,))}
    assert oracle.reach_labels_problems(one, [record]) == []
    two = {"c/0": PhysicalLabel("c/0", (True, True))}
    assert "appears twice" in " ".join(oracle.reach_labels_problems(two, [record, record]))
    assert "outside true/false" in " ".join(
        oracle.reach_labels_problems(one, [{**record, "result": "maybe"}])
    )
    csv = b"grasp_id,successes,trials\ng,1,2\n"
    got = {"g": PhysicalLabel("g", (True, False))}
    assert oracle.labels_csv_problems(got, csv) == []
    assert "1 outcomes" in " ".join(
        oracle.labels_csv_problems({"g": PhysicalLabel("g", (True,))}, csv)
    )
    assert "3 cells under a 2-column header" in " ".join(
        oracle.labels_csv_problems(got, b"grasp_id,result\ng,1,0\n")
    )


def test_results_cells_coerced_are_reported():
    rows = [{"model": "ipc", "config": "", "grasp_id": "g", "status": "ok", "success": "yes"}]
    pred = SimpleNamespace(model="ipc", config="", robustness={"g": 0.0})
    assert "success cells ['yes'] accepted" in oracle.predictions_problems([pred], rows)[0]
    analytic = [{**rows[0], "model": "reach", "robustness": "5"}]
    pred5 = SimpleNamespace(model="reach", config="", robustness={"g": 1.0})
    assert "robustness cell '5' accepted" in oracle.predictions_problems([pred5], analytic)[0]
    result = SimpleNamespace(success=False, trial=0, frames=3, newton_iterations=0, rollbacks=0,
                             wall_time_s=-1.0, grip_force1_n=1.0, grip_force2_n=np.inf)  # fmt: skip
    found = " ".join(oracle.trial_row_problems(result, {"success": "yes", "frames": "3.7"}))
    for problem in ("success cell 'yes'", "wall_time_s -1.0", "grip_force2_n is infinite",
                    "frames cell '3.7' is not a count"):  # fmt: skip
        assert problem in found, problem


def test_frames_that_do_not_match_their_checksum_are_reported(tmp_path):
    from engine.io.frames_npz import arrays_digest

    arrays = {"t0/time_s": np.zeros(1), "object_vertices": V, "object_faces": F}
    meta = {"format": "ipcgrasp-frames", "trials": [0], "arrays_sha256": arrays_digest(arrays)}
    assert oracle._digest(arrays) == meta["arrays_sha256"]  # the same definition, written twice
    changed = {**arrays, "t0/time_s": np.ones(1)}
    assert "arrays do not match" in " ".join(oracle.frames_problems(meta, changed))


def test_must_load_or_refuse_fails_the_property_on_a_silent_acceptance():
    must_load_or_refuse(lambda: 1, lambda v: [], "fine")
    with pytest.raises(SilentAcceptance, match=r"silent acceptance: it is 2 \(input: 'case'\)"):
        must_load_or_refuse(lambda: 2, lambda v: [f"it is {v}"], "case")
