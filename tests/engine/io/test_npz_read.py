"""engine.io.npz_read: a user's .npz is read only within its caps (file size, inflated size,
elements per array; each cap inclusive), only as plain .npy arrays (never pickled objects), with
the array's shape and byte order as written, and every refusal names the file and the array."""

from __future__ import annotations

import io
import zipfile

import numpy as np
import pytest

from engine.io import npz_read
from engine.io.npz_read import NpzError, read_npz


def _npz(path, **arrays):
    with open(path, "wb") as f:
        np.savez(f, **arrays)
    return path


def _npy(array, version=None) -> bytes:
    buf = io.BytesIO()
    if version is None:
        np.save(buf, array, allow_pickle=True)
    else:
        np.lib.format.write_array(buf, array, version=version, allow_pickle=True)
    return buf.getvalue()


def _zip(path, members: dict[str, bytes]):
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return path


def test_arrays_come_back_as_written(tmp_path):
    a = np.arange(12, dtype=np.int32).reshape(3, 4)
    f = np.asfortranarray(np.arange(6.0).reshape(2, 3))
    big_endian = np.arange(3, dtype=">f8")
    p = _npz(tmp_path / "a.npz", a=a, f=f, b=big_endian, s=np.array("text"), e=np.zeros((0, 3)))
    got = read_npz(p)
    assert sorted(got) == ["a", "b", "e", "f", "s"]
    np.testing.assert_array_equal(got["a"], a)
    assert got["a"].dtype == np.int32
    np.testing.assert_array_equal(got["f"], f)
    np.testing.assert_array_equal(got["b"], big_endian)
    assert got["s"].shape == () and str(got["s"]) == "text"
    assert got["e"].shape == (0, 3)
    got["a"][0, 0] = 99  # a writable copy, not a view of the file's buffer
    v2 = _zip(tmp_path / "v2.npz", {"x.npy": _npy(a, version=(2, 0))})
    np.testing.assert_array_equal(read_npz(v2)["x"], a)
    v3 = _zip(tmp_path / "v3.npz", {"x.npy": _npy(a, version=(3, 0))})
    np.testing.assert_array_equal(read_npz(v3)["x"], a)


def test_each_cap_is_inclusive(tmp_path):
    p = _npz(tmp_path / "a.npz", x=np.zeros(10), y=np.zeros((2, 5)))
    size = p.stat().st_size
    assert set(read_npz(p, max_file_bytes=size)) == {"x", "y"}
    with pytest.raises(NpzError) as err:
        read_npz(p, max_file_bytes=size - 1)
    assert str(err.value) == (
        f"{p} is 0 MiB, over the 0 MiB a NumPy arrays file may have here; it is not an "
        "ipcgrasp file or it is damaged"
    )
    with zipfile.ZipFile(p) as zf:
        total = sum(i.file_size for i in zf.infolist())
    assert set(read_npz(p, max_total_bytes=total)) == {"x", "y"}
    with pytest.raises(NpzError) as err:
        read_npz(p, max_total_bytes=total - 1)
    assert str(err.value) == (
        f"{p} would inflate to 0 MiB (at most 0 MiB): refused (damaged or a zip bomb)"
    )
    assert set(read_npz(p, max_elements=10)) == {"x", "y"}
    with pytest.raises(NpzError) as err:
        read_npz(p, max_elements=9)
    assert str(err.value) == (
        f"{p}: array 'x' declares shape (10,) (10 elements, at most 9); refused before "
        "reading (damaged file?)"
    )


def test_the_module_caps_apply_when_none_are_given(tmp_path, monkeypatch):
    p = _npz(tmp_path / "a.npz", x=np.zeros(3 * 1024**2, dtype=np.uint8))
    monkeypatch.setattr(npz_read, "MAX_FILE_BYTES", 2 * 1024**2)
    with pytest.raises(NpzError, match=r"is 3 MiB, over the 2 MiB a NumPy arrays file"):
        read_npz(p)
    monkeypatch.setattr(npz_read, "MAX_FILE_BYTES", 8 * 1024**2)
    monkeypatch.setattr(npz_read, "MAX_TOTAL_BYTES", 2 * 1024**2)
    with pytest.raises(NpzError, match=r"would inflate to 3 MiB \(at most 2 MiB\)"):
        read_npz(p)
    monkeypatch.setattr(npz_read, "MAX_TOTAL_BYTES", 8 * 1024**2)
    monkeypatch.setattr(npz_read, "MAX_ARRAY_ELEMENTS", 3 * 1024**2 - 1)
    with pytest.raises(NpzError, match=r"at most 3\.15e\+06\); refused"):
        read_npz(p)
    monkeypatch.setattr(npz_read, "MAX_ARRAY_ELEMENTS", 3 * 1024**2)
    assert read_npz(p)["x"].shape == (3 * 1024**2,)


def test_the_number_of_members_is_capped(tmp_path, monkeypatch):
    p = _npz(tmp_path / "a.npz", **{f"m{i}": np.zeros(1) for i in range(4)})
    monkeypatch.setattr(npz_read, "MAX_MEMBERS", 4)
    assert len(read_npz(p)) == 4
    monkeypatch.setattr(npz_read, "MAX_MEMBERS", 3)
    with pytest.raises(NpzError) as err:
        read_npz(p)
    assert str(err.value) == f"{p} holds 4 entries (at most 3)"


def test_python_objects_are_never_unpickled(tmp_path):
    p = _zip(tmp_path / "o.npz", {"o.npy": _npy(np.array([{"a": 1}], dtype=object))})
    with pytest.raises(NpzError) as err:
        read_npz(p)
    assert str(err.value) == (
        f"{p}: array 'o' holds Python objects; ipcgrasp files never do (not loaded)"
    )


def test_members_that_are_not_arrays(tmp_path):
    p = _zip(tmp_path / "t.npz", {"a.npy": _npy(np.zeros(2)), "notes.txt": b"hello"})
    with pytest.raises(NpzError) as err:
        read_npz(p)
    assert str(err.value) == f"{p}: entry 'notes.txt' is not a NumPy array (.npy)"


def test_damaged_arrays_name_the_array(tmp_path):
    whole = _npy(np.arange(8, dtype=np.float64))
    cut = _zip(tmp_path / "c.npz", {"x.npy": whole[:-8]})
    with pytest.raises(NpzError) as err:
        read_npz(cut)
    assert str(err.value) == f"{cut}: array 'x' is truncated (56 of 64 bytes)"
    v9 = _zip(tmp_path / "v.npz", {"x.npy": b"\x93NUMPY\x09\x00" + whole[8:]})
    with pytest.raises(NpzError) as err:
        read_npz(v9)
    assert str(err.value) == f"{v9}: array 'x' has an unknown .npy version (9, 0)"
    header = _zip(tmp_path / "h.npz", {"x.npy": b"\x93NUMPY\x01\x00\x10\x00{'descr': ???}  \n"})
    with pytest.raises(NpzError) as err:
        read_npz(header)
    assert str(err.value).startswith(f"{header}: array 'x' has a damaged header (")
    # An unterminated quote in the header text (numpy tokenizes it), in each .npy version.
    for name, data, at in (
        ("v1", _npy(np.zeros(2), (1, 0)), 10),
        ("v2", _npy(np.zeros(2), (2, 0)), 12),
        ("v3", _npy(np.zeros(2), (3, 0)), 12),
    ):
        bad = bytearray(data)
        bad[at : at + 2] = b"!!"
        p = _zip(tmp_path / f"{name}.npz", {"x.npy": bytes(bad)})
        with pytest.raises(NpzError, match=r"array 'x' has a damaged header"):
            read_npz(p)


def test_files_that_are_not_npz(tmp_path):
    missing = tmp_path / "absent.npz"
    with pytest.raises(NpzError) as err:
        read_npz(missing)
    assert str(err.value) == f"cannot read {missing}: No such file or directory"
    text = tmp_path / "t.npz"
    text.write_text("not a zip")
    with pytest.raises(NpzError) as err:
        read_npz(text)
    assert str(err.value) == (
        f"{text} is not a complete NumPy arrays file (.npz): File is not a zip file; it is "
        "truncated, damaged or of another format"
    )
