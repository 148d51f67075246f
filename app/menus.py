"""The main window's actions, menus, toolbar and keyboard shortcuts, wired to controllers."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QEvent, QObject, QSize, Qt
from PySide6.QtGui import QAction, QActionGroup, QKeyEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QComboBox,
    QDoubleSpinBox,
    QLabel,
    QSpinBox,
    QStyle,
    QToolBar,
)

from app import settings as app_settings


def build_menus(w: Any) -> None:
    """Create w's actions (w.open_action, w.simulate_action, ...), menus, toolbar and keys.

    `w` is the MainWindow with its controllers created (w.opening may come later: the actions
    look it up when triggered).
    """

    def action(text: str, slot: Callable, shortcut: Any = None, tip: str = "") -> QAction:
        a = QAction(text, w)
        a.triggered.connect(slot)
        if shortcut is not None:
            a.setShortcut(QKeySequence(shortcut))
        if tip:
            a.setToolTip(tip)
            a.setStatusTip(tip)
        w.addAction(a)
        return a

    key_seq = QKeySequence.StandardKey
    w.open_action = action(
        "&Open…", lambda: w.opening.open_dialog(), key_seq.Open, "Open a mesh or a session"
    )
    w.open_dataset_action = action(
        "Open &data set…", lambda: w.datasets.open_dialog(), "Ctrl+Shift+O",
        "Browse a data set of grasps: a grasp CSV, a REACH JSON of physical trials or a batch "
        "results CSV (with its frames folder)",
    )  # fmt: skip
    w.reopen_unit_action = action(
        "Reopen with another &unit…", lambda: w.opening.reopen_with_unit(), None,
        "Open the current mesh file again in metres, centimetres, millimetres or inches",
    )  # fmt: skip
    w.reopen_body_action = action(
        "Reopen with another &body…", lambda: w.opening.reopen_with_body(), None,
        "Open the current mesh file again and choose which of its bodies to grasp",
    )  # fmt: skip
    w.example_action = action(
        "Open &example cube", lambda: w.opening.load_example(), None, "The built-in 3 cm, 3 g cube"
    )
    w.save_action = action(
        "&Save session", w.sessions.save, key_seq.Save, "Save the session (JSON + arrays)"
    )
    w.save_as_action = action("Save session &as…", lambda: w.sessions.save_as(), key_seq.SaveAs)
    ex = w.exports
    w.export_csv_action = action(
        "Export results &CSV…", ex.export_csv_dialog, None,
        "One row per trial with every parameter and the outcome",
    )  # fmt: skip
    w.export_video_action = action(
        "Export &video (MP4/GIF)…", ex.export_video_dialog, None,
        "Render the selected trial with the current camera",
    )  # fmt: skip
    w.export_vtk_action = action(
        "Export &VTK series…", ex.export_vtk_dialog, None,
        "Frames of the selected trial as a ParaView .pvd series",
    )  # fmt: skip
    w.screenshot_action = action(
        "Screenshot…", ex.screenshot_dialog, "Ctrl+P", "Save the 3D view as a PNG (Ctrl+P)"
    )
    w.quit_action = action("&Quit", w.close, key_seq.Quit)
    w.undo_action = w.undo_stack.createUndoAction(w, "&Undo")
    w.undo_action.setShortcut(QKeySequence("Ctrl+Z"))
    w.redo_action = w.undo_stack.createRedoAction(w, "&Redo")
    w.redo_action.setShortcuts([QKeySequence("Ctrl+Shift+Z"), QKeySequence("Ctrl+Y")])
    w.addAction(w.undo_action)
    w.addAction(w.redo_action)
    w.simulate_action = action(
        "&Simulate",
        lambda: w.runs.start_simulation(),  # triggered(bool) must not reach max_frames
        "F5",
        "Run N perturbed trials in worker processes (F5)",
    )
    w.cancel_action = action(
        "&Cancel", w.runs.cancel_simulation, "Esc",
        "Stop the running trials, keeping their frames (Esc)",
    )  # fmt: skip
    w.cancel_action.setEnabled(False)
    w.pin_action = action(
        "&Pin trial for comparison", lambda: w.compare.pin(), "Ctrl+K",
        "Keep the trial shown to compare the next runs with: its curves dashed in the plots, "
        "its pads and object outlined in the view, what differs above the runs table (Ctrl+K)",
    )  # fmt: skip
    w.unpin_action = action("&End comparison", lambda: w.compare.end())
    w.default_grasp_action = action("&Default grasp", w.editing.default_grasp)
    w.sample_grasps_action = action(
        "&Sample grasps", lambda: w.sampling.sample(), "Ctrl+G",
        "Sample antipodal grasps that fit the gripper, drawn as small grippers coloured by "
        "quality (Soft Point margin, red to green); click one to make it the grasp (Ctrl+G)",
    )  # fmt: skip

    menu = w.menuBar().addMenu("&File")
    menu.addAction(w.open_action)
    menu.addAction(w.open_dataset_action)
    w.recent_menu = menu.addMenu("Open &recent")
    menu.addAction(w.reopen_unit_action)
    menu.addAction(w.reopen_body_action)
    menu.addAction(w.example_action)
    menu.addSeparator()
    menu.addAction(w.save_action)
    menu.addAction(w.save_as_action)
    menu.addSeparator()
    for a in (w.export_csv_action, w.export_video_action, w.export_vtk_action):
        menu.addAction(a)
    menu.addAction(w.screenshot_action)
    menu.addSeparator()
    menu.addAction(w.quit_action)
    edit = w.menuBar().addMenu("&Edit")
    edit.addAction(w.undo_action)
    edit.addAction(w.redo_action)
    edit.addAction(w.default_grasp_action)
    edit.addAction(w.sample_grasps_action)
    sim = w.menuBar().addMenu("&Simulation")
    sim.addAction(w.simulate_action)
    sim.addAction(w.cancel_action)
    sim.addSeparator()
    sim.addAction(w.pin_action)
    sim.addAction(w.unpin_action)
    sim.addSeparator()
    w.ask_replace_action = QAction("&Ask before replacing unsaved results", w)
    w.ask_replace_action.setCheckable(True)
    w.ask_replace_action.setChecked(app_settings.ask_before_replacing_results())
    w.ask_replace_action.setStatusTip(
        "Simulate offers to save the last run's results before a new run replaces them"
    )
    w.ask_replace_action.toggled.connect(app_settings.set_ask_before_replacing_results)
    sim.addAction(w.ask_replace_action)
    view = w.menuBar().addMenu("&View")
    docks = (w.grasp_dock_widget, w.param_dock_widget, w.dataset_dock_widget, w.timeline_dock)
    for d in (*docks, w.log_dock):
        view.addAction(d.toggleViewAction())
    view.addSeparator()
    w.forces_action = action(
        "Contact &forces", lambda: None, "Ctrl+F",
        "Arrows of the contact forces on the object at the frame shown, in the view and in "
        "exported videos: normal forces orange, friction green, each at the scale the legend "
        "states, and the object's weight at its centre of mass, purple (Ctrl+F)",
    )  # fmt: skip
    w.forces_action.setCheckable(True)
    w.forces_action.toggled.connect(w.scene.set_show_forces)
    view.addAction(w.forces_action)
    # How they are drawn: one arrow per contact point, or one resultant per pad and patch.
    modes = QActionGroup(w)
    modes.setExclusive(True)
    w.force_mode_actions = {}
    for mode, text, tip in (
        ("points", "Forces per contact &point",
         "Contact forces: one arrow per contact point, ending where it pushes the object"),
        ("patches", "Forces per pad and pa&tch",
         "Contact forces: one resultant arrow per pad and per contact patch (pad 1, pad 2, the "
         "ground), ending at the patch's centre of pressure"),
    ):  # fmt: skip
        # Choosing a mode from the menu also turns the arrows on.
        a = action(text, lambda: w.forces_action.setChecked(True), None, tip)
        a.setCheckable(True)
        a.setChecked(mode == w.scene.force_mode)
        a.toggled.connect(lambda on, m=mode: on and w.scene.set_force_mode(m))
        modes.addAction(a)
        view.addAction(a)
        w.force_mode_actions[mode] = a
    # A pinned trial (compare runs) outlined over the shown one, or side by side with it.
    w.side_by_side_action = action(
        "Compare &side by side", lambda: None, "Ctrl+Shift+K",
        "With a trial pinned for comparison: draw it beside the shown trial (the view split in "
        "two halves with one camera, each titled with its run and the parameters that differ) "
        "instead of outlined over it (Ctrl+Shift+K)",
    )  # fmt: skip
    w.side_by_side_action.setCheckable(True)
    w.side_by_side_action.toggled.connect(
        lambda on: w.scene.set_compare_view("side" if on else "overlay")
    )
    view.addAction(w.side_by_side_action)
    sim.addAction(w.side_by_side_action)  # beside Pin trial / End comparison too
    _remember_view_choices(w)
    w.section_action = action(
        "S&ection through the grasp", lambda: None, "Ctrl+4",
        "Cut the object, the pads and the plates by the plane through the grasp centre normal "
        "to the approach, and look down at the cut: both pads' cross-sections against the "
        "object's, outlined in blue; kept while frames play (Ctrl+4)",
    )  # fmt: skip
    w.section_action.setCheckable(True)
    w.section_action.toggled.connect(w.viewport.set_section)
    view.addAction(w.section_action)
    camera = view.addMenu("&Camera")
    w.camera_actions = {}
    for name, text, key in (
        ("front", "&Front", "Ctrl+1"), ("side", "&Side", "Ctrl+2"), ("top", "&Top", "Ctrl+3"),
        ("fit", "F&it object and gripper", "Ctrl+0"), ("reset", "&Reset view", "Ctrl+R"),
    ):  # fmt: skip
        a = action(
            f"Camera: {text}", lambda _=False, n=name: w.viewport.camera_preset(n), key,
            f"Look at the object and the gripper: {text.replace('&', '').lower()} ({key}); "
            "the whole of both, whatever the zoom before",
        )  # fmt: skip
        camera.addAction(a)
        w.camera_actions[name] = a
    camera.addSeparator()
    w.ortho_action = action(
        "Camera: &Orthographic", lambda: None, "Ctrl+5",
        "Parallel projection: no perspective, so sizes compare across the view (Ctrl+5)",
    )  # fmt: skip
    w.ortho_action.setCheckable(True)
    w.ortho_action.toggled.connect(w.viewport.set_orthographic)
    camera.addAction(w.ortho_action)
    help_menu = w.menuBar().addMenu("&Help")
    w.help_action = action(
        "&Keys and clicks", lambda: w.show_help(), "F1",
        "Every keyboard shortcut and mouse action (F1 or ?)",
    )  # fmt: skip
    help_menu.addAction(w.help_action)
    _toolbar(w)
    _shortcuts(w)


def _remember_view_choices(w: Any) -> None:
    """Restore the contact forces (off, per point, per pad and patch) and the comparison's
    view of the last session, and save them whenever they change (app/settings.py)."""
    key, allowed, default = app_settings.CONTACT_FORCES
    forces = app_settings.choice(key, allowed, default)
    if forces != "off":
        w.force_mode_actions[forces].setChecked(True)
        w.forces_action.setChecked(True)
    key_view, allowed_view, default_view = app_settings.COMPARE_VIEW
    w.side_by_side_action.setChecked(
        app_settings.choice(key_view, allowed_view, default_view) == "side"
    )

    def save_forces(*_args: Any) -> None:
        on = w.forces_action.isChecked()
        mode = next((m for m, a in w.force_mode_actions.items() if a.isChecked()), "points")
        app_settings.set_choice(key, mode if on else "off")

    w.forces_action.toggled.connect(save_forces)
    for a in w.force_mode_actions.values():
        a.toggled.connect(save_forces)
    w.side_by_side_action.toggled.connect(
        lambda on: app_settings.set_choice(key_view, "side" if on else "overlay")
    )


def _toolbar(w: Any) -> None:
    tb = QToolBar("Main")
    tb.setObjectName("main_toolbar")
    tb.setIconSize(QSize(18, 18))
    tb.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
    w.addToolBar(tb)
    sp = QStyle.StandardPixmap
    style = w.style()
    w.open_action.setIcon(style.standardIcon(sp.SP_DialogOpenButton))
    w.save_action.setIcon(style.standardIcon(sp.SP_DialogSaveButton))
    w.simulate_action.setIcon(style.standardIcon(sp.SP_MediaPlay))
    w.cancel_action.setIcon(style.standardIcon(sp.SP_MediaStop))
    w.screenshot_action.setIcon(style.standardIcon(sp.SP_DesktopIcon))
    tb.addAction(w.open_action)
    tb.addAction(w.save_action)
    # The stack's own actions rename themselves after the command ("Undo change mu"):
    # the toolbar gets short fixed labels that follow their enabled state.
    for text, icon, source in (
        ("Undo", sp.SP_ArrowBack, w.undo_action),
        ("Redo", sp.SP_ArrowForward, w.redo_action),
    ):
        short = QAction(style.standardIcon(icon), text, w)
        short.setToolTip(f"{text} (Ctrl+Z)" if text == "Undo" else f"{text} (Ctrl+Shift+Z)")
        short.triggered.connect(source.trigger)
        short.setEnabled(source.isEnabled())
        source.enabledChanged.connect(short.setEnabled)
        tb.addAction(short)
    tb.addSeparator()
    tb.addAction(w.sample_grasps_action)
    tb.addAction(w.simulate_action)
    tb.addAction(w.cancel_action)
    tb.addSeparator()
    tb.addWidget(QLabel(" Colour pads by "))
    w.color_combo = combo = QComboBox()
    combo.addItem("plain", "none")
    combo.addItem("strain energy density", "energy")
    combo.addItem("displacement", "displacement")
    combo.setCurrentIndex(1)
    combo.setToolTip("Colour the pads of simulated frames by strain energy density or displacement")
    combo.setFocusPolicy(Qt.FocusPolicy.NoFocus)
    tb.addWidget(combo)
    w.scene.set_color_mode("energy")
    combo.currentIndexChanged.connect(lambda _i: w.scene.set_color_mode(combo.currentData()))
    tb.addAction(w.forces_action)
    tb.addSeparator()
    tb.addAction(w.screenshot_action)


def _shortcuts(w: Any) -> None:
    """Timeline keys: window-wide, but a focused text field keeps its own editing keys."""

    def key(seq: Any, slot: Callable) -> None:
        sc = QShortcut(QKeySequence(seq), w)
        sc.activated.connect(slot)

    scene = w.scene
    key(Qt.Key.Key_Space, w.timeline.toggle_play)
    key(Qt.Key.Key_Left, lambda: scene.step(-1))
    key(Qt.Key.Key_Right, lambda: scene.step(1))
    key("Shift+Left", lambda: scene.step(-10))
    key("Shift+Right", lambda: scene.step(10))
    key(Qt.Key.Key_Home, lambda: scene.seek(0))
    key(Qt.Key.Key_End, scene.seek_end)
    # "?" (a text field keeps its own); with Shift too, as most layouts type it.
    key(Qt.Key.Key_Question, lambda: w.show_help())
    key("Shift+?", lambda: w.show_help())
    # On the number fields only (an application-wide filter would see every event).
    w.field_keys = _FieldKeys(w)
    for box in w.findChildren(QAbstractSpinBox):
        box.installEventFilter(w.field_keys)


_TIMELINE_KEYS = (Qt.Key.Key_Left, Qt.Key.Key_Right, Qt.Key.Key_Home, Qt.Key.Key_End)


class _FieldKeys(QObject):
    """Timeline keys while a number field has the focus: Space (which a number never takes)
    still plays and pauses; the arrows, Home and End edit the field, and the status line says
    how to give them to the timeline instead of doing nothing silently."""

    def __init__(self, w: Any) -> None:
        super().__init__(w)
        self.w = w

    def eventFilter(self, obj: QObject, event: QEvent) -> bool:  # Qt override
        kind = event.type()
        if kind not in (QEvent.Type.ShortcutOverride, QEvent.Type.KeyPress):
            return False
        if not isinstance(obj, QAbstractSpinBox) or not isinstance(event, QKeyEvent):
            return False
        if kind == QEvent.Type.ShortcutOverride and self._window_undo_key(event):
            # Ctrl+Z / Ctrl+Shift+Z in a field whose value is committed (Enter pressed, or
            # unchanged) undo the app's last edit instead of the field's text: not accepted
            # by the field, the window's Undo / Redo action takes the key. While the user is
            # typing an uncommitted value, the field keeps undoing its own text.
            return not _uncommitted(obj)
        if event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier:
            return False
        if event.key() == Qt.Key.Key_Space:
            # Not accepted by the field: the window's Space shortcut plays or pauses.
            return kind == QEvent.Type.ShortcutOverride
        if (
            kind == QEvent.Type.KeyPress
            and event.key() in _TIMELINE_KEYS
            and len(self.w.timeline.series) > 0
        ):
            self.w.ui.status(
                "the arrow keys, Home and End edit the focused field; click the 3D view to "
                "step the timeline with them",
                log_it=False,
            )
        return False

    def _window_undo_key(self, event: QKeyEvent) -> bool:
        """Whether `event` is a key of the window's Undo or Redo action."""
        pressed = QKeySequence(event.keyCombination())
        keys = [*self.w.undo_action.shortcuts(), *self.w.redo_action.shortcuts()]
        return any(pressed.matches(k) == QKeySequence.SequenceMatch.ExactMatch for k in keys)


def _uncommitted(box: QAbstractSpinBox) -> bool:
    """Whether `box` shows typed text that Enter or leaving the field has not committed."""
    if isinstance(box, QSpinBox):
        value: str = box.textFromValue(box.value())
    elif isinstance(box, QDoubleSpinBox):
        value = box.textFromValue(box.value())
    else:
        return True  # unknown field: it keeps its own keys
    if box.specialValueText() and box.value() == box.minimum():
        shown = box.specialValueText()
    else:
        shown = box.prefix() + value + box.suffix()
    return box.text() != shown
