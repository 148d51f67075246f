"""Finite-element elasticity of the gripper pads (Neo-Hookean linear tets, numba kernels)."""
