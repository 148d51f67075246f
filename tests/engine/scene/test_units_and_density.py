"""Units that cannot mislead: a centimetre or inch file gets its own hint with the size each unit
gives, a mass that implies a density no object has is refused with the numbers, every command
says the object's size, mass and density at start, and rows record them."""

from __future__ import annotations

import argparse
import csv

import pytest
import trimesh

from engine import schema
from engine.errors import MeshError, ParameterError
from engine.scene.object_facts import OBJECT_COLUMNS, ObjectFacts
from engine.scene.object_mesh import load_object_mesh
from engine.scene.resting import rest_object

# A can 66 mm across and 115 mm tall, written in each unit.
CAN_MM = (66.0, 115.0)
SCALE = {"mm": 1.0, "cm": 0.1, "in": 1 / 25.4}


def _can(tmp_path, unit: str):
    diameter, height = (v * SCALE[unit] for v in CAN_MM)
    mesh = trimesh.creation.cylinder(radius=diameter / 2, height=height, sections=48)
    path = tmp_path / f"can_{unit}.stl"
    mesh.export(path)
    return path


@pytest.mark.parametrize(
    ("unit", "name"), [("cm", "centimetres"), ("in", "inches"), ("mm", "millimetres")]
)
def test_each_unit_gets_its_own_hint_with_the_size_each_unit_gives(tmp_path, unit, name):
    with pytest.raises(MeshError) as err:
        load_object_mesh(_can(tmp_path, unit))
    text = str(err.value)
    assert f"looks like {name}: give the unit, --unit {unit} (as {name} 66 x 66 x 115 mm" in text
    # The other two units' sizes are said too, so the user sees why this one was chosen.
    assert text.count(" as ") == 3
    (fix,) = err.value.settings
    assert (fix.name, fix.value) == ("unit", unit)
    loaded = load_object_mesh(_can(tmp_path, unit), unit=unit)
    assert loaded.unit == unit
    facts = ObjectFacts.of(rest_object(loaded))
    sizes = sorted([facts.size_x_mm, facts.size_y_mm, facts.size_z_mm])
    assert sizes == pytest.approx([66.0, 66.0, 115.0], rel=1e-3)


def test_a_normal_object_loads_and_says_its_size_mass_and_density(tmp_path, capsys):
    from engine.cli.scene_args import object_from_args

    args = argparse.Namespace(
        command="simulate",
        object=str(_can(tmp_path, "cm")),
        unit="cm",
        body=None,
        mass=0.35,
        density=None,
        stable_pose=0,
    )
    obj, _ = object_from_args(args)
    assert obj.mass_kg == 0.35 and 800 < obj.density_kg_m3 < 1000
    line = capsys.readouterr().err.strip()
    assert line.startswith("ipcgrasp simulate: object can_cm: 66 x 66 x 115 mm (mesh read in cm)")
    assert "mass 350 g, density 8" in line


@pytest.mark.parametrize(
    ("mass", "words"),
    [
        (0.1, "is a density of 2.55e+05 kg/m^3, more than any object (25,000 kg/m^3"),
        (1e-9, "less than any object (10 kg/m^3"),
    ],
)
def test_a_mass_no_object_of_this_size_has_is_refused_with_the_numbers(tmp_path, mass, words):
    # The centimetre can read as millimetres: 6.6 x 11.5 mm, 0.39 cm^3.
    small = load_object_mesh(_can(tmp_path, "cm"), unit="mm")
    with pytest.raises(ParameterError) as err:
        rest_object(small, mass_kg=mass)
    text = str(err.value)
    assert f"a mass of {mass * 1e3:.4g} g in 0.39" in text
    assert "(the mesh, 6.6 x 6.6 x 11.5 mm read in mm)" in text
    assert words in text
    assert text.endswith("check the mesh's unit (--unit) and the mass")
    with pytest.raises(ParameterError, match=r"and the density$"):
        rest_object(small, density_kg_m3=30_000.0)


def test_rows_record_unit_scale_mass_density_and_size_and_old_rows_still_read(tmp_path):
    mesh = load_object_mesh(_can(tmp_path, "in"), unit="in")
    facts = ObjectFacts.of(rest_object(mesh, mass_kg=0.35))
    row = facts.columns()
    assert list(row) == list(OBJECT_COLUMNS)
    assert row["object_unit"] == "in" and row["object_scale_m"] == 0.0254
    assert row["object_mass_kg"] == 0.35
    assert sorted(round(row[f"object_size_{c}_mm"]) for c in "xyz") == [66, 66, 115]
    # Written to a CSV and read back; a row of an older version (no object_* columns) reads
    # as unknown facts.
    path = tmp_path / "rows.csv"
    with path.open("w", newline="") as f:
        writer = csv.DictWriter(f, ["grasp_id", *row])
        writer.writeheader()
        writer.writerow({"grasp_id": "a", **row})
    with path.open(newline="") as f:
        (read,) = csv.DictReader(f)
    assert schema.from_row(ObjectFacts, read, "object_") == facts
    assert schema.from_row(ObjectFacts, {"grasp_id": "a", "object": "x"}, "object_") == (
        ObjectFacts()
    )


def test_batch_and_simulate_rows_have_the_object_columns():
    from engine.batch.tasks import RESULT_COLUMNS

    assert set(OBJECT_COLUMNS) <= set(RESULT_COLUMNS)
