#!/usr/bin/env bash
# Checks of the source tree and the built binaries that keep the codebase
# carryable; each is one ctest (tests/lint/CMakeLists.txt).
#
#   lint.sh function-length   no function in base/ config/ proto/ daemon/
#                             client/ is longer than 120 lines (Universal Ctags)
#   lint.sh error-shapes      no header of base/ config/ proto/ daemon/ client/
#                             hands back an error through a std::string out-
#                             parameter: a failure is a base::Status or a
#                             base::Result<T> (docs/ARCHITECTURE.md, "Errors")
#   lint.sh libc-symbols BIN...
#                             no binary or library of ours defines a function
#                             the C library exports (no interposed poll(), ...)
#   lint.sh standalone        the repository cites only itself: code and docs
#                             name no outside specification
#   lint.sh layout            the folder listing in docs/ARCHITECTURE.md
#                             matches the source folders of the tree
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"

fail() {
  echo "lint: $*" >&2
  exit 1
}

# The tracked files when this is a git checkout, else every file found.
sources() {  # folder...
  if git -C "$root" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    git -C "$root" ls-files -- "$@"
  else
    find "$@" -type f | sort
  fi
}

function_length() {
  command -v ctags >/dev/null || fail "ctags (Universal Ctags) is not installed: scripts/install-deps.sh installs it"
  ctags --version | grep -q "Universal Ctags" || fail "ctags is not Universal Ctags"
  local max=120 long
  # One ctags run over every file and one awk pass over its lines (name,
  # file, pattern, kind, line:N, ..., end:M): a process per function made
  # this take minutes on a busy machine.
  long=$(sources base config proto daemon client | grep -E '\.(cc|h|hpp)$' |
    xargs ctags --fields=+ne --kinds-c++=f --language-force=C++ -o - |
    awk -F'\t' -v max="$max" '
      {
        start = ""; end = ""
        for (i = 4; i <= NF; i++) {
          if ($i ~ /^line:/ && start == "") start = substr($i, 6)
          if ($i ~ /^end:/ && end == "") end = substr($i, 5)
        }
        if (start == "" || end == "") next
        if (end - start + 1 > max) {
          printf "%s:%s: %s is %d lines (at most %d)\n", $2, start, $1, end - start + 1, max > "/dev/stderr"
          n++
        }
      }
      END { print n + 0 }')
  [ "$long" -eq 0 ] || fail "$long function(s) longer than $max lines"
  echo "lint: every function is at most $max lines"
}

error_shapes() {
  # One awk pass over every header; `const std::string&` (an input) is taken
  # out of the line first, so only a pointer or a non-const reference counts.
  local found
  found=$(sources base config proto daemon client | grep -E '\.(h|hpp)$' | xargs awk '
    {
      line = $0
      gsub(/const[ \t]+std::string[ \t]*&/, "", line)
      if (line ~ /std::string[ \t]*[*&][ \t]*(error|err|why)([^A-Za-z0-9_]|$)/) {
        printf "%s:%d: %s\n", FILENAME, FNR, $0
      }
    }')
  if [ -n "$found" ]; then
    echo "$found" >&2
    fail "$(wc -l <<<"$found") header line(s) hand back an error through a std::string" \
      "out-parameter: return a base::Status or a base::Result<T> (base/status.h)"
  fi
  echo "lint: no header hands back an error through a std::string out-parameter"
}

libc_symbols() {
  [ $# -gt 0 ] || fail "libc-symbols: name the binaries"
  local libc
  libc=$(ldd "$1" | awk '/libc\.so/ {print $3; exit}')
  [ -n "$libc" ] && [ -f "$libc" ] || fail "cannot find the C library $1 is linked against"
  local exported
  exported=$(nm -D --defined-only "$libc" | awk '$2 ~ /^[TWi]$/ {sub(/@.*/, "", $3); print $3}' | sort -u)
  [ "$(wc -l <<<"$exported")" -gt 500 ] || fail "could not read the functions $libc exports"
  local bin clash=0
  for bin in "$@"; do
    [ -f "$bin" ] || fail "$bin does not exist"
    local ours shared
    ours=$(nm -D --defined-only "$bin" | awk '{print $NF}' | sort -u)
    shared=$(comm -12 <(echo "$exported") <(echo "$ours"))
    if [ -n "$shared" ]; then
      echo "$bin defines functions of the C library: $(echo $shared)" >&2
      clash=1
    fi
  done
  [ "$clash" -eq 0 ] || fail "a binary takes the place of a C library function"
  echo "lint: no C library function is defined by $*"
}

standalone() {
  local hits
  # The pattern is split so that this file does not match itself.
  hits=$(sources . | grep -v -E '(^|/)node_modules/|package-lock\.json$|^tests/fuzz/corpus/' |
    xargs grep -n -I -E "SP""EC §|\.\./sha""red" 2>/dev/null || true)
  [ -z "$hits" ] || fail "the repository cites a document it does not hold:
$hits"
  echo "lint: the repository cites only itself"
}

layout() {
  local doc=docs/ARCHITECTURE.md
  [ -f "$doc" ] || fail "$doc is missing"
  # The listing: the fenced block after the "## Layout" heading; each line
  # starts with a folder path ending in '/'.
  local listed
  listed=$(awk '/^## Layout/ {f=1; next} f && /^```/ {n++; if (n==2) exit; next} f && n==1 {print}' "$doc" |
    grep -o -E '^[a-z_./-]+/' | sed 's#/$##' | sort -u || true)
  [ -n "$listed" ] || fail "$doc has no folder listing (a fenced block under '## Layout')"
  local actual
  actual=$(sources base config proto daemon client | grep -E '\.(cc|h|hpp|c)$' | xargs -n1 dirname | sort -u)
  local missing extra
  missing=$(comm -13 <(echo "$listed") <(echo "$actual"))
  extra=$(comm -23 <(echo "$listed") <(echo "$actual"))
  [ -z "$missing" ] || fail "$doc does not list these source folders: $(echo $missing)"
  [ -z "$extra" ] || fail "$doc lists folders that hold no source: $(echo $extra)"
  echo "lint: $doc lists the $(wc -l <<<"$actual") source folders of the tree"
}

case "${1:-}" in
  error-shapes) error_shapes ;;
  function-length) function_length ;;
  libc-symbols) shift; libc_symbols "$@" ;;
  standalone) standalone ;;
  layout) layout ;;
  *) fail "usage: lint.sh error-shapes | function-length | libc-symbols BIN... | standalone | layout" ;;
esac
