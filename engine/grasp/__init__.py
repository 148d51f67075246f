"""grasp."""
