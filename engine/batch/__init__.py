"""Batch labeling of many grasps."""
