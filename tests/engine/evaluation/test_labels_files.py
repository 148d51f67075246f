"""Physical labels read from CSV files: one row per physical trial (grasp_id, result) or per grasp
(grasp_id, successes, trials); robustness = successes / trials (IPC-GraspSim's physical
robustness, e.g. 3 of 5 lifts = 0.6). Every refusal names the file, the line and the fix."""

from __future__ import annotations

import pytest

from engine.errors import ParameterError
from engine.evaluation import labels as labels_module
from engine.evaluation.labels import load_labels


def _load(tmp_path, text: str, name: str = "labels.csv"):
    p = tmp_path / name
    p.write_text(text, newline="")
    return p, load_labels([str(p)])


def _refusal(tmp_path, text: str) -> tuple[str, str]:
    p = tmp_path / "labels.csv"
    p.write_text(text, newline="")
    with pytest.raises(ParameterError) as err:
        load_labels([str(p)])
    return str(p), str(err.value)


def test_one_row_per_physical_trial_in_file_order(tmp_path):
    text = "Grasp_ID , RESULT\ng1,true\ng1, 0 \ng2,Yes\ng1,success\ng2,n\r\n"
    _, got = _load(tmp_path, text)
    assert got["g1"].outcomes == (True, False, True)
    assert got["g2"].outcomes == (True, False)
    assert got["g1"].robustness == pytest.approx(2 / 3)


def test_counts_per_grasp(tmp_path):
    text = "grasp_id,successes,trials\na,3,5\nb,0,2\nc,4,4\n"
    _, got = _load(tmp_path, text)
    assert got["a"].outcomes == (True, True, True, False, False)
    assert got["a"].robustness == 0.6
    assert got["b"].outcomes == (False, False) and got["b"].robustness == 0.0
    assert got["c"].robustness == 1.0


def test_a_row_without_result_uses_its_counts(tmp_path):
    text = "grasp_id,result,successes,trials\na,true,,\na,,1,2\nb,,2,3\n"
    _, got = _load(tmp_path, text)
    assert got["a"].outcomes == (True, True, False)
    assert got["b"].outcomes == (True, True, False)


@pytest.mark.parametrize(
    ("row", "problem"),
    [
        ("a,4,3", "need 0 <= successes <= trials and trials > 0"),
        ("a,-1,3", "need 0 <= successes <= trials and trials > 0"),
        ("a,0,0", "need 0 <= successes <= trials and trials > 0"),
        ("a,x,3", "fields 'successes' and 'trials' must be integers"),
        # int() read these: the fuzz suite's labels cells found them accepted
        ("a,+3,5", "fields 'successes' and 'trials' must be integers"),
        ("a,1_0,20", "fields 'successes' and 'trials' must be integers"),  # was 10
        ("a,\u0663,5", "fields 'successes' and 'trials' must be integers"),  # Arabic-Indic 3
        ("a,1,1e3", "fields 'successes' and 'trials' must be integers"),
        (",1,3", "field 'grasp_id' is empty"),
    ],
)
def test_bad_counts_are_refused_with_the_line(tmp_path, row, problem):
    p, message = _refusal(tmp_path, f"grasp_id,successes,trials\na,1,1\n{row}\n")
    assert message == f"{p} line 3: {problem}"


def test_a_result_that_is_not_a_boolean_is_refused(tmp_path):
    p, message = _refusal(tmp_path, "grasp_id,result\ng,maybe\n")
    assert message == f"{p} line 2: result 'maybe' is not a boolean (true/false/1/0)"


@pytest.mark.parametrize(
    "header",
    ["grasp,result", "grasp_id,outcome", "grasp_id,successes", "result,successes,trials", ""],
)
def test_a_csv_without_the_columns_is_refused(tmp_path, header):
    p, message = _refusal(tmp_path, header + "\n")
    assert message == (
        f"{p}: a labels CSV needs columns grasp_id and result (one row per physical trial) "
        "or grasp_id, successes and trials"
    )


def test_trials_in_all_are_capped_before_they_are_held(tmp_path, monkeypatch):
    """Every declared trial is held in memory: a 576-byte CSV of 40 rows of a million trials
    each took 4.6 GB. The budget counts trials over all rows (and files) of one evaluation,
    in both CSV forms, and refuses before holding the row that crosses it."""
    monkeypatch.setattr(labels_module, "MAX_TRIALS", 10)
    _, got = _load(tmp_path, "grasp_id,successes,trials\na,10,10\n")
    assert got["a"].outcomes == (True,) * 10
    p, message = _refusal(tmp_path, "grasp_id,successes,trials\na,1,11\n")
    assert message == (
        f"{p} line 2: the labels declare more than 10 physical trials in all (11 so far); "
        "evaluate fewer or smaller label files at a time"
    )
    p, message = _refusal(tmp_path, "grasp_id,successes,trials\na,1,6\nb,2,5\n")
    assert message.startswith(f"{p} line 3: the labels declare more than 10 physical trials")
    p, message = _refusal(tmp_path, "grasp_id,result\n" + "g,1\n" * 11)
    assert message.startswith(f"{p} line 12: the labels declare more than 10 physical trials")


def test_the_file_size_is_capped(tmp_path, monkeypatch):
    cap = 2 * 1024**2
    monkeypatch.setattr(labels_module, "MAX_LABEL_BYTES", cap)
    body = "grasp_id,result\n"
    rows, rest = divmod(cap - len(body), 1024)  # 1 KiB rows, then one shorter row
    exact = body + ("g" * 1021 + ",1\n") * rows + "h" * (rest - 3) + ",1\n"
    assert len(exact) == cap
    _, got = _load(tmp_path, exact)
    assert len(got["g" * 1021].outcomes) == rows and got["h" * (rest - 3)].outcomes == (True,)
    p, message = _refusal(tmp_path, exact + "g")
    assert message == f"labels {p} is over 2 MiB; split it into several files"


def test_the_size_refusal_names_the_cap_in_mib(tmp_path, monkeypatch):
    """Checked before anything is read: a sparse 301 MiB file against a 300 MiB cap."""
    monkeypatch.setattr(labels_module, "MAX_LABEL_BYTES", 300 * 1024**2)
    p = tmp_path / "labels.csv"
    with open(p, "wb") as f:
        f.truncate(301 * 1024**2)
    with pytest.raises(ParameterError) as err:
        load_labels([str(p)])
    assert str(err.value) == f"labels {p} is over 300 MiB; split it into several files"


def test_a_broken_row_names_its_line(tmp_path):
    # A field longer than the csv module's 131072-character limit.
    p, message = _refusal(tmp_path, "grasp_id,result\ng,1\n" + "g" * 200_000 + ",1\n")
    assert message.startswith(f"{p} line 3: not a valid CSV row (")
    assert message.endswith("); fix or remove it")


def test_undecodable_bytes_are_refused(tmp_path):
    p = tmp_path / "labels.csv"
    p.write_bytes(b"grasp_id,result\n\xff,1\n")
    with pytest.raises(ParameterError) as err:
        load_labels([str(p)])
    assert str(err.value).startswith(f"cannot read labels {p}: 'utf-8' codec can't decode")


def test_several_files_add_up_and_an_empty_set_is_refused(tmp_path):
    a = tmp_path / "a.csv"
    a.write_text("grasp_id,result\ng,1\n")
    b = tmp_path / "b.csv"
    b.write_text("grasp_id,successes,trials\ng,0,1\nh,1,1\n")
    got = load_labels([str(a), str(b)])
    assert got["g"].outcomes == (True, False) and got["h"].outcomes == (True,)
    empty = tmp_path / "empty.csv"
    empty.write_text("grasp_id,result\n")
    with pytest.raises(ParameterError) as err:
        load_labels([str(empty)])
    assert str(err.value) == f"no physical labels in {empty}"
    with pytest.raises(ParameterError) as missing:
        load_labels([str(tmp_path / "absent.csv")])
    assert str(missing.value) == (
        f"labels file {tmp_path / 'absent.csv'} not found: give a REACH JSON or a CSV"
    )


def test_old_mac_line_endings(tmp_path):
    """A CSV whose lines end in CR alone (classic Mac OS, some spreadsheet exports)."""
    _, got = _load(tmp_path, "grasp_id,result\rg,1\rg,0\r")
    assert got["g"].outcomes == (True, False)


def test_each_label_knows_its_grasp_and_an_empty_set_names_every_file(tmp_path):
    _, got = _load(tmp_path, "grasp_id,result\ng7,1\n")
    assert got["g7"].grasp_id == "g7"
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    a.write_text("grasp_id,result\n")
    b.write_text("grasp_id,successes,trials\n")
    with pytest.raises(ParameterError) as err:
        load_labels([str(a), str(b)])
    assert str(err.value) == f"no physical labels in {a}, {b}"


def test_repeated_trial_numbers_keep_the_file_order(tmp_path):
    p = tmp_path / "reach.json"
    p.write_text(
        '[{"obj": "c", "attempt": 0, "trial": 0, "result": true},'
        ' {"obj": "c", "attempt": 0, "trial": 0, "result": false}]'
    )
    assert load_labels([str(p)])["c/0"].outcomes == (True, False)


def test_a_quoted_line_break_is_kept_as_written(tmp_path):
    _, got = _load(tmp_path, 'grasp_id,result\r\n"a\r\nb",1\r\n')
    assert list(got) == ["a\r\nb"]


@pytest.mark.parametrize(
    ("header", "row", "cells", "width"),
    [
        ("grasp_id,result", "g1,0,D,0", 4, 2),  # found by the fuzz suite: the extras were dropped
        ("grasp_id,result", "g1,true,false", 3, 2),
        ("grasp_id,successes,trials", "g1,3,5,9", 4, 3),
        ("grasp_id,successes,trials", "g1,3", 2, 3),
        ("grasp_id,result,successes,trials", "g1,true,1", 3, 4),
    ],
)
def test_a_row_with_more_or_fewer_cells_than_the_header_is_refused(
    tmp_path, header, row, cells, width
):
    """A cell too many (an unquoted comma in a grasp id, a pasted column) or too few would
    shift or drop a value: refused with the line and the counts, never read in part."""
    valid = {2: "g0,1", 3: "g0,1,1", 4: "g0,1,,"}[header.count(",") + 1]
    p, message = _refusal(tmp_path, f"{header}\n{valid}\n{row}\n")
    assert message == (
        f"{p} line 3: {cells} fields, the header has {width}; give one value per column (a "
        "comma inside a grasp id needs quotes)"
    )
