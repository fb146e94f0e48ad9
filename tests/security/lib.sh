# Shared by the security scripts (sourced after tests/interop/lib.sh): starts
# mcpgwd with a settings file and debug logging, and greps outputs for text
# that must never appear. StopDaemon (tests/common.sh) checks a clean exit.

# StartDaemonWith CONFIG SETTINGS: starts mcpgwd on $SOCK at debug level,
# stderr to $TMP/mcpgwd.log, and waits until the socket exists.
StartDaemonWith() {
  StartDaemon "$1" "$SOCK" --settings "$2" --log-level debug
}

# Collect NAME: appends the last Cli's stdout and stderr to $TMP/collected,
# labelled, for the final grep.
Collect() {
  { echo "== $1: stdout"; cat "$TMP/cli.out"; echo "== $1: stderr"; cat "$TMP/cli.err"; } \
    >>"$TMP/collected"
}

# ClosedPort: prints a loopback port nothing listens on.
ClosedPort() {
  "$NODE" -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close();})'
}
