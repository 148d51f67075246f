"""Writers touch only what they made, save all or nothing, and give new files the umask's mode
(issue 42 points 1 and 2, issue 40's 0600 files)."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

import numpy as np
import pytest

from engine.io import safe_write
from engine.io.frames_npz import CONTACT_COLUMNS
from engine.io.safe_write import OutputExistsError, atomic_write_text, open_new_text
from engine.io.session import SessionError, load_session, save_session
from engine.io.vtk_series import MANIFEST, write_vtk_series
from engine.scene.object_mesh import builtin_cube
from tests.engine.io.test_session_validation import make_session


def _frame(i: int = 0):
    from engine.grasp.frames import Frame

    pad = np.zeros((4, 3), dtype=np.float32) + i
    return Frame(
        index=i, time_s=0.01 * i, phase="squeeze", pad_vertices=(pad, pad + 1.0),
        object_pose=np.eye(4), plate_travel_m=0.0, plate_lift_m=0.0, psi_j=(0.0, 0.0),
        grip_force_n=(0.0, 0.0), contacts=dict.fromkeys(CONTACT_COLUMNS, 0), min_distance_m=1.0,
        object_min_z_m=0.0, newton_iterations=1, intersection_free=True,
    )  # fmt: skip


def _series(pvd, n=1, overwrite=True):
    cube = builtin_cube()
    frames = [_frame(i) for i in range(n)]
    return write_vtk_series(
        pvd, frames, cube.vertices, cube.faces, np.array([[0, 1, 2]]), overwrite=overwrite
    )


def _mode(p) -> int:
    return stat.S_IMODE(os.stat(p).st_mode)


# --- issue 40: the umask ------------------------------------------------------------------------
@pytest.mark.parametrize("umask", [0o022, 0o077])
def test_new_files_get_the_umask_mode_and_replaced_ones_keep_theirs(tmp_path, umask):
    old = os.umask(umask)
    try:
        new = atomic_write_text(tmp_path / "new.txt", "x")
        streamed = tmp_path / "rows.csv"
        with open_new_text(streamed) as f:
            f.write("a\n")
        pvd = _series(tmp_path / "s.pvd")
        kept = tmp_path / "kept.txt"
        kept.write_text("old")
        os.chmod(kept, 0o640)
        atomic_write_text(kept, "new", overwrite=True)
        with open_new_text(kept, overwrite=True) as f:
            f.write("newer")
    finally:
        os.umask(old)
    want = 0o666 & ~umask
    assert _mode(new) == want and _mode(streamed) == want and _mode(pvd) == want
    assert _mode(tmp_path / "s_frames") == 0o777 & ~umask
    assert _mode(tmp_path / "s_frames" / "frame_00000.vtp") == want
    assert _mode(kept) == 0o640 and kept.read_text() == "newer"


# --- issue 42 point 1: the VTK export deletes only its own frames -------------------------------
def test_vtk_export_refuses_a_frames_folder_it_did_not_make(tmp_path):
    folder = tmp_path / "results_frames"  # e.g. a batch's frames folder
    folder.mkdir()
    (folder / "task.npz").write_bytes(b"a batch's trial")
    with pytest.raises(OutputExistsError, match=r"results_frames.*move or rename"):
        _series(tmp_path / "results.pvd")  # no results.pvd: the folder is not the export's
    assert (folder / "task.npz").read_bytes() == b"a batch's trial"
    assert not (tmp_path / "results.pvd").exists()
    (tmp_path / "results.pvd").write_text(f'<DataSet file="{folder.name}/frame_00000.vtp"/>')
    with pytest.raises(OutputExistsError, match="no export manifest"):
        _series(tmp_path / "results.pvd")  # a .pvd naming it is not enough
    assert (folder / "task.npz").read_bytes() == b"a batch's trial"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_vtk_export_replaces_its_own_frames_but_never_a_file_added_to_them(tmp_path):
    pvd = _series(tmp_path / "s.pvd", n=3)
    folder = tmp_path / "s_frames"
    assert sorted(p.name for p in folder.iterdir()) == [
        MANIFEST, "frame_00000.vtp", "frame_00001.vtp", "frame_00002.vtp"
    ]  # fmt: skip
    _series(pvd, n=2)  # its own folder: replaced, the third frame gone with it
    assert sorted(p.name for p in folder.iterdir()) == [
        MANIFEST, "frame_00000.vtp", "frame_00001.vtp"
    ]  # fmt: skip
    (folder / "notes.txt").write_text("mine")
    with pytest.raises(OutputExistsError, match=r"files the export did not write \(notes.txt\)"):
        _series(pvd, n=1)
    assert (folder / "notes.txt").read_text() == "mine" and len(list(folder.iterdir())) == 4
    with pytest.raises(OutputExistsError, match="already exists"):
        _series(tmp_path / "s.pvd", overwrite=False)
    # Another series' folder (its manifest names another .pvd) is not this one's.
    (folder / "notes.txt").unlink()
    other = tmp_path / "t.pvd"
    other.write_text(pvd.read_text().replace("s_frames", "t_frames"))
    os.rename(folder, tmp_path / "t_frames")
    with pytest.raises(OutputExistsError, match="does not name this series"):
        _series(other)
    assert len(list((tmp_path / "t_frames").iterdir())) == 3


def test_vtk_export_failing_at_the_pvd_keeps_the_old_series(tmp_path, monkeypatch):
    pvd = _series(tmp_path / "s.pvd", n=2)
    before = {p.name: p.read_bytes() for p in (tmp_path / "s_frames").iterdir()}
    old_pvd = pvd.read_bytes()

    def full(*args, **kwargs):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr("engine.io.vtk_series.atomic_write_text", full)
    with pytest.raises(Exception, match="No space left"):
        _series(pvd, n=1)
    assert pvd.read_bytes() == old_pvd
    assert {p.name: p.read_bytes() for p in (tmp_path / "s_frames").iterdir()} == before
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


# --- issue 42 point 2: saving over a session is all or nothing ----------------------------------
def _changed_session():
    """Another session: other name and other arrays (so another arrays file)."""
    s = make_session()
    s.object_name = "the new one"
    s.trials[0].frames.pop()
    s.trials[0].energy_density.pop()
    return s


@pytest.mark.parametrize("fail_at", [1, 2])
@pytest.mark.parametrize("error", [OSError(errno.ENOSPC, "No space left"), KeyboardInterrupt()])
def test_a_save_over_a_session_failing_at_any_rename_keeps_the_old_session(
    tmp_path, monkeypatch, fail_at, error
):
    json_path, _ = save_session(tmp_path / "s", make_session())
    replace = os.replace
    calls = []

    def failing_replace(src, dst):
        calls.append(dst)
        if len(calls) == fail_at:
            raise error
        replace(src, dst)

    monkeypatch.setattr(safe_write.os, "replace", failing_replace)
    with pytest.raises((SessionError, KeyboardInterrupt)):
        save_session(json_path, _changed_session(), overwrite=True)
    monkeypatch.undo()
    assert len(calls) == fail_at  # the arrays' rename (1) or the JSON's (2) failed
    assert load_session(json_path).object_name == "cube"  # the old session opens
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.ipcgrasp.json", "s.ipcgrasp.npz"]


def test_saving_over_a_session_again_and_again_keeps_two_files(tmp_path):
    json_path, first = save_session(tmp_path / "s", make_session())
    _, second = save_session(json_path, _changed_session(), overwrite=True)
    assert second != first and second.name == "s.ipcgrasp.2.npz" and not first.exists()
    assert load_session(json_path).object_name == "the new one"
    _, third = save_session(json_path, make_session(), overwrite=True)
    assert third == first and not second.exists()
    assert load_session(json_path).object_name == "cube"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.ipcgrasp.json", "s.ipcgrasp.npz"]


def test_a_kill_after_the_json_is_committed_leaves_the_new_session(tmp_path, monkeypatch):
    json_path, first = save_session(tmp_path / "s", make_session())

    unlink = Path.unlink

    def killed(self, *args, **kwargs):  # killed before the old arrays file is removed
        if self == first:
            raise KeyboardInterrupt
        unlink(self, *args, **kwargs)

    monkeypatch.setattr(Path, "unlink", killed)
    with pytest.raises(KeyboardInterrupt):
        save_session(json_path, _changed_session(), overwrite=True)
    monkeypatch.undo()
    assert load_session(json_path).object_name == "the new one"
    assert first.exists()  # a stray file, reused by the next save
    save_session(json_path, make_session(), overwrite=True)
    assert load_session(json_path).object_name == "cube"
