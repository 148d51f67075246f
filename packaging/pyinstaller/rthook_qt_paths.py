"""Runtime hook of the bundle, in place of PyInstaller's pyi_rth_pyside6 (ipcgrasp.spec drops
that one): where Qt finds its plugins and QML files, nothing else.

The standard hook also imports PySide6.QtCore on every start, to register an embedded qt.conf
when the binding has none; PySide6's PyPI wheels carry their own, so that import only made every
start, `ipcgrasp --version` included, load Qt's libraries (shiboken6, libQt6Core, ~0.2 s).
Here Qt loads when the app imports it.
"""

import os
import sys

_qt = os.path.join(sys._MEIPASS, "PySide6", "Qt")
os.environ["QT_PLUGIN_PATH"] = os.path.join(_qt, "plugins")
os.environ["QML2_IMPORT_PATH"] = os.path.join(_qt, "qml")
del _qt
