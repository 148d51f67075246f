"""Scoring predictions against physical grasp outcomes."""
