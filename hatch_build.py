"""Build hook: the wheel installs `ipcgrasp.engine` and `ipcgrasp.app`, never top-level
`engine` or `app`.

The checkout keeps its layout (engine/ and app/ at the top, imported as `engine` and `app`, also
by the editable install, which puts the checkout on sys.path). A standard wheel instead gets a
copy of both folders under `ipcgrasp/`, with every reference to the top-level names rewritten:

- import statements (`import engine.x`, `import engine.x as y`, `from engine.x import y`, the
  same for `app`; relative imports are left alone). A bare `import engine.a.b`, which binds the
  name `engine`, becomes `import ipcgrasp.engine.a.b; from ipcgrasp import engine`, so the code
  that follows it still says `engine.a.b`.
- string literals that name a module of the tree (`"engine.cli.simulate"` for importlib, the
  module compared with `type(exc).__module__`, ...), and the logger names given to
  `logging.getLogger` ("app", f"app.worker.{name}").
- the `ipcgrasp` console script's object reference (`app.launcher:main`).

The checkout's own ipcgrasp/ folder gives the package its __main__ (so that `python -m ipcgrasp`
runs app.launcher), rewritten the same way; its __init__.py, which makes `ipcgrasp.engine` and
`ipcgrasp.app` name the checkout's packages, is not shipped (the wheel gets its own).

Tokens are rewritten in place (tokenize), so line numbers and everything else stay as written;
the result must still parse (ast), or the build fails. Nothing else (comments, docstrings,
other strings such as the "engine" column of the results) changes. The resources folder is
installed as ipcgrasp/engine/_resources (app/resources.py looks there).

tests/test_wheel.py builds the wheel, installs it next to distributions that own top-level
`engine` and `app` modules, and runs the command line from it.
"""

from __future__ import annotations

import ast
import io
import re
import shutil
import tempfile
import tokenize
from pathlib import Path
from typing import Any

try:
    from hatchling.builders.hooks.plugin.interface import BuildHookInterface
except ImportError:  # the rewriter alone (tests/test_wheel.py), without hatchling installed
    BuildHookInterface = object  # type: ignore[assignment,misc]

NAMESPACE = "ipcgrasp"
PACKAGES = ("engine", "app")
_MODULE_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")
_STATEMENT_START = {tokenize.NEWLINE, tokenize.NL, tokenize.INDENT, tokenize.DEDENT}


def module_names(root: Path) -> set[str]:
    """Every module and package name under the PACKAGES folders of `root` ("engine.cli.main")."""
    names = set()
    for package in PACKAGES:
        for path in (root / package).rglob("*.py"):
            parts = path.relative_to(root).with_suffix("").parts
            if "__pycache__" in parts:
                continue
            names.add(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return names


def _names_a_module(value: str, modules: set[str]) -> bool:
    """`value` is a module of the tree, or an attribute path inside one ("engine.x.func")."""
    if not _MODULE_NAME.match(value) or value.split(".")[0] not in PACKAGES:
        return False
    parts = value.split(".")
    return any(".".join(parts[:n]) in modules for n in range(2, len(parts) + 1))


def _string_body_start(text: str) -> int:
    """Index of the first character of a string token's content (after prefix and quotes)."""
    quote = next(i for i, ch in enumerate(text) if ch in "'\"")
    return quote + (3 if text[quote : quote + 3] in ('"""', "'''") else 1)


def rewrite_source(source: str, modules: set[str], filename: str = "<source>") -> str:
    """`source` with its references to the top-level packages moved under NAMESPACE."""
    tokens = list(tokenize.generate_tokens(io.StringIO(source).readline))
    # (row, col, old length, new text), applied from the end so positions stay valid
    edits: list[tuple[int, int, int, str]] = []
    significant = [t for t in tokens if t.type not in (tokenize.COMMENT, tokenize.NL)]

    def at_statement_start(i: int) -> bool:
        if i == 0:
            return True
        prev = significant[i - 1]
        # `from` and `import` after ':' can only start a statement (`if x: import y`).
        return prev.type in _STATEMENT_START or (prev.type == tokenize.OP and prev.string in ";:")

    i = 0
    while i < len(significant):
        tok = significant[i]
        if tok.type == tokenize.NAME and tok.string == "from" and at_statement_start(i):
            first = significant[i + 1]
            if first.type == tokenize.NAME and first.string in PACKAGES:
                edits.append((*first.start, len(first.string), f"{NAMESPACE}.{first.string}"))
        elif tok.type == tokenize.NAME and tok.string == "import" and at_statement_start(i):
            j = i + 1
            bind: list[str] = []
            while True:  # dotted_as_name (',' dotted_as_name)*
                first = significant[j]
                dotted = [first.string]
                j += 1
                while significant[j].type == tokenize.OP and significant[j].string == ".":
                    dotted.append(significant[j + 1].string)
                    j += 2
                aliased = significant[j].type == tokenize.NAME and significant[j].string == "as"
                if aliased:
                    j += 2
                if first.string in PACKAGES:
                    edits.append((*first.start, len(first.string), f"{NAMESPACE}.{first.string}"))
                    if not aliased and first.string not in bind:
                        bind.append(first.string)
                if significant[j].type == tokenize.OP and significant[j].string == ",":
                    j += 1
                    continue
                break
            last = significant[j - 1]  # the statement's last token (before a comment)
            if bind:
                text = "".join(f"; from {NAMESPACE} import {name}" for name in bind)
                edits.append((*last.end, 0, text))
            i = j
            continue
        elif tok.type == tokenize.STRING:
            edit = _string_edit(significant, i, modules)
            if edit is not None:
                edits.append(edit)
        i += 1

    lines = source.splitlines(keepends=True)
    for row, col, length, new in sorted(edits, reverse=True):
        line = lines[row - 1]
        lines[row - 1] = line[:col] + new + line[col + length :]
    result = "".join(lines)
    try:
        ast.parse(result, filename)
    except SyntaxError as exc:  # a rewrite this hook does not handle: fail the build
        raise RuntimeError(f"{filename}: the namespaced copy does not parse: {exc}") from exc
    return result


def _string_edit(
    tokens: list[tokenize.TokenInfo], i: int, modules: set[str]
) -> tuple[int, int, int, str] | None:
    """The edit of string token `i` if it names a module, or a logger of the packages."""
    tok = tokens[i]
    prefix = tok.string[: _string_body_start(tok.string)]
    start = len(prefix)
    if "b" in prefix.lower():
        return None
    row, col = tok.start
    if "\n" in tok.string[:start]:
        return None
    logger = (
        i >= 2
        and tokens[i - 1].string == "("
        and tokens[i - 2].string == "getLogger"
        and not ("f" in prefix.lower() and tok.string[start] == "{")
    )
    if "f" in prefix.lower():
        if not logger:
            return None
        body = tok.string[start:]
        head = re.match(r"[A-Za-z_]+", body)
        if head is None or head.group(0) not in PACKAGES:
            return None
        return (row, col + start, 0, f"{NAMESPACE}.")
    try:
        value = ast.literal_eval(tok.string)
    except (ValueError, SyntaxError):
        return None
    if not isinstance(value, str):
        return None
    if _names_a_module(value, modules) or (logger and value.split(".")[0] in PACKAGES):
        if not tok.string[start:].startswith(value.split(".")[0]):
            return None  # escapes before the name: leave it (none such in the tree)
        return (row, col + start, 0, f"{NAMESPACE}.")
    return None


def rewrite_object_ref(ref: str) -> str:
    """An entry point's `module:attr` with the module moved under NAMESPACE."""
    module, sep, attr = ref.partition(":")
    if module.split(".")[0] in PACKAGES:
        module = f"{NAMESPACE}.{module}"
    return f"{module}{sep}{attr}"


def write_namespaced_tree(root: Path, out: Path) -> Path:
    """Copy the PACKAGES folders of `root` into `out`/NAMESPACE, rewritten; returns that folder."""
    modules = module_names(root)
    target = out / NAMESPACE
    target.mkdir(parents=True)
    (target / "__init__.py").write_text(
        '"""ipcgrasp, installed: the engine (ipcgrasp.engine) and the desktop app (ipcgrasp.app)."""\n'
    )
    # The checkout's ipcgrasp/ (`python -m ipcgrasp`'s __main__), rewritten; not its
    # __init__.py, which aliases ipcgrasp.engine/.app to the checkout's top-level packages.
    for path in sorted((root / NAMESPACE).glob("*.py")):
        if path.name == "__init__.py":
            continue
        text = path.read_text(encoding="utf-8")
        rel = str(path.relative_to(root))
        (target / path.name).write_text(rewrite_source(text, modules, rel), encoding="utf-8")
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*")):
            rel = path.relative_to(root)
            if "__pycache__" in rel.parts or path.is_dir() or path.suffix == ".pyc":
                continue
            dest = target / rel
            dest.parent.mkdir(parents=True, exist_ok=True)
            if path.suffix == ".py":
                text = path.read_text(encoding="utf-8")
                dest.write_text(rewrite_source(text, modules, str(rel)), encoding="utf-8")
            else:
                shutil.copy2(path, dest)
    return target


class NamespacedWheelHook(BuildHookInterface):  # type: ignore[misc,valid-type]
    """Standard wheels: the namespaced copy; editable installs: the checkout itself."""

    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel" or version != "standard":
            return
        root = Path(self.root)
        self._tmp = Path(tempfile.mkdtemp(prefix="ipcgrasp-wheel-"))
        tree = write_namespaced_tree(root, self._tmp)
        build_data["force_include"][str(tree)] = NAMESPACE
        build_data["force_include"][str(root / "resources")] = f"{NAMESPACE}/engine/_resources"
        # entry_points.txt is written from the (cached) scripts table after this hook runs.
        scripts = self.metadata.core.scripts
        for name, ref in list(scripts.items()):
            scripts[name] = rewrite_object_ref(ref)

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        tmp = getattr(self, "_tmp", None)
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
