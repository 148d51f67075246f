"""Moved to app.model.document; kept so `app.document` imports keep working."""

from app.model.document import EXAMPLE_OBJECT, Document, Run, build_pad, safe_default_grasp

__all__ = ["EXAMPLE_OBJECT", "Document", "Run", "build_pad", "safe_default_grasp"]
