"""ipcgrasp: `python -m ipcgrasp` runs the `ipcgrasp` command (the desktop app, or an engine
command such as `python -m ipcgrasp simulate --object cube`).

In a checkout this package holds only `__main__`; the engine and the app are the top-level
`engine` and `app`. The wheel installs them inside it, as ipcgrasp.engine and ipcgrasp.app
(hatch_build.py copies this folder there too).
"""
