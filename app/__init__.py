"""ipcgrasp desktop application (PySide6 + pyvistaqt). Built on top of `engine`; no physics here."""
