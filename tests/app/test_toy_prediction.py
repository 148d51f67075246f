"""A model registered at run time gets its row in the app's predictions table (issue 38).

The toy model (tests/engine/analytic/toy_model.py: s* = 2 mu F / (m g)) is registered in the GUI
process only; the analysis worker process learns it from the job (AnalysisJob carries the
registry entries), evaluates it, and the table shows it under its label, in registry order.
"""

from __future__ import annotations

import pytest

from engine.analytic import registry
from tests.engine.analytic.toy_model import TOY, toy_margin


def test_a_registered_model_is_predicted_and_shown(window, qtbot):
    """Checks the toy model's row: its label, "yes", and the margin of Coulomb's law with the
    window's friction, the grip force the panel says the models used and the object's mass."""
    panel, ctl = window.predictions, window.analysis_ctl
    registry.register(TOY)
    try:
        ctl.request(check=False)
        qtbot.waitUntil(lambda: "toy" in panel.results, timeout=120_000)
        row = [m.name for m in panel.models].index("toy")
        assert row == 0  # order 5: before every built-in model
        assert panel.model_at(row) == "toy"
        assert panel.table.item(row, 0).text() == "Toy Coulomb"
        assert panel.table.item(row, 1).text() == "yes"
        doc = window.doc
        expected = toy_margin(doc.params.mu, panel.force_n, doc.obj.mass_kg)
        assert panel.results["toy"].margin == pytest.approx(expected, rel=1e-9)
        assert panel.table.item(row, 2).text() == format(expected, ".3g")
    finally:
        registry.unregister(TOY.name)
        # Leave the table as the other tests expect it: the built-in rows only.
        ctl.request(check=False)
        qtbot.waitUntil(lambda: bool(panel.results) and "toy" not in panel.results, timeout=120_000)
    assert "toy" not in [m.name for m in panel.models]
