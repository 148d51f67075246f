"""Writing output files without destroying a user's file.

Two rules every writer of the engine follows:

- **Refuse to replace.** A file that exists is replaced only when the caller says so
  (`overwrite=True`: the CLI's `--force`, or the app after its save dialog asked). Otherwise
  `OutputExistsError` names the file and the fix.
- **Atomic.** The content goes to a temporary file in the target's folder (same file system),
  is flushed to disk, then `os.replace`s the target in one step: a crash leaves the old file (or
  no file) and at most a stray `.NAME.*.tmp` beside it, never half a file.

`atomic_path` gives the temporary path to a writer that wants a path (matplotlib, numpy);
`atomic_write_bytes` / `atomic_write_text` write a whole file; `open_new_text` opens a file for
streaming rows that are flushed as they come (a new file is created exclusively; a replaced one
is streamed to a temporary file that replaces the target on close).
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from engine.errors import ParameterError


class OutputExistsError(ParameterError):
    """An output file exists and the caller did not allow replacing it."""


def refuse_existing(path: str | os.PathLike, overwrite: bool, flag: str = "--force") -> Path:
    """`path` as a Path; OutputExistsError when it exists and `overwrite` is False.

    `flag` is how the user allows replacing it (named in the message).
    """
    p = Path(path).expanduser()
    if p.is_dir():
        raise OutputExistsError(f"{p} is a folder; give a file name")
    if not overwrite and (p.exists() or p.is_symlink()):
        raise OutputExistsError(
            f"{p} already exists; choose another name or pass {flag} to replace it"
        )
    return p


def _cannot(p: Path, exc: OSError, hint: str = "choose a writable path") -> ParameterError:
    return ParameterError(f"cannot write {p}: {exc.strerror or exc}; {hint}")


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def current_umask() -> int:
    """The process's umask (read from /proc on Linux; elsewhere set and restored at once)."""
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def new_file_mode(target: Path, base: int = 0o666) -> int:
    """The mode a file replacing `target` gets: the old file's mode when it exists, else what
    `open()` would give a new file (`base` & ~umask; 0o777 for a folder). tempfile makes its
    files 0600 and folders 0700, which a colleague could not read."""
    try:
        return stat.S_IMODE(target.stat().st_mode)
    except OSError:
        return base & ~current_umask()


def _temp_in(p: Path) -> Path:
    try:
        p.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{p.name[:80]}.", suffix=".tmp", dir=p.parent)
    except OSError as exc:
        raise _cannot(p, exc) from exc
    os.close(fd)
    return Path(tmp)


def _commit(tmp: Path, p: Path, overwrite: bool, flag: str) -> None:
    """Flush `tmp` to disk and move it onto `p` (refusing if `p` appeared meanwhile), with
    the mode of the file it replaces or the umask's (`new_file_mode`)."""
    with open(tmp, "rb+") as f:
        os.fsync(f.fileno())
    os.chmod(tmp, new_file_mode(p))
    if not overwrite:
        try:
            os.link(tmp, p)  # fails if p exists: never replaces a file created meanwhile
        except FileExistsError:
            raise OutputExistsError(
                f"{p} already exists; choose another name or pass {flag} to replace it"
            ) from None
        except OSError:
            # No hard links (some file systems): replace after a last check.
            if p.exists():
                raise OutputExistsError(
                    f"{p} already exists; choose another name or pass {flag} to replace it"
                ) from None
            os.replace(tmp, p)
        else:
            tmp.unlink()
    else:
        os.replace(tmp, p)
    _fsync_dir(p.parent)


@contextlib.contextmanager
def atomic_path(
    path: str | os.PathLike, *, overwrite: bool = False, flag: str = "--force"
) -> Iterator[Path]:
    """A temporary path beside `path` to write to; on success it becomes `path` atomically.

    Refuses an existing `path` unless `overwrite` (OutputExistsError). On an exception the
    temporary file is removed and `path` is untouched. OSErrors become ParameterError.
    """
    p = refuse_existing(path, overwrite, flag)
    tmp = _temp_in(p)
    try:
        yield tmp
        _commit(tmp, p, overwrite, flag)
    except OSError as exc:
        raise _cannot(p, exc) from exc
    finally:
        with contextlib.suppress(OSError):
            tmp.unlink()


def atomic_write_bytes(
    path: str | os.PathLike, data: bytes, *, overwrite: bool = False, flag: str = "--force"
) -> Path:
    """Write `data` to `path` atomically (see `atomic_path`); returns the path."""
    with atomic_path(path, overwrite=overwrite, flag=flag) as tmp:
        tmp.write_bytes(data)
    return Path(path).expanduser()


def atomic_write_text(
    path: str | os.PathLike,
    text: str,
    *,
    overwrite: bool = False,
    flag: str = "--force",
    encoding: str = "utf-8",
) -> Path:
    """Write `text` to `path` atomically (see `atomic_path`); returns the path."""
    return atomic_write_bytes(path, text.encode(encoding), overwrite=overwrite, flag=flag)


def _open_text(path: Path, mode: str) -> IO[str]:
    """The text file a StreamFile writes (one place, so tests can make its disk full)."""
    return open(path, mode, newline="", encoding="utf-8")


class _ReplacingFile:
    """A text file streamed to a temporary path that replaces the target on a clean close."""

    def __init__(self, tmp: Path, target: Path, flag: str) -> None:
        self.tmp, self.target, self.flag = tmp, target, flag
        self.file: IO[str] = _open_text(tmp, "w")
        self.done = False

    def close(self, ok: bool = True) -> None:
        """Replace the target (`ok`) or leave it as it was; the temporary file goes either way."""
        if self.done:
            return
        self.done = True
        try:
            self.file.close()
            if ok:
                _commit(self.tmp, self.target, True, self.flag)
        except OSError as exc:
            raise ParameterError(
                f"cannot write {self.target}: {exc.strerror or exc}; it is left unchanged"
            ) from exc
        finally:
            with contextlib.suppress(OSError):
                self.tmp.unlink()


class StreamFile:
    """A text output opened by `open_new_text`: `write`, `flush`, `close`, context manager.

    A write that fails (a full disk) raises ParameterError saying what is left: a replaced file
    as it was (the temporary file removed), a new one cut back to what was last flushed whole,
    or removed when that is nothing worth keeping (`mark_empty`).
    """

    def __init__(self, file: IO[str], replacing: _ReplacingFile | None, path: Path) -> None:
        self._file = file
        self._replacing = replacing
        self.path = path
        self._kept = 0  # bytes of a new file flushed whole
        self._empty = 0  # its size while it holds nothing worth keeping (a header)

    @property
    def replacing(self) -> bool:
        """Whether the rows replace an existing file on `close()`."""
        return self._replacing is not None

    def write(self, text: str) -> int:
        try:
            return self._file.write(text)
        except OSError as exc:
            raise self._failed(exc) from exc

    def flush(self) -> None:
        try:
            self._file.flush()
            if self._replacing is None:
                self._kept = os.fstat(self._file.fileno()).st_size
        except OSError as exc:
            raise self._failed(exc) from exc

    def mark_empty(self) -> None:
        """Flush; what the file holds now (a header) is not kept alone after a failed write."""
        self.flush()
        self._empty = self._kept

    def _failed(self, exc: OSError) -> ParameterError:
        """Undo a failed write (see the class docstring); the error saying what is left."""
        if self._replacing is not None:
            with contextlib.suppress(ParameterError):
                self._replacing.close(ok=False)
            left = "it is left unchanged"
        else:
            with contextlib.suppress(OSError):
                self._file.close()  # (may fail again writing its buffer)
            try:
                if self._kept <= self._empty:
                    os.unlink(self.path)
                    left = "nothing was kept"
                else:
                    os.truncate(self.path, self._kept)
                    left = "what was written before is kept"
            except OSError:
                left = "its last line may be cut"
        return ParameterError(f"cannot write {self.path}: {exc.strerror or exc}; {left}")

    @property
    def closed(self) -> bool:
        return self._file.closed

    def close(self) -> None:
        if self._replacing is not None:
            self._replacing.close(ok=True)
        elif not self._file.closed:
            try:
                self._file.close()
            except OSError as exc:
                raise self._failed(exc) from exc

    def discard(self) -> None:
        """Close after a failure or an interruption: a replaced target keeps its old content, a
        new file what was written."""
        if self._replacing is not None:
            self._replacing.close(ok=False)
        else:
            with contextlib.suppress(OSError):
                self._file.close()

    def __enter__(self) -> StreamFile:
        return self

    def __exit__(self, exc_type: object, *rest: object) -> None:
        if exc_type is None:
            self.close()
        else:
            self.discard()


def open_new_text(
    path: str | os.PathLike,
    *,
    overwrite: bool = False,
    flag: str = "--force",
    hint: str = "choose a writable path",
) -> StreamFile:
    """Open `path` to stream text rows (flushed by the caller as they come).

    A new file is created exclusively (it never replaces a file that appears meanwhile); a crash
    leaves the rows written so far. With `overwrite` and an existing file, the rows go to a
    temporary file that replaces it on `close()` (the old content stays until then).
    """
    p = refuse_existing(path, overwrite, flag)
    try:
        p.parent.mkdir(parents=True, exist_ok=True)
        if overwrite and (p.exists() or p.is_symlink()):
            tmp = _temp_in(p)
            try:
                rep = _ReplacingFile(tmp, p, flag)
            except BaseException:
                with contextlib.suppress(OSError):
                    tmp.unlink()
                raise
            return StreamFile(rep.file, rep, p)
        return StreamFile(_open_text(p, "x"), None, p)
    except FileExistsError:
        raise OutputExistsError(
            f"{p} already exists; choose another name or pass {flag} to replace it"
        ) from None
    except OSError as exc:
        raise _cannot(p, exc, hint) from exc
