"""Sphinx configuration of the ipcgrasp documentation.

Built the way the scientific Python projects closest to ours build theirs: Sphinx with the
pydata-sphinx-theme and MyST Markdown, as pyvista (whose VTK rendering the app uses) and napari
(a Qt desktop app on a Python engine, for scientists) do. Sphinx is what autodoc needs for the
Python API from the docstrings, sphinx-argparse generates the command-line reference from the
engine's own argparse parser (engine.cli.main.build_parser: never hand-copied), and
sphinx-gallery runs the examples/ scripts and renders their output, so a stale example fails the
build. MyST keeps the pages Markdown, the format the project's docs were already written in.
MkDocs Material has no argparse or gallery extension of that standing.

Build (scripts/test does, with warnings as errors):
    .venv/bin/sphinx-build -W --keep-going -b html docs docs/_build/html

Local extensions defined below:
- the `repo` role, {repo}`engine/io/frames_npz.py`: a file of the repository, checked to exist
  at build time (a missing file is a warning, so an error under -W). Files under
  benchmarks/results/ are copied into the site and linked; others are shown as paths.
- the `gripper-presets` directive: the gripper table, generated from engine/gripper/presets.py.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from docutils import nodes
from docutils.parsers.rst import Directive
from docutils.statemachine import StringList
from sphinx.util import logging

DOCS = Path(__file__).resolve().parent
REPO = DOCS.parent
sys.path.insert(0, str(REPO))  # `engine` and `app` as in the checkout
sys.path.insert(0, str(DOCS / "_ext"))  # cli_parser (the CLI page), gallery_order

# The examples and the API pages import the engine: plots render to files.
os.environ.setdefault("MPLBACKEND", "Agg")

from engine import __version__  # noqa: E402
from engine.gripper.presets import GRIPPERS  # noqa: E402

project = "ipcgrasp"
author = "the ipcgrasp authors"
copyright = "the ipcgrasp authors, MIT licence"
version = release = __version__

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.mathjax",
    "sphinxarg.ext",
    "sphinx_gallery.gen_gallery",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "auto_examples/*.ipynb", "auto_examples/*.py", "**.zip"]
# "--trials" stays two hyphens (docutils would make an en dash of them in the CLI page).
smartquotes = False
myst_enable_extensions = ["dollarmath", "colon_fence", "deflist"]
myst_heading_anchors = 3
# Every cross-reference must resolve: a stale one is a warning, so an error under -W.
nitpicky = False
suppress_warnings: list[str] = []

# --- autodoc --------------------------------------------------------------------------------
autodoc_default_options = {"undoc-members": False, "show-inheritance": False}
autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_typehints_format = "short"
autoclass_content = "class"

# --- sphinx-gallery -------------------------------------------------------------------------
sphinx_gallery_conf = {
    "examples_dirs": str(REPO / "examples"),
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",  # every example is run
    "abort_on_example_error": True,
    "download_all_examples": False,
    "remove_config_comments": True,
    "within_subsection_order": "gallery_order.WorkflowOrder",
    "matplotlib_animations": False,
    "plot_gallery": "True",
    "run_stale_examples": True,  # an engine change that breaks an unchanged example fails too
    "show_memory": False,
    "min_reported_time": 1,
    "image_scrapers": ("matplotlib",),
}

# --- HTML -----------------------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = f"ipcgrasp {__version__}"
html_logo = str(REPO / "resources" / "icons" / "ipcgrasp.svg")
html_favicon = str(REPO / "resources" / "icons" / "ipcgrasp.svg")
html_theme_options = {
    "navbar_align": "left",
    "show_toc_level": 2,
    "navigation_with_keys": False,
    "header_links_before_dropdown": 6,
    "logo": {"text": "ipcgrasp"},
    "secondary_sidebar_items": ["page-toc"],
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version"],
}
html_sidebars = {"index": [], "getting_started": []}
html_static_path: list[str] = []
html_show_sourcelink = False

_log = logging.getLogger(__name__)

# Module docstrings laid out as indented plain text (a file format's fields): shown verbatim.
VERBATIM_MODULE_DOCSTRINGS = {"engine.io.session", "engine.io.frames_npz"}


def _plain_text_docstrings(app, what, name, obj, options, lines) -> None:
    """The engine's docstrings are plain text for `help()`: keep them that way in HTML.

    `|x|` (an absolute value) is not a substitution; a module docstring that lays out a file
    format with indentation is shown as a literal block.
    """
    if what == "module" and name in VERBATIM_MODULE_DOCSTRINGS:
        body = ["    " + line if line else "" for line in lines]
        lines[:] = ["::", "", *body, ""]
        return
    lines[:] = [line.replace("|", r"\|") for line in lines]


def _repo_role(name, rawtext, text, lineno, inliner, options=None, content=None):
    """{repo}`path`: a repository file, checked to exist; benchmark files are linked."""
    path = text.strip()
    target = REPO / path
    if not target.exists():
        msg = inliner.reporter.warning(
            f"{path} does not exist in the repository (stale reference?)", line=lineno
        )
        return [nodes.literal(rawtext, path)], [msg]
    literal = nodes.literal(path, path)
    if path.startswith("benchmarks/") and path.endswith(".md") and target.is_file():
        docname = inliner.document.settings.env.docname
        up = "../" * docname.count("/")
        ref = nodes.reference(rawtext, "", refuri=f"{up}{path}")
        ref += literal
        return [ref], []
    return [literal], []


class GripperPresets(Directive):
    """The gripper preset table, from engine.gripper.presets.GRIPPERS (a Markdown table: the
    pages are MyST, which parses a directive's generated content as Markdown)."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        lines = [
            "| `--gripper` | model | stroke | closing speed | grip force per jaw | pads "
            "| finger mass |",
            "|---|---|---|---|---|---|---|",
        ]
        for p in GRIPPERS.values():
            lines.append(
                f"| `{p.name}` | {p.label} | {p.stroke_m * 1e3:g} mm "
                f"| {p.closing_speed_m_s * 1e3:g} mm/s | {p.force_min_n:g}-{p.force_max_n:g} N "
                f"| {p.pad} | {p.finger_mass_kg * 1e3:g} g |"
            )
        lines += ["", "Where the numbers come from:", ""]
        lines += [f"- `{p.name}`: {p.sources}" for p in GRIPPERS.values()]
        node = nodes.section()
        node.document = self.state.document
        self.state.nested_parse(StringList(lines, source="engine/gripper/presets.py"), 0, node)
        return list(node.children)


def _copy_benchmark_results(app, exception) -> None:
    """Serve benchmarks/*.md and benchmarks/results/*.md beside the pages (the `repo` role's
    links to them), as plain text."""
    if exception is not None or app.builder.format != "html":
        return
    import shutil

    for md in [*REPO.glob("benchmarks/*.md"), *REPO.glob("benchmarks/results/*.md")]:
        out = Path(app.outdir) / md.relative_to(REPO)
        out.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(md, out)


def setup(app):
    app.add_role("repo", _repo_role)
    app.connect("autodoc-process-docstring", _plain_text_docstrings)
    app.connect("build-finished", _copy_benchmark_results)
    app.add_directive("gripper-presets", GripperPresets)
    return {"parallel_read_safe": True}
