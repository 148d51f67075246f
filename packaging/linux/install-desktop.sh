#!/usr/bin/env bash
# Install (or with --uninstall remove) ipcgrasp's desktop entry, icon and session file type for
# the current user: always under ${XDG_DATA_HOME:-~/.local/share}, also when run as root (it
# never writes to /usr/share), and with the absolute path of the launcher in the entry's
# Exec/TryExec, so the menu entry works without `ipcgrasp` on PATH.
#
#   packaging/linux/install-desktop.sh [--uninstall] [LAUNCHER]
#
# LAUNCHER: the `ipcgrasp` program to start: the venv's script (.venv/bin/ipcgrasp, the default
# when it exists), the bundle's dist/ipcgrasp/ipcgrasp, or any other path; default otherwise:
# `ipcgrasp` found on PATH. The files are written directly (no xdg-utils needed); the caches are
# refreshed when their tools are installed: update-mime-database (shared-mime-info),
# update-desktop-database (desktop-file-utils), gtk-update-icon-cache (GTK). xdg-utils' own
# `xdg-mime install --mode user` / `xdg-desktop-menu install --mode user` would do the same.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
DATA="${XDG_DATA_HOME:-$HOME/.local/share}"
APPS="$DATA/applications"
ICONS="$DATA/icons/hicolor"
MIME="$DATA/mime"

refresh() {
  if command -v update-mime-database >/dev/null; then update-mime-database "$MIME" || true; fi
  if command -v update-desktop-database >/dev/null; then update-desktop-database "$APPS" || true; fi
  if command -v gtk-update-icon-cache >/dev/null && [ -d "$ICONS" ]; then
    gtk-update-icon-cache -q -t "$ICONS" 2>/dev/null || true
  fi
}

if [ "${1:-}" = "--uninstall" ]; then
  rm -f "$APPS/ipcgrasp.desktop" "$ICONS/scalable/apps/ipcgrasp.svg" \
    "$MIME/packages/ipcgrasp-session.xml"
  mkdir -p "$MIME/packages"
  refresh
  echo "removed ipcgrasp's desktop entry, icon and session type from $DATA"
  exit 0
fi

launcher="${1:-}"
if [ -z "$launcher" ]; then
  if [ -x "$REPO/.venv/bin/ipcgrasp" ]; then
    launcher="$REPO/.venv/bin/ipcgrasp"
  else
    launcher="$(command -v ipcgrasp || true)"
  fi
fi
if [ -z "$launcher" ] || [ ! -x "$launcher" ] || [ -d "$launcher" ]; then
  echo "install-desktop.sh: no ipcgrasp launcher found${launcher:+ at $launcher}; give its path" >&2
  echo "  (e.g. .venv/bin/ipcgrasp or dist/ipcgrasp/ipcgrasp)" >&2
  exit 2
fi
launcher="$(cd "$(dirname "$launcher")" && pwd)/$(basename "$launcher")"
case "$launcher" in
  *[\"\`\$\\\ ]*)
    echo "install-desktop.sh: the launcher's path $launcher holds a space or a character the" >&2
    echo "  desktop entry would have to escape; install it under a plain path" >&2
    exit 2
    ;;
esac

mkdir -p "$APPS" "$ICONS/scalable/apps" "$MIME/packages"
sed -e "s|^Exec=ipcgrasp |Exec=$launcher |" -e "s|^TryExec=ipcgrasp\$|TryExec=$launcher|" \
  "$REPO/resources/ipcgrasp.desktop" >"$APPS/ipcgrasp.desktop"
chmod 644 "$APPS/ipcgrasp.desktop"
install -m644 "$REPO/resources/icons/ipcgrasp.svg" "$ICONS/scalable/apps/ipcgrasp.svg"
install -m644 "$HERE/ipcgrasp-session.xml" "$MIME/packages/ipcgrasp-session.xml"
refresh
echo "installed ipcgrasp's desktop entry (Exec=$launcher), icon and session type in $DATA"
