"""Gripper geometry: pad outlines and tet meshes (pad_geometry), jaw placement (jaws)."""
