"""MuJoCo collides meshes only through convex pieces: a non-convex object is decomposed (V-HACD
through vhacdx, a dependency of the mujoco extra) once per mesh, however many trials and
grasps use it, and a missing decomposer is named in the error with the command that installs
it."""

from __future__ import annotations

import builtins

import pytest

pytest.importorskip("mujoco")

import engine.mujoco_baseline.model as model
from engine.errors import MeshError
from engine.scene.object_mesh import load_object_mesh
from engine.scene.resting import rest_object
from tests.engine.procedural_objects import l_bracket


@pytest.fixture
def bracket(tmp_path):
    path = tmp_path / "bracket.stl"
    l_bracket().export(path)
    return load_object_mesh(path)


def test_a_non_convex_object_is_decomposed_once_per_mesh(bracket, monkeypatch):
    pytest.importorskip("vhacdx")
    monkeypatch.setattr(model, "_PARTS", {})
    calls = []
    real = model._decompose
    monkeypatch.setattr(model, "_decompose", lambda *a: calls.append(1) or real(*a))
    first = model.convex_parts(rest_object(bracket, 0))
    again = model.convex_parts(rest_object(bracket, 0))  # another object, the same mesh
    assert len(first) >= 2  # an L is not convex
    assert again is first and len(calls) == 1


def test_a_missing_decomposer_is_named_with_its_install_command(bracket, monkeypatch):
    monkeypatch.setattr(model, "_PARTS", {})
    real_import = builtins.__import__

    def no_vhacdx(name, *args, **kwargs):
        if name == "vhacdx":
            raise ImportError("No module named 'vhacdx'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_vhacdx)
    with pytest.raises(MeshError, match=r"needs vhacdx .*pip install vhacdx"):
        model.convex_parts(rest_object(bracket, 0))
