#!/usr/bin/env bash
# mcpgwd against HTTPS servers: tests/fixtures/sdk-server.mjs (the official
# SDK) behind TLS fronts that serve HTTP/2 with HTTP/1.1 fallback, with
# certificates from a private CA made at test time (make-certs.sh): good,
# expired, for another host, from an untrusted CA, self-signed.
#   A: trust through SSL_CERT_FILE; the exact reason of every failure (also
#      fronts with no TLS version or cipher suite in common, and one that
#      requires a client certificate);
#      HTTP/2 negotiated and used (the server records what it served), an
#      HTTP/1.1-only front, cancellation over HTTP/2.
#   B: trust through the settings' tls.ca_file, on top of the base store;
#      HTTPS_PROXY through a CONNECT proxy that counts its tunnels, NO_PROXY,
#      the proxy each server uses in `mcpgw status --json`.
#   C: a reload (SIGHUP, or the settings file saved) picks up tls.ca_file; a
#      bad one is refused (at start-up: exit 1; on reload: the previous trust
#      stays).
#   D: trust through SSL_CERT_DIR (a directory hashed by openssl rehash), and
#      through the settings' tls.ca_dir.
# Usage: tests/interop/tls.sh BUILD_DIR
set -euo pipefail
source "$(dirname "$0")/lib.sh" "$@"
source "$ROOT/tests/security/lib.sh"

# The machine's own proxy and trust settings must not leak into the checks.
unset http_proxy https_proxy all_proxy no_proxy HTTP_PROXY HTTPS_PROXY ALL_PROXY NO_PROXY
unset SSL_CERT_FILE SSL_CERT_DIR

CERTS="$TMP/certs"
bash "$FIXTURES/make-certs.sh" "$CERTS"
StartServer SDK_PORT sdk-tls "$NODE" "$FIXTURES/sdk-server.mjs" --port 0 --tools 5 \
  --tls-dir "$CERTS" \
  --tls-listen good,h1:good,expired,wronghost,untrusted,selfsigned,tls11:good,cipher:good,mtls:good
StartServer PROXY_PORT proxy "$NODE" "$FIXTURES/connect-proxy.mjs" --port 0 --auth tester:pr0xy-pw
TlsPort() { sed -n "s/^TLS $1 \([0-9]*\)$/\1/p" "$TMP/sdk-tls.out"; }
GOOD="$(TlsPort good)"
H1="$(TlsPort h1:good)"
SDK="http://127.0.0.1:$SDK_PORT"
SdkLog() { HttpJson GET "$SDK/__log"; }
ProxyLog() { HttpJson GET "http://127.0.0.1:$PROXY_PORT/__log"; }

ExpectStatus() {  # ExpectStatus NAMESPACE STATUS REASON (from the last Snapshot)
  local status reason
  status="$(SnapshotField "$1" status)"
  reason="$(SnapshotField "$1" reason)"
  if [ "$status" = "$2" ] && [ "$reason" = "$3" ]; then
    Pass "$1: $2${3:+: $3}"
  else
    Fail "$1" "status \"$status\", reason \"$reason\"; want \"$2\", \"$3\""
  fi
}

# ---- A: SSL_CERT_FILE --------------------------------------------------------------
cat >"$TMP/mcp.json" <<EOF
{"mcpServers": {
  "h2":         {"url": "https://mcp.localhost:$GOOD/mcp"},
  "h1":         {"url": "https://localhost:$H1/mcp"},
  "expired":    {"url": "https://localhost:$(TlsPort expired)/mcp"},
  "wronghost":  {"url": "https://mcp.localhost:$(TlsPort wronghost)/mcp"},
  "untrusted":  {"url": "https://localhost:$(TlsPort untrusted)/mcp"},
  "selfsigned": {"url": "https://localhost:$(TlsPort selfsigned)/mcp"},
  "not-tls":    {"url": "https://127.0.0.1:$SDK_PORT/mcp"},
  "tls11":      {"url": "https://localhost:$(TlsPort tls11:good)/mcp"},
  "cipher":     {"url": "https://localhost:$(TlsPort cipher:good)/mcp"},
  "mtls":       {"url": "https://localhost:$(TlsPort mtls:good)/mcp"}
}}
EOF
echo '{}' >"$TMP/settings.json"
SSL_CERT_FILE="$CERTS/ca.pem" StartDaemonWith "$TMP/mcp.json" "$TMP/settings.json"
Cli wait --timeout 30
ExpectRc 0 "A: mcpgw wait: no server loading"
Snapshot
Check "A: the log names the trust" grep -q "TLS trust: SSL_CERT_FILE=$CERTS/ca.pem and the system directory" "$TMP/mcpgwd.log"
ExpectStatus h2 ready ""
ExpectStatus h1 ready ""
ExpectStatus expired error "TLS: the server's certificate (or one of its CAs) has expired"
ExpectStatus wronghost error "TLS: the server's certificate is not valid for host mcp.localhost"
ExpectStatus untrusted error "TLS: the server's certificate is from an unknown issuer (a private CA not trusted here, or the server does not send its intermediate certificate)"
ExpectStatus selfsigned error "TLS: the server's certificate is self-signed and not trusted (trust its CA with tls.ca_file or SSL_CERT_FILE)"
ExpectStatus not-tls error "TLS: the server does not speak TLS on this port (is the url http://?)"
# OpenSSL 3 still speaks TLS 1.1 at its default security level, but not
# with the signatures TLS 1.1 needs; with MinProtocol = TLSv1.2 in the
# system's openssl.cnf the server's alert says "no TLS version in common".
Tls11() {
  local reason
  reason="$(SnapshotField tls11 reason)"
  [ "$reason" = "TLS: the server offers only TLS 1.1 or older, which this client refuses" ] ||
    [ "$reason" = "TLS: no TLS version in common with the server" ]
}
Check "tls11: error: $(SnapshotField tls11 reason)" Tls11
ExpectStatus cipher error "TLS: the server refused the handshake (no cipher suite in common, or it requires a client certificate)"
ExpectStatus mtls error "TLS: the server refused the handshake (no cipher suite in common, or it requires a client certificate)"
Check "A: status shows no proxy for a direct server" test "$(SnapshotField h2 proxy)" = null
Check "A: status --json shows HTTP/2 for the HTTP/2 front ($(SnapshotField h2 http_version))" \
  test "$(SnapshotField h2 http_version)" = HTTP/2
Check "A: ... and HTTP/1.1 for the HTTP/1.1-only front ($(SnapshotField h1 http_version))" \
  test "$(SnapshotField h1 http_version)" = HTTP/1.1
Check "A: ... and none for a server never reached ($(SnapshotField expired http_version))" \
  test "$(SnapshotField expired http_version)" = null
Cli status
Check "A: mcpgw status shows the protocol and HTTP version under the server's row" \
  grep -qx "  url: *https://mcp.localhost:$GOOD/mcp (protocol 2025-11-25, HTTP/2)" <<<"$OUT"
Check "A: mcpgw status shows the reason naming the host" \
  grep -qx "  reason: *TLS: the server's certificate is not valid for host mcp.localhost" <<<"$OUT"

Cli call h2 echo '{"text":"over HTTP/2"}'
Check "A: a call over HTTP/2 returns its text" test "$OUT" = "over HTTP/2"
Cli call h1 echo '{"text":"over HTTP/1.1"}'
Check "A: a call over HTTP/1.1 returns its text" test "$OUT" = "over HTTP/1.1"
Served() {  # Served LISTENER: the protocols the server saw on that listener
  SdkLog | L="$1" Json '[...new Set(d.requests.filter((r) => r.listener === process.env.L).map((r) => r.httpVersion + "/" + r.alpn))]'
}
Check "A: every request to the HTTP/2 front was served as HTTP/2 (ALPN h2): $(Served good)" \
  test "$(Served good)" = '["2.0/h2"]'
Check "A: the HTTP/1.1-only front served HTTP/1.1: $(Served h1:good)" \
  test "$(Served h1:good)" = '["1.1/http/1.1"]'

# Cancellation over HTTP/2: the CLI dies mid-call, the server hears of it.
CallCount() { SdkLog | Json 'd.requests.filter((r) => r.method === "tools/call" && r.listener === "good").length'; }
before="$(CallCount)"
"$MCPGW" call h2 slow '{"ms":30000}' >/dev/null 2>&1 &
cli_pid=$!
PIDS+=("$cli_pid")
CallArrived() { [ "$(CallCount)" -gt "$before" ]; }
if WaitFor 10 CallArrived; then
  sleep 0.3
  kill -KILL "$cli_pid" 2>/dev/null || true
  wait "$cli_pid" 2>/dev/null || true
  Cancelled() {
    SdkLog | Json 'd.requests.some((r) => r.method === "notifications/cancelled" && r.listener === "good" && r.httpVersion === "2.0")' | grep -qx true
  }
  Check "A: notifications/cancelled reached the server over HTTP/2" WaitFor 10 Cancelled
else
  Fail "A: the slow call reached the server"
fi
StopDaemon

# ---- B: tls.ca_file on top of the base store; a proxy from the environment ----------
# The rogue CA stands in for the system store (SSL_CERT_FILE replaces the
# bundle); tls.ca_file adds the test CA: servers of both are trusted.
cat >"$TMP/mcp.json" <<EOF
{"mcpServers": {
  "via-proxy":  {"url": "https://mcp.localhost:$GOOD/mcp"},
  "direct":     {"url": "https://127.0.0.1:$GOOD/mcp"},
  "base-store": {"url": "https://localhost:$(TlsPort untrusted)/mcp"},
  "blocked":    {"url": "https://blocked.invalid/mcp"}
}}
EOF
echo "{\"tls\": {\"ca_file\": \"$CERTS/ca.pem\"}}" >"$TMP/settings.json"
: >"$TMP/mcpgwd.log"
SSL_CERT_FILE="$CERTS/rogue.pem" HTTPS_PROXY="http://tester:pr0xy-pw@127.0.0.1:$PROXY_PORT" \
  NO_PROXY="127.0.0.1" StartDaemonWith "$TMP/mcp.json" "$TMP/settings.json"
Cli wait --timeout 30
ExpectRc 0 "B: mcpgw wait: no server loading"
Snapshot
Check "B: the log names the trust" grep -q "TLS trust: SSL_CERT_FILE=$CERTS/rogue.pem and the system directory + 1 certificate from $CERTS/ca.pem (tls.ca_file)" "$TMP/mcpgwd.log"
ExpectStatus via-proxy ready ""
ExpectStatus direct ready ""
ExpectStatus base-store ready ""
# The test proxy opens tunnels to loopback only; it refuses this one itself.
ExpectStatus blocked error "the proxy refused the tunnel (HTTP 403 from the proxy)"
Check "B: status shows the proxy, its credentials redacted" \
  test "$(SnapshotField via-proxy proxy)" = "http://<redacted>@127.0.0.1:$PROXY_PORT"
Check "B: status shows no proxy for a NO_PROXY host" test "$(SnapshotField direct proxy)" = null
Cli status
ProxyLine() { grep -A3 "^via-proxy " <<<"$OUT" | grep -qx "  proxy: *http://<redacted>@127.0.0.1:$PROXY_PORT"; }
Check "B: mcpgw status shows the proxy under the server's row" ProxyLine
Cli call via-proxy echo '{"text":"through the tunnel"}'
Check "B: a call through the proxy returns its text" test "$OUT" = "through the tunnel"
Tunnels() { ProxyLog | T="$1" Json 'd.tunnels.filter((t) => t.target === process.env.T && t.authorized).length'; }
tunnels="$(Tunnels "mcp.localhost:$GOOD")"
Check "B: the proxy opened an authenticated tunnel to mcp.localhost:$GOOD ($tunnels)" test "$tunnels" -ge 1
Check "B: no tunnel to the NO_PROXY host" test "$(Tunnels "127.0.0.1:$GOOD")" = 0
Check "B: HTTP/2 inside the tunnel: $(Served good)" test "$(Served good)" = '["2.0/h2"]'
Check "B: the proxy password is not logged" bash -c "! grep -q 'pr0xy-pw' '$TMP/mcpgwd.log'"
StopDaemon

# ---- C: reload picks up tls.ca_file, a bad path is refused -------------------------------
cat >"$TMP/mcp.json" <<EOF
{"mcpServers": {"late": {"url": "https://localhost:$GOOD/mcp"}}}
EOF
echo '{}' >"$TMP/settings.json"
: >"$TMP/mcpgwd.log"
StartDaemonWith "$TMP/mcp.json" "$TMP/settings.json"
Cli wait --timeout 30
Snapshot
ExpectStatus late error "TLS: the server's certificate is from an unknown issuer (a private CA not trusted here, or the server does not send its intermediate certificate)"
echo "{\"tls\": {\"ca_file\": \"$CERTS/ca.pem\"}}" >"$TMP/settings.json"
cat >"$TMP/mcp.json" <<EOF
{"mcpServers": {
  "late":  {"url": "https://localhost:$GOOD/mcp"},
  "added": {"url": "https://mcp.localhost:$GOOD/mcp"}
}}
EOF
kill -HUP "$DAEMON_PID"
Ready() { test "$(StatusField "$1" status)" = ready; }
Check "C: after SIGHUP a new server is trusted through tls.ca_file" WaitFor 10 Ready added
Check "C: the reload logs the new trust" grep -q "reload (SIGHUP): TLS trust: the system store + 1 certificate from $CERTS/ca.pem (tls.ca_file)" "$TMP/mcpgwd.log"
Check "C: the failed server is trusted on its next attempt" WaitFor 30 Ready late

# Saved, no signal: the daemon watches the settings file.
echo '{"tls": {"ca_file": "/nonexistent/ca.pem"}}' >"$TMP/settings.json"
Refused() { grep -q "reload (file): keeping the previous TLS trust: $TMP/settings.json: tls.ca_file: cannot read /nonexistent/ca.pem: No such file or directory" "$TMP/mcpgwd.log"; }
Check "C: saving a bad tls.ca_file keeps the previous trust and says why" WaitFor 10 Refused
Cli call added echo '{"text":"still trusted"}'
Check "C: calls still work after the refused reload" test "$OUT" = "still trusted"
StopDaemon

# ---- D: SSL_CERT_DIR, a hashed directory of CAs (openssl rehash) ----------------------
mkdir -p "$TMP/cadir"
cp "$CERTS/ca.pem" "$TMP/cadir/"
openssl rehash "$TMP/cadir"
cat >"$TMP/mcp.json" <<EOF
{"mcpServers": {"by-dir": {"url": "https://localhost:$GOOD/mcp"}}}
EOF
echo '{}' >"$TMP/settings-d.json"
: >"$TMP/mcpgwd.log"
SSL_CERT_DIR="$TMP/cadir" StartDaemonWith "$TMP/mcp.json" "$TMP/settings-d.json"
Cli wait --timeout 30
Snapshot
Check "D: the log names the trust" grep -q "TLS trust: the system bundle and SSL_CERT_DIR=$TMP/cadir" "$TMP/mcpgwd.log"
ExpectStatus by-dir ready ""
Cli call by-dir echo '{"text":"trusted by directory"}'
Check "D: a call to a server trusted through SSL_CERT_DIR returns its text" test "$OUT" = "trusted by directory"
StopDaemon

# The same directory as the settings' tls.ca_dir, on top of the system store.
echo "{\"tls\": {\"ca_dir\": \"$TMP/cadir\"}}" >"$TMP/settings-d.json"
: >"$TMP/mcpgwd.log"
StartDaemonWith "$TMP/mcp.json" "$TMP/settings-d.json"
Cli wait --timeout 30
Snapshot
Check "D: the log names the trust" grep -q "TLS trust: the system store + $TMP/cadir (tls.ca_dir)" "$TMP/mcpgwd.log"
ExpectStatus by-dir ready ""
StopDaemon

rc=0
timeout 10 "$MCPGWD" --config "$TMP/mcp.json" --settings "$TMP/settings.json" \
  --socket "$TMP/other.sock" 2>"$TMP/bad-start.err" || rc=$?
Check "C: a bad tls.ca_file at start-up exits 1" test "$rc" = 1
Check "C: ... naming the file and the key" grep -q "$TMP/settings.json: tls.ca_file: cannot read /nonexistent/ca.pem: No such file or directory" "$TMP/bad-start.err"
Finish
