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
#   lint.sh error-shapes-planted  the error-shapes check fails on a tree with
#                             one such header
#   lint.sh libc-symbols BIN...
#                             no binary or library of ours defines a function
#                             the C library exports (no interposed poll(), ...)
#   lint.sh standalone        the repository cites only itself: code and docs
#                             name no outside specification, and every
#                             section sign in code names its document
#                             ("BEHAVIOR §5", "RFC 9110 §5.6.2"), never
#                             the sign alone in parentheses
#   lint.sh layout            the folder listing in docs/ARCHITECTURE.md
#                             matches the source folders of the tree
#   lint.sh includes          every #include "..." in base/ proto/ config/
#                             daemon/ client/ names its own folder or one
#                             listed before it in that listing
#   lint.sh includes-planted  the includes check fails on a tree with one
#                             include that points up, and says where
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
  bare_sections
  echo "lint: the repository cites only itself"
}

# A section sign in code (every tracked text file but the Markdown docs)
# follows its document's name: docs/BEHAVIOR.md and the MCP specification
# number their sections differently, so the sign alone, in parentheses or
# after "of", says nothing. The word before the sign (the last word of the
# line before, when the sign opens a comment line) must hold a capital or a
# digit: BEHAVIOR, BEHAVIOR.md, RFC 9110, OAuth 2.1, or the section before it
# in a list ("BEHAVIOR.md §3, §6", "BEHAVIOR.md §5 and §6").
bare_sections() {
  local sign files hits
  sign=$(printf '\302\247')
  files=$(sources . | grep -v -E '(^|/)node_modules/|package-lock\.json$|^tests/fuzz/corpus/|\.md$' |
    xargs grep -l -I -F "$sign" 2>/dev/null || true)
  [ -n "$files" ] || return 0
  hits=$(awk -v sign="$sign" '
    FNR == 1 { last = "" }
    {
      line = $0
      rest = line
      while ((at = index(rest, sign)) > 0) {
        before = substr(rest, 1, at - 1)
        sub(/[ \t]+$/, "", before)
        lead = before
        sub(/^[ \t]*(\/\/+|#+|\/?\*+|--)?[ \t]*/, "", lead)
        word = (lead == "" && rest == line) ? last : before
        sub(/.*[ \t(]/, "", word)
        listed = substr(line, 1, length(line) - length(rest)) before
        if (word !~ /[A-Z0-9]/ && listed !~ /[0-9][ \t]+(and|or|to)$/) {
          printf "%s:%d: %s\n", FILENAME, FNR, line
        }
        rest = substr(rest, at + length(sign))
      }
      n = split(line, words, /[ \t]+/)
      last = n > 0 ? words[n] : ""
    }' $files)
  [ -z "$hits" ] || fail "a section sign that does not name its document (write BEHAVIOR §N for docs/BEHAVIOR.md's):
$hits"
}

# The folders of docs/ARCHITECTURE.md's listing, in its order, each ending
# in '/': the fenced block after the "## Layout" heading, whose lines start
# with a folder path (continuation lines start with spaces).
listed_folders() {
  local doc=docs/ARCHITECTURE.md
  [ -f "$doc" ] || fail "$doc is missing"
  local listed
  listed=$(awk '/^## Layout/ {f=1; next} f && /^```/ {n++; if (n==2) exit; next} f && n==1 {print}' "$doc" |
    grep -o -E '^[a-z_./-]+/' || true)
  [ -n "$listed" ] || fail "$doc has no folder listing (a fenced block under '## Layout')"
  echo "$listed"
}

layout() {
  local doc=docs/ARCHITECTURE.md listed
  listed=$(listed_folders) || exit 1
  listed=$(sed 's#/$##' <<<"$listed" | sort -u)
  local actual
  actual=$(sources base config proto daemon client | grep -E '\.(cc|h|hpp|c)$' | xargs -n1 dirname | sort -u)
  local missing extra
  missing=$(comm -13 <(echo "$listed") <(echo "$actual"))
  extra=$(comm -23 <(echo "$listed") <(echo "$actual"))
  [ -z "$missing" ] || fail "$doc does not list these source folders: $(echo $missing)"
  [ -z "$extra" ] || fail "$doc lists folders that hold no source: $(echo $extra)"
  echo "lint: $doc lists the $(wc -l <<<"$actual") source folders of the tree"
}

# Each quoted include is resolved as the compiler finds it: beside the
# including file, else from the top of the tree, else (a bare name such as
# "mcpgw.h", found on an include path) the one source file of that name.
# What resolves to no file of the tree (a generated header) is not checked.
# One awk pass over every file; the listing and the file list come first.
includes() {
  local listed tmp
  listed=$(listed_folders) || exit 1
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' RETURN
  echo "$listed" >"$tmp/listed"
  sources base proto config daemon client | grep -E '\.(cc|h|hpp|c)$' >"$tmp/files" || true
  [ -s "$tmp/files" ] || fail "no source files under base/ proto/ config/ daemon/ client/"
  local out
  out=$(xargs awk -v listed="$tmp/listed" -v files="$tmp/files" '
    function folder_of(path,   i, best) {
      best = ""
      for (i = 1; i <= n; i++) {
        if (index(path, folder[i]) == 1 && length(folder[i]) > length(best)) best = folder[i]
      }
      return best
    }
    FILENAME == listed { folder[++n] = $0; rank[$0] = n; next }
    FILENAME == files {
      tracked[$0] = 1
      base = $0; sub(/.*\//, "", base)
      if (base in by_name) by_name[base] = ""; else by_name[base] = $0
      next
    }
    /^[ \t]*#[ \t]*include[ \t]*"/ {
      inc = $0
      sub(/^[ \t]*#[ \t]*include[ \t]*"/, "", inc)
      sub(/".*/, "", inc)
      dir = FILENAME; sub(/[^\/]*$/, "", dir)
      if ((dir inc) in tracked) target = dir inc
      else if (inc in tracked) target = inc
      else if (inc !~ /\// && by_name[inc] != "") target = by_name[inc]
      else next
      from = folder_of(FILENAME); to = folder_of(target)
      if (from == "") {
        printf "%s:%d: %s is in no folder of the listing\n", FILENAME, FNR, FILENAME
      } else if (to != "" && rank[to] > rank[from]) {
        printf "%s:%d: #include \"%s\": %s may not include %s, a higher layer (listed after it)\n",
          FILENAME, FNR, inc, from, to
      }
    }' "$tmp/listed" "$tmp/files" <"$tmp/files")
  if [ -n "$out" ]; then
    echo "$out" >&2
    fail "$(wc -l <<<"$out") include(s) against the layer order of docs/ARCHITECTURE.md's Layout"
  fi
  echo "lint: the includes of $(wc -l <"$tmp/files") files follow the layer order of docs/ARCHITECTURE.md"
}

# The includes check on a small tree of its own: one include that points up
# must fail it, naming the file, the line, the include and both folders.
includes_planted() {
  local tree
  tree=$(mktemp -d)
  trap 'rm -rf "$tree"' RETURN
  mkdir -p "$tree/tests/lint" "$tree/docs" "$tree/base" "$tree/daemon/mcp" "$tree/daemon/net"
  cp "$0" "$tree/tests/lint/lint.sh"
  printf '# Layout\n\n## Layout\n\n```\nbase/  b\ndaemon/net/  n\ndaemon/mcp/  m\ndaemon/  d\n```\n' \
    >"$tree/docs/ARCHITECTURE.md"
  printf '#pragma once\n' >"$tree/base/a.h"
  printf '#pragma once\n#include "base/a.h"\n' >"$tree/daemon/net/n.h"
  printf '#include "daemon/mcp/m.h"\n#include "n.h"\n' >"$tree/daemon/net/n.cc"
  printf '#pragma once\n#include "daemon/net/n.h"\n' >"$tree/daemon/mcp/m.h"
  printf '#include "daemon/mcp/m.h"\n' >"$tree/daemon/d.cc"
  local out
  if out=$(bash "$tree/tests/lint/lint.sh" includes 2>&1); then
    fail "the includes check passed a tree where daemon/net/n.cc includes daemon/mcp/m.h:
$out"
  fi
  local want='daemon/net/n.cc:1: #include "daemon/mcp/m.h": daemon/net/ may not include daemon/mcp/'
  grep -q -F "$want" <<<"$out" || fail "the includes check failed without saying where:
$out"
  [ "$(grep -c 'may not include' <<<"$out")" -eq 1 ] || fail "the includes check reported more than the one planted include:
$out"
  echo "lint: the includes check fails on a planted include that points up"
}

# The error-shapes check on a small tree of its own: a header with an error
# out-parameter must fail it, one that only takes a string must not.
error_shapes_planted() {
  local tree
  tree=$(mktemp -d)
  trap 'rm -rf "$tree"' RETURN
  mkdir -p "$tree/tests/lint" "$tree/base" "$tree/config" "$tree/proto" "$tree/daemon" "$tree/client"
  cp "$0" "$tree/tests/lint/lint.sh"
  printf '#pragma once\nbool Open(const std::string& path, std::string* error);\n' >"$tree/daemon/bad.h"
  printf '#pragma once\nvoid Say(const std::string& error);\n' >"$tree/config/good.h"
  local out
  if out=$(bash "$tree/tests/lint/lint.sh" error-shapes 2>&1); then
    fail "the error-shapes check passed a header with a std::string* error out-parameter:
$out"
  fi
  grep -q -F 'daemon/bad.h:2:' <<<"$out" || fail "the error-shapes check failed without saying where:
$out"
  if grep -q -F 'config/good.h' <<<"$out"; then
    fail "the error-shapes check reported a header that only reads a string:
$out"
  fi
  echo "lint: the error-shapes check fails on a planted error out-parameter"
}

case "${1:-}" in
  error-shapes) error_shapes ;;
  error-shapes-planted) error_shapes_planted ;;
  function-length) function_length ;;
  libc-symbols) shift; libc_symbols "$@" ;;
  standalone) standalone ;;
  layout) layout ;;
  includes) includes ;;
  includes-planted) includes_planted ;;
  *) fail "usage: lint.sh error-shapes | error-shapes-planted | function-length | libc-symbols BIN... | standalone | layout | includes | includes-planted" ;;
esac
