"""Each model's row says which part of the load runs out first (issue 39 point 5): the
example cube's default grasp goes through its centre of mass, so gravity has no moment about
it and every analytic model is limited by the weight's pull (translation)."""

from __future__ import annotations


def test_each_model_row_says_what_limits_it(window, qtbot):
    panel = window.predictions
    window.analysis_ctl.request(check=False)
    qtbot.waitUntil(lambda: "soft_point" in panel.results, timeout=120_000)
    for row, spec in enumerate(panel.models):
        r = panel.results.get(spec.name)
        if r is None or not spec.analytic:
            continue
        text = panel.table.item(row, 5).text()
        assert text == (r.reason or r.details["limit_text"])
        assert text.startswith("translation: holds the pull"), (spec.name, text)
        assert "no moment about the grasp centre" in text
