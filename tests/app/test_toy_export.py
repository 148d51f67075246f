"""An export format registered at run time gets its File menu item and writes the selected
trial (issue 38: a new export format is two files, its writer and its registry line).

The toy format writes the frames' times and the object's height as JSON; it is registered in
the test process only and reached through the File menu with real clicks.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.io.trial_exports import TrialExport, TrialFrames, register, trial_exports, unregister
from tests.app.test_input_events import _answer_file_dialog, _menu_item, _run

TOY = TrialExport(
    "toy_json", "toy JSON", "Frame times and the object's height", "Toy JSON (*.toy.json)",
    ".json", "tests.app.test_toy_export:write_toy",
)  # fmt: skip


def write_toy(path: str | Path, trial: TrialFrames, *, overwrite: bool = False) -> Path:
    """The toy writer: one record per frame, its time and the object's lowest point (m)."""
    out = Path(path)
    if out.exists() and not overwrite:
        raise FileExistsError(out)
    rows = []
    for f in trial.frames:
        moved = trial.object_vertices @ f.object_pose[:3, :3].T + f.object_pose[:3, 3]
        rows.append({"time_s": f.time_s, "lowest_z_m": float(moved[:, 2].min())})
    out.write_text(json.dumps(rows))
    return out


def test_a_registered_export_format_is_in_the_file_menu_and_writes_the_trial(
    window, qtbot, tmp_path
):
    _run(window, qtbot, n_trials=1, frames=4)
    window.model.select_trial(0)
    rec = window.doc.run.trials[0]
    register(TOY)
    try:
        path = tmp_path / "trial.json"
        seen: list = []
        _answer_file_dialog(path, seen)
        _menu_item(window, qtbot, ["File", "Export toy JSON…"])
        qtbot.waitUntil(path.exists, timeout=30_000)
        rows = json.loads(path.read_text())
        assert [r["time_s"] for r in rows] == pytest.approx([f.time_s for f in rec.frames])
        # The object rests on the ground (z = 0) in the first frame.
        assert rows[0]["lowest_z_m"] == pytest.approx(0.0, abs=1e-4)
        assert list(window.menus.trial_export_actions) == [f.name for f in trial_exports()]
    finally:
        unregister(TOY.name)
    window.menus.refresh_trial_exports()
    assert "toy_json" not in window.menus.trial_export_actions
