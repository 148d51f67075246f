"""The window's user feedback in one place: status line, error dialogs and questions.

Controllers talk to the user only through a Feedback, so tests can record or answer every
dialog (tests/app/conftest.py) and the smoke test can collect errors instead of showing them.
"""

from __future__ import annotations

import logging
from pathlib import Path

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QLabel,
    QMessageBox,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

log = logging.getLogger(__name__)
Button = QMessageBox.StandardButton


class Feedback:
    """Status text, errors (a dialog unless `quiet`), questions and file choosers."""

    def __init__(self, parent: QWidget, status_label: QLabel) -> None:
        self.parent = parent
        self.status_label = status_label
        self.quiet = False  # the smoke test records errors instead of showing dialogs
        self.errors: list[str] = []
        self.unit_dialog: QDialog | None = None  # the mesh unit question while it is open
        self.body_dialog: QDialog | None = None  # the body question while it is open
        self.video_dialog: QDialog | None = None  # the video options while they are open

    def status(self, text: str, log_it: bool = True) -> None:
        """Show `text` in the status bar (and log it unless it is a streaming update)."""
        self.status_label.setText(text)
        if log_it:
            log.info("%s", text)

    def error(self, title: str, message: str) -> None:
        """Record an error, show it in the status bar and (unless quiet) in a dialog."""
        self.errors.append(f"{title}: {message}")
        self.status(f"{title}: {message}", log_it=False)
        log.error("%s: %s", title, message)
        if not self.quiet:
            QMessageBox.critical(self.parent, title, message)

    def warning(self, title: str, message: str) -> None:
        """A warning dialog."""
        log.warning("%s: %s", title, message)
        QMessageBox.warning(self.parent, title, message)

    def question(self, title: str, text: str, buttons: Button | None = None) -> Button:
        """A modal question; returns the button pressed (Yes/No unless `buttons`)."""
        if buttons is None:
            return QMessageBox.question(self.parent, title, text)
        return QMessageBox.question(self.parent, title, text, buttons)

    def ask(self, box: QMessageBox) -> Button:
        """Show a prepared question box modally (tests replace this to answer it)."""
        return QMessageBox.StandardButton(box.exec())

    def ask_replace_results(self, n_trials: int) -> tuple[Button, bool]:
        """Save / Discard / Cancel before a new run replaces `n_trials` unsaved results;
        also whether "don't ask again" was ticked."""
        box = QMessageBox(self.parent)
        box.setIcon(QMessageBox.Icon.Question)
        box.setWindowTitle("Unsaved results")
        s = "s" if n_trials != 1 else ""
        box.setText(
            f"The results of the last run ({n_trials} trial{s}) are not saved. "
            "A new simulation replaces them."
        )
        box.setInformativeText("Save them to a session file first?")
        box.setStandardButtons(Button.Save | Button.Discard | Button.Cancel)
        box.setDefaultButton(Button.Save)
        # Parented and referenced here: a temporary wrapper would be collected and free the box.
        dont_ask = QCheckBox("Don't ask again (replace unsaved results silently)", box)
        box.setCheckBox(dont_ask)
        answer = self.ask(box)
        remember = dont_ask.isChecked()
        box.deleteLater()
        return answer, remember

    def ask_replace_saved_run(self, file_name: str, n_saved: int, n_current: int) -> Button:
        """Ctrl+S when the session file holds an earlier run than the one shown (a session holds
        one run): Save (as a new file, the default), Yes (replace the earlier run) or Cancel."""
        box = QMessageBox(self.parent)
        box.setIcon(QMessageBox.Icon.Question)
        box.setWindowTitle("Replace the saved run?")

        def trials(n: int) -> str:
            return f"{n} trial{'s' if n != 1 else ''}"

        box.setText(
            f"{file_name} holds an earlier run ({trials(n_saved)}) that you saved. A session "
            f"holds one run: saving this run ({trials(n_current)}) there replaces it."
        )
        box.setInformativeText("Save this run as a new session file instead?")
        box.setStandardButtons(Button.Save | Button.Yes | Button.Cancel)
        box.setDefaultButton(Button.Save)
        box.button(Button.Save).setText("Save as new file…")
        box.button(Button.Yes).setText("Replace the earlier run")
        answer = self.ask(box)
        box.deleteLater()
        return answer

    def choose_unit(
        self, file_name: str, choices: list[tuple[str, str]], suggested: str, note: str = ""
    ) -> str | None:
        """Ask which length unit `file_name` is in. `choices` are (unit, text shown), e.g.
        ("mm", "millimetres: 40 x 40 x 80 mm"); `suggested` is preselected. None if cancelled."""
        text = (
            f"{file_name} does not say which length unit it is in. Choose the unit it was "
            "saved in; the object's size in each unit is shown." + (f"\n\n{note}" if note else "")
        )
        index = max(0, [u for u, _ in choices].index(suggested))
        return self._choose("Mesh units", text, choices, index, "unit_dialog")

    MERGED = "merged"
    """choose_body's answer for overlapping bodies kept merged into one solid."""

    def choose_body(
        self, file_name: str, bodies: list[str], current: str | None = None, merged: bool = False
    ) -> str | None:
        """Ask which body of `file_name` to open: "0", "1", ... (the `bodies` lines, largest
        first) or "all" (one rigid object), `current` (the body open now) preselected. With
        `merged` the bodies overlap and open merged into one solid: MERGED keeps that. None if
        cancelled."""
        if merged:
            text = (
                f"{file_name} holds {len(bodies)} bodies that overlap (a part exported as "
                "pieces): they open merged into one solid, their boolean union. Keep that, or "
                "choose one body alone."
            )
            choices = [(self.MERGED, f"all {len(bodies)} merged into one solid")]
            choices += [(str(k), line) for k, line in enumerate(bodies)]
            keys = [key for key, _ in choices]
            index = keys.index(current) if current in keys else 0
            return self._choose("Overlapping bodies", text, choices, index, "body_dialog")
        text = (
            f"{file_name} holds {len(bodies)} separate bodies. Nothing joins them, so choose "
            "the one to grasp (or keep them together as one rigid object)."
        )
        choices = [(str(k), line) for k, line in enumerate(bodies)]
        choices.append(("all", "all of them, as one rigid object"))
        keys = [key for key, _ in choices]
        index = keys.index(current) if current in keys else 0
        return self._choose("Several bodies", text, choices, index, "body_dialog")

    def _choose(
        self, title: str, text: str, choices: list[tuple[str, str]], index: int, attr: str
    ) -> str | None:
        """A modal dialog with `text` and a list of (value, text shown), `index` preselected;
        the value chosen, or None if cancelled. While it is open it is `self.<attr>`, so tests
        can answer it with real keys."""
        dialog = QDialog(self.parent)
        dialog.setWindowTitle(title)
        layout = QVBoxLayout(dialog)
        label = QLabel(text)
        label.setWordWrap(True)
        layout.addWidget(label)
        combo = QComboBox(dialog)
        for value, shown in choices:
            combo.addItem(shown, value)
        combo.setCurrentIndex(index)
        layout.addWidget(combo)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, dialog
        )
        buttons.accepted.connect(dialog.accept)
        buttons.rejected.connect(dialog.reject)
        layout.addWidget(buttons)
        combo.setFocus()
        setattr(self, attr, dialog)
        try:
            accepted = dialog.exec() == QDialog.DialogCode.Accepted
            return str(combo.currentData()) if accepted else None
        finally:
            setattr(self, attr, None)
            dialog.deleteLater()

    def video_options(self, width: int, height: int, fps: int) -> tuple[int, int] | None:
        """Ask the video's width in pixels (the height follows the view's aspect) and frame
        rate; the view's size and `fps` are proposed. None if cancelled."""
        dialog = QDialog(self.parent)
        dialog.setWindowTitle("Export video")
        form = QFormLayout(dialog)
        width_box = QSpinBox(dialog)
        width_box.setRange(160, 3840)
        width_box.setSingleStep(16)
        width_box.setSuffix(" px")
        width_box.setValue(max(160, min(3840, width)))
        size_label = QLabel(dialog)

        def show_size(w: int) -> None:
            h = max(16, round(w * height / max(width, 1)))
            size_label.setText(f"{w // 16 * 16} x {h // 16 * 16} pixels (the view's framing)")

        width_box.valueChanged.connect(show_size)
        show_size(width_box.value())
        fps_box = QSpinBox(dialog)
        fps_box.setRange(1, 120)
        fps_box.setSuffix(" frames/s")
        fps_box.setValue(fps)
        form.addRow("Width", width_box)
        form.addRow("", size_label)
        form.addRow("Frame rate", fps_box)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel, dialog
        )
        buttons.accepted.connect(dialog.accept)
        buttons.rejected.connect(dialog.reject)
        form.addRow(buttons)
        width_box.setFocus()
        width_box.selectAll()
        self.video_dialog = dialog  # tests answer it with real keys
        try:
            if dialog.exec() != QDialog.DialogCode.Accepted:
                return None
            return int(width_box.value()), int(fps_box.value())
        finally:
            self.video_dialog = None
            dialog.deleteLater()

    def save_path(self, title: str, filt: str, suffix: str, proposed: str = "") -> str | None:
        """A save-file dialog proposing the file `proposed`; `suffix` is added when the name
        has none. None if cancelled."""
        path, _ = QFileDialog.getSaveFileName(self.parent, title, proposed, filt)
        if not path:
            return None
        if not Path(path).suffix:
            path += suffix
        return path

    def open_path(self, title: str, filt: str) -> str | None:
        """An open-file dialog; None if cancelled."""
        path, _ = QFileDialog.getOpenFileName(self.parent, title, "", filt)
        return path or None

    def open_folder(self, title: str) -> str | None:
        """A choose-folder dialog; None if cancelled."""
        path = QFileDialog.getExistingDirectory(self.parent, title, "")
        return path or None
