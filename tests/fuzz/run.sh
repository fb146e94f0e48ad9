#!/usr/bin/env bash
# Runs every built libFuzzer target over a scratch copy of its seed corpus for
# a bounded time and fails if any of them finds a crash.
#
# Build the targets first (clang, sanitizers on the whole project), as
# scripts/test.sh does in its ASan+UBSan tree:
#   cmake -S . -B build-asan -G Ninja -DCMAKE_C_COMPILER=clang-16 -DCMAKE_CXX_COMPILER=clang++-16 \
#     -DCMAKE_BUILD_TYPE=Debug -DMCPGW_SANITIZE=address,undefined -DMCPGW_FUZZ=ON \
#     -DCMAKE_C_FLAGS=-fsanitize=fuzzer-no-link -DCMAKE_CXX_FLAGS=-fsanitize=fuzzer-no-link
#   cmake --build build-asan --target fuzz_targets
# Then:
#   tests/fuzz/run.sh build-asan [SECONDS_PER_TARGET]   (default 8)
#
# Target X_fuzz reads tests/fuzz/corpus/X/ (the checked-in seeds are never
# modified). A crashing input is kept in tests/fuzz/artifacts/ (ignored by git).
set -euo pipefail

if [[ $# -lt 1 || $# -gt 2 ]]; then
  echo "usage: $0 BUILD_DIR [SECONDS_PER_TARGET]" >&2
  exit 2
fi
build_dir=$1
seconds=${2:-8}
if ! [[ $seconds =~ ^[0-9]+$ ]] || [[ $seconds -eq 0 ]]; then
  echo "$0: SECONDS_PER_TARGET must be a positive whole number" >&2
  exit 2
fi

fuzz_dir=$(cd "$(dirname "$0")" && pwd)
artifacts=$fuzz_dir/artifacts
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$artifacts"

# Undefined behaviour is a failure, not a warning. One exception: RapidJSON
# 1.1 (Debian 12) grows its parse stack from a null pointer by adding an
# offset to it (internal/stack.h, Reserve), which clang's pointer-overflow
# check reports on the first string parsed; later RapidJSON releases fixed it.
# (A tree built with MCPGW_SANITIZE leaves that file uninstrumented instead:
# tests/ubsan_ignorelist.txt.)
printf 'pointer-overflow:rapidjson/internal/stack.h\n' >"$scratch/ubsan.supp"
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1:suppressions=$scratch/ubsan.supp}
export ASAN_OPTIONS=${ASAN_OPTIONS:-abort_on_error=1}

ran=0
failed=0
for source in "$fuzz_dir"/*_fuzz.cc; do
  target=$(basename "$source" .cc)
  name=${target%_fuzz}
  binary=$build_dir/tests/fuzz/$target
  if [[ ! -x $binary ]]; then
    printf '%-16s skipped (not built: %s)\n' "$target" "$binary"
    continue
  fi
  corpus=$scratch/$name
  mkdir -p "$corpus"
  if [[ -d $fuzz_dir/corpus/$name ]]; then
    cp -R "$fuzz_dir/corpus/$name/." "$corpus/"
  fi
  seeds=$(find "$corpus" -type f | wc -l)
  log=$scratch/$target.log
  ran=$((ran + 1))
  if "$binary" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
      -artifact_prefix="$artifacts/$target-" "$corpus" >"$log" 2>&1; then
    runs=$(grep -Eo '^(#[0-9]+|Done [0-9]+ runs)' "$log" | tail -n 1 | grep -Eo '[0-9]+' || echo '?')
    printf '%-16s ok      %s s, %s runs, %s seeds, corpus now %s\n' "$target" "$seconds" \
      "$runs" "$seeds" "$(find "$corpus" -type f | wc -l)"
  else
    failed=$((failed + 1))
    artifact=$(grep -Eo 'Test unit written to [^ ]+' "$log" | tail -n 1 | sed 's/.* //' || true)
    printf '%-16s FAILED  input: %s\n' "$target" "${artifact:-none written}"
    tail -n 40 "$log" | sed 's/^/    /' >&2
  fi
done

if [[ $ran -eq 0 ]]; then
  echo "no fuzz target built in $build_dir/tests/fuzz" >&2
  exit 1
fi
[[ $failed -eq 0 ]]
