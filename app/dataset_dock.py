"""The data-set browser dock: a sortable, filterable table of a data set's grasps (physical
success rate, each model's robustness, false positives and negatives highlighted), the trials
of the grasp shown, and Replay / Re-simulate. The data set itself is Qt-free
(app.model.dataset); this view only shows it and sends the user's choices to the
DataSetController."""

from __future__ import annotations

import math
from typing import Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QPersistentModelIndex,
    QSortFilterProxyModel,
    Qt,
    Signal,
)
from PySide6.QtGui import QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QSplitter,
    QTableView,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.model.dataset import (
    FALSE_NEGATIVE,
    FALSE_POSITIVE,
    MARK_NAMES,
    PHYSICAL,
    DataSet,
    DataSetGrasp,
    SimTrial,
    outcomes_text,
    physical_text,
    robustness_lines,
)

FP_COLOR = "#f8c9c4"  # a model predicts success, the grasp mostly fails physically
FN_COLOR = "#c9daf8"  # a model predicts failure, the grasp mostly succeeds physically
SHOW_CHOICES = (
    ("all grasps", "all"),
    ("disagreements", "disagree"),
    ("false positives", FALSE_POSITIVE),
    ("false negatives", FALSE_NEGATIVE),
    ("with frames", "frames"),
    ("with errors", "errors"),
)
Index = QModelIndex | QPersistentModelIndex


def _rate(value: float) -> str:
    return "" if math.isnan(value) else f"{value:.2f}"


class GraspTableModel(QAbstractTableModel):
    """The data set's grasps, one row each; cells are computed once per data set."""

    SORT_ROLE = Qt.ItemDataRole.UserRole

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.dataset: DataSet | None = None
        self.headers: list[str] = []
        self._text: list[list[str]] = []
        self._sort: list[list[Any]] = []
        self._colors: list[list[QColor | None]] = []
        self._tips: list[list[str]] = []

    def set_dataset(self, ds: DataSet | None) -> None:
        """Show `ds` (None: empty)."""
        self.beginResetModel()
        self.dataset = ds
        self.headers, self._text, self._sort, self._colors, self._tips = [], [], [], [], []
        if ds is not None:
            models = ds.models
            self.headers = ["#", "grasp", "physical", *models, "marks", "trials", "error"]
            fp, fn = QColor(FP_COLOR), QColor(FN_COLOR)
            for g in ds.grasps:
                marks = g.marks()
                text = [str(g.index + 1), g.grasp_id, physical_text(g)]
                sort: list[Any] = [g.index, g.grasp_id, _key(g.physical_rate)]
                colors: list[QColor | None] = [None, None, None]
                tips = ["", g.grasp_id, outcomes_text(g.physical)]
                for m in models:
                    q = g.robustness.get(m, math.nan)
                    text.append(_rate(q))
                    sort.append(_key(q))
                    mark = marks.get(m, "")
                    colors.append(
                        fp if mark == FALSE_POSITIVE else fn if mark == FALSE_NEGATIVE else None
                    )
                    tips.append(
                        f"{MARK_NAMES[mark]}: {m} predicts R = {q:.2f}, physical {physical_text(g)}"
                        if mark
                        else ""
                    )
                mark_text = ", ".join(f"{k} {m}" for m, k in marks.items())
                n_frames = len(g.frames_trials())
                trials = f"{len(g.trials)}" + (f" ({n_frames} with frames)" if n_frames else "")
                text += [mark_text, trials if g.trials else "", g.error]
                sort += [mark_text, n_frames * 10_000 + len(g.trials), g.error]
                colors += [
                    fp if FALSE_POSITIVE in marks.values() else fn if marks else None,
                    None,
                    None,
                ]
                tips += [mark_text, trials, g.error]
                self._text.append(text)
                self._sort.append(sort)
                self._colors.append(colors)
                self._tips.append(tips)
        self.endResetModel()

    def column_text(self, column: int) -> list[str]:
        """The texts of one column, every row."""
        return [row[column] for row in self._text]

    def rowCount(self, parent: Index | None = None) -> int:  # Qt override
        return 0 if parent is not None and parent.isValid() else len(self._text)

    def columnCount(self, parent: Index | None = None) -> int:  # Qt override
        return 0 if parent is not None and parent.isValid() else len(self.headers)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:  # Qt override
        if not index.isValid():
            return None
        r, c = index.row(), index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            return self._text[r][c]
        if role == self.SORT_ROLE:
            return self._sort[r][c]
        if role == Qt.ItemDataRole.BackgroundRole:
            return self._colors[r][c]
        if role == Qt.ItemDataRole.ToolTipRole:
            return self._tips[r][c] or None
        if role == Qt.ItemDataRole.TextAlignmentRole and c != 1 and c < len(self.headers) - 2:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def headerData(  # Qt override
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if orientation == Qt.Orientation.Horizontal and role == Qt.ItemDataRole.DisplayRole:
            return self.headers[section] if section < len(self.headers) else None
        return None


def _key(value: float) -> float:
    """Sort key of a rate: unknown (NaN) below every rate."""
    return -1.0 if math.isnan(value) else value


class GraspFilter(QSortFilterProxyModel):
    """Rows that pass DataSet.matches (grasp id text, what to show, which model)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.text = ""
        self.show = "all"
        self.model_name = ""
        self.setSortRole(GraspTableModel.SORT_ROLE)

    def set_filter(self, text: str, show: str, model: str) -> None:
        """Filter by grasp id `text`, `show` and `model` (see DataSet.matches)."""
        self.beginFilterChange()  # Qt 6.10: begin/endFilterChange replace invalidateFilter
        self.text, self.show, self.model_name = text, show, model
        self.endFilterChange()

    def filterAcceptsRow(self, row: int, parent: Index) -> bool:  # Qt override
        source = self.sourceModel()
        if not isinstance(source, GraspTableModel) or source.dataset is None:
            return True
        g = source.dataset.grasps[row]
        return source.dataset.matches(g, self.text, self.show, self.model_name)


class DataSetDock(QWidget):
    """The browser: summary, filters, the grasp table, the shown grasp's trials and actions."""

    grasp_selected = Signal(int)  # data-set grasp index chosen in the table
    trial_chosen = Signal(object)  # SimTrial chosen in the trials table (replay it)
    resimulate_requested = Signal()
    frames_folder_requested = Signal()
    colour_changed = Signal(str)  # PHYSICAL or a model column

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._selecting = False
        self._trials: list[SimTrial] = []
        outer = QVBoxLayout(self)
        outer.setContentsMargins(4, 4, 4, 4)
        self.summary = QLabel("No data set: File > Open data set… opens a grasp CSV, a REACH "
                              "JSON or a batch results CSV.")  # fmt: skip
        self.summary.setWordWrap(True)
        outer.addWidget(self.summary)

        self._filters(outer)

        self._grasp_table()

        trials_box = self._trials_box()

        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.table)
        split.addWidget(trials_box)
        split.setSizes([420, 200])
        outer.addWidget(split, 1)

        self.search.textChanged.connect(lambda _t: self._refilter())
        self.show_combo.currentIndexChanged.connect(lambda _i: self._refilter())
        self.model_combo.currentIndexChanged.connect(lambda _i: self._refilter())
        self.colour_combo.currentIndexChanged.connect(
            lambda _i: self.colour_changed.emit(self.colour_combo.currentData() or "")
        )
        self.frames_button.clicked.connect(self.frames_folder_requested)
        self.table.selectionModel().currentRowChanged.connect(self._on_row)
        self.trials.itemSelectionChanged.connect(self._on_trial_row)
        self.replay_button.clicked.connect(self._replay)
        self.resimulate_button.clicked.connect(self.resimulate_requested)
        self.set_dataset(None)

    def _filters(self, outer: QVBoxLayout) -> None:
        """The rows over the table: the grasp id search, what to show, the model, the glyphs'
        colour and the frames folder."""
        row = QHBoxLayout()
        self.search = QLineEdit()
        self.search.setPlaceholderText("grasp id…")
        self.search.setClearButtonEnabled(True)
        self.search.setToolTip("Show only grasps whose id contains this text")
        row.addWidget(self.search, 1)
        self.show_combo = QComboBox()
        for text, value in SHOW_CHOICES:
            self.show_combo.addItem(text, value)
        self.show_combo.setToolTip(
            "Which grasps to list: a false positive is a grasp a model predicts to succeed "
            "(R >= 0.5) that mostly fails physically (< 0.5); a false negative the other way round"
        )
        row.addWidget(self.show_combo)
        self.model_combo = QComboBox()
        self.model_combo.setToolTip("Restrict the disagreements to one model")
        row.addWidget(self.model_combo)
        outer.addLayout(row)

        row = QHBoxLayout()
        row.addWidget(QLabel("Colour glyphs by"))
        self.colour_combo = QComboBox()
        self.colour_combo.setToolTip(
            "Colour of the grasps drawn on the object: the physical success rate or a model's "
            "robustness, red (0) to green (1); grey where it is not known"
        )
        row.addWidget(self.colour_combo, 1)
        self.frames_button = QPushButton("Frames folder…")
        self.frames_button.setToolTip("The folder of a batch's --frames DIR (found next to the "
                                      "results file when it is there)")  # fmt: skip
        row.addWidget(self.frames_button)
        outer.addLayout(row)

    def _grasp_table(self) -> None:
        """The grasp table (sortable, filtered through GraspFilter)."""
        self.table_model = GraspTableModel(self)
        self.proxy = GraspFilter(self)
        self.proxy.setSourceModel(self.table_model)
        self.table = QTableView()
        self.table.setModel(self.proxy)
        # Sortable by a click on a header; unsorted (the file's order) until then: sorting
        # 2,000 rows through the model's sort role took a tenth of a second at every open.
        self.table.setSortingEnabled(True)
        self.table.horizontalHeader().setSortIndicator(-1, Qt.SortOrder.AscendingOrder)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(20)
        self.table.setWordWrap(False)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        # Column widths from the first rows only: measuring 2,000 rows took half a second.
        self.table.horizontalHeader().setResizeContentsPrecision(50)
        self.table.horizontalHeader().setStretchLastSection(True)

    def _trials_box(self) -> QWidget:
        """The shown grasp's label, its trials and the replay and re-simulate buttons."""
        trials_box = QWidget()
        tl = QVBoxLayout(trials_box)
        tl.setContentsMargins(0, 0, 0, 0)
        self.grasp_label = QLabel("")
        self.grasp_label.setWordWrap(True)
        tl.addWidget(self.grasp_label)
        self.trials = QTableWidget(0, 5)
        self.trials.setHorizontalHeaderLabels(["model", "trial", "outcome", "reason", "frames"])
        self.trials.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.trials.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.trials.verticalHeader().setVisible(False)
        self.trials.verticalHeader().setDefaultSectionSize(20)
        header = self.trials.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(3, QHeaderView.ResizeMode.Stretch)
        tl.addWidget(self.trials, 1)
        buttons = QHBoxLayout()
        self.replay_button = QPushButton("Replay trial")
        self.replay_button.setToolTip("Load the selected trial's frames into the timeline")
        self.resimulate_button = QPushButton("Re-simulate")
        self.resimulate_button.setToolTip(
            "Simulate this grasp now with the current parameters (for a batch's grasp: its "
            "trials' poses, the same trial count and seed)"
        )
        buttons.addWidget(self.replay_button)
        buttons.addWidget(self.resimulate_button)
        buttons.addStretch(1)
        tl.addLayout(buttons)
        return trials_box

    # --- showing ------------------------------------------------------------------------------
    def set_dataset(self, ds: DataSet | None) -> None:
        """Show data set `ds` (None: none). Another file starts with every grasp listed (a
        filter left from the last one could hide them all); the same file reopened, for example
        with its frames folder, keeps the filters."""
        previous = self.table_model.dataset
        if ds is not None and (previous is None or previous.path != ds.path):
            for widget in (self.search, self.show_combo):
                widget.blockSignals(True)
            self.search.clear()
            self.show_combo.setCurrentIndex(0)
            for widget in (self.search, self.show_combo):
                widget.blockSignals(False)
        self.table_model.set_dataset(ds)
        for combo in (self.model_combo, self.colour_combo):
            combo.blockSignals(True)
            combo.clear()
        self.model_combo.addItem("any model", "")
        if ds is not None:
            for m in ds.models:
                self.model_combo.addItem(m, m)
            for c in ds.colour_columns():
                self.colour_combo.addItem(
                    "physical success rate" if c == PHYSICAL else f"{c} robustness", c
                )
        for combo in (self.model_combo, self.colour_combo):
            combo.blockSignals(False)
        self._refilter()  # the model list was rebuilt without a signal: "any model" again
        self.frames_button.setEnabled(ds is not None and ds.kind == "results")
        self.summary.setText(
            f"{ds.path.name}: {ds.summary()}" if ds is not None else self.summary.text()
        )
        self.summary.setToolTip(str(ds.path) if ds is not None else "")
        self.table.resizeColumnsToContents()
        # Columns with nothing to show for this kind of file (no models: no marks, no trials).
        for column, name in enumerate(self.table_model.headers):
            empty = name in ("marks", "trials", "error") and not any(
                self.table_model.column_text(column)
            )
            self.table.setColumnHidden(column, empty)
        self.set_grasp(None)

    def colour_column(self) -> str:
        """What the glyphs are coloured by ("" when nothing is known)."""
        return str(self.colour_combo.currentData() or "")

    def visible_grasps(self) -> list[int]:
        """The data-set indices of the listed rows, in the table's order."""
        return [
            int(self.proxy.data(self.proxy.index(r, 0), GraspTableModel.SORT_ROLE))
            for r in range(self.proxy.rowCount())
        ]

    def select_grasp(self, index: int) -> None:
        """Select the row of data-set grasp `index` without emitting grasp_selected (if it is
        filtered out, the filter is cleared first)."""
        source = self.table_model.index(index, 0)
        row = self.proxy.mapFromSource(source)
        if not row.isValid() and source.isValid():
            self.search.clear()
            self.show_combo.setCurrentIndex(0)
            row = self.proxy.mapFromSource(source)
        if not row.isValid():
            return
        self._selecting = True
        try:
            self.table.selectRow(row.row())
            self.table.scrollTo(row)
        finally:
            self._selecting = False

    def set_grasp(self, g: DataSetGrasp | None, note: str = "") -> None:
        """Show grasp `g`'s physical and simulated trials (None: no grasp)."""
        self._trials = [] if g is None else list(g.trials)
        self.trials.blockSignals(True)
        self.trials.setRowCount(0)
        for t in self._trials:
            r = self.trials.rowCount()
            self.trials.insertRow(r)
            frames = (
                f"{t.frames} ▶"
                if t.frames_file is not None
                else (str(t.frames) if t.frames else "")
            )
            cells = [t.model, str(t.trial), t.outcome, t.reason, frames]
            color = {"success": "#e9f7ef", "fail": "#fdf2e9", "error": "#fdecea"}[t.outcome]
            for c, text in enumerate(cells):
                it = QTableWidgetItem(text)
                it.setFlags(it.flags() & ~Qt.ItemFlag.ItemIsEditable)
                it.setBackground(QColor(color))
                if c == 4 and t.frames_file is not None:
                    it.setToolTip(f"frames in {t.frames_file}")
                elif c == 4 and t.frames:
                    it.setToolTip(
                        "the batch kept no frames for this trial (run it with --frames DIR)"
                    )
                self.trials.setItem(r, c, it)
        self.trials.blockSignals(False)
        self.replay_button.setEnabled(False)
        self.resimulate_button.setEnabled(g is not None and g.mesh_pose is not None)
        if g is None:
            self.grasp_label.setText("")
            return
        lines = [f"<b>{g.grasp_id}</b>"]
        if g.physical:
            lines.append(f"physical {physical_text(g)} ({outcomes_text(g.physical)})")
        lines += robustness_lines(g, " <b>{}</b>")
        text = " · ".join(lines)
        if g.error:
            text += f"<br>{g.error}"
        if note:
            text += f"<br><i>{note}</i>"
        self.grasp_label.setText(text)

    def select_trial(self, trial: SimTrial) -> None:
        """Select `trial`'s row in the trials table (without replaying it)."""
        if trial in self._trials:
            self.trials.blockSignals(True)
            self.trials.selectRow(self._trials.index(trial))
            self.trials.blockSignals(False)
            self.replay_button.setEnabled(trial.frames_file is not None)

    def selected_trial(self) -> SimTrial | None:
        """The trial selected in the trials table."""
        rows = self.trials.selectionModel().selectedRows()
        return self._trials[rows[0].row()] if rows else None

    # --- user input ---------------------------------------------------------------------------
    def _refilter(self) -> None:
        self.proxy.set_filter(
            self.search.text().strip(),
            str(self.show_combo.currentData()),
            str(self.model_combo.currentData() or ""),
        )

    def _on_row(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if self._selecting or not current.isValid():
            return
        index = self.proxy.data(self.proxy.index(current.row(), 0), GraspTableModel.SORT_ROLE)
        self.grasp_selected.emit(int(index))

    def _on_trial_row(self) -> None:
        t = self.selected_trial()
        self.replay_button.setEnabled(t is not None and t.frames_file is not None)
        if t is not None and t.frames_file is not None:
            self.trial_chosen.emit(t)

    def _replay(self) -> None:
        t = self.selected_trial()
        if t is not None:
            self.trial_chosen.emit(t)
