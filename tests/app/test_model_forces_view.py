"""Each analytic model's contact forces in the real window (issue 39 point 5): with "draw
contacts of the selected model" ticked, a click on a model's row in the predictions table draws
the normal and friction forces it holds the example cube's weight with, one arrow per contact
point (Soft point) or per square of a drawing grid over a patch's friction cells (REACH ...),
ending at it, in the simulated forces' two
colours and scales; the legend names the model. The default grasp goes through the cube's
centre of mass, so every friction force points straight up, against gravity. Deselecting the
row draws the default model's (REACH's) forces; unticking the box or moving the grasp clears
them until the new grasp's predictions arrive."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from app.force_arrows import arrow_count
from app.model.model_forces import ARROWS_PER_JAW


def _click_row(panel, qtbot, name: str, modifier=Qt.KeyboardModifier.NoModifier) -> None:
    row = [m.name for m in panel.models].index(name)
    table = panel.table
    table.scrollToItem(table.item(row, 0))
    pos = table.visualItemRect(table.item(row, 0)).center()
    QTest.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, modifier, pos)


def _check_drawn(window, name: str, label: str) -> None:
    layer = window.viewport.contacts.layer
    forces = window.predictions.results[name].forces
    assert window.viewport.contacts.forces_text.startswith(f"{label}: normal ")
    assert any(line.startswith(f"{label}: normal ") for line in layer.legend)
    normal, friction = layer.arrows["normal"], layer.arrows["friction"]
    assert len(normal.tails) == arrow_count(layer.meshes["normal"])
    assert len(friction.tails) == arrow_count(layer.meshes["friction"]) > 0
    # Per jaw, the arrows (a patch's cells summed on a drawing grid) carry the engine's forces
    # and end on its contacts.
    for j in (0, 1):
        mine = forces.jaw == j
        for arrows, f in ((normal, forces.normal_n), (friction, forces.friction_n)):
            drawn = arrows.source == j
            assert 0 < drawn.sum() <= 2 * ARROWS_PER_JAW
            np.testing.assert_allclose(
                arrows.forces_n[drawn].sum(axis=0), f[mine].sum(axis=0), atol=1e-9
            )
            ends = (arrows.tails + arrows.vectors)[drawn]
            lo, hi = forces.points[mine].min(axis=0), forces.points[mine].max(axis=0)
            assert np.all((ends >= lo - 1e-9) & (ends <= hi + 1e-9))
    np.testing.assert_allclose(friction.forces_n.sum(axis=0), -forces.weight_n, atol=1e-9)
    # A centred grasp: each friction force is straight up, opposing gravity.
    up = friction.vectors / np.linalg.norm(friction.vectors, axis=1)[:, None]
    assert np.all(up[:, 2] > 1 - 1e-6), up
    # Normal arrows push into the cube from both sides along the closing axis.
    assert {int(s) for s in normal.source} == {0, 1}


def test_a_click_on_a_model_row_draws_its_contact_forces(window, qtbot):
    panel = window.predictions
    contacts = window.viewport.contacts
    window.analysis_ctl.request(check=False)
    qtbot.waitUntil(
        lambda: (
            not panel.pending and getattr(panel.results.get("reach"), "forces", None) is not None
        ),
        timeout=120_000,
    )
    assert panel.results["reach"].success
    tabs = window.bottom_tabs  # the "Analytic predictions" tab, clicked
    bar = tabs.tabBar()
    pos = bar.tabRect(tabs.indexOf(panel)).center()
    QTest.mouseClick(bar, Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier, pos)
    qtbot.waitUntil(panel.contacts_box.isVisible, timeout=5_000)
    if not panel.contacts_box.isChecked():
        QTest.mouseClick(panel.contacts_box, Qt.MouseButton.LeftButton)
    assert panel.contacts_box.isChecked()
    qtbot.waitUntil(lambda: contacts.layer.visible, timeout=5_000)

    _click_row(panel, qtbot, "soft_point")
    qtbot.waitUntil(lambda: contacts.forces_text.startswith("Soft point:"), timeout=5_000)
    _check_drawn(window, "soft_point", "Soft point")
    assert len(contacts.layer.arrows["normal"].tails) == 2  # one point per jaw
    forces = panel.results["soft_point"].forces
    layer = contacts.layer
    np.testing.assert_allclose(
        layer.arrows["normal"].tails + layer.arrows["normal"].vectors, forces.points
    )

    _click_row(panel, qtbot, "exact")
    qtbot.waitUntil(lambda: contacts.forces_text.startswith("Exact area:"), timeout=5_000)
    _check_drawn(window, "exact", "Exact area")
    assert len(contacts.layer.arrows["normal"].tails) > 20  # both patches' cells, summed
    # Per pad and patch (the View menu, as for simulated forces): one resultant per jaw, the
    # sum of its cells' forces; back per point.
    forces = panel.results["exact"].forces
    window.menus.force_mode_actions["patches"].setChecked(True)
    normal = contacts.layer.arrows["normal"]
    assert sorted(int(s) for s in normal.source) == [0, 1]
    for j in (0, 1):
        np.testing.assert_allclose(
            normal.forces_n[normal.source == j][0], forces.normal_n[forces.jaw == j].sum(0)
        )
    window.menus.force_mode_actions["points"].setChecked(True)
    assert len(contacts.layer.arrows["normal"].tails) > 20

    # Ctrl+click deselects the row: the default model's (REACH's) forces are drawn.
    _click_row(panel, qtbot, "exact", Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: not panel.table.selectionModel().selectedRows(), timeout=5_000)
    qtbot.waitUntil(lambda: contacts.forces_text.startswith("REACH:"), timeout=5_000)
    _check_drawn(window, "reach", "REACH")

    # Unticking the box clears them.
    QTest.mouseClick(panel.contacts_box, Qt.MouseButton.LeftButton)
    assert not contacts.layer.visible and contacts.forces_text == ""
    QTest.mouseClick(panel.contacts_box, Qt.MouseButton.LeftButton)
    assert contacts.layer.visible

    # Another grasp: the old forces go at once; the new grasp's are drawn when they arrive.
    first = window.analysis.latest_request
    grasp = window.doc.grasp
    # 3 mm up: still over the centre of mass (so friction still points up), contacts higher.
    window.editing.set_grasp(replace(grasp, center=grasp.center + np.array([0.0, 0.0, 0.003])))
    assert not contacts.layer.visible
    qtbot.waitUntil(
        lambda: window.predictions.request > first and not panel.pending, timeout=120_000
    )
    qtbot.waitUntil(lambda: contacts.layer.visible, timeout=5_000)
    forces = panel.results["reach"].forces
    assert forces.points[:, 2].mean() > grasp.center[2] + 0.002
    _check_drawn(window, "reach", "REACH")
    panel.contacts_box.setChecked(False)
