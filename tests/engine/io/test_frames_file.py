"""A frames file (.npz with a JSON `meta` text and per-trial arrays) is read only when it is one:
each kind of damage is refused with a message naming the file and what is wrong, and
`frames_file_complete` tells a whole file from a damaged one without inflating its arrays."""

from __future__ import annotations

import io
import json
import zipfile

import numpy as np
import pytest

from engine.io.frames_npz import FramesError, frames_file_complete, load_frames
from tests.engine.io.test_safe_write import _save_frames


def _rewrite(src, dst, meta=None, drop=(), extra=None):
    """A copy of the frames file `src` with its meta replaced, some members dropped or added."""
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w") as zout:
        for name in zin.namelist():
            if name in drop or (meta is not None and name == "meta.npy"):
                continue
            zout.writestr(name, zin.read(name))
        if meta is not None:
            buf = io.BytesIO()
            np.save(buf, meta, allow_pickle=True)
            zout.writestr("meta.npy", buf.getvalue())
        for name, array in (extra or {}).items():
            buf = io.BytesIO()
            np.save(buf, array)
            zout.writestr(name, buf.getvalue())
    return dst


@pytest.fixture
def whole(tmp_path):
    return _save_frames(tmp_path / "whole.npz")


def _meta(whole) -> dict:
    meta, _ = load_frames(whole)
    return meta


def _refused(path) -> str:
    with pytest.raises(FramesError) as err:
        load_frames(path)
    return str(err.value)


def test_a_whole_file_loads_and_is_complete(whole):
    meta, arrays = load_frames(whole)
    assert meta["format"] == "ipcgrasp-frames" and meta["trials"] == [0]
    assert "meta" not in arrays and arrays["t0/time_s"].shape == (1,)
    assert frames_file_complete(whole)


def test_not_an_npz(tmp_path):
    p = tmp_path / "x.npz"
    p.write_bytes(b"PK\x03\x04 not really a zip")
    message = _refused(p)
    assert message.startswith(f"{p} is not an ipcgrasp frames file: {p} is not a complete")
    assert not frames_file_complete(p)


def test_meta_that_is_not_text(whole, tmp_path):
    for meta in (np.array([1, 2]), np.array(["a", "b"]), np.array(3.0)):
        p = _rewrite(whole, tmp_path / "m.npz", meta=meta)
        assert _refused(p) == f"{p} is not an ipcgrasp frames file (no meta text)"
    p = _rewrite(whole, tmp_path / "n.npz", drop=("meta.npy",))
    assert _refused(p) == f"{p} is not an ipcgrasp frames file (no meta text)"
    assert not frames_file_complete(p)


def test_meta_that_is_not_json(whole, tmp_path):
    p = _rewrite(whole, tmp_path / "j.npz", meta=np.array("{not json"))
    assert _refused(p).startswith(f"{p}: its meta is not valid JSON (")
    assert not frames_file_complete(p)


def test_meta_of_another_format(whole, tmp_path):
    for meta in ({"format": "other", "trials": [0]}, [0], "ipcgrasp-frames"):
        p = _rewrite(whole, tmp_path / "f.npz", meta=np.array(json.dumps(meta)))
        assert _refused(p) == f"{p} is not an ipcgrasp frames file"
        assert not frames_file_complete(p)


@pytest.mark.parametrize("trials", [None, "0", [True], [0, "1"], {"0": 1}])
def test_trials_must_be_a_list_of_numbers(whole, tmp_path, trials):
    meta = dict(_meta(whole), trials=trials)
    p = _rewrite(whole, tmp_path / "t.npz", meta=np.array(json.dumps(meta)))
    assert _refused(p) == f"{p}: meta 'trials' must be a list of trial numbers"
    assert not frames_file_complete(p)


def test_a_listed_trial_with_bad_arrays_names_the_file(whole, tmp_path):
    p = _rewrite(whole, tmp_path / "a.npz", drop=("t0/psi.npy",))
    assert _refused(p) == f"{p}: array t0/psi is missing (the file is incomplete)"
    assert not frames_file_complete(p)
    # A trial listed without any arrays is not checked by load_frames (a cancelled trial),
    # but the file is not complete.
    meta = dict(_meta(whole), trials=[0, 1])
    q = _rewrite(whole, tmp_path / "b.npz", meta=np.array(json.dumps(meta)))
    assert load_frames(q)[0]["trials"] == [0, 1]
    assert not frames_file_complete(q)


def test_an_empty_trial_list_is_not_complete(whole, tmp_path):
    meta = dict(_meta(whole), trials=[])
    p = _rewrite(whole, tmp_path / "e.npz", meta=np.array(json.dumps(meta)))
    assert load_frames(p)[0]["trials"] == []
    assert not frames_file_complete(p)


def test_a_pickled_meta_is_never_unpickled(whole, tmp_path):
    p = _rewrite(whole, tmp_path / "p.npz", meta=np.array([{"format": "x"}], dtype=object))
    assert not frames_file_complete(p)
    assert "holds Python objects" in _refused(p)


class _Touch:
    """Unpickling this calls Path.touch on `marker`: proof that a pickle was loaded."""

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        from pathlib import Path

        return (Path.touch, (self.marker,))


def test_no_pickle_is_ever_loaded(whole, tmp_path):
    marker = tmp_path / "unpickled"
    meta = np.array([_Touch(marker)], dtype=object)
    p = _rewrite(whole, tmp_path / "p.npz", meta=meta)
    assert not frames_file_complete(p)
    with pytest.raises(FramesError):
        load_frames(p)
    assert not marker.exists()


def _trial(whole) -> dict[str, np.ndarray]:
    from engine.io.frames_npz import check_trial_arrays

    _, arrays = load_frames(whole)
    trial = {k[3:]: v for k, v in arrays.items() if k.startswith("t0/")}
    assert check_trial_arrays(trial) == 1  # one frame, no prefix, no file name
    return trial


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        (lambda a: a.pop("time_s"), "array t0/time_s is missing"),
        (lambda a: a.pop("pad2"), "array t0/pad2 is missing (the file is incomplete)"),
        (lambda a: a.update(phase=np.zeros(1)), "array t0/phase has type float64; expected numbers"),
        (lambda a: a.update(psi=np.zeros((1, 2), bool)), "array t0/psi has type bool; expected numbers"),
        (lambda a: a.update(time_s=np.zeros(1, np.int64)), None),  # integers are numbers
        (lambda a: a.update(pad1=np.zeros((1, 4, 2))), "array t0/pad1 has shape (1, 4, 2); expected (F, n, 3)"),
        (lambda a: a.update(object_pose=np.zeros((1, 4))), "array t0/object_pose has shape (1, 4); expected (F, 4, 4)"),
        (lambda a: a.update(psi=np.zeros((1, 3))), "array t0/psi has shape (1, 3); expected (F, 2)"),
        (lambda a: a.update(plate=np.zeros((2, 2))), "array t0/plate has 2 entries for 1 frames"),
        (lambda a: a.update(pad2=np.zeros((1, 5, 3))), "arrays t0/pad1 and t0/pad2 differ in shape"),
        (lambda a: a.update(phase=np.array([-1])), "array t0/phase holds values outside 0..3"),
        (lambda a: a.update(phase=np.array([4])), "array t0/phase holds values outside 0..3"),
        (lambda a: a.update(phase=np.array([3])), None),  # 'push', the last phase
        (lambda a: a.update(time_s=np.array([np.nan])), "array t0/time_s holds NaN or infinite values"),
        (lambda a: a.update(intersection_free=np.ones(2, bool)), "array t0/intersection_free has shape (2,) and type bool; expected (1,) bool"),
        (lambda a: a.update(intersection_free=np.ones(1)), "array t0/intersection_free has shape (1,) and type float64; expected (1,) bool"),
        (lambda a: a.update(intersection_free=np.ones(1, np.uint8)), None),
    ],
)  # fmt: skip
def test_trial_arrays_are_checked_one_by_one(whole, tmp_path, change, problem):
    from engine.grasp.frames import PHASES
    from engine.io.frames_npz import check_trial_arrays

    assert len(PHASES) == 4  # squeeze, lift, hold, push: indices 0..3
    trial = _trial(whole)
    change(trial)
    arrays = {f"t0/{k}": v for k, v in trial.items()}
    if problem is None:
        assert check_trial_arrays(arrays, "t0/", str(whole)) == 1
        return
    with pytest.raises(FramesError) as err:
        check_trial_arrays(arrays, "t0/", str(whole))
    assert str(err.value) == f"{whole}: {problem}"
    with pytest.raises(FramesError) as err:
        check_trial_arrays(arrays, "t0/")
    assert str(err.value) == problem
