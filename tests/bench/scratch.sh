# Sourced by the benchmark scripts (never run): Scratch NAME makes the
# scratch folder $TMP (under $TMPDIR, named mcpgw-NAME.*) and the list PIDS
# of processes started; at exit each of them gets SIGTERM, then SIGKILL
# after 3 s, and the folder is removed. SIGINT and SIGTERM exit with 130,
# through the same cleanup.
Scratch() { # NAME
  TMP="$(mktemp -d "${TMPDIR:-/tmp}/mcpgw-$1.XXXXXX")"
  PIDS=()
  trap ScratchCleanup EXIT
  trap 'exit 130' INT TERM
}

ScratchCleanup() {
  local pid
  for pid in "${PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do
    for _ in $(seq 30); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
  done
  rm -rf "$TMP"
}
