"""The E x mu table: rows E, columns mu, unfinished cells marked, best cell in bold."""

from __future__ import annotations

import math

from engine.evaluation.grid import GridCell, grid_cells, markdown_table, values
from engine.evaluation.labels import ModelPredictions, PhysicalLabel


def test_cells_are_scored_from_matching_ipc_predictions_and_unfinished_ones_marked():
    labels = {
        "g0": PhysicalLabel("g0", (True,) * 5),
        "g1": PhysicalLabel("g1", (False,) * 5),
    }
    preds = [
        ModelPredictions("ipc", "a", {"E": "1e+08", "mu": "0.4"}, {"g0": 1.0, "g1": 0.0}),
        ModelPredictions("ipc", "b", {"E": "1e+07", "mu": "0.4"}, {"g0": 0.0}),
        ModelPredictions("reach", "c", {"E": "1e+08", "mu": "0.4"}, {"g0": 0.0, "g1": 1.0}),
    ]
    cells = grid_cells(preds, labels, [1e7, 1e8], [0.4, 0.6], 2, {(1e7, 0.4): 1, (1e8, 0.4): 2})
    assert cells[1][0].scores.f1 == 1.0 and cells[1][0].complete
    assert cells[0][0].scores.grasps == 1 and not cells[0][0].complete
    assert cells[0][1].scores is None and cells[0][1] == GridCell(1e7, 0.6, None, 0, 2)
    f1 = values(cells)
    assert f1[1, 0] == 1.0 and math.isnan(f1[1, 1])
    table = markdown_table(cells, "f1", "## F1")
    assert table.splitlines()[2] == "| E (Pa) \\ mu | 0.4 | 0.6 |"
    assert "| 1e+07 | 0.17 (1/2 grasps) | - |" in table
    assert "| 1e+08 | **1.00** | - |" in table
