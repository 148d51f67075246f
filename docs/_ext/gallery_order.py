"""The gallery's order: the workflows as a newcomer meets them, not alphabetical."""

from __future__ import annotations

ORDER = [
    "plot_simulate_cube.py",
    "plot_read_frames.py",
    "plot_frame_still.py",
    "plot_sample_batch_evaluate.py",
]


class WorkflowOrder:
    """sphinx-gallery's `within_subsection_order`: the examples in ORDER first, in that order."""

    def __init__(self, src_dir: str) -> None:
        self.src_dir = src_dir

    def __call__(self, filename: str) -> tuple[int, str]:
        return (ORDER.index(filename) if filename in ORDER else len(ORDER), filename)

    def __repr__(self) -> str:
        return f"<{type(self).__name__}>"
