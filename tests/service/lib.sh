# Shared by the service scripts (sourced, not run): on top of tests/common.sh
# (time bound, build, temp dir, process cleanup, checks), a private HOME and
# XDG directories, and helpers to install the build and find its libdir.
# A script sources it with the build dir as $1:  source "$(dirname "$0")/lib.sh" "$@"

BOUND_VAR=MCPGW_SERVICE_BOUNDED
BOUND_SECONDS="${MCPGW_SERVICE_TIMEOUT:-240}"
TMP_PREFIX=mcpgw-service
source "$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/common.sh" "$@"

SERVICE_DIR="$ROOT/tests/service"
CLI_TIMEOUT=30

# Fails the script when a tool is missing: a test that cannot run on a machine
# set up with scripts/install-deps.sh is a broken test, not a skipped one.
NeedTools() {
  local t
  for t in "$@"; do
    if ! command -v "$t" >/dev/null 2>&1; then
      echo "$SCRIPT_NAME: FAIL: $t is not installed (scripts/install-deps.sh installs it)" >&2
      exit 1
    fi
  done
}

# Keep the user's own configuration, socket and units out of the tests.
export HOME="$TMP/home"
export XDG_CONFIG_HOME="$TMP/home/.config"
export XDG_RUNTIME_DIR="$TMP/run"
unset MCPGW_SOCKET MCPGW_LOG NOTIFY_SOCKET LISTEN_FDS LISTEN_PID LISTEN_FDNAMES
mkdir -p "$HOME" "$XDG_CONFIG_HOME" "$XDG_RUNTIME_DIR"
chmod 700 "$XDG_RUNTIME_DIR"

# Installs the build into $1 (a prefix), quietly; exits the script on failure.
InstallInto() {
  if ! cmake --install "$BUILD" --prefix "$1" >"$TMP/install.log" 2>&1; then
    echo "$SCRIPT_NAME: cmake --install failed:" >&2
    cat "$TMP/install.log" >&2
    exit 1
  fi
}

# The libdir GNUInstallDirs chose for the build (lib, lib64, lib/<multiarch>).
LibDir() {
  sed -n 's/^CMAKE_INSTALL_LIBDIR:[A-Z]*=//p' "$BUILD/CMakeCache.txt"
}
