"""A mesh file's triangles are counted from its bytes before any reader builds them
(engine.scene.mesh_budget): a 6 MB GLB placing one sphere at 100,000 nodes took 265 s and
14.5 GB inside trimesh's reader before anything could refuse it. Checked: the count each
format declares equals the triangles trimesh reads; a file over the budget is refused with
the count and the fix without calling the reader; quads counted as lines are checked again
as triangles after reading."""

from __future__ import annotations

import numpy as np
import pytest
import trimesh

from engine.errors import MeshError
from engine.scene import mesh_budget
from engine.scene.mesh_budget import declared_faces
from engine.scene.object_mesh import load_object_mesh

BALL = trimesh.creation.icosphere(subdivisions=2, radius=0.02)  # 320 triangles


def _instanced_glb(copies: int) -> bytes:
    scene = trimesh.Scene()
    for i in range(copies):
        pose = np.eye(4)
        pose[0, 3] = 0.05 * i
        scene.add_geometry(BALL, geom_name="ball", transform=pose)
    return scene.export(file_type="glb")


FILES = {
    ".obj": lambda: BALL.export(file_type="obj").encode(),
    ".stl": lambda: BALL.export(file_type="stl"),
    ".ply": lambda: BALL.export(file_type="ply"),
    ".off": lambda: BALL.export(file_type="off").encode(),
}


@pytest.mark.parametrize("ext", [*FILES, ".stl ascii", ".ply ascii"])
def test_each_format_declares_the_triangles_trimesh_reads(ext):
    data = {
        ".stl ascii": lambda: BALL.export(file_type="stl_ascii").encode(),
        ".ply ascii": lambda: BALL.export(file_type="ply", encoding="ascii"),
        **FILES,
    }[ext]()
    found = declared_faces(ext.split()[0], data)
    assert found is not None and found[0] == len(BALL.faces) == 320


def test_a_glb_counts_every_node_that_draws_its_mesh():
    assert declared_faces(".glb", _instanced_glb(20)) == (6400, "triangles over its nodes")


@pytest.mark.parametrize("ext", [*FILES, ".glb"])
def test_a_file_over_the_budget_is_refused_before_it_is_read(tmp_path, monkeypatch, ext):
    monkeypatch.setattr(mesh_budget, "MAX_MESH_FACES", 300)
    p = tmp_path / f"part{ext}"
    p.write_bytes(_instanced_glb(20) if ext == ".glb" else FILES[ext]())

    def reader_called(*args, **kwargs):
        raise AssertionError("the reader ran on a file over the budget")

    monkeypatch.setattr(trimesh, "load", reader_called)
    with pytest.raises(MeshError) as err:
        load_object_mesh(p)
    count = "6,400 triangles over its nodes" if ext == ".glb" else "320 "
    assert f"{p} has {count}" in str(err.value)
    assert "over the 300 an object mesh may have: simplify it" in str(err.value)


def test_quads_are_counted_again_as_triangles_after_reading(tmp_path, monkeypatch):
    box = trimesh.creation.box(extents=(0.03, 0.03, 0.03))
    quads = "".join(f"v {x} {y} {z}\n" for x, y, z in box.vertices)
    # The box's 6 sides as quads: 6 face lines, 12 triangles once read.
    sides = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)]
    quads += "".join("f " + " ".join(str(i + 1) for i in side) + "\n" for side in sides)
    p = tmp_path / "box.obj"
    p.write_text(quads)
    monkeypatch.setattr(mesh_budget, "MAX_MESH_FACES", 10)
    with pytest.raises(MeshError, match=r"has 12 triangles, over the 10"):
        load_object_mesh(p)
    monkeypatch.setattr(mesh_budget, "MAX_MESH_FACES", 12)
    assert len(load_object_mesh(p).faces) == 12


def test_a_binary_stl_cut_short_is_refused_with_its_counts(tmp_path):
    """A binary STL is 84 bytes plus 50 per triangle: one cut short was refused as 'contains no
    triangles', which sends a user looking for the wrong fault."""
    data = BALL.export(file_type="stl")
    p = tmp_path / "cut.stl"
    p.write_bytes(data[:-20])
    with pytest.raises(MeshError) as err:
        load_object_mesh(p)
    assert str(err.value) == (
        f"{p}: a binary STL whose header declares 320 triangles (16084 bytes) but the file has "
        "16064 bytes: it is cut short or damaged; re-export it"
    )


def test_a_ply_header_count_with_a_superscript_digit_is_refused_not_a_crash(tmp_path):
    """'1²'.isdigit() is true but int() refuses it: the header count check read it with int()
    (found by the 5,000-case fuzz run of test_mesh_formats)."""
    text = BALL.export(file_type="ply", encoding="ascii").decode()
    p = tmp_path / "sup.ply"
    p.write_text(text.replace("element face 320", "element face 1²"), encoding="utf-8")
    with pytest.raises(MeshError):
        load_object_mesh(p)
