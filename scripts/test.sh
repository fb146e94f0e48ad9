#!/usr/bin/env bash
# Builds mcpgw and runs the whole test suite: unit, integration and interop
# tests in a normal build; unit and integration tests again under ASan+UBSan
# and under TSan; every fuzz target for a bounded time; the benchmark smoke run.
# Usage: scripts/test.sh [--quick]   (--quick: the normal build's tests only)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
jobs=$(nproc)
quick=0
[ "${1:-}" = "--quick" ] && quick=1

started=$SECONDS
# Each step's header says how long the run has taken so far (CI has a budget).
step() { printf '\n==== %s  (at %d s)\n' "$*" $((SECONDS - started)); }

# With ccache installed (scripts/install-deps.sh installs it), rebuilding
# sources that did not change costs next to nothing. Paths are taken relative
# to the checkout and the build folder is left out of the hash (by default
# ccache hashes it into every object built with debug information), so
# another clone of the same sources, wherever it is, shares the cache; its
# debug information then names the first clone's folder, which no test reads.
# The test binaries compile against a precompiled header (catch2): ccache
# caches such compiles only when told to accept the header's defines and
# times, which here come from the same build.
# ccache 4.7 does not read the file clang's -fsanitize-ignorelist names, so
# its text goes into every result's key (CCACHE_EXTRAFILES).
# CCACHE_DISABLE=1 turns it off; a launcher already set in the environment is kept.
if [ -z "${CMAKE_CXX_COMPILER_LAUNCHER:-}" ] && command -v ccache >/dev/null 2>&1; then
  export CMAKE_CXX_COMPILER_LAUNCHER=ccache CMAKE_C_COMPILER_LAUNCHER=ccache
  export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$root} CCACHE_NOHASHDIR=${CCACHE_NOHASHDIR:-1}
  export CCACHE_SLOPPINESS=${CCACHE_SLOPPINESS:-pch_defines,time_macros,include_file_mtime,include_file_ctime}
  export CCACHE_EXTRAFILES=${CCACHE_EXTRAFILES:-$root/tests/ubsan_ignorelist.txt}
fi

configure_build() {  # dir, extra cmake args...
  local dir=$1; shift
  cmake -S "$root" -B "$dir" -G Ninja -DMCPGW_WERROR=ON "$@" >/dev/null
  cmake --build "$dir" -j "$jobs" ${targets:+--target $targets}
}

step "build (RelWithDebInfo)"
configure_build build -DCMAKE_BUILD_TYPE=RelWithDebInfo
step "tests"
ctest --test-dir build --output-on-failure -j "$jobs"

if [ "$quick" = 1 ]; then exit 0; fi

# The sanitizer builds need only what their tests run.
targets="mcpgwd mcpgw libmcpgw unit_tests integration_tests"

# A test binary that fails while its tests are listed (catch_discover_tests
# runs it at build time; a sanitizer may abort it before main) leaves all its
# tests out of ctest without a word. Each sanitizer build must list as many
# unit and integration tests as the normal build.
count_tests() { ctest --test-dir "$1" -N -L "$2" | sed -n 's/^Total Tests: //p'; }
check_counts() {  # dir
  local label want got
  for label in unit integration; do
    want=$(count_tests build "$label")
    got=$(count_tests "$1" "$label")
    if [ "${got:-0}" = 0 ] || [ "${got:-0}" -lt "${want:-1}" ]; then
      echo "test.sh: $1 lists ${got:-0} $label tests, the normal build ${want:-0}: a test binary failed to list its tests" >&2
      exit 1
    fi
  done
}

# One clang tree serves the ASan+UBSan tests and the fuzz targets, which need
# clang's libFuzzer: everything in it is also built with libFuzzer's coverage
# hooks (-fsanitize=fuzzer-no-link, instrumentation only; the test binaries
# link no fuzzer), so the sources are compiled under ASan+UBSan once, not twice.
step "build and tests under AddressSanitizer + UndefinedBehaviorSanitizer (clang, with the fuzz targets)"
targets="$targets fuzz_targets" configure_build build-asan -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_C_COMPILER=clang-16 -DCMAKE_CXX_COMPILER=clang++-16 -DMCPGW_SANITIZE=address,undefined \
  -DMCPGW_FUZZ=ON -DCMAKE_C_FLAGS=-fsanitize=fuzzer-no-link -DCMAKE_CXX_FLAGS=-fsanitize=fuzzer-no-link
check_counts build-asan
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --test-dir build-asan --output-on-failure -j "$jobs" -L 'unit|integration'

step "build and tests under ThreadSanitizer"
configure_build build-tsan -DCMAKE_BUILD_TYPE=Debug -DMCPGW_SANITIZE=thread
check_counts build-tsan
TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 \
  ctest --test-dir build-tsan --output-on-failure -j "$jobs" -L 'unit|integration'

step "fuzz targets (bounded)"
tests/fuzz/run.sh build-asan "${MCPGW_FUZZ_SECONDS:-8}"
step "all passed"
