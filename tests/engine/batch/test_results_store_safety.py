"""`batch --out` leaves a file it refuses byte for byte as it was, keeps a half-written row
before it cuts it off (or does not cut), and a full disk costs no row and leaves no half line
(issue 42 points 5 and 9)."""

from __future__ import annotations

import errno
import os

import pytest

from engine.batch.results_store import ResultsStore
from engine.errors import ParameterError
from tests.engine.batch.conftest import CUBE_ROW, read_rows, write_grasps
from tests.engine.batch.test_versions import _rewrite_versions, batch

COLUMNS = ["task_key", "status", "value"]


def test_a_refused_file_without_a_final_newline_is_left_as_it_was(tmp_path):
    path = tmp_path / "r.csv"
    path.write_bytes(b"some,other\ncsv,fi")
    with pytest.raises(ParameterError, match="not an ipcgrasp batch results file"):
        ResultsStore(path, COLUMNS).open()
    assert path.read_bytes() == b"some,other\ncsv,fi"
    assert not (tmp_path / "r.csv.partial").exists()


def test_a_file_refused_for_its_build_keeps_its_half_written_row(tmp_path, fake_analytic, capsys):
    grasps = write_grasps(tmp_path / "g.csv", [["a", *CUBE_ROW]])
    out = tmp_path / "r.csv"
    args = [str(grasps), "--out", str(out), "--models", "reach", "--samples", "3"]
    assert batch(*args) == 0
    _rewrite_versions(out, "0.1.0")
    with out.open("ab") as f:
        f.write(b"oldb,ok,half a r")  # killed mid-row
    before = out.read_bytes()
    assert batch(*args) == 2
    assert "--allow-mixed-versions" in capsys.readouterr().err
    assert out.read_bytes() == before
    assert not (tmp_path / "r.csv.partial").exists()
    # Allowed: now (and only now) the row is kept aside and cut off.
    assert batch(*args, "--allow-mixed-versions") == 0
    assert (tmp_path / "r.csv.partial").read_bytes() == b"oldb,ok,half a r\n"
    assert len(read_rows(out)) == 2


def test_a_half_written_row_that_cannot_be_kept_is_not_cut_off(tmp_path):
    path = tmp_path / "r.csv"
    path.write_bytes(b"task_key,status,value\na,ok,1\nb,ok,2")
    (tmp_path / "r.csv.partial").mkdir()  # cannot be written
    store = ResultsStore(path, COLUMNS)
    info = store.open()
    assert info.repaired_bytes == len(b"b,ok,2") and info.ok_keys == {"a"}
    with pytest.raises(ParameterError, match=r"could not be kept in .*r.csv.partial"):
        store.append({"task_key": "c", "status": "ok"})
    store.close()
    assert path.read_bytes() == b"task_key,status,value\na,ok,1\nb,ok,2"


def _full_disk_after(monkeypatch, n_bytes: int) -> None:
    """os.write writes `n_bytes` more bytes, then fails as on a full disk."""
    real = os.write
    left = [n_bytes]

    def write(fd, data):
        if left[0] <= 0:
            raise OSError(errno.ENOSPC, "No space left on device")
        n = real(fd, bytes(data)[: left[0]])
        left[0] -= n
        return n

    monkeypatch.setattr(os, "write", write)


def test_a_full_disk_keeps_every_whole_row_and_no_half_line(tmp_path, monkeypatch):
    path = tmp_path / "r.csv"
    store = ResultsStore(path, COLUMNS)
    store.open()
    store.append({"task_key": "a", "status": "ok", "value": 1})
    whole = path.read_bytes()
    _full_disk_after(monkeypatch, 3)
    with pytest.raises(ParameterError, match=r"No space left on device.*1 rows before it are kept"):
        store.append({"task_key": "b", "status": "ok", "value": 2})
    monkeypatch.undo()
    store.close()
    assert path.read_bytes() == whole
    with ResultsStore(path, COLUMNS) as again:  # resumes as usual
        assert again.info.ok_keys == {"a"} and not again.pending_repair


def test_a_full_disk_at_the_header_leaves_no_empty_file(tmp_path, monkeypatch):
    path = tmp_path / "r.csv"
    store = ResultsStore(path, COLUMNS)
    store.open()
    _full_disk_after(monkeypatch, 0)
    with pytest.raises(ParameterError, match=r"No space left on device.*nothing was written"):
        store.repair()
    monkeypatch.undo()
    store.close()
    assert list(tmp_path.iterdir()) == []


def test_batch_on_a_full_disk_ends_with_one_line_and_keeps_its_rows(
    tmp_path, fake_analytic, capsys, monkeypatch
):
    grasps = write_grasps(tmp_path / "g.csv", [["a", *CUBE_ROW], ["b", *CUBE_ROW]])
    out = tmp_path / "r.csv"
    args = [str(grasps), "--out", str(out), "--models", "reach", "--samples", "3"]
    store_append = ResultsStore.append

    def append_then_fill_the_disk(self, row):
        store_append(self, row)
        _full_disk_after(monkeypatch, 10)  # the next row gets 10 bytes, then no space

    monkeypatch.setattr(ResultsStore, "append", append_then_fill_the_disk)
    assert batch(*args) == 2
    monkeypatch.undo()
    err = capsys.readouterr().err.strip().splitlines()
    assert "No space left on device" in err[-1] and "Traceback" not in "\n".join(err)
    assert out.read_bytes().endswith(b"\n") and len(read_rows(out)) == 1
    assert batch(*args) == 0  # resumes: the second row is added
    assert len(read_rows(out)) == 2
