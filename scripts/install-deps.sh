#!/usr/bin/env bash
# Installs everything mcpgw needs to build and test on Debian 12, from Debian's
# packages and (for the interop tests and the demo) the npm registry.
# Usage: scripts/install-deps.sh [--no-node]
set -euo pipefail
cd "$(dirname "$0")/.."

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

# Every tool the build and the test suite run, named here: a fresh minimal
# Debian 12 has none of them, and a test whose tool is missing fails.
#   clang-16, libclang-rt-16-dev  the ASan+UBSan tree of scripts/test.sh, which
#                   also links the libFuzzer targets: Debian's clang 14 cannot
#                   compile C++20's capture of a structured binding (daemon/)
#   file            CPack's DEB generator (tests/service/package.sh)
#   man-db          `man`: the man pages render, systemd-analyze checks them
#   binutils        readelf: the installed binaries' library search path
#   dpkg-dev        dpkg-shlibdeps: the .deb's dependencies
#   util-linux      flock: tests that share /run/user/UID take turns
#   openssl         test certificates for the TLS tests
#   python3         the notify listener (service tests), the benchmark report
#   systemd         systemd-analyze, systemd-socket-activate (service tests)
#   valgrind, gnuplot-nox  the benchmark's instruction counts and plot
#   ccache          scripts/test.sh compiles through it when present
#   universal-ctags the function-length check (tests/lint/lint.sh)
#   prometheus      promtool: the metrics tests check `mcpgw metrics` and the
#                   metrics endpoint with `promtool check metrics`
#   libtomlplusplus-dev  toml++: mcpgw import and mcpgw hosts read and check
#                   Codex's config.toml with it (client/setup/); its runtime
#                   library is a dependency of the .deb
#   curl, socat, procps, iproute2  not run by the suite: for looking at a
#                   running daemon and its upstreams by hand
#   libncurses-dev  ncurses: `mcpgw top` draws its live view with it (client/cli/top_view.cc)
#   tmux            the tests of `mcpgw top` run it in a real terminal
#   wordnet-base    WordNet 3.0's database: tool search's table of word
#                   relatives is generated from it at build time and compiled
#                   in (daemon/search/wordnet.h), so the .deb does not need it
pkgs=(
  build-essential g++ cmake ninja-build pkg-config git ca-certificates
  clang libclang-rt-dev clang-16 libclang-rt-16-dev clang-format
  libcurl4-openssl-dev rapidjson-dev libspdlog-dev libfmt-dev catch2 libuv1-dev
  libssl-dev openssl libcli11-dev libstemmer-dev wordnet-base libtomlplusplus-dev
  file man-db binutils dpkg-dev util-linux
  python3 curl socat procps iproute2 systemd valgrind gnuplot-nox strace ccache universal-ctags
  prometheus libncurses-dev tmux
)
# Node.js and npm: keep an existing installation (it may come from elsewhere
# and clash with Debian's npm); otherwise take Debian's.
if ! command -v node >/dev/null 2>&1; then pkgs+=(nodejs); fi
if ! command -v npm >/dev/null 2>&1; then pkgs+=(npm); fi

export DEBIAN_FRONTEND=noninteractive
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  $SUDO apt-get update -q
  $SUDO apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

if [ "${1:-}" != "--no-node" ]; then
  scripts/install-node-deps.sh
fi
