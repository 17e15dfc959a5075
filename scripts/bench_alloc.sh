#!/usr/bin/env bash
# Benchmarks serenity-alloc on ../shared/bench (MiniMalloc's challenging
# instances and TFLite Micro's planner tests) and prints a markdown table.
#
#   greedy, best-fit: arena of each heuristic.
#   capacity: exact search for a placement within the capacity in the file
#             name (X.<capacity>.csv, as in the MiniMalloc paper); its time.
#   minimize: exact search for the smallest arena (--time-limit seconds,
#             default 10, env BENCH_TIME_LIMIT); proven = optimal proven.
# Times are wall-clock seconds inside the allocator (serenity-alloc's own
# measurement, excluding CSV I/O), Release build.
#
# Usage: scripts/bench_alloc.sh [build-dir]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-${SERENITY_BUILD_DIR:-$root/build}}"
tool="$build/bin/serenity-alloc"
bench="$root/../shared/bench"
limit="${BENCH_TIME_LIMIT:-10}"
[ -x "$tool" ] || { echo "bench_alloc: $tool not built (ninja -C $build serenity-alloc)" >&2; exit 1; }
[ -d "$bench" ] || { echo "bench_alloc: $bench not found" >&2; exit 1; }

# Runs serenity-alloc, prints its one-line summary (stderr) or "FAIL: msg".
summary() {
  local out
  if out="$("$tool" "$@" -o /dev/null 2>&1)"; then
    echo "$out" | tail -1
  else
    echo "FAIL: $out" | tail -1
  fi
}
field() { # field NAME SUMMARY -> value after "NAME "
  sed -n "s/.*$1 \([^,]*\).*/\1/p" <<<"$2"
}

echo "| instance | buffers | lower bound | greedy | best-fit | capacity | exact at capacity | time (s) | exact minimize | proven | time (s) |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|"
for file in "$bench"/minimalloc/*.csv "$bench"/tflm_planner/*.csv; do
  name="$(basename "$file" .csv)"
  capacity="$(sed -n 's/.*\.\([0-9][0-9]*\)$/\1/p' <<<"$name")"
  greedy="$(summary "$file" --algorithm greedy-size)"
  bestfit="$(summary "$file" --algorithm best-fit)"
  capArena="-"; capTime="-"
  if [ -n "$capacity" ]; then
    s="$(summary "$file" --capacity "$capacity" --time-limit "$limit")"
    if [[ "$s" == FAIL* ]]; then capArena="not found"; else
      capArena="$(field arena "$s")"; capTime="$(field time "$s" | sed 's/ s$//')"; fi
  else
    capacity="-"
  fi
  m="$(summary "$file" --time-limit "$limit")"
  proven="$(field 'proven optimal' "$m" | sed 's/ (time limit reached)//')"
  echo "| $name | $(field buffers "$greedy") | $(field 'lower bound' "$greedy") |" \
       "$(field arena "$greedy") | $(field arena "$bestfit") | $capacity | $capArena | $capTime |" \
       "$(field arena "$m") | $proven | $(field time "$m" | sed 's/ s$//') |"
done
