"""The resting-pose list in the Object dock (issue 39 point 4): one line per group of
look-alike poses with a side-view thumbnail, its summed probability and a description; the
most probable group by default; the user's choice remembered for the file."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from tests.app.pose_objects import lying_bottle, mug

SEARCH_TIMEOUT_MS = 180_000


def test_a_bottle_saved_lying_lists_two_or_three_poses_and_remembers_the_choice(
    window, qtbot, tmp_path
):
    """The bottle saved lying opened standing ("pose 0: 2.5 %") among 66 lines of 1.5 %. It
    now opens lying, its line first and selected ("94.9 %  40 mm high on a 120 x 40 mm
    footprint, as in the file"); the user's pick through the list rests it standing, and the
    file opens standing next time."""
    path = lying_bottle(tmp_path / "bottle.stl")
    combo = window.grasp_dock.pose_combo
    assert window.opening.open_path(path)
    doc = window.doc
    assert len(doc.poses) > 60 and 2 <= combo.count() <= 3  # was a line per stable pose
    assert float(np.ptp(doc.obj.vertices[:, 2])) < 0.05  # lying: 40 mm high
    choices = doc.pose_choices
    assert len(doc.poses) > 60 and combo.count() == len(choices) and 2 <= len(choices) <= 3
    first = choices[0].group
    text = combo.itemText(0)
    assert first.description() in text and "as in the file" in text
    assert f"{100 * first.probability:.1f} %" in text and first.probability > 0.9
    assert combo.currentIndex() == 0 and doc.pose_index == first.index
    assert [combo.itemData(k) for k in range(combo.count())] == [c.group.index for c in choices]
    assert not combo.itemIcon(0).isNull()
    assert combo.toolTip().startswith(text)  # the whole line, which the dock may cut
    qtbot.waitUntil(lambda: not window.model.finding_default, timeout=SEARCH_TIMEOUT_MS)

    combo.setFocus()
    QTest.keyClick(combo, Qt.Key.Key_Down)  # the next line: standing on an end
    standing = choices[1].group
    assert combo.currentIndex() == 1 and window.doc.pose_index == standing.index
    assert float(np.ptp(window.doc.obj.vertices[:, 2])) > 0.11  # 120 mm high
    qtbot.waitUntil(lambda: not window.model.finding_default, timeout=SEARCH_TIMEOUT_MS)

    # A session or data set may name another member of a group: its line is selected.
    other = first.members[1]
    window.model.apply_edit(replace(window.model.edit_state(), pose_index=other))
    assert window.doc.pose_index == other and combo.currentIndex() == 0

    QTest.keyClick(combo, Qt.Key.Key_Down)  # standing again
    assert window.doc.pose_index == standing.index and combo.currentIndex() == 1
    qtbot.waitUntil(lambda: not window.model.finding_default, timeout=SEARCH_TIMEOUT_MS)
    window.menus.undo_action.trigger()  # one undoable edit: back to the other lying member
    assert window.doc.pose_index == other and combo.currentIndex() == 0
    window.menus.redo_action.trigger()
    assert window.doc.pose_index == standing.index and combo.currentIndex() == 1
    window.doc.dirty = False
    assert window.opening.open_path(path)  # remembered for the file
    assert window.doc.pose_index == standing.index and combo.currentIndex() == 1
    qtbot.waitUntil(lambda: not window.model.finding_default, timeout=SEARCH_TIMEOUT_MS)


def _painted_extent(pixmap) -> tuple[int, int]:
    """Width and height in pixels of what a thumbnail paints above its ground line."""
    image = pixmap.toImage()
    alpha = np.array(
        [
            [image.pixelColor(x, y).alpha() for x in range(image.width())]
            for y in range(image.height())
        ]
    )
    filled = alpha[: image.height() - 6] > 128  # above the ground line
    rows, cols = np.nonzero(filled)
    return int(np.ptp(cols)) + 1, int(np.ptp(rows)) + 1


def test_the_thumbnails_of_a_mug_standing_and_lying_differ(window, qtbot, tmp_path):
    """The list's pictures: the mug standing (as in the file) is painted taller than wide,
    lying on its side wider than high, on one scale for all its poses."""
    assert window.opening.open_path(mug(tmp_path / "mug.stl"))
    combo = window.grasp_dock.pose_combo
    assert not combo.itemIcon(0).isNull()  # was text only
    choices = window.doc.pose_choices
    standing = next(k for k, c in enumerate(choices) if c.group.as_in_file)
    assert "as in the file" in combo.itemText(standing) and standing != 0
    size = combo.iconSize()
    w_up, h_up = _painted_extent(combo.itemIcon(standing).pixmap(size))
    w_lying, h_lying = _painted_extent(combo.itemIcon(0).pixmap(size))
    assert w_up < h_up and w_lying > 1.5 * h_lying and h_up > 1.5 * h_lying
    qtbot.waitUntil(lambda: not window.model.finding_default, timeout=SEARCH_TIMEOUT_MS)
