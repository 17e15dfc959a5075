#!/usr/bin/env bash
# Sets up and builds Serenity, then runs every test: lit (regression and
# execution tests), GoogleTest (through lit) and pytest. Ends with one line
# "N passed, N failed"; exits non-zero on any failure.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# SERENITY_SANITIZE=1: the same tests on an ASan + UBSan build (build-sanitize);
# any sanitizer report fails the test that triggered it.
default_build="$root/build"
if [ "${SERENITY_SANITIZE:-0}" = 1 ]; then
  default_build="$root/build-sanitize"
  # allow_user_poisoning=0: LLVM's allocators poison memory from our
  # (instrumented) inline code but not from the uninstrumented LLVM/MLIR
  # libraries, which would report false use-after-poison.
  export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:allow_user_poisoning=0}"
  export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}"
fi
build="${SERENITY_BUILD_DIR:-$default_build}"
"$root/scripts/setup.sh" "$build" || { echo "0 passed, 1 failed"; exit 1; }

results="$build/test-results"
rm -rf "$results" && mkdir -p "$results"
status=0

lit="$(llvm-config-22 --bindir)/lit"
"$lit" -sv --xunit-xml-output="$results/lit.xml" "$build/test" "$build/unittests" || status=1

if [ -d "$root/python/tests" ]; then
  # Debian's interpreter sees the python3-* packages (see ../shared/MLIR22.md).
  # Two shards side by side (scripts/pytest_shards.py: pytest runs one test at
  # a time, mostly waiting on one single-threaded tool), each with its own
  # temporary directory and log, printed when both are done.
  shards=2
  pids=()
  for k in $(seq 0 $((shards - 1))); do
    mapfile -t files < <(/usr/bin/python3 "$root/scripts/pytest_shards.py" "$shards" "$k")
    (cd "$root" && SERENITY_BUILD_DIR="$build" PYTHONPATH="$root/python" \
      /usr/bin/python3 -m pytest -q -p no:cacheprovider --basetemp="$results/pytest-tmp-$k" \
        --junitxml="$results/pytest-$k.xml" "${files[@]}" >"$results/pytest-$k.log" 2>&1) &
    pids+=($!)
  done
  for k in "${!pids[@]}"; do
    wait "${pids[$k]}" || status=1
    echo "== pytest shard $k of $shards =="
    cat "$results/pytest-$k.log"
  done
fi

/usr/bin/python3 "$root/scripts/summarize_junit.py" "$results"/*.xml || status=1
exit $status
