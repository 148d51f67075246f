"""Quasi-static analytic grasp models (Soft Point, REACH, 6DFC, 6DLS, exact area contact)."""
