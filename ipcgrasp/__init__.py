"""ipcgrasp in a checkout: `ipcgrasp.engine` and `ipcgrasp.app` name the checkout's `engine` and
`app`, so code written against the installed wheel's import path runs here unchanged.

The wheel installs the engine and the app as ipcgrasp.engine and ipcgrasp.app (hatch_build.py,
which writes the wheel's own __init__.py instead of this file). In a checkout they are the
top-level packages `engine` and `app`; this finder makes `import ipcgrasp.engine.x` return the
very module object `engine.x` (one module, not a second copy with its own classes), so both
spellings work and mix.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
from types import ModuleType

_PACKAGES = ("engine", "app")


class _CheckoutAlias(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Imports `ipcgrasp.<package>[.x]` as the checkout's `<package>[.x]` (the same module)."""

    def find_spec(
        self, fullname: str, path: object = None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        head, _, rest = fullname.partition(".")
        if head != __name__ or rest.split(".")[0] not in _PACKAGES:
            return None
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        return importlib.import_module(spec.name.partition(".")[2])

    def exec_module(self, module: ModuleType) -> None:
        """Nothing to run: the module was imported under its checkout name."""


if not any(isinstance(f, _CheckoutAlias) for f in sys.meta_path):
    sys.meta_path.insert(0, _CheckoutAlias())
