#!/usr/bin/env bash
# Secrets never leave the daemon (BEHAVIOR.md §8): sentinel values in a configured
# Authorization header, in an env-interpolated header, and in urls (query and
# path, via ${env:...}) go through every failure fault-server.mjs offers and
# through a hostile server that echoes them back (tests/security/echo-server.mjs).
# Then the daemon's debug log, `mcpgw status` (plain and --json), `mcpgw tools`,
# every CLI output and the call log are searched: no sentinel, raw or
# URL-encoded. Each failure is checked to have happened, and the echo server's
# own output to hold the sentinels, so a leak would be seen.
# Over TLS too: the echo server behind HTTPS fronts (certificates from a
# private CA trusted through tls.ca_file: good, expired, for another host,
# from an untrusted CA), reached through a CONNECT proxy whose password is a
# sentinel (HTTPS_PROXY), one of them at a host name that comes from
# ${env:...}, which the host-mismatch reason must not name.
# Usage: tests/security/secrets.sh BUILD_DIR
set -euo pipefail
source "$(dirname "$0")/../interop/lib.sh" "$@"
source "$ROOT/tests/security/lib.sh"

unset http_proxy https_proxy all_proxy no_proxy HTTP_PROXY HTTPS_PROXY ALL_PROXY NO_PROXY
unset SSL_CERT_FILE SSL_CERT_DIR
CERTS="$TMP/certs"
bash "$FIXTURES/make-certs.sh" "$CERTS"
StartServer FAULT_PORT fault-server "$NODE" "$FIXTURES/fault-server.mjs" --port 0
StartServer ECHO_PORT echo-server "$NODE" "$ROOT/tests/security/echo-server.mjs" --port 0
StartServer ECHO_TLS_PORT echo-tls "$NODE" "$ROOT/tests/security/echo-server.mjs" --port 0 \
  --tls-dir "$CERTS" --tls-listen good,expired,wronghost,untrusted
PROXY_PASSWORD='SENTINEL_PRX_6d1e'
StartServer PROXY_PORT proxy "$NODE" "$FIXTURES/connect-proxy.mjs" --port 0 --auth "tester:$PROXY_PASSWORD"
F="http://127.0.0.1:$FAULT_PORT"
E="http://127.0.0.1:$ECHO_PORT"
TlsPort() { sed -n "s/^TLS $1 \([0-9]*\)$/\1/p" "$TMP/echo-tls.out"; }
T="https://mcp.localhost:$(TlsPort good)"
CLOSED_PORT="$(ClosedPort)"

# Every sentinel starts with SENTINEL_, so one grep for that word finds any of
# them, whole, encoded or cut short. Special characters make the encoded
# forms differ from the raw ones.
export MCPGW_SEC_QUERY='SENTINEL_QRY_51d0/x=y'
export MCPGW_SEC_PATH='SENTINEL_PTH_93be'
export MCPGW_SEC_KEY='SENTINEL_KEY_c4e2+/= x'
export MCPGW_SEC_HOST='SENTINEL-HOST-8a1f.localhost'
HDR='Bearer SENTINEL_HDR_7f3a9c21'

Entry() {  # Entry URL → a server entry carrying all three kinds of secret
  printf '{"url": "%s", "headers": {"Authorization": "%s", "X-Api-Key": "${env:MCPGW_SEC_KEY}"}}' "$1" "$HDR"
}
Q='token=${env:MCPGW_SEC_QUERY}'
P='${env:MCPGW_SEC_PATH}'
WriteConfig() {
  cat >"$TMP/mcp.json" <<EOF
{"mcpServers": {
  "ok":        $(Entry "$F/ok?$Q"),
  "s401":      $(Entry "$F/status/401?$Q"),
  "s302":      $(Entry "$F/status/302?$Q"),
  "call302":   $(Entry "$F/status/302/on-call?$Q"),
  "garbage":   $(Entry "$F/garbage?$Q"),
  "huge":      $(Entry "$F/huge?$Q"),
  "stall":     $(Entry "$F/stall?$Q"),
  "slow-init": $(Entry "$F/slow-init/20000?$Q"),
  "refused":   $(Entry "http://127.0.0.1:$CLOSED_PORT/$P/mcp?$Q"),
  "tls":       $(Entry "https://127.0.0.1:$FAULT_PORT/$P/mcp?$Q"),
  "echo-init": $(Entry "$E/init-error/$P?$Q"),
  "echo":      $(Entry "$E/$P/mcp?$Q"),
  "modern":    $(Entry "$E/modern/$P/mcp?$Q"),
  "modern-refuse": $(Entry "$E/modern-refuse/$P?$Q"),
  "tls-echo":      $(Entry "$T/$P/mcp?$Q"),
  "tls-echo-init": $(Entry "$T/init-error/$P?$Q"),
  "tls-expired":   $(Entry "https://localhost:$(TlsPort expired)/$P/mcp?$Q"),
  "tls-untrusted": $(Entry "https://localhost:$(TlsPort untrusted)/$P/mcp?$Q"),
  "tls-wronghost": $(Entry "https://mcp.localhost:$(TlsPort wronghost)/$P/mcp?$Q"),
  "tls-envhost":   $(Entry "https://\${env:MCPGW_SEC_HOST}:$(TlsPort wronghost)/mcp?$Q")
}}
EOF
}
WriteConfig
cat >"$TMP/settings.json" <<EOF
{"limits": {"call_timeout_s": 2, "listing_timeout_s": 4},
 "call_log": {"path": "$TMP/calls.jsonl"},
 "tls": {"ca_file": "$CERTS/ca.pem"}}
EOF
# https servers go through the proxy; the fault server (127.0.0.1) does not.
HTTPS_PROXY="http://tester:$PROXY_PASSWORD@127.0.0.1:$PROXY_PORT" NO_PROXY=127.0.0.1 \
  StartDaemonWith "$TMP/mcp.json" "$TMP/settings.json"
: >"$TMP/collected"

Cli wait --timeout 60
ExpectRc 0 "mcpgw wait: no server loading"
Collect wait

# ---- each failure happened ------------------------------------------------------
Snapshot
Collect "status --json (snapshot)"
ExpectReason() {  # ExpectReason NAMESPACE REGEX (from the Snapshot)
  local reason
  reason="$(SnapshotField "$1" reason)"
  if [ "$(SnapshotField "$1" status)" = error ] && printf '%s' "$reason" | grep -Eqi -- "$2"; then
    Pass "$1 is in error: $reason"
  else
    Fail "$1 reason" "\"$reason\", want /$2/"
  fi
}
ExpectReason s401 "401"
ExpectReason s302 "redirect|302"
ExpectReason refused "refused|connect"
ExpectReason tls "ssl|tls"
ExpectReason slow-init "time|deadline"
ExpectReason echo-init "redacted"
ExpectReason modern-refuse "redacted"
Check "modern is ready on the 2026-07-28 wire" test "$(StatusField modern protocol_version)" = 2026-07-28
ExpectExact() {  # ExpectExact NAMESPACE REASON (from the Snapshot)
  local reason
  reason="$(SnapshotField "$1" reason)"
  if [ "$(SnapshotField "$1" status)" = error ] && [ "$reason" = "$2" ]; then
    Pass "$1 is in error: $reason"
  else
    Fail "$1 reason" "\"$reason\", want \"$2\""
  fi
}
ExpectReason tls-echo-init "redacted"
ExpectExact tls-expired "TLS: the server's certificate (or one of its CAs) has expired"
ExpectExact tls-untrusted "TLS: the server's certificate is from an unknown issuer (a private CA not trusted here, or the server does not send its intermediate certificate)"
ExpectExact tls-wronghost "TLS: the server's certificate is not valid for host mcp.localhost"
ExpectExact tls-envhost "TLS: the server's certificate is not valid for its host name"
Check "status shows the proxy of the TLS servers, its password redacted" \
  test "$(SnapshotField tls-echo proxy)" = "http://<redacted>@127.0.0.1:$PROXY_PORT"

CallExpect() {  # CallExpect RC NAMESPACE TOOL NAME
  Cli call "$2" "$3" '{"note":"an argument value"}'
  ExpectRc "$1" "$4"
  Collect "call $2 $3"
}
CallExpect 0 ok probe "a call through the ok server succeeds"
CallExpect 5 call302 probe "a redirect on tools/call is a transport error"
CallExpect 5 garbage probe "garbage on tools/call is a transport error"
CallExpect 5 huge probe "an oversized result is a transport error"
CallExpect 5 stall probe "a stalled call times out as a transport error"
CallExpect 4 s401 probe "a call to a server in error is not_ready"
CallExpect 4 tls probe "a call to the TLS-failed server is not_ready"
CallExpect 1 echo rpc "a JSON-RPC error echoing the secrets is a backend error"
Check "the echoed JSON-RPC error reaches the caller, redacted" grep -q "redacted" "$TMP/cli.err"
CallExpect 1 echo text "an isError result echoing the secrets is a backend error"
Check "the echoed isError text reaches the caller, redacted" grep -q "authorization=<redacted>" "$TMP/cli.err"
CallExpect 1 modern text "on the 2026-07-28 wire, an isError result echoing the secrets is a backend error"
Check "the echo on the 2026-07-28 wire reaches the caller, redacted" grep -q "authorization=<redacted>" "$TMP/cli.err"
CallExpect 1 tls-echo text "over TLS through the proxy, an isError result echoing the secrets is a backend error"
Check "the echo over TLS reaches the caller, redacted" grep -q "authorization=<redacted>" "$TMP/cli.err"

# A reload that changes a secret: the new value is redacted too.
HDR='Bearer SENTINEL_HDR_rotated_0b5e'
WriteConfig
kill -HUP "$DAEMON_PID"
sleep 0.5
Cli wait --timeout 30
CallExpect 1 echo text "after a reload, the echo of the rotated header is a backend error"
Check "the echo server saw the rotated header" grep -q "SENTINEL_HDR_rotated_0b5e" "$TMP/echo-server.out"
# A reload that fails keeps the old configuration and says why.
echo '{"mcpServers": {"broken": ' >"$TMP/mcp.json"
kill -HUP "$DAEMON_PID"
WaitFor 10 bash -c "\"$MCPGW\" status --json | grep -q '\"reload_error\":\"'" || true

for args in "status" "status --json" "tools" "tools echo" "tools ok" "tools echo-init"; do
  # shellcheck disable=SC2086
  Cli $args
  Collect "$args"
done
Check "status --json reports the failed reload" grep -q '"reload_error":"' "$TMP/collected"

# ---- the secrets did travel, so a leak would show ----------------------------------
Check "the echo server received the header sentinel" grep -q "SENTINEL_HDR_7f3a9c21" "$TMP/echo-server.out"
Check "the echo server received the env header sentinel" grep -q "SENTINEL_KEY_c4e2" "$TMP/echo-server.out"
Check "the echo server received the query sentinel" grep -q "SENTINEL_QRY_51d0" "$TMP/echo-server.out"
Check "the echo server received the path sentinel" grep -q "SENTINEL_PTH_93be" "$TMP/echo-server.out"
Check "the echo server received the header sentinel on the 2026-07-28 wire" \
  grep -q "SENTINEL_HDR_7f3a9c21.* url=/modern/" "$TMP/echo-server.out"
for sentinel in SENTINEL_HDR_7f3a9c21 SENTINEL_KEY_c4e2 SENTINEL_QRY_51d0 SENTINEL_PTH_93be; do
  Check "the echo server received $sentinel over TLS" grep -q "^ECHO\[good\] .*$sentinel" "$TMP/echo-tls.out"
done
EnvHostTunnel() {
  HttpJson GET "http://127.0.0.1:$PROXY_PORT/__log" | Json 'd.tunnels.some((t) => t.target.toLowerCase().startsWith("sentinel-host-8a1f.localhost:") && t.authorized)' | grep -qx true
}
Check "the proxy tunnelled to the env host name, with the sentinel password" EnvHostTunnel
Check "the daemon log holds the failures" grep -q "redirect refused" "$TMP/mcpgwd.log"
Check "the call log has lines" test -s "$TMP/calls.jsonl"

# ---- and none of them came out ----------------------------------------------------
NoSentinel() {  # NoSentinel NAME FILE
  local hits
  hits="$(grep -c "SENTINEL" "$2" || true)"
  if [ "$hits" = 0 ]; then
    Pass "no sentinel in $1"
  else
    Fail "no sentinel in $1" "$hits lines, e.g. $(grep -m 3 "SENTINEL" "$2" | cut -c1-300)"
  fi
}
NoSentinel "the daemon log" "$TMP/mcpgwd.log"
NoSentinel "CLI output (status, tools, calls, stderr)" "$TMP/collected"
NoSentinel "the call log" "$TMP/calls.jsonl"
Check "the call log holds no argument value" bash -c "! grep -q 'an argument value' '$TMP/calls.jsonl'"
StopDaemon
Finish
