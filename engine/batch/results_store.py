"""The results CSV of a batch: append-only, one fsync'ed line per finished task, resumable.

Resume: opening an existing file reads its rows and reports which task keys are finished, so
running the same batch again skips them. A kill can leave at most one half-written last line
(rows are single physical lines: newlines inside values are replaced); it is cut off and kept
in '<file>.partial' so nothing is silently lost. The file is locked while a batch writes it.
"""

from __future__ import annotations

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

    def _fail(self, why: str) -> ParameterError:
        return ParameterError(f"cannot write results to {self.path}: {why}; choose another --out")

    def open(self) -> ResumeInfo:
        """Open (create) and lock the file, cut off a half-written last line; what it holds.

        ParameterError when it is a directory, not writable, or locked by another batch.
        """
        if self.path.is_dir():
            raise self._fail("it is a directory")
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
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
        try:
            f.seek(0)
            data = f.read()
            self.info = self._load(f, data)
        except BaseException:
            f.close()
            raise
        self._file = f
        return self.info

    def _load(self, f: io.BufferedRandom, data: bytes) -> ResumeInfo:
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
            self._keep_fragment(fragment)
            f.truncate(cut)
            f.flush()
            os.fsync(f.fileno())
            info.repaired_bytes = len(fragment)
            data = data[:cut]
        if not data:
            self._write_bytes(f, header_line)
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

    def _keep_fragment(self, fragment: bytes) -> None:
        try:
            with open(f"{self.path}.partial", "ab") as keep:
                keep.write(fragment + b"\n")
        except OSError:
            pass  # a note only; the row itself is re-run

    @staticmethod
    def _write_bytes(f: io.BufferedRandom, line: bytes) -> None:
        f.write(line)
        f.flush()
        os.fsync(f.fileno())

    def append(self, row: dict[str, object]) -> None:
        """Write one row at the end of the file and make it durable before returning.

        A task whose finished row the file held when it was opened gets no second row (a trial
        run again only for its frames, engine.batch.trial_frames)."""
        if self._file is None:
            raise RuntimeError("ResultsStore.append before open()")
        if row.get("task_key") in self.info.ok_keys:
            return
        self._write_bytes(self._file, _csv_line([row.get(c, "") for c in self.columns]))

    def close(self) -> None:
        """Release the lock and close the file (again: no-op)."""
        if self._file is not None:
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
