"""The README's app features driven the way a user drives them: keys, mouse clicks, typing,
menus opened with the mouse and their items clicked, and file dialogs answered by typing a
file name and pressing Enter (issue 18). Each test checks what the user sees afterwards: the
document, the widgets' text, the file written and its content, the frame shown, the undo stack.

File dialogs are Qt's own (non-native) QFileDialog, found with
QApplication.activeModalWidget() from a timer while the dialog's event loop runs. No test
asserts a wall-clock limit: waits are generous `waitUntil`s for a loaded 2-core machine.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
import trimesh
from PySide6.QtCore import QEvent, QMimeData, QPoint, QPointF, Qt, QTimer, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent, QMouseEvent
from PySide6.QtTest import QTest
from PySide6.QtWidgets import (
    QAbstractButton,
    QApplication,
    QDialog,
    QFileDialog,
    QLineEdit,
    QSlider,
    QStyle,
    QStyleOptionSlider,
)

LONG = 180_000  # ms: worker start-up and short runs on a busy 2-core machine
SHORT = 20_000  # ms: anything that happens in the GUI thread
GIVE_UP_POLLS = 3000  # 20 ms polls (at least a minute) for a modal dialog to show


@pytest.fixture(autouse=True)
def _qt_file_dialogs(qapp):
    """Qt's own file dialog (a platform theme could otherwise give a native one that no
    QTest event reaches)."""
    before = qapp.testAttribute(Qt.ApplicationAttribute.AA_DontUseNativeDialogs)
    qapp.setAttribute(Qt.ApplicationAttribute.AA_DontUseNativeDialogs, True)
    yield
    qapp.setAttribute(Qt.ApplicationAttribute.AA_DontUseNativeDialogs, before)


# --- helpers -----------------------------------------------------------------------------------
def _when_modal(kind: type, act: Callable, seen: list, title: str | None = None) -> None:
    """Once a modal `kind` dialog (titled `title`, if given) is open, call act(dialog) from
    the dialog's event loop; `seen` gets the dialog so the test can tell it opened."""

    polls = [0]

    def poll() -> None:
        w = QApplication.activeModalWidget()
        if (
            type(w) is not kind  # exactly: a QFileDialog is a QDialog too
            or not w.isVisible()
            or (title is not None and w.windowTitle() != title)
        ):
            polls[0] += 1
            if polls[0] > GIVE_UP_POLLS:
                # Never hang the suite: close the dialogs nobody answered (the test then fails
                # on what it expected to see).
                for t in QApplication.topLevelWidgets():
                    if isinstance(t, QDialog) and t.isVisible():
                        t.reject()
                return
            QTimer.singleShot(20, poll)
            return
        seen.append(w)
        act(w)
        QTimer.singleShot(20, lambda: watch(w, 0))

    def watch(dialog, n: int) -> None:
        """Reject the dialog if the answer did not close it (never hang the suite)."""
        try:
            open_ = dialog.isVisible()
        except RuntimeError:  # deleted: it closed
            return
        if open_ and n > GIVE_UP_POLLS:
            dialog.reject()
        elif open_:
            QTimer.singleShot(20, lambda: watch(dialog, n + 1))

    QTimer.singleShot(0, poll)


def _answer_file_dialog(path: Path, seen: list) -> None:
    """Type `path` into the next file dialog's name field and press Enter."""

    def act(dialog: QFileDialog) -> None:
        # The folder is set directly (typing a path with "/" into Qt's name field jumps to
        # the root while it autocompletes); the name is typed and Enter pressed.
        dialog.setDirectory(str(path.parent))
        edit = dialog.findChild(QLineEdit, "fileNameEdit")
        edit.setFocus()
        edit.selectAll()
        QTest.keyClicks(edit, path.name)
        QTest.keyClick(edit, Qt.Key.Key_Return)

    _when_modal(QFileDialog, act, seen)


def _click_button(dialog, text: str) -> None:
    button = next(
        b for b in dialog.findChildren(QAbstractButton) if b.text().replace("&", "") == text
    )
    QTest.mouseClick(button, Qt.MouseButton.LeftButton)


def _menu_item(window, qtbot, path: list[str]) -> None:
    """Open the menu bar's menu path[0] with the mouse, then click through the rest (a
    submenu opens on its click; the last item is triggered)."""
    bar = window.menuBar()
    top = next(a for a in bar.actions() if a.text().replace("&", "") == path[0])
    QTest.mouseClick(bar, Qt.MouseButton.LeftButton, pos=bar.actionGeometry(top).center())
    menu = top.menu()
    qtbot.waitUntil(menu.isVisible, timeout=SHORT)
    for text in path[1:]:
        item = next(a for a in menu.actions() if a.text().replace("&", "") == text)
        assert item.isEnabled(), text
        sub = item.menu()  # read first: an item triggered may rebuild its menu
        QTest.mouseClick(menu, Qt.MouseButton.LeftButton, pos=menu.actionGeometry(item).center())
        if sub is not None:
            menu = sub
            qtbot.waitUntil(menu.isVisible, timeout=SHORT)


def _mouse(widget, kind: QEvent.Type, pos: QPoint, buttons: Qt.MouseButton) -> None:
    """A mouse event delivered to `widget` at once (QTest's mouseMove warps the X pointer
    and carries no buttons)."""
    button = Qt.MouseButton.LeftButton if kind != QEvent.Type.MouseMove else Qt.MouseButton.NoButton
    event = QMouseEvent(
        kind, QPointF(pos), QPointF(widget.mapToGlobal(pos)), button, buttons,
        Qt.KeyboardModifier.NoModifier,
    )  # fmt: skip
    QApplication.sendEvent(widget, event)


def _drag_slider(slider: QSlider, to_x: int) -> None:
    """Press the slider's handle, move to widget x `to_x` and release."""
    opt = QStyleOptionSlider()
    opt.initFrom(slider)
    opt.orientation = slider.orientation()
    opt.minimum, opt.maximum = slider.minimum(), slider.maximum()
    opt.sliderPosition = opt.sliderValue = slider.value()
    handle = slider.style().subControlRect(
        QStyle.ComplexControl.CC_Slider, opt, QStyle.SubControl.SC_SliderHandle, slider
    )
    start = handle.center()
    end = QPoint(to_x, start.y())
    left = Qt.MouseButton.LeftButton
    _mouse(slider, QEvent.Type.MouseButtonPress, start, left)
    for k in range(1, 6):
        step = QPoint(start.x() + (end.x() - start.x()) * k // 5, start.y())
        _mouse(slider, QEvent.Type.MouseMove, step, left)
    _mouse(slider, QEvent.Type.MouseButtonRelease, end, Qt.MouseButton.NoButton)


def _type_into(box, text: str) -> None:
    """Click into a number field, select its text, type `text` and press Enter."""
    QTest.mouseClick(box, Qt.MouseButton.LeftButton)
    box.lineEdit().selectAll()
    QTest.keyClicks(box, text)
    QTest.keyClick(box, Qt.Key.Key_Return)


def _box_file(path: Path, extents) -> Path:
    trimesh.creation.box(extents=extents).export(path)
    return path


def _run(window, qtbot, n_trials: int, frames: int) -> None:
    """A finished run of `n_trials` trials of `frames` frames each (the set-up, not under
    test; failing, never skipping, when a worker cannot compute)."""
    window.editing.edit_param("n_trials", n_trials)
    assert window.runs.start_simulation(max_frames=frames)
    qtbot.waitUntil(lambda: not window.sim.is_running(), timeout=LONG)
    run = window.doc.run
    for k in range(n_trials):
        rec = run.trials[k]
        assert rec.status == "done" and len(rec.frames) == frames, (rec.status, rec.result)


def _focus_view(window, qtbot) -> None:
    """Take the focus from a text field (which keeps its own Ctrl+Z) to the window."""
    window.activateWindow()
    window.setFocus()
    qtbot.waitUntil(window.hasFocus, timeout=SHORT)


# --- opening -----------------------------------------------------------------------------------
def test_file_open_menu_dialog_opens_the_typed_file(window, qtbot, tmp_path, dialogs):
    path = _box_file(tmp_path / "bar.stl", [0.06, 0.03, 0.02])
    seen: list = []
    _answer_file_dialog(path, seen)
    _menu_item(window, qtbot, ["File", "Open…"])
    qtbot.waitUntil(lambda: len(seen) == 1, timeout=SHORT)
    qtbot.waitUntil(lambda: window.doc.display_name == "bar", timeout=SHORT)
    assert len(seen) == 1
    assert window.doc.object_source == str(path.resolve()) or Path(
        window.doc.object_source
    ).samefile(path)
    np.testing.assert_allclose(
        sorted(np.ptp(window.doc.obj.vertices, axis=0)), [0.02, 0.03, 0.06], atol=1e-6
    )
    assert "bar" in window.windowTitle()
    assert str(path.resolve()) in [a.toolTip() for a in window.recent_menu.actions()]


def test_open_recent_reopens_the_file_clicked_in_the_submenu(window, qtbot, tmp_path):
    path = _box_file(tmp_path / "recent_box.stl", [0.05, 0.03, 0.02])
    assert window.opening.open_path(path)
    assert window.opening.load_example()
    assert window.doc.display_name == "example cube"
    _menu_item(window, qtbot, ["File", "Open recent", "recent_box.stl"])
    qtbot.waitUntil(lambda: window.doc.display_name == "recent_box", timeout=SHORT)
    np.testing.assert_allclose(
        sorted(np.ptp(window.doc.obj.vertices, axis=0)), [0.02, 0.03, 0.05], atol=1e-6
    )


def test_drag_enter_accepts_a_local_file_and_its_drop_opens_it(window, qtbot, tmp_path):
    path = _box_file(tmp_path / "dragged.obj", [0.03, 0.02, 0.025])
    actions = Qt.DropAction.CopyAction
    left, none = Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier
    # A web address is refused: the cursor shows no drop.
    web = QMimeData()
    web.setUrls([QUrl("https://example.com/part.stl")])
    refused = QDragEnterEvent(QPoint(200, 200), actions, web, left, none)
    refused.setAccepted(False)
    QApplication.sendEvent(window, refused)
    assert not refused.isAccepted()
    # A local file is accepted, and dropping it opens it.
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(path))])
    enter = QDragEnterEvent(QPoint(200, 200), actions, mime, left, none)
    enter.setAccepted(False)
    QApplication.sendEvent(window, enter)
    assert enter.isAccepted() and enter.dropAction() == Qt.DropAction.CopyAction
    drop = QDropEvent(QPointF(200, 200), actions, mime, left, none)
    QApplication.sendEvent(window, drop)
    qtbot.waitUntil(lambda: window.doc.display_name == "dragged", timeout=SHORT)


# --- editing -----------------------------------------------------------------------------------
def test_the_e_slider_sets_e_by_keys_and_by_dragging(window, qtbot):
    dock = window.param_dock
    slider = dock.e_slider
    window.param_dock_widget.show()
    window.param_dock_widget.raise_()
    qtbot.waitUntil(slider.isVisible, timeout=SHORT)
    start = slider.value()
    assert window.doc.params.youngs_modulus_pa == pytest.approx(10 ** (start / 10), rel=0.13)
    # Keys: Up steps log10 E by 0.1.
    QTest.mouseClick(slider, Qt.MouseButton.LeftButton, pos=QPoint(2, slider.height() // 2))
    slider.setFocus()
    qtbot.waitUntil(slider.hasFocus, timeout=SHORT)
    pos = slider.value()
    QTest.keyClick(slider, Qt.Key.Key_Up)
    assert slider.value() == pos + 1
    assert window.doc.params.youngs_modulus_pa == pytest.approx(10 ** ((pos + 1) / 10))
    assert dock.e_spin.value() == pytest.approx(10 ** ((pos + 1) / 10))
    # Dragging the handle to the right end: the largest E the field takes.
    _drag_slider(slider, slider.width() - 1)
    assert slider.value() == slider.maximum()
    top = 10 ** (slider.maximum() / 10)
    assert window.doc.params.youngs_modulus_pa == pytest.approx(top)
    assert dock.e_spin.value() == pytest.approx(top)
    assert window.undo_stack.canUndo()
    assert "E" in window.undo_stack.undoText() or "modulus" in window.undo_stack.undoText()


def test_advanced_fields_fold_out_on_a_click_and_take_typed_values(window, qtbot):
    dock = window.param_dock
    box = dock.advanced_box
    window.param_dock_widget.show()
    assert not box.isChecked() and not dock.density_spin.isVisible()
    # Click the group's title (its check box and label toggle it).
    # The dock scrolls: bring the group's title into view first.
    scroll = next((p for p in _parents(box) if hasattr(p, "ensureWidgetVisible")), None)
    if scroll is not None:
        scroll.ensureWidgetVisible(box, 0, 0)
    title = QPoint(12, box.fontMetrics().height() // 2 + 1)
    QTest.mouseClick(box, Qt.MouseButton.LeftButton, pos=title)
    qtbot.waitUntil(lambda: box.isChecked() and dock.density_spin.isVisible(), timeout=SHORT)
    if scroll is not None:
        scroll.ensureWidgetVisible(dock.density_spin)
    _type_into(dock.density_spin, "1240")
    qtbot.waitUntil(lambda: window.doc.density_kg_m3 == pytest.approx(1240.0), timeout=SHORT)
    volume = window.doc.obj.mass_kg / 1240.0 if hasattr(window.doc.obj, "mass_kg") else None
    assert volume is None or volume == pytest.approx(0.03**3, rel=1e-3)
    step = dock.fields["time_step_s"].editor
    if scroll is not None:
        scroll.ensureWidgetVisible(step)
    _type_into(step, "2.5")  # ms
    qtbot.waitUntil(lambda: window.doc.params.time_step_s == pytest.approx(2.5e-3), timeout=SHORT)
    assert window.undo_stack.count() == 2
    # Clicked again, the fields fold away.
    QTest.mouseClick(box, Qt.MouseButton.LeftButton, pos=title)
    qtbot.waitUntil(lambda: not dock.density_spin.isVisible(), timeout=SHORT)


def _parents(w):
    p = w.parentWidget()
    while p is not None:
        yield p
        p = p.parentWidget()


# --- runs, plots and the timeline --------------------------------------------------------------
def test_clicking_a_runs_table_row_shows_that_trial(window, qtbot):
    _run(window, qtbot, n_trials=2, frames=4)
    table = window.runs_table
    run = window.doc.run
    qtbot.waitUntil(lambda: table.rowCount() == 2, timeout=SHORT)
    for row in (1, 0):
        rect = table.visualRect(table.model().index(row, 0))
        QTest.mouseClick(table.viewport(), Qt.MouseButton.LeftButton, pos=rect.center())
        qtbot.waitUntil(lambda r=row: window.model.trial == r, timeout=SHORT)
        assert [i.row() for i in table.selectionModel().selectedRows()] == [row]
        times = [f.time_s for f in run.trials[row].frames]
        assert list(window.timeline.series.time_s) == pytest.approx(times)
        assert list(window.plots.series.time_s) == pytest.approx(times)


@pytest.fixture
def five_frames(window, qtbot):
    _run(window, qtbot, n_trials=1, frames=5)
    window.model.select_trial(0)
    qtbot.waitUntil(lambda: len(window.timeline.series) == 5, timeout=SHORT)
    return window


def _shown(window, qtbot, index: int, drawn: list) -> None:
    qtbot.waitUntil(
        lambda: window.timeline.index == index and bool(drawn) and drawn[-1] == index,
        timeout=SHORT,
    )


def test_clicking_a_plot_seeks_the_timeline_to_that_time(five_frames, qtbot):
    window = five_frames
    drawn: list[int] = []
    window.frame_displayed.connect(lambda _t, i: drawn.append(i))
    plots = window.plots
    times = list(plots.series.time_s)
    try:
        for k in (1, 4, 2):
            x = round(plots._x(times[k]))
            QTest.mouseClick(plots, Qt.MouseButton.LeftButton, pos=QPoint(x, plots.height() // 2))
            _shown(window, qtbot, k, drawn)
            assert window.timeline.slider.value() == k
            assert (
                f"{k + 1}/5" in window.timeline.label.text().replace(" ", "")
                or str(k) in window.timeline.label.text()
            )
    finally:
        window.frame_displayed.disconnect()


def test_scrubber_and_transport_buttons_move_the_frame_shown(five_frames, qtbot):
    window = five_frames
    tl = window.timeline
    drawn: list[int] = []
    window.frame_displayed.connect(lambda _t, i: drawn.append(i))
    left = Qt.MouseButton.LeftButton
    try:
        QTest.mouseClick(tl.home_button, left)
        _shown(window, qtbot, 0, drawn)
        QTest.mouseClick(tl.next_button, left)
        _shown(window, qtbot, 1, drawn)
        QTest.mouseClick(tl.end_button, left)
        _shown(window, qtbot, 4, drawn)
        QTest.mouseClick(tl.back_button, left)
        _shown(window, qtbot, 3, drawn)
        # The scrubber dragged to its left end, then to its right end.
        _drag_slider(tl.slider, 0)
        _shown(window, qtbot, 0, drawn)
        assert not tl.follow_live
        _drag_slider(tl.slider, tl.slider.width() - 1)
        _shown(window, qtbot, 4, drawn)
        # Play from the first frame: the frame advances by itself; a click pauses.
        QTest.mouseClick(tl.home_button, left)
        _shown(window, qtbot, 0, drawn)
        QTest.mouseClick(tl.play_button, left)
        assert tl.is_playing() and tl.play_button.isChecked()
        qtbot.waitUntil(lambda: tl.index >= 2, timeout=LONG)
        QTest.mouseClick(tl.play_button, left)
        assert not tl.is_playing()
        at = tl.index
        qtbot.wait(300)
        assert tl.index == at
    finally:
        window.frame_displayed.disconnect()


# --- saving and exports ------------------------------------------------------------------------
