"""Ctrl+C and a full disk end a command with one line, and cost no complete file (issue 42 point
9, issue 40's 46-line traceback): `simulate --force` replaces its old results only with complete
new ones; new files keep the rows so far; a full disk leaves the previous file and no temporary
or half-written file."""

from __future__ import annotations

import dataclasses
import errno

import numpy as np
import pytest

from engine.cli import simulate
from engine.cli.main import main
from engine.grasp.frames import TrialResult
from engine.io import safe_write
from engine.io.frames_npz import load_frames
from tests.engine.io.test_safe_write import USER_DATA, _frame, _user_file


def _others(folder, *keep):
    return sorted(p.name for p in folder.iterdir() if p.name not in keep)


@pytest.fixture
def fake_trials(monkeypatch):
    """`simulate`'s trials, instant: each reports one frame to the trial callback, then its
    result. `interrupt_at[0]` = k raises KeyboardInterrupt in trial k's callback (as Ctrl+C in
    the solver does)."""
    interrupt_at = [None]

    def run_trials(obj, grasp, params, spec, on_frame, pad=None, push=None):
        # The frames file holds the real pad's mesh: the frame's pads have its vertex count
        # (reading the file back checks that its faces index them).
        from engine.grasp.simulation import build_pad

        n = len((pad if pad is not None else build_pad(params)).vertices)
        rest = np.zeros((n, 3), dtype=np.float32)
        frame = dataclasses.replace(_frame(), pad_vertices=(rest, rest + 1.0))
        for k in range(spec.n_trials):
            on_frame(k, frame)
            yield TrialResult(trial=k, success=True, reason="lifted", frames=1)

    real_reporter = simulate._frame_reporter

    def reporter(args, params, frames):
        report = real_reporter(args, params, frames)

        def on_frame(trial, frame):
            if trial == interrupt_at[0]:
                raise KeyboardInterrupt
            report(trial, frame)

        return on_frame

    monkeypatch.setattr("engine.grasp.trials.run_trials", run_trials)
    monkeypatch.setattr(simulate, "_frame_reporter", reporter)
    return interrupt_at


def _simulate(tmp_path, *extra):
    out, frames = tmp_path / "results.csv", tmp_path / "frames.npz"
    args = ["simulate", "--object", "cube", "--trials", "3", "--out", str(out)]
    return main([*args, "--frames", str(frames), *extra]), out, frames


def test_ctrl_c_during_simulate_force_keeps_the_complete_old_files(tmp_path, capsys, fake_trials):
    _user_file(tmp_path / "results.csv")
    _user_file(tmp_path / "frames.npz")
    fake_trials[0] = 1  # after trial 0's row was written
    code, out, frames = _simulate(tmp_path, "--force")
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 130 and not any("Traceback" in line for line in err)
    assert err[-1] == (
        f"ipcgrasp simulate: interrupted after 1 trials; {out} left unchanged; {frames} left "
        "unchanged"
    )
    assert out.read_text() == USER_DATA and frames.read_text() == USER_DATA
    assert _others(tmp_path, "results.csv", "frames.npz") == []  # no temporary file


def test_ctrl_c_during_simulate_keeps_the_rows_so_far_in_new_files(tmp_path, capsys, fake_trials):
    fake_trials[0] = 2
    code, out, frames = _simulate(tmp_path)
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 130 and not any("Traceback" in line for line in err)
    assert err[-1] == (
        f"ipcgrasp simulate: interrupted after 2 trials; 2 rows kept in {out}; their frames in "
        f"{frames}"
    )
    assert len(out.read_text().splitlines()) == 3  # header + 2 rows
    assert load_frames(frames)[0]["trials"] == [0, 1]


def test_ctrl_c_anywhere_else_is_one_line(tmp_path, capsys, monkeypatch):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr("engine.cli.simulate.object_from_args", interrupted)
    assert main(["simulate", "--object", "cube"]) == 130
    assert capsys.readouterr().err.strip().splitlines()[-1:] == ["ipcgrasp simulate: interrupted"]


def _full_disk_after(monkeypatch, writes: int) -> None:
    """Files of the stream writer take `writes` more writes (csv: a line each); the next one
    writes half its text, then the disk is full."""
    real_open = safe_write._open_text
    left = [writes]

    class Full:
        def __init__(self, file):
            self.file = file

        def write(self, text):
            if left[0] <= 0:
                self.file.write(text[: len(text) // 2])
                self.file.flush()
                raise OSError(errno.ENOSPC, "No space left on device")
            left[0] -= 1
            return self.file.write(text)

        def __getattr__(self, name):
            return getattr(self.file, name)

    monkeypatch.setattr(safe_write, "_open_text", lambda path, mode: Full(real_open(path, mode)))


@pytest.mark.parametrize("replacing", [False, True])
def test_simulate_on_a_full_disk_is_one_line_and_leaves_no_half_file(
    tmp_path, capsys, fake_trials, monkeypatch, replacing
):
    if replacing:
        _user_file(tmp_path / "results.csv")
    _full_disk_after(monkeypatch, 2)  # the header and one row
    out = tmp_path / "results.csv"
    code = main(["simulate", "--object", "cube", "--trials", "3", "--out", str(out), "--force"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and "No space left on device" in err[-1]
    assert not any("Traceback" in line for line in err)
    if replacing:
        assert "left unchanged" in err[-1] and out.read_text() == USER_DATA
    else:
        lines = out.read_text().splitlines()  # whole rows only
        assert out.read_bytes().endswith(b"\n") and len(lines) == 2
        assert lines[0].startswith("ipcgrasp_version,") and lines[1].count(",") == lines[0].count(
            ","
        )
    assert _others(tmp_path, "results.csv") == []


@pytest.mark.parametrize("replacing", [False, True])
def test_analyze_on_a_full_disk_is_one_line_and_leaves_no_half_file(
    tmp_path, capsys, monkeypatch, replacing
):
    out = tmp_path / "a.csv"
    if replacing:
        _user_file(out)
    _full_disk_after(monkeypatch, 0)  # not even the header
    args = ["analyze", "--object", "cube", "--samples", "0", "--out", str(out), "--force"]
    assert main(args) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert "No space left on device" in err[-1] and "Traceback" not in "\n".join(err)
    if replacing:
        assert out.read_text() == USER_DATA
    else:
        assert not out.exists()  # no 0-byte or half-written file
    assert _others(tmp_path, "a.csv") == []
