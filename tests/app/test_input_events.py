"""The README's app features driven the way a user drives them: keys, mouse clicks, typing,
menus opened with the mouse and their items clicked, and file dialogs answered by typing a
file name and pressing Enter (issue 18). Each test checks what the user sees afterwards: the
document, the widgets' text, the file written and its content, the frame shown, the undo stack.

File dialogs are Qt's own (non-native) QFileDialog, and question boxes the real QMessageBox,
found with QApplication.activeModalWidget() from a timer while the dialog's event loop runs
and answered with their buttons (never patched away). No test
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
    QMessageBox,
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
    the dialog's event loop; `seen` gets its title so the test can tell it opened."""

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
        seen.append(w.windowTitle())
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


def _answer_file_dialog(path: Path, seen: list, button: str | None = None) -> None:
    """Type `path` into the next file dialog's name field and press Enter (or click the
    dialog's `button`)."""

    def act(dialog: QFileDialog) -> None:
        # The folder is set directly (typing a path with "/" into Qt's name field jumps to
        # the root while it autocompletes); the name is typed and Enter pressed.
        dialog.setDirectory(str(path.parent))
        edit = dialog.findChild(QLineEdit, "fileNameEdit")
        edit.setFocus()
        edit.selectAll()
        QTest.keyClicks(edit, path.name)
        if button is None:
            QTest.keyClick(edit, Qt.Key.Key_Return)
        else:
            _click_button(dialog, button)

    _when_modal(QFileDialog, act, seen)


def _click_button(dialog, text: str) -> None:
    button = next(
        b for b in dialog.findChildren(QAbstractButton) if b.text().replace("&", "") == text
    )
    QTest.mouseClick(button, Qt.MouseButton.LeftButton)


def _menu_item(window, qtbot, path: list[str]) -> None:
    """Open the menu bar's menu path[0] with the mouse, then go through the rest (a submenu
    opens when the pointer is on its item; the last item is clicked)."""
    bar = window.menuBar()
    top = next(a for a in bar.actions() if a.text().replace("&", "") == path[0])
    QTest.mouseClick(bar, Qt.MouseButton.LeftButton, pos=bar.actionGeometry(top).center())
    menu = top.menu()
    qtbot.waitUntil(menu.isVisible, timeout=SHORT)
    for text in path[1:]:
        item = next(a for a in menu.actions() if a.text().replace("&", "") == text)
        assert item.isEnabled(), text
        sub = item.menu()  # read first: an item triggered may rebuild its menu
        at = menu.actionGeometry(item).center()
        if sub is None:
            QTest.mouseClick(menu, Qt.MouseButton.LeftButton, pos=at)
            continue
        # A submenu is opened by pointing at its item, as a user does. (Clicked, the item
        # shows the submenu without making it the active popup; an item clicked in it then
        # triggers but the menus stay open, since QMenu closes the popups up to the menu bar
        # only from the active one, and the open menus took every later key and click: the
        # File menu no longer opened, Ctrl+S / Ctrl+P / Ctrl+Z did nothing.)
        QTest.mouseMove(menu, at)
        menu = sub
        qtbot.waitUntil(lambda m=menu: QApplication.activePopupWidget() is m, timeout=SHORT)
    # The item clicked closed every menu: nothing is left to take the keys and clicks.
    qtbot.waitUntil(lambda: QApplication.activePopupWidget() is None, timeout=SHORT)


def _mouse(widget, kind: QEvent.Type, pos: QPoint, buttons: Qt.MouseButton) -> None:
    """A mouse event delivered to `widget` at once (QTest's mouseMove warps the X pointer
    and carries no buttons)."""
    button = Qt.MouseButton.LeftButton if kind != QEvent.Type.MouseMove else Qt.MouseButton.NoButton
    event = QMouseEvent(
        kind, QPointF(pos), QPointF(widget.mapToGlobal(pos)), button, buttons,
        Qt.KeyboardModifier.NoModifier,
    )  # fmt: skip
    QApplication.sendEvent(widget, event)


def _slider_handle(slider: QSlider):
    """The rectangle of the slider's handle, in the slider's coordinates."""
    opt = QStyleOptionSlider()
    opt.initFrom(slider)
    opt.orientation = slider.orientation()
    opt.minimum, opt.maximum = slider.minimum(), slider.maximum()
    opt.sliderPosition = opt.sliderValue = slider.value()
    return slider.style().subControlRect(
        QStyle.ComplexControl.CC_Slider, opt, QStyle.SubControl.SC_SliderHandle, slider
    )


def _drag_slider(slider: QSlider, to_x: int) -> None:
    """Press the slider's handle, move to widget x `to_x` and release."""
    start = _slider_handle(slider).center()
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


def _press(window, qtbot, key: Qt.Key, mods=Qt.KeyboardModifier.NoModifier) -> None:
    """A key pressed by the user: delivered to the focused widget of the active window, so
    a field that takes the key (its own undo, say) does, and the window's shortcuts
    (Qt.WindowShortcut) fire only when `window` is the active window."""
    if QApplication.activeWindow() is not window:
        window.activateWindow()
        qtbot.waitUntil(lambda: QApplication.activeWindow() is window, timeout=SHORT)
    QTest.keyClick(QApplication.focusWidget() or window, key, mods)


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
    assert str(path.resolve()) in [a.toolTip() for a in window.menus.recent_menu.actions()]


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
    window.scene.frame_displayed.connect(lambda _t, i: drawn.append(i))
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
        window.scene.frame_displayed.disconnect()


def test_scrubber_and_transport_buttons_move_the_frame_shown(five_frames, qtbot):
    window = five_frames
    tl = window.timeline
    drawn: list[int] = []
    window.scene.frame_displayed.connect(lambda _t, i: drawn.append(i))
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
        window.scene.frame_displayed.disconnect()


# --- saving and exports ------------------------------------------------------------------------
CTRL = Qt.KeyboardModifier.ControlModifier
SHIFT = Qt.KeyboardModifier.ShiftModifier


# --- undo and redo -----------------------------------------------------------------------------
def test_ctrl_z_and_ctrl_shift_z_undo_and_redo_typed_edits(window, qtbot):
    """The grasp's centre and mu typed, E moved with the slider's key; Ctrl+Z and Ctrl+Shift+Z
    pressed where the focus is (in the field just typed into, then on the slider)."""
    gd, dock, doc = window.grasp_dock, window.param_dock, window.doc
    window.grasp_dock_widget.show()
    window.param_dock_widget.show()
    x_box, mu_box, slider = gd.center[0], dock.mu_spin, dock.e_slider
    qtbot.waitUntil(lambda: x_box.isVisible() and mu_box.isVisible(), timeout=SHORT)
    x0, mu0, e0 = float(doc.grasp.center[0]), doc.params.mu, doc.params.youngs_modulus_pa
    x0_text, mu0_text = x_box.text(), mu_box.text()
    x1 = round(x0 * 1e3 + 2.0, 1)  # mm: 2 mm along x
    assert window.undo_stack.count() == 0

    _type_into(x_box, f"{x1}")
    qtbot.waitUntil(lambda: window.doc.grasp.center[0] == pytest.approx(x1 * 1e-3), timeout=SHORT)
    _type_into(mu_box, "0.7")
    qtbot.waitUntil(lambda: window.doc.params.mu == pytest.approx(0.7), timeout=SHORT)
    assert window.undo_stack.count() == 2
    # The focus is still in the mu field (Enter committed it): Ctrl+Z undoes the edit, not
    # the field's text, and Ctrl+Shift+Z redoes it.
    assert QApplication.focusWidget() is mu_box
    _press(window, qtbot, Qt.Key.Key_Z, CTRL)
    assert window.doc.params.mu == pytest.approx(mu0) and mu_box.text() == mu0_text
    assert window.undo_stack.index() == 1
    _press(window, qtbot, Qt.Key.Key_Z, CTRL | SHIFT)
    assert window.doc.params.mu == pytest.approx(0.7) and mu_box.value() == pytest.approx(0.7)
    assert window.undo_stack.index() == 2

    # E by the slider's Up key (+0.1 in log10 E), the handle clicked first (no edit).
    QTest.mouseClick(slider, Qt.MouseButton.LeftButton, pos=_slider_handle(slider).center())
    qtbot.waitUntil(slider.hasFocus, timeout=SHORT)
    edits = window.undo_stack.count()
    e_before, pos = window.doc.params.youngs_modulus_pa, slider.value()
    _press(window, qtbot, Qt.Key.Key_Up)
    e1 = 10 ** ((pos + 1) / 10)
    assert window.doc.params.youngs_modulus_pa == pytest.approx(e1)
    assert window.undo_stack.count() == edits + 1

    # Ctrl+Z back through every edit, the focus on the slider.
    _press(window, qtbot, Qt.Key.Key_Z, CTRL)
    assert window.doc.params.youngs_modulus_pa == pytest.approx(e_before)
    assert slider.value() == pos and dock.e_spin.value() == pytest.approx(e_before)
    assert window.doc.params.youngs_modulus_pa == pytest.approx(e0)
    assert window.doc.params.mu == pytest.approx(0.7)
    _press(window, qtbot, Qt.Key.Key_Z, CTRL)
    assert window.doc.params.mu == pytest.approx(mu0) and mu_box.text() == mu0_text
    assert window.doc.grasp.center[0] == pytest.approx(x1 * 1e-3)
    _press(window, qtbot, Qt.Key.Key_Z, CTRL)
    assert window.doc.grasp.center[0] == pytest.approx(x0) and x_box.text() == x0_text
    assert not window.undo_stack.canUndo()

    # Ctrl+Shift+Z forward again.
    _press(window, qtbot, Qt.Key.Key_Z, CTRL | SHIFT)
    assert window.doc.grasp.center[0] == pytest.approx(x1 * 1e-3)
    assert x_box.value() == pytest.approx(x1)
    _press(window, qtbot, Qt.Key.Key_Z, CTRL | SHIFT)
    assert window.doc.params.mu == pytest.approx(0.7) and mu_box.value() == pytest.approx(0.7)
    _press(window, qtbot, Qt.Key.Key_Z, CTRL | SHIFT)
    assert not window.undo_stack.canRedo()
    assert window.doc.params.youngs_modulus_pa == pytest.approx(e1)
    assert slider.value() == pos + 1 and dock.e_spin.value() == pytest.approx(e1)


def test_ctrl_z_in_a_field_being_typed_into_undoes_the_typing_only(window, qtbot):
    """Before Enter, the field keeps Ctrl+Z for its own text: the app's stack is untouched."""
    window.param_dock_widget.show()
    mu_box = window.param_dock.mu_spin
    qtbot.waitUntil(mu_box.isVisible, timeout=SHORT)
    mu0, text0 = window.doc.params.mu, mu_box.text()
    QTest.mouseClick(mu_box, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(mu_box.hasFocus, timeout=SHORT)
    mu_box.lineEdit().selectAll()
    QTest.keyClicks(mu_box, "0.9")
    assert mu_box.text() != text0
    _press(window, qtbot, Qt.Key.Key_Z, CTRL)
    assert window.undo_stack.count() == 0 and window.doc.params.mu == pytest.approx(mu0)
    assert mu_box.text() != "0.9"  # the field undid (part of) its typing
    QTest.keyClick(mu_box, Qt.Key.Key_Escape)  # nothing to commit


# --- saving and exports ------------------------------------------------------------------------
def test_ctrl_p_saves_the_view_as_a_png_named_in_its_dialog(window, qtbot, tmp_path):
    import imageio.v3 as iio

    path = tmp_path / "view.png"
    seen: list = []
    _answer_file_dialog(path, seen, button="Save")
    _press(window, qtbot, Qt.Key.Key_P, CTRL)
    qtbot.waitUntil(lambda: len(seen) == 1, timeout=SHORT)
    qtbot.waitUntil(path.exists, timeout=SHORT)
    assert seen == ["Save screenshot"]
    image = iio.imread(path)
    w, h = window.viewport.window_size()
    ratio = window.viewport.plotter.devicePixelRatioF()
    assert image.shape[:2] == (round(h * ratio), round(w * ratio))
    # Not blank: the background gradient, the object and the pads.
    colours = np.unique(image.reshape(-1, image.shape[2])[:, :3], axis=0)
    assert len(colours) > 50 and image[..., :3].std() > 5


def test_ctrl_s_saves_a_session_with_the_typed_parameters(window, qtbot, tmp_path):
    from engine.io.session import load_session

    window.param_dock_widget.show()
    dock = window.param_dock
    qtbot.waitUntil(dock.mu_spin.isVisible, timeout=SHORT)
    _type_into(dock.mu_spin, "0.55")
    _type_into(dock.trials_spin, "3")
    qtbot.waitUntil(lambda: window.doc.params.mu == pytest.approx(0.55), timeout=SHORT)
    qtbot.waitUntil(lambda: window.doc.spec.n_trials == 3, timeout=SHORT)
    assert window.doc.path is None  # never saved: Ctrl+S asks for a name
    seen: list = []
    _answer_file_dialog(tmp_path / "study", seen)  # no suffix typed: the app adds it
    _press(window, qtbot, Qt.Key.Key_S, CTRL)  # the focus is in the trials field
    saved = tmp_path / "study.ipcgrasp.json"
    qtbot.waitUntil(saved.exists, timeout=SHORT)
    assert seen == ["Save session"]
    assert not window.doc.dirty and "study" in window.windowTitle()
    session = load_session(saved)
    assert session.params.mu == pytest.approx(0.55)
    # Opened again, the fields show what was typed.
    assert window.opening.load_example()
    assert window.doc.params.mu != pytest.approx(0.55)
    assert window.opening.open_path(saved)
    assert window.doc.params.mu == pytest.approx(0.55)
    assert window.doc.spec.n_trials == 3
    assert dock.mu_spin.value() == pytest.approx(0.55) and dock.trials_spin.value() == 3


def test_file_export_menus_write_csv_vtk_series_and_video(window, qtbot, tmp_path):
    import csv
    import xml.etree.ElementTree as ET

    import imageio.v3 as iio
    import pyvista as pv

    _run(window, qtbot, n_trials=2, frames=4)
    window.model.select_trial(1)
    run = window.doc.run
    table = window.runs_table
    qtbot.waitUntil(lambda: table.rowCount() == 2, timeout=SHORT)

    # Results CSV: one row per trial shown in the runs table.
    csv_path = tmp_path / "results.csv"
    seen: list = []
    _answer_file_dialog(csv_path, seen)
    _menu_item(window, qtbot, ["File", "Export results CSV…"])
    qtbot.waitUntil(csv_path.exists, timeout=SHORT)
    with csv_path.open(newline="") as f:
        rows = list(csv.DictReader(f))
    assert [int(r["trial"]) for r in rows] == sorted(run.trials) == [0, 1]
    assert [r["status"] for r in rows] == [run.trials[k].status for k in (0, 1)]
    assert [r["success"] for r in rows] == [str(run.trials[k].result.success) for k in (0, 1)]
    for r in rows:  # the run's parameters in every row
        assert float(r["param_mu"]) == pytest.approx(run.params.mu)
        assert float(r["param_youngs_modulus_pa"]) == pytest.approx(run.params.youngs_modulus_pa)

    # VTK series of the selected trial: one dataset per frame.
    pvd = tmp_path / "series.pvd"
    _answer_file_dialog(pvd, seen)
    _menu_item(window, qtbot, ["File", "Export VTK series…"])
    qtbot.waitUntil(pvd.exists, timeout=LONG)
    sets = ET.parse(pvd).getroot().iter("DataSet")
    files = [pvd.parent / d.get("file") for d in sets]
    times = sorted({float(d.get("timestep")) for d in ET.parse(pvd).getroot().iter("DataSet")})
    assert len(times) == len(run.trials[1].frames) == 4
    assert times == pytest.approx([f.time_s for f in run.trials[1].frames])
    assert files and all(p.exists() and p.suffix == ".vtp" for p in files)
    read = pv.read(files[-1])  # PolyData the way ParaView reads it
    assert read.n_points > 0 and read.n_cells > 0

    # Video: the file dialog, then the size and frame-rate dialog answered with OK.
    gif = tmp_path / "clip.gif"
    _answer_file_dialog(gif, seen)
    _when_modal(QDialog, lambda d: _click_button(d, "OK"), seen, title="Export video")
    _menu_item(window, qtbot, ["File", "Export video (MP4/GIF)…"])
    qtbot.waitUntil(lambda: window.exports.video is None and gif.exists(), timeout=LONG)
    assert window.exports.last_export["error"] == "", window.exports.last_export
    assert len(seen) == 4
    frames = np.stack(list(iio.imiter(gif)))
    assert len(frames) == 4 and frames[0].std() > 5


# --- closing -----------------------------------------------------------------------------------
def _answer_question(button: str, texts: list[str], seen: list) -> None:
    """Click `button` on the next real QMessageBox, keeping its text."""

    def act(box: QMessageBox) -> None:
        texts.append(box.text())
        _click_button(box, button)

    _when_modal(QMessageBox, act, seen)


def test_closing_with_unsaved_results_asks_and_cancel_keeps_the_window(window, qtbot, monkeypatch):
    monkeypatch.undo()  # the real question box, answered with a click
    _run(window, qtbot, n_trials=1, frames=2)
    assert window.doc.dirty
    run = window.doc.run
    seen: list = []
    texts: list[str] = []
    # Ctrl+Q, then the window's close event (the title bar's close button sends it).
    _answer_question("Cancel", texts, seen)
    _press(window, qtbot, Qt.Key.Key_Q, CTRL)
    qtbot.waitUntil(lambda: len(seen) == 1, timeout=SHORT)
    _answer_question("Cancel", texts, seen)
    window.close()
    qtbot.waitUntil(lambda: len(seen) == 2, timeout=SHORT)
    assert all("not saved" in t for t in texts), texts
    assert window.isVisible() and window.doc.run is run and window.doc.dirty
    assert run.trials[0].status == "done" and len(run.trials[0].frames) == 2
    window.doc.dirty = False


def test_ctrl_q_discard_closes_a_window_and_its_workers_exit(window, qtbot, monkeypatch):
    """A second window with unsaved results: Ctrl+Q, Discard clicked; it closes and the
    worker processes it started exit (waited for up to a minute: a hang guard)."""
    import os
    import time

    from app.main_window import MainWindow
    from engine.lifeline import descendants, is_running

    monkeypatch.undo()  # the real question box
    before = set(descendants(os.getpid()))
    second = MainWindow(n_workers=1)
    try:
        second.resize(900, 700)
        second.show()
        qtbot.waitExposed(second)
        assert second.opening.load_example()
        qtbot.waitUntil(lambda: second.model.grasp_valid is not None, timeout=LONG)
        qtbot.waitUntil(lambda: second.sim.ready_count > 0, timeout=LONG)
        _run(second, qtbot, n_trials=1, frames=2)
        assert second.doc.dirty and second.doc.run is not None
        started = set(descendants(os.getpid())) - before
        assert set(second.sim.worker_pids) <= started and started
        seen: list = []
        texts: list[str] = []
        _answer_question("Discard", texts, seen)
        _press(second, qtbot, Qt.Key.Key_Q, CTRL)
        qtbot.waitUntil(lambda: len(seen) == 1, timeout=SHORT)
        qtbot.waitUntil(lambda: not second.isVisible(), timeout=SHORT)
        assert "not saved" in texts[0]
        end = time.monotonic() + 60  # a hang guard, not a speed claim
        while any(is_running(p) for p in started) and time.monotonic() < end:
            qtbot.wait(100)
        assert [p for p in started if is_running(p)] == []
    finally:
        if second.isVisible():
            second.doc.dirty = False
            second.close()
        second.shutdown()
        second.deleteLater()
    window.activateWindow()
