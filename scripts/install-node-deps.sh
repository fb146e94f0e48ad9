#!/usr/bin/env bash
# Installs the Node.js packages the interop tests and the demo run against
# (tests/fixtures/package.json, pinned by its package-lock.json) into
# tests/fixtures/node_modules, and the real MCP hosts whose files mcpgw import
# and mcpgw hosts read and edit (Claude Code, Gemini CLI, Codex CLI:
# tests/hosts/package.json) into tests/hosts/node_modules, and the cross
# compiler lint:macos-compile builds for macOS with (Zig 0.11:
# tests/macos/package.json) into tests/macos/node_modules. Quiet and
# idempotent: it does nothing for a folder whose node_modules already matches
# its lock file.
# Usage: scripts/install-node-deps.sh [--force]
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

die() {
  echo "install-node-deps: $*" >&2
  exit 1
}

command -v node >/dev/null 2>&1 ||
  die "node is not installed; on Debian 12: apt-get install nodejs npm (Node 18 or newer)"
command -v npm >/dev/null 2>&1 ||
  die "npm is not installed; on Debian 12: apt-get install npm"

node_version="$(node --version 2>/dev/null || true)"
node_major="${node_version#v}"
node_major="${node_major%%.*}"
if ! [[ "$node_major" =~ ^[0-9]+$ ]] || [ "$node_major" -lt 18 ]; then
  die "Node.js 18 or newer is needed, found '${node_version:-nothing}' at $(command -v node)"
fi

npm_flags=(--no-audit --no-fund --loglevel=error)

# Install DIR: npm ci in DIR (relative to the checkout) unless its stamp says
# node_modules is already what the lock file names. The stamp records what
# node_modules was installed from: the manifest, the lock file and the Node
# major version.
Install() {
  local dir=$1 stamp_file inputs want_stamp
  cd "$root/$dir"
  stamp_file="node_modules/.mcpgw-install-stamp"
  inputs=(package.json)
  [ -f package-lock.json ] && inputs+=(package-lock.json)
  want_stamp="$( (cat "${inputs[@]}"; echo "node-major=${node_major}") | sha256sum | cut -d' ' -f1)"

  if [ "$force" != "--force" ] && [ -f "$stamp_file" ] &&
    [ "$(cat "$stamp_file")" = "$want_stamp" ]; then
    return 0
  fi

  echo "install-node-deps: installing $dir/node_modules from the npm registry" >&2
  if [ -f package-lock.json ]; then
    npm ci "${npm_flags[@]}" >/dev/null ||
      die "npm ci failed in $dir (is https://registry.npmjs.org reachable?)"
  else
    npm install "${npm_flags[@]}" >/dev/null ||
      die "npm install failed in $dir (is https://registry.npmjs.org reachable?)"
  fi

  echo "$want_stamp" >"$stamp_file"
}

force="${1:-}"
Install tests/fixtures
Install tests/hosts
# The Zig package is built for x86-64 Linux only.
if [ "$(uname -sm)" = "Linux x86_64" ]; then
  Install tests/macos
else
  echo "install-node-deps: no Zig for $(uname -sm): lint:macos-compile will fail here" >&2
fi
