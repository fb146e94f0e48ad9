#!/usr/bin/env bash
# Stands in for the user's browser in the OAuth tests (MCPGW_BROWSER): opens
# the authorization URL and follows the redirects to the loopback callback, as
# a browser does once the user consents. With OAUTH_BROWSER_LOG set, appends
# one line per opening to that file (never the URL: it carries the state).
# Usage: oauth_browser.sh URL
set -u
if [ $# -ne 1 ]; then
  echo "usage: $0 URL" >&2
  exit 2
fi
if [ -n "${OAUTH_BROWSER_LOG:-}" ]; then echo opened >>"$OAUTH_BROWSER_LOG"; fi
exec curl -sS -L --max-redirs 5 --max-time 20 -o /dev/null "$1"
