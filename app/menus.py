"""The main window's actions, menus, toolbar and keyboard shortcuts, wired to controllers:
a `Menus` object whose fields are the typed actions and menus (window.menus.simulate_action,
...), built by one small function per menu."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, QSize, Qt
from PySide6.QtGui import QAction, QActionGroup, QKeyEvent, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QComboBox,
    QDoubleSpinBox,
    QLabel,
    QMenu,
    QSpinBox,
    QStyle,
    QToolBar,
)

from app import settings as app_settings

if TYPE_CHECKING:  # the window imports this module
    from app.main_window import MainWindow

KeySpec = str | QKeySequence | QKeySequence.StandardKey | Qt.Key | None


def _action(
    w: MainWindow, text: str, slot: Callable, key: KeySpec = None, tip: str = ""
) -> QAction:
    """An action of the window (so its shortcut works window-wide and F1 lists it)."""
    a = QAction(text, w)
    a.triggered.connect(slot)
    if key is not None:
        a.setShortcut(QKeySequence(key))
    if tip:
        a.setToolTip(tip)
        a.setStatusTip(tip)
    w.addAction(a)
    return a


def _checkable(a: QAction) -> QAction:
    a.setCheckable(True)
    return a


class Menus:
    """The window's actions and menus (tests and tools reach them here too). Built once the
    window's controllers exist (w.opening may come later: the actions look it up when
    triggered)."""

    open_action: QAction
    open_dataset_action: QAction
    recent_menu: QMenu
    reopen_unit_action: QAction
    reopen_body_action: QAction
    example_action: QAction
    save_action: QAction
    save_as_action: QAction
    export_csv_action: QAction
    export_video_action: QAction
    trial_export_actions: dict[str, QAction]  # engine.io.trial_exports' formats, by name
    screenshot_action: QAction
    quit_action: QAction
    undo_action: QAction
    redo_action: QAction
    default_grasp_action: QAction
    sample_grasps_action: QAction
    simulate_action: QAction
    cancel_action: QAction
    pin_action: QAction
    unpin_action: QAction
    ask_replace_action: QAction
    simulation_menu: QMenu
    forces_action: QAction
    force_mode_actions: dict[str, QAction]
    side_by_side_action: QAction
    section_action: QAction
    camera_actions: dict[str, QAction]
    ortho_action: QAction
    help_action: QAction
    color_combo: QComboBox
    field_keys: _FieldKeys

    def __init__(self, w: MainWindow) -> None:
        bar = w.menuBar()
        self._file_menu(w, bar.addMenu("&File"))
        self._edit_menu(w, bar.addMenu("&Edit"))
        self.simulation_menu = bar.addMenu("&Simulation")
        self._simulation_menu(w, self.simulation_menu)
        view = bar.addMenu("&View")
        self._view_menu(w, view)
        self._camera_menu(w, view.addMenu("&Camera"))
        self.help_action = _action(
            w, "&Keys and clicks", lambda: w.show_help(), "F1",
            "Every keyboard shortcut and mouse action (F1 or ?)",
        )  # fmt: skip
        bar.addMenu("&Help").addAction(self.help_action)
        self._remember_view_choices()
        self._toolbar(w)
        self._shortcuts(w)

    def _file_menu(self, w: MainWindow, menu: QMenu) -> None:
        key_seq = QKeySequence.StandardKey
        self.open_action = _action(
            w, "&Open…", lambda: w.opening.open_dialog(), key_seq.Open, "Open a mesh or a session"
        )
        self.open_dataset_action = _action(
            w, "Open &data set…", lambda: w.datasets.open_dialog(), "Ctrl+Shift+O",
            "Browse a data set of grasps: a grasp CSV, a REACH JSON of physical trials or a "
            "batch results CSV (with its frames folder)",
        )  # fmt: skip
        self.reopen_unit_action = _action(
            w, "Reopen with another &unit…", lambda: w.opening.reopen_with_unit(), None,
            "Open the current mesh file again in metres, centimetres, millimetres or inches",
        )  # fmt: skip
        self.reopen_body_action = _action(
            w, "Reopen with another &body…", lambda: w.opening.reopen_with_body(), None,
            "Open the current mesh file again and choose which of its bodies to grasp",
        )  # fmt: skip
        self.example_action = _action(
            w, "Open &example cube", lambda: w.opening.load_example(), None,
            "The built-in 3 cm, 3 g cube",
        )  # fmt: skip
        self.save_action = _action(
            w, "&Save session", w.sessions.save, key_seq.Save, "Save the session (JSON + arrays)"
        )
        self.save_as_action = _action(
            w, "Save session &as…", lambda: w.sessions.save_as(), key_seq.SaveAs
        )
        ex = w.exports
        self.export_csv_action = _action(
            w, "Export results &CSV…", ex.export_csv_dialog, None,
            "One row per trial with every parameter and the outcome",
        )  # fmt: skip
        self.export_video_action = _action(
            w, "Export &video (MP4/GIF)…", ex.export_video_dialog, None,
            "Render the selected trial with the current camera",
        )  # fmt: skip
        self.screenshot_action = _action(
            w, "Screenshot…", ex.screenshot_dialog, "Ctrl+P", "Save the 3D view as a PNG (Ctrl+P)"
        )
        self.quit_action = _action(w, "&Quit", w.close, key_seq.Quit)
        menu.addActions([self.open_action, self.open_dataset_action])
        self.recent_menu = menu.addMenu("Open &recent")
        menu.addActions([self.reopen_unit_action, self.reopen_body_action, self.example_action])
        menu.addSeparator()
        menu.addActions([self.save_action, self.save_as_action])
        menu.addSeparator()
        menu.addActions([self.export_csv_action, self.export_video_action])
        menu.addAction(self.screenshot_action)
        self._window, self._file = w, menu
        self.trial_export_actions = {}
        self._formats: tuple = ()
        self.refresh_trial_exports()
        menu.aboutToShow.connect(self.refresh_trial_exports)  # formats registered since
        menu.addSeparator()
        menu.addAction(self.quit_action)

    def refresh_trial_exports(self) -> None:
        """One File > Export action per format of engine.io.trial_exports, before Screenshot."""
        from engine.io.trial_exports import trial_exports

        formats = trial_exports()
        if formats == self._formats:
            return
        self._formats = formats
        for a in self.trial_export_actions.values():
            self._file.removeAction(a)
            self._window.removeAction(a)
        self.trial_export_actions = {}
        for fmt in formats:
            a = _action(
                self._window, f"Export {fmt.label}…",
                lambda _=False, fmt=fmt: self._window.exports.export_trial_dialog(fmt), None,
                fmt.description,
            )  # fmt: skip
            self._file.insertAction(self.screenshot_action, a)
            self.trial_export_actions[fmt.name] = a

    def _edit_menu(self, w: MainWindow, menu: QMenu) -> None:
        self.undo_action = w.undo_stack.createUndoAction(w, "&Undo")
        self.undo_action.setShortcut(QKeySequence("Ctrl+Z"))
        self.redo_action = w.undo_stack.createRedoAction(w, "&Redo")
        self.redo_action.setShortcuts([QKeySequence("Ctrl+Shift+Z"), QKeySequence("Ctrl+Y")])
        w.addAction(self.undo_action)
        w.addAction(self.redo_action)
        self.default_grasp_action = _action(w, "&Default grasp", w.editing.default_grasp)
        self.sample_grasps_action = _action(
            w, "&Sample grasps", lambda: w.sampling.sample(), "Ctrl+G",
            "Sample antipodal grasps that fit the gripper, drawn as small grippers coloured by "
            "quality (Soft Point margin, red to green); click one to make it the grasp (Ctrl+G)",
        )  # fmt: skip
        menu.addActions([self.undo_action, self.redo_action])
        menu.addActions([self.default_grasp_action, self.sample_grasps_action])

    def _simulation_menu(self, w: MainWindow, menu: QMenu) -> None:
        self.simulate_action = _action(
            w, "&Simulate",
            lambda: w.runs.start_simulation(),  # triggered(bool) must not reach max_frames
            "F5", "Run N perturbed trials in worker processes (F5)",
        )  # fmt: skip
        self.cancel_action = _action(
            w, "&Cancel", w.runs.cancel_simulation, "Esc",
            "Stop the running trials, keeping their frames (Esc)",
        )  # fmt: skip
        self.cancel_action.setEnabled(False)
        self.pin_action = _action(
            w, "&Pin trial for comparison", lambda: w.compare.pin(), "Ctrl+K",
            "Keep the trial shown to compare the next runs with: its curves dashed in the "
            "plots, its pads and object outlined in the view, what differs above the runs "
            "table (Ctrl+K)",
        )  # fmt: skip
        self.unpin_action = _action(w, "&End comparison", lambda: w.compare.end())
        self.ask_replace_action = _checkable(QAction("&Ask before replacing unsaved results", w))
        self.ask_replace_action.setChecked(app_settings.ask_before_replacing_results())
        self.ask_replace_action.setStatusTip(
            "Simulate offers to save the last run's results before a new run replaces them"
        )
        self.ask_replace_action.toggled.connect(app_settings.set_ask_before_replacing_results)
        menu.addActions([self.simulate_action, self.cancel_action])
        menu.addSeparator()
        menu.addActions([self.pin_action, self.unpin_action])
        menu.addSeparator()
        menu.addAction(self.ask_replace_action)

    def _view_menu(self, w: MainWindow, view: QMenu) -> None:
        docks = (w.grasp_dock_widget, w.param_dock_widget, w.dataset_dock_widget, w.timeline_dock)
        for d in (*docks, w.log_dock):
            view.addAction(d.toggleViewAction())
        view.addSeparator()
        self.forces_action = _checkable(_action(
            w, "Contact &forces", lambda: None, "Ctrl+F",
            "Arrows of the contact forces on the object at the frame shown, in the view and in "
            "exported videos: normal forces orange, friction green, each at the scale the "
            "legend states, and the object's weight at its centre of mass, purple (Ctrl+F)",
        ))  # fmt: skip
        self.forces_action.toggled.connect(w.scene.set_show_forces)
        view.addAction(self.forces_action)
        self._force_modes(w, view)
        # A pinned trial (compare runs) outlined over the shown one, or side by side with it.
        self.side_by_side_action = _checkable(_action(
            w, "Compare &side by side", lambda: None, "Ctrl+Shift+K",
            "With a trial pinned for comparison: draw it beside the shown trial (the view split "
            "in two halves with one camera, each titled with its run and the parameters that "
            "differ) instead of outlined over it (Ctrl+Shift+K)",
        ))  # fmt: skip
        self.side_by_side_action.toggled.connect(
            lambda on: w.scene.set_compare_view("side" if on else "overlay")
        )
        view.addAction(self.side_by_side_action)
        self.simulation_menu.addAction(self.side_by_side_action)  # by Pin trial too
        self.section_action = _checkable(_action(
            w, "S&ection through the grasp", lambda: None, "Ctrl+4",
            "Cut the object, the pads and the plates by the plane through the grasp centre "
            "normal to the approach, and look down at the cut: both pads' cross-sections "
            "against the object's, outlined in blue; kept while frames play (Ctrl+4)",
        ))  # fmt: skip
        self.section_action.toggled.connect(w.viewport.camera.set_section)
        view.addAction(self.section_action)

    def _force_modes(self, w: MainWindow, view: QMenu) -> None:
        """How the forces are drawn: one arrow per contact point, or one resultant per pad and
        patch; choosing a mode from the menu also turns the arrows on."""
        modes = QActionGroup(w)
        modes.setExclusive(True)
        self.force_mode_actions = {}
        for mode, text, tip in (
            ("points", "Forces per contact &point",
             "Contact forces: one arrow per contact point, ending where it pushes the object"),
            ("patches", "Forces per pad and pa&tch",
             "Contact forces: one resultant arrow per pad and per contact patch (pad 1, pad 2, "
             "the ground), ending at the patch's centre of pressure"),
        ):  # fmt: skip
            a = _checkable(_action(w, text, lambda: self.forces_action.setChecked(True), None, tip))
            a.setChecked(mode == w.scene.force_mode)
            a.toggled.connect(lambda on, m=mode: w.scene.set_force_mode(m) if on else None)
            modes.addAction(a)
            view.addAction(a)
            self.force_mode_actions[mode] = a

    def _camera_menu(self, w: MainWindow, camera: QMenu) -> None:
        self.camera_actions = {}
        for name, text, key in (
            ("front", "&Front", "Ctrl+1"), ("side", "&Side", "Ctrl+2"), ("top", "&Top", "Ctrl+3"),
            ("fit", "F&it object and gripper", "Ctrl+0"), ("reset", "&Reset view", "Ctrl+R"),
        ):  # fmt: skip
            a = _action(
                w, f"Camera: {text}", lambda _=False, n=name: w.viewport.camera.preset(n), key,
                f"Look at the object and the gripper: {text.replace('&', '').lower()} ({key}); "
                "the whole of both, whatever the zoom before",
            )  # fmt: skip
            camera.addAction(a)
            self.camera_actions[name] = a
        camera.addSeparator()
        self.ortho_action = _checkable(_action(
            w, "Camera: &Orthographic", lambda: None, "Ctrl+5",
            "Parallel projection: no perspective, so sizes compare across the view (Ctrl+5)",
        ))  # fmt: skip
        self.ortho_action.toggled.connect(w.viewport.camera.set_orthographic)
        camera.addAction(self.ortho_action)

    def _remember_view_choices(self) -> None:
        """Restore the contact forces (off, per point, per pad and patch) and the comparison's
        view of the last session, and save them whenever they change (app/settings.py)."""
        key, allowed, default = app_settings.CONTACT_FORCES
        forces = app_settings.choice(key, allowed, default)
        if forces != "off":
            self.force_mode_actions[forces].setChecked(True)
            self.forces_action.setChecked(True)
        key_view, allowed_view, default_view = app_settings.COMPARE_VIEW
        self.side_by_side_action.setChecked(
            app_settings.choice(key_view, allowed_view, default_view) == "side"
        )

        def save_forces(*_args: object) -> None:
            on = self.forces_action.isChecked()
            modes = self.force_mode_actions.items()
            mode = next((m for m, a in modes if a.isChecked()), "points")
            app_settings.set_choice(key, mode if on else "off")

        self.forces_action.toggled.connect(save_forces)
        for a in self.force_mode_actions.values():
            a.toggled.connect(save_forces)
        self.side_by_side_action.toggled.connect(
            lambda on: app_settings.set_choice(key_view, "side" if on else "overlay")
        )

    def _toolbar(self, w: MainWindow) -> None:
        tb = QToolBar("Main")
        tb.setObjectName("main_toolbar")
        tb.setIconSize(QSize(18, 18))
        tb.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextBesideIcon)
        w.addToolBar(tb)
        sp = QStyle.StandardPixmap
        style = w.style()
        for a, icon in (
            (self.open_action, sp.SP_DialogOpenButton), (self.save_action, sp.SP_DialogSaveButton),
            (self.simulate_action, sp.SP_MediaPlay), (self.cancel_action, sp.SP_MediaStop),
            (self.screenshot_action, sp.SP_DesktopIcon),
        ):  # fmt: skip
            a.setIcon(style.standardIcon(icon))
        tb.addActions([self.open_action, self.save_action])
        # The stack's own actions rename themselves after the command ("Undo change mu"):
        # the toolbar gets short fixed labels that follow their enabled state.
        for text, icon, source in (
            ("Undo", sp.SP_ArrowBack, self.undo_action),
            ("Redo", sp.SP_ArrowForward, self.redo_action),
        ):
            short = QAction(style.standardIcon(icon), text, w)
            short.setToolTip(f"{text} (Ctrl+Z)" if text == "Undo" else f"{text} (Ctrl+Shift+Z)")
            short.triggered.connect(source.trigger)
            short.setEnabled(source.isEnabled())
            source.enabledChanged.connect(short.setEnabled)
            tb.addAction(short)
        tb.addSeparator()
        tb.addActions([self.sample_grasps_action, self.simulate_action, self.cancel_action])
        tb.addSeparator()
        tb.addWidget(QLabel(" Colour pads by "))
        self.color_combo = combo = QComboBox()
        combo.addItem("plain", "none")
        combo.addItem("strain energy density", "energy")
        combo.addItem("displacement", "displacement")
        combo.setCurrentIndex(1)
        combo.setToolTip(
            "Colour the pads of simulated frames by strain energy density or displacement"
        )
        combo.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        tb.addWidget(combo)
        w.scene.set_color_mode("energy")
        combo.currentIndexChanged.connect(lambda _i: w.scene.set_color_mode(combo.currentData()))
        tb.addAction(self.forces_action)
        tb.addSeparator()
        tb.addAction(self.screenshot_action)

    def _shortcuts(self, w: MainWindow) -> None:
        """Timeline keys: window-wide, but a focused text field keeps its own editing keys."""

        def key(seq: str | Qt.Key, slot: Callable) -> None:
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
        self.field_keys = _FieldKeys(w, (self.undo_action, self.redo_action))
        for box in w.findChildren(QAbstractSpinBox):
            box.installEventFilter(self.field_keys)


_TIMELINE_KEYS = (Qt.Key.Key_Left, Qt.Key.Key_Right, Qt.Key.Key_Home, Qt.Key.Key_End)


class _FieldKeys(QObject):
    """Timeline keys while a number field has the focus: Space (which a number never takes)
    still plays and pauses; the arrows, Home and End edit the field, and the status line says
    how to give them to the timeline instead of doing nothing silently."""

    def __init__(self, w: MainWindow, undo_redo: tuple[QAction, QAction]) -> None:
        super().__init__(w)
        self.w = w
        self._undo_redo = undo_redo

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
        keys = [k for a in self._undo_redo for k in a.shortcuts()]
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
