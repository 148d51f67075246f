"""The results file: fsync'ed appends, resume keys, repair of a half-written line, no damage."""

from __future__ import annotations

import pytest

from engine.batch.results_store import ResultsStore, read_results
from engine.errors import ParameterError

COLUMNS = ["task_key", "status", "value", "note"]


def write(path, rows):
    with ResultsStore(path, COLUMNS) as store:
        for row in rows:
            store.append(row)


def test_rows_are_appended_and_found_again(tmp_path):
    path = tmp_path / "sub" / "r.csv"
    write(path, [{"task_key": "a", "status": "ok", "value": 1}])
    write(path, [{"task_key": "b", "status": "error", "note": "line1\nline2"}])
    store = ResultsStore(path, COLUMNS)
    info = store.open()
    store.close()
    assert info.ok_keys == {"a"} and info.error_keys == {"b"} and info.rows == 2
    text = path.read_text()
    assert text.count("\n") == 3  # header + 2 rows: values never span lines
    assert "line1 | line2" in text
    assert [r["task_key"] for r in read_results([path])] == ["a", "b"]


def test_a_half_written_last_line_is_cut_off_and_kept_aside(tmp_path):
    path = tmp_path / "r.csv"
    write(path, [{"task_key": "a", "status": "ok", "value": 1}])
    intact = path.read_bytes()
    with path.open("ab") as f:
        f.write(b"b,ok,2,hal")  # killed mid-write
    assert [r["task_key"] for r in read_results([path])] == ["a"]  # readers ignore it
    store = ResultsStore(path, COLUMNS)
    info = store.open()
    assert info.repaired_bytes == len(b"b,ok,2,hal") and info.ok_keys == {"a"}
    store.append({"task_key": "b", "status": "ok", "value": 2})
    store.close()
    assert path.read_bytes() == intact + b"b,ok,2,\n"
    assert (tmp_path / "r.csv.partial").read_bytes() == b"b,ok,2,hal\n"


def test_a_half_written_header_is_rewritten(tmp_path):
    path = tmp_path / "r.csv"
    path.write_bytes(b"task_key,sta")
    write(path, [{"task_key": "a", "status": "ok"}])
    assert path.read_text().splitlines() == [",".join(COLUMNS), "a,ok,,"]


def test_an_ok_row_wins_over_an_error_row_of_the_same_task(tmp_path):
    path = tmp_path / "r.csv"
    write(path, [{"task_key": "a", "status": "error"}, {"task_key": "a", "status": "ok"}])
    write(path, [{"task_key": "a", "status": "error"}])
    store = ResultsStore(path, COLUMNS)
    info = store.open()
    store.close()
    assert info.ok_keys == {"a"} and info.error_keys == set()
    assert read_results([path])[0]["status"] == "ok"


def test_rows_of_the_wrong_width_are_reported_not_removed(tmp_path):
    path = tmp_path / "r.csv"
    write(path, [{"task_key": "a", "status": "ok"}])
    with path.open("a") as f:
        f.write("x,ok\n")
    before = path.read_bytes()
    store = ResultsStore(path, COLUMNS)
    info = store.open()
    store.close()
    assert info.unreadable_rows == [3] and "x" not in info.ok_keys
    assert path.read_bytes() == before


@pytest.mark.parametrize("content", [b"some,other\ncsv,file\n", b"not a csv at all"])
def test_a_foreign_file_is_refused_and_left_alone(tmp_path, content):
    path = tmp_path / "r.csv"
    path.write_bytes(content)
    with pytest.raises(ParameterError, match="not an ipcgrasp batch results file"):
        ResultsStore(path, COLUMNS).open()
    assert path.read_bytes() == content


def test_unwritable_paths_and_concurrent_writers_are_refused(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(ParameterError, match=r"cannot write results to .*choose another --out"):
        ResultsStore(blocker / "sub" / "r.csv", COLUMNS).open()
    with pytest.raises(ParameterError, match="it is a directory"):
        ResultsStore(tmp_path, COLUMNS).open()
    path = tmp_path / "r.csv"
    with ResultsStore(path, COLUMNS), pytest.raises(ParameterError, match="another ipcgrasp batch"):
        ResultsStore(path, COLUMNS).open()
    assert blocker.read_text() == "x"


def test_a_file_from_another_version_keeps_its_columns(tmp_path):
    path = tmp_path / "r.csv"
    write(path, [{"task_key": "a", "status": "ok", "value": 1}])
    store = ResultsStore(path, [*COLUMNS, "new"])
    info = store.open()
    store.append({"task_key": "b", "status": "ok", "value": 2, "new": "x"})
    store.close()
    assert info.missing_columns == ["new"]
    assert path.read_text().splitlines()[-1] == "b,ok,2,"
