"""A session's object, grasp and header fields at their boundaries, with the exact refusal: the
JSON size cap (inclusive), a byte-order mark, the object's source (a path of at most 4096
characters without NUL, or 'builtin:cube[:N]'), stable pose >= 0 (0 when absent), a density
> 0 (any positive value, 0.5 kg/m^3 too), text names, relative paths, numbers too large for a
float."""

from __future__ import annotations

import pytest

from engine.io.session import SessionError, load_session
from engine.io.session import reading as session_module
from tests.engine.io.test_session_validation import edit_json, saved  # noqa: F401


def _refusal(json_path) -> str:
    with pytest.raises(SessionError) as err:
        load_session(json_path)
    return str(err.value)


def _object(**fields):
    return lambda d: d["object"].update(fields)


def test_the_session_file_size_cap_is_inclusive(saved, monkeypatch):  # noqa: F811
    json_path, _ = saved
    size = json_path.stat().st_size
    monkeypatch.setattr(session_module, "MAX_JSON_BYTES", size)
    assert len(load_session(json_path).trials) == 2
    monkeypatch.setattr(session_module, "MAX_JSON_BYTES", size - 1)
    assert _refusal(json_path) == (
        f"{json_path} is {size / 1024**2:.0f} MiB, over the {(size - 1) / 1024**2:.0f} MiB a "
        "session file has: it is not a session"
    )


def test_a_byte_order_mark_is_accepted(saved):  # noqa: F811
    json_path, _ = saved
    json_path.write_bytes(b"\xef\xbb\xbf" + json_path.read_bytes())
    assert len(load_session(json_path).trials) == 2


def test_versions(saved):  # noqa: F811
    json_path, _ = saved
    edit_json(json_path, lambda d: d.update(version=0))
    assert _refusal(json_path) == (
        f"{json_path}: field 'version' must be a positive integer (got 0); the file is damaged"
    )
    edit_json(json_path, lambda d: d.update(version=99))
    assert _refusal(json_path) == (
        f"{json_path} was written by a newer ipcgrasp (session version 99); update ipcgrasp "
        "to open it"
    )


@pytest.mark.parametrize("source", ["", "a" * 4097, "mesh\0.obj", 5, None])
def test_a_bad_object_source(saved, source):  # noqa: F811
    json_path, _ = saved
    edit_json(json_path, _object(source=source))
    assert _refusal(json_path) == (
        f"{json_path}: field 'object.source' must be a path or 'builtin:cube'"
    )


def test_object_source_limits(saved):  # noqa: F811
    json_path, _ = saved
    edit_json(json_path, _object(source="a" * 4096))
    assert load_session(json_path).object_source == "a" * 4096
    edit_json(json_path, _object(source="builtin:" + "x" * 100))
    assert _refusal(json_path) == (
        f"{json_path}: field 'object.source' {('builtin:' + 'x' * 100)[:80]!r} is not a "
        "built-in object ('builtin:cube' or 'builtin:cube:N')"
    )


def test_object_fields(saved):  # noqa: F811
    json_path, _ = saved
    edit_json(json_path, lambda d: d["object"].pop("stable_pose", None))
    edit_json(json_path, lambda d: d["object"].pop("name", None))
    edit_json(json_path, _object(density_kg_m3=500.0, relative_path="../meshes/cube.obj"))
    s = load_session(json_path)
    assert (s.stable_pose, s.object_name, s.density_kg_m3) == (0, "", 500.0)
    assert s.extras["_relative_path"] == "../meshes/cube.obj"
    edit_json(json_path, _object(relative_path=None))
    assert load_session(json_path).extras["_relative_path"] is None


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        (_object(stable_pose=-1), "field 'object.stable_pose' must be >= 0 (got -1)"),
        (_object(density_kg_m3=0), "field 'object.density_kg_m3' is 0 kg/m^3, not a density an object has (10 to 25,000 kg/m^3); the file was edited or damaged: set it to the object's density (water is 1000)"),
        (_object(density_kg_m3="Infinity"), "field 'object.density_kg_m3' is inf kg/m^3, not a density an object has (10 to 25,000 kg/m^3); the file was edited or damaged: set it to the object's density (water is 1000)"),
        (_object(density_kg_m3=10**400), "field 'object.density_kg_m3' is too large (" + repr(10**400)[:60] + ")"),
        (_object(name=5), "field 'object.name' must be text"),
        (_object(relative_path=5), "field 'object.relative_path' must be a path or null"),
        (_object(relative_path="a\0b"), "field 'object.relative_path' must be a path or null"),
        (_object(unit="furlong"), "field 'object.unit' must be one of " + ", ".join(session_module.UNIT_SCALE_M) + " or null (got 'furlong')"),
        (lambda d: d.update(params=[]), "field 'params' must be an object, got list"),
        (lambda d: d.update(grasp=None), "field 'grasp' must be an object, got null"),
        (lambda d: d["grasp"].update(center=[True, 0, 0]), "field 'grasp.center' must be a list of 3 numbers, got [True, 0, 0]"),
        (lambda d: d["grasp"].update(center=[10**400, 0, 0]), "field 'grasp.center' holds a number too large for a float"),
    ],
)  # fmt: skip
def test_bad_fields_are_refused_exactly(saved, change, problem):  # noqa: F811
    json_path, _ = saved
    edit_json(json_path, change)
    assert _refusal(json_path) == f"{json_path}: {problem}"


def test_unit_and_default_status(saved):  # noqa: F811
    json_path, _ = saved
    edit_json(json_path, _object(unit="mm"))
    edit_json(json_path, lambda d: d["results"][1].pop("status"))
    s = load_session(json_path)
    assert s.object_unit == "mm"
    assert [t.status for t in s.trials] == ["cancelled", "done"]  # a missing status is done


def test_a_trial_without_its_second_energy_array_is_refused(saved):  # noqa: F811
    from tests.engine.io.test_session_validation import rewrite_npz

    json_path, npz_path = saved
    rewrite_npz(json_path, npz_path, lambda a: a.pop("t0/energy2"))
    assert _refusal(json_path) == (
        f"{json_path.name}'s arrays file: t0/energy2 must be (3, 4) finite floats (got nothing)"
    )


def test_the_json_records_the_object_as_a_row_does(saved):  # noqa: F811
    """The session's JSON says the object's unit, scale, mass, density and size as the result
    rows' object_* columns do: the built-in 3 cm cube at 1000 kg/m^3 is 27 cm^3, 27 g."""
    import json

    facts = json.loads(saved[0].read_text())["object"]["facts"]
    assert facts["unit"] == "m" and facts["scale_m"] == 1.0
    assert facts["density_kg_m3"] == 1000.0
    assert facts["mass_kg"] == pytest.approx(0.027, rel=1e-9)
    sizes = [facts[f"size_{a}_mm"] for a in "xyz"]
    assert sizes == pytest.approx([30.0, 30.0, 30.0], rel=1e-9)
    assert load_session(saved[0]).density_kg_m3 == 1000.0  # the reader takes the new field
