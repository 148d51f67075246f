# Shared setup for scripts/run and scripts/test (sourced, not executed).
# Needs REPO_ROOT set by the caller. Every step prints one line prefixed with "[ipcgrasp]".

VENV_DIR="$REPO_ROOT/.venv"
VENV_PY="$VENV_DIR/bin/python"

# Shared libraries Qt (PySide6) and VTK (pyvista) load at run time, plus a virtual X server for
# the GUI tests. The engine itself needs none of them.
GUI_SYSTEM_PACKAGES=(
  libgl1 libegl1 libxkbcommon-x11-0 libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1
  libxcb-image0 libxcb-render-util0 libxcb-shape0 libxcb-xinerama0 libxcb-randr0
  libdbus-1-3 libfontconfig1 xvfb xauth
)

log() { printf '[ipcgrasp] %s\n' "$*"; }
warn() { printf '[ipcgrasp] WARNING: %s\n' "$*" >&2; }
die() { printf '[ipcgrasp] ERROR: %s\n' "$*" >&2; exit 1; }

is_root() { [ "$(id -u)" -eq 0 ]; }

# apt-get update + install without prompts (CI has no standard input). Output goes to a log
# that is shown only when something fails.
apt_install() {
  local apt_log status=0
  apt_log="$(mktemp)"
  {
    DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@"
  } >"$apt_log" 2>&1 || status=$?
  [ "$status" -ne 0 ] && tail -n 20 "$apt_log" >&2
  rm -f "$apt_log"
  return "$status"
}

# Prints the interpreter used to create the venv: python3.11, else python3 if it is >= 3.11.
find_python() {
  if command -v python3.11 >/dev/null 2>&1; then
    command -v python3.11
    return
  fi
  if command -v python3 >/dev/null 2>&1 &&
    python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))' >/dev/null 2>&1; then
    command -v python3
    return
  fi
  local found="none"
  command -v python3 >/dev/null 2>&1 && found="$(python3 --version 2>&1)"
  die "Python 3.11 or newer is required (found: $found). On Debian 12: apt-get install -y python3 python3-venv"
}

# Creates $VENV_DIR if it has no interpreter yet; installs python3-venv (root) if ensurepip is
# missing, which is the Debian default.
ensure_venv() {
  if [ -x "$VENV_PY" ] && "$VENV_PY" -m pip --version >/dev/null 2>&1; then
    return
  fi
  local python
  python="$(find_python)"
  if [ -x "$VENV_PY" ]; then
    log ".venv has no working pip: re-creating it with $python"
  else
    log "creating virtual environment .venv with $python ($("$python" --version 2>&1))"
  fi
  if "$python" -m venv "$VENV_DIR"; then
    return
  fi
  # A failed attempt leaves a venv without pip behind; start again from scratch.
  rm -rf "$VENV_DIR"
  if is_root; then
    log "python venv support is missing: installing python3-venv with apt-get"
    apt_install python3-venv || die "could not install python3-venv with apt-get"
    "$python" -m venv "$VENV_DIR" || die "creating .venv failed even after installing python3-venv"
  else
    die "python venv support is missing; install it with: sudo apt-get install -y python3-venv"
  fi
}

# ensure_installed EXTRAS: pip install -e ".[EXTRAS]" (or "." when EXTRAS is empty), at the
# versions constraints.txt pins, unless the stamp file says this pyproject.toml and these
# constraints were already installed with these extras.
ensure_installed() {
  local extras="$1"
  local stamp="$VENV_DIR/.ipcgrasp-install-${extras:-base}"
  local target="."
  [ -n "$extras" ] && target=".[${extras}]"
  local constraints="$REPO_ROOT/constraints.txt"
  local pin=()
  [ -f "$constraints" ] && pin=(-c "$constraints")
  local want have=""
  want="$(cat "$REPO_ROOT/pyproject.toml" "${pin[@]:1}" | sha256sum | cut -d' ' -f1)"
  [ -f "$stamp" ] && have="$(cat "$stamp")"
  if [ "$want" = "$have" ]; then
    log "project already installed in .venv (${extras:-no} extras, pyproject.toml and constraints unchanged)"
    return
  fi
  if [ ! -f "$VENV_DIR/.ipcgrasp-pip-upgraded" ]; then
    log "upgrading pip in .venv"
    "$VENV_PY" -m pip install --quiet --upgrade pip
    touch "$VENV_DIR/.ipcgrasp-pip-upgraded"
  fi
  log "installing the project into .venv: pip install ${pin[*]:+-c constraints.txt }-e \"$target\""
  (cd "$REPO_ROOT" && "$VENV_PY" -m pip install --quiet --disable-pip-version-check "${pin[@]}" -e "$target")
  printf '%s\n' "$want" >"$stamp"
}

# Installs the Qt/VTK system libraries when root; otherwise says what to install and goes on.
ensure_gui_system_packages() {
  if ! command -v dpkg-query >/dev/null 2>&1; then
    log "note: dpkg not found (not Debian/Ubuntu); make sure OpenGL, EGL, xcb and Xvfb libraries are installed for the GUI"
    return
  fi
  local missing=() pkg
  for pkg in "${GUI_SYSTEM_PACKAGES[@]}"; do
    if [ "$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null)" != "install ok installed" ]; then
      missing+=("$pkg")
    fi
  done
  if [ "${#missing[@]}" -eq 0 ]; then
    log "system libraries for the GUI are installed"
    return
  fi
  if is_root; then
    log "installing system libraries for the GUI: ${missing[*]}"
    # The engine works without them, so a failed install is a warning, not an error.
    apt_install "${missing[@]}" || warn "apt-get could not install: ${missing[*]} (the GUI and its tests need them)"
  else
    warn "missing system libraries for the GUI and its tests: ${missing[*]}"
    warn "install them with: sudo apt-get install -y --no-install-recommends ${missing[*]}"
    warn "continuing: the simulation engine does not need them"
  fi
}

# --- a private X server for the GUI tests and the smoke test ---------------------------------
# The VTK view is an OpenGL widget: Qt's offscreen platform cannot host it, so the GUI runs
# against Xvfb. scripts/test starts its own server (not pytest-xvfb's, which is left running
# when a test run aborts), remembers its pid in a file and stops it on exit; a server left
# behind by an earlier run that was killed is stopped before a new one starts.
XVFB_PIDFILE="$VENV_DIR/.xvfb.pid"
XVFB_SCREEN="1440x960x24"
XVFB_PID=""

stop_stale_xvfb() {
  [ -f "$XVFB_PIDFILE" ] || return 0
  local pid
  pid="$(cat "$XVFB_PIDFILE" 2>/dev/null || true)"
  if [ -n "$pid" ] && [ "$(ps -p "$pid" -o comm= 2>/dev/null)" = "Xvfb" ]; then
    log "stopping the Xvfb (pid $pid) left by an earlier run"
    kill "$pid" 2>/dev/null || true
  fi
  rm -f "$XVFB_PIDFILE"
}

# start_xvfb: start Xvfb on a free display and export DISPLAY; returns 1 if it cannot.
start_xvfb() {
  stop_stale_xvfb
  command -v Xvfb >/dev/null 2>&1 || return 1
  local n i xlog
  xlog="$(mktemp)"
  for n in $(seq 91 140); do
    [ -e "/tmp/.X$n-lock" ] || [ -e "/tmp/.X11-unix/X$n" ] && continue
    Xvfb ":$n" -screen 0 "$XVFB_SCREEN" -nolisten tcp -noreset >"$xlog" 2>&1 &
    XVFB_PID=$!
    for i in $(seq 1 100); do
      [ -S "/tmp/.X11-unix/X$n" ] && break
      kill -0 "$XVFB_PID" 2>/dev/null || break
      sleep 0.05
    done
    if [ -S "/tmp/.X11-unix/X$n" ] && kill -0 "$XVFB_PID" 2>/dev/null; then
      printf '%s\n' "$XVFB_PID" >"$XVFB_PIDFILE"
      export DISPLAY=":$n"
      rm -f "$xlog"
      return 0
    fi
    kill "$XVFB_PID" 2>/dev/null || true
    XVFB_PID=""
  done
  tail -n 5 "$xlog" >&2
  rm -f "$xlog"
  return 1
}

stop_xvfb() {
  if [ -n "$XVFB_PID" ]; then
    kill "$XVFB_PID" 2>/dev/null || true
    wait "$XVFB_PID" 2>/dev/null || true
    XVFB_PID=""
  fi
  rm -f "$XVFB_PIDFILE"
}
