"""The results CSV of a batch: append-only, one fsync'ed line per finished task, resumable.

Resume: opening an existing file reads its rows and reports which task keys are finished, so
running the same batch again skips them. Opening changes nothing: a file refused (another
build's rows, not a results file) is left byte for byte as it was. A kill can leave at most one
half-written last line (rows are single physical lines: newlines inside values are replaced);
`repair()`, once every check has passed, first keeps it in '<file>.partial', then cuts it off
(if it cannot be kept, nothing is cut and the batch stops with an error). The file is locked
while a batch writes it. A write that fails (a full disk) is undone to the last whole row, and
a file this store created but never wrote a row to is removed.
"""

from __future__ import annotations

import contextlib
import csv
import fcntl
import io
import os
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from engine.batch.tasks import RESULT_COLUMNS, STATUS_ERROR, STATUS_OK
from engine.errors import ParameterError

_REQUIRED = ("task_key", "status")


@dataclass
class ResumeInfo:
    """What an existing results file already holds."""

    ok_keys: set[str] = field(default_factory=set)
    error_keys: set[str] = field(default_factory=set)
    rows: int = 0
    unreadable_rows: list[int] = field(default_factory=list)  # line numbers
    repaired_bytes: int = 0  # length of a half-written last line that was cut off
    missing_columns: list[str] = field(default_factory=list)  # file from another version
    versions: dict[str, int] = field(default_factory=dict)  # rows per engine build


def _one_line(value: object) -> object:
    if isinstance(value, str) and ("\n" in value or "\r" in value):
        return " | ".join(part.strip() for part in value.splitlines() if part.strip())
    return value


def _csv_line(values: Sequence[object]) -> bytes:
    """One CSV record on one physical line (the repair logic works line by line)."""
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerow([_one_line(v) for v in values])
    return buf.getvalue().encode("utf-8")


class ResultsStore:
    """Append rows to a results CSV; `open()` creates it or repairs and reads it for resuming."""

    def __init__(self, path: str | os.PathLike, columns: Sequence[str] = RESULT_COLUMNS) -> None:
        self.path = Path(path).expanduser()
        self.columns = list(columns)
        self._file: io.BufferedRandom | None = None
        self.info = ResumeInfo()
        self._cut: int | None = None  # where a half-written last line starts (repair cuts it)
        self._header = False  # repair writes the header (an empty or half-headed file)
        self._created = False  # this store created the file
        self._appended = 0  # rows this store wrote

    @property
    def pending_repair(self) -> bool:
        """Whether `repair()` has something to do."""
        return self._cut is not None or self._header

    def _fail(self, why: str) -> ParameterError:
        return ParameterError(f"cannot write results to {self.path}: {why}; choose another --out")

    def open(self) -> ResumeInfo:
        """Open (create) and lock the file and read what it holds, changing nothing in it
        (`repair()` does, after the caller's checks).

        ParameterError when it is a directory, not writable, locked by another batch or not a
        results file.
        """
        if self.path.is_dir():
            raise self._fail("it is a directory")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._created = not (self.path.exists() or self.path.is_symlink())
            f = open(self.path, "a+b")  # held open (and locked) for the whole batch
        except OSError as exc:
            raise self._fail(exc.strerror or str(exc)) from exc
        try:
            fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            f.close()
            raise self._fail(
                "another ipcgrasp batch is writing it (wait for it, or stop it first)"
            ) from None
        self._file = f
        try:
            f.seek(0)
            self.info = self._load(f.read())
        except BaseException:
            self.close()
            raise
        return self.info

    def _load(self, data: bytes) -> ResumeInfo:
        """What `data` (the file's bytes) holds; notes the repair it needs, changes nothing."""
        info = ResumeInfo()
        header_line = _csv_line(self.columns)
        if data and not data.endswith(b"\n"):
            cut = data.rfind(b"\n") + 1
            fragment = data[cut:]
            if cut == 0 and not header_line.startswith(fragment):
                raise self._fail(
                    "it exists and is not an ipcgrasp batch results file (its first line is "
                    "not the expected header)"
                )
            self._cut = cut
            info.repaired_bytes = len(fragment)
            data = data[:cut]
        if not data:
            self._header = True
            return info
        # utf-8-sig: a file saved by a spreadsheet program starts with a byte-order mark.
        text = data.decode("utf-8-sig", errors="replace")
        reader = csv.reader(io.StringIO(text))
        try:
            header = next(reader)
        except csv.Error as exc:
            raise self._fail(f"its header is not valid CSV ({exc})") from None
        if not all(c in header for c in _REQUIRED):
            raise self._fail(
                "it exists and is not an ipcgrasp batch results file (no task_key/status columns)"
            )
        # Keep writing in the file's own column order, so old and new rows stay aligned.
        info.missing_columns = [c for c in self.columns if c not in header]
        self.columns = header
        key_at, status_at = header.index("task_key"), header.index("status")
        version_at = header.index("ipcgrasp_version") if "ipcgrasp_version" in header else -1
        for values in _rows(reader, info.unreadable_rows):
            if not values:
                continue
            info.rows += 1
            if len(values) != len(header):
                info.unreadable_rows.append(reader.line_num)
                continue
            key, status = values[key_at], values[status_at]
            version = values[version_at] if version_at >= 0 else "unknown"
            info.versions[version] = info.versions.get(version, 0) + 1
            if status == STATUS_OK:
                info.ok_keys.add(key)
                info.error_keys.discard(key)
            elif status == STATUS_ERROR and key not in info.ok_keys:
                info.error_keys.add(key)
        return info

    def repair(self) -> None:
        """Cut off a half-written last line, once it is kept in '<file>.partial', and write the
        header of an empty file. Call it after every check that may refuse the file; `append`
        calls it too. ParameterError (the file unchanged) when the line cannot be kept."""
        if self._file is None:
            raise RuntimeError("ResultsStore.repair before open()")
        fd = self._file.fileno()
        if self._cut is not None:
            os.lseek(fd, self._cut, os.SEEK_SET)
            fragment = os.read(fd, self.info.repaired_bytes)
            partial = f"{self.path}.partial"
            try:
                with open(partial, "ab") as keep:
                    keep.write(fragment + b"\n")
                    keep.flush()
                    os.fsync(keep.fileno())
            except OSError as exc:
                raise self._fail(
                    f"it ends with a half-written row ({len(fragment)} bytes) that could not be "
                    f"kept in {partial} ({exc.strerror or exc}), so it was not cut off and the "
                    "file is unchanged; make room for that file (or move the row out by hand) "
                    "and run again"
                ) from exc
            os.ftruncate(fd, self._cut)
            os.fsync(fd)
            self._cut = None
        if self._header:
            self._write_line(_csv_line(self.columns), "its header")
            self._header = False

    def _write_line(self, line: bytes, what: str) -> None:
        """Append `line` and make it durable; a failed write (a full disk) is undone to the
        last whole line and raises ParameterError saying what is kept."""
        assert self._file is not None
        fd = self._file.fileno()
        size = os.fstat(fd).st_size
        try:
            view = memoryview(line)
            while view:
                view = view[os.write(fd, view) :]  # O_APPEND: at the end
            os.fsync(fd)
        except OSError as exc:
            with contextlib.suppress(OSError):
                os.ftruncate(fd, size)
            kept = (
                f"the {self.info.rows + self._appended} rows before it are kept: free space "
                "and run the same command to resume"
                if size
                else "nothing was written"
            )
            raise self._fail(f"writing {what} failed ({exc.strerror or exc}); {kept}") from exc

    def append(self, row: dict[str, object]) -> None:
        """Write one row at the end of the file and make it durable before returning.

        A task whose finished row the file held when it was opened gets no second row (a trial
        run again only for its frames, engine.batch.trial_frames)."""
        if self._file is None:
            raise RuntimeError("ResultsStore.append before open()")
        if row.get("task_key") in self.info.ok_keys:
            return
        self.repair()
        line = _csv_line([row.get(c, "") for c in self.columns])
        self._write_line(line, f"the row of task {row.get('task_key', '')}")
        self._appended += 1

    def close(self) -> None:
        """Release the lock and close the file (again: no-op). A file this store created and
        left empty (refused, or its header could not be written) is removed."""
        if self._file is not None:
            empty = self._created and os.fstat(self._file.fileno()).st_size == 0
            if empty:
                with contextlib.suppress(OSError):
                    self.path.unlink()  # still locked: no other batch has it open
            self._file.close()
            self._file = None

    def __enter__(self) -> ResultsStore:
        self.open()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _rows(reader: Iterator[list[str]], unreadable: list[int]) -> Iterator[list[str]]:
    """The reader's rows; a row that is not valid CSV (e.g. a field over the csv module's
    131,072-character limit) is skipped and its line number appended to `unreadable`."""
    while True:
        try:
            values = next(reader)
        except StopIteration:
            return
        except csv.Error:
            unreadable.append(getattr(reader, "line_num", 0))
            continue
        yield values


def read_results(paths: Iterable[str | os.PathLike]) -> list[dict[str, str]]:
    """Rows of one or more results CSVs, the last row per task key winning.

    Tolerates a file being written (a half-written last line is ignored) and skips rows whose
    field count does not match the header.
    """
    rows: dict[str, dict[str, str]] = {}
    for path in paths:
        p = Path(path).expanduser()
        try:
            data = p.read_bytes()
        except OSError as exc:
            raise ParameterError(f"cannot read results {p}: {exc.strerror or exc}") from exc
        if not data.endswith(b"\n"):
            data = data[: data.rfind(b"\n") + 1]
        reader = csv.reader(io.StringIO(data.decode("utf-8-sig", errors="replace")))
        try:
            header = next(reader)
        except StopIteration:
            continue
        except csv.Error as exc:
            raise ParameterError(f"{p} line 1: not a valid CSV header ({exc})") from None
        if "task_key" not in header or "status" not in header:
            raise ParameterError(
                f"{p} is not an ipcgrasp batch results file (no task_key and status columns)"
            )
        for values in _rows(reader, []):
            if len(values) != len(header):
                continue
            row = dict(zip(header, values, strict=True))
            key = row["task_key"]
            # An ok row is never superseded by an error row of the same task.
            if key in rows and rows[key].get("status") == STATUS_OK and row["status"] != STATUS_OK:
                continue
            rows[key] = row
    return list(rows.values())
