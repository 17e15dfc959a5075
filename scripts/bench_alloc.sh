#!/usr/bin/env bash
# Benchmarks serenity-alloc on ../shared/bench (MiniMalloc's challenging
# instances and TFLite Micro's planner tests) and prints a markdown table.
#
#   greedy, best-fit: arena of each heuristic.
#   capacity: exact search for a placement within the capacity in the file
#             name (X.<capacity>.csv, as in the MiniMalloc paper); its time.
#   minimize: exact search for the smallest arena (--work-limit steps, the
#             tool's default unless env BENCH_WORK_LIMIT is set); proven =
#             optimal proven.
# Times are wall-clock seconds inside the allocator (serenity-alloc's own
# measurement, excluding CSV I/O), Release build.
#
# A second table does the same for the python/ networks through
# --serenity-static-alloc (skip with BENCH_NETWORKS=0).
#
# Usage: scripts/bench_alloc.sh [build-dir]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${1:-${SERENITY_BUILD_DIR:-$root/build}}"
tool="$build/bin/serenity-alloc"
bench="$root/../shared/bench"
limit="${BENCH_WORK_LIMIT:-}"
limitOption=()
[ -n "$limit" ] && limitOption=(--work-limit "$limit")
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
    s="$(summary "$file" --capacity "$capacity" "${limitOption[@]}")"
    if [[ "$s" == FAIL* ]]; then capArena="not found"; else
      capArena="$(field arena "$s")"; capTime="$(field time "$s" | sed 's/ s$//')"; fi
  else
    capacity="-"
  fi
  m="$(summary "$file" "${limitOption[@]}")"
  proven="$(field 'proven optimal' "$m" | sed 's/ (.*//')"
  echo "| $name | $(field buffers "$greedy") | $(field 'lower bound' "$greedy") |" \
       "$(field arena "$greedy") | $(field arena "$bestfit") | $capacity | $capArena | $capTime |" \
       "$(field arena "$m") | $proven | $(field time "$m" | sed 's/ s$//') |"
done

# Second table: networks from python/ (serenity gen), bufferized with the
# upstream pipeline of ../shared/MLIR22.md, then --serenity-static-alloc
# with each algorithm (alignment 64, the default work-limit per function).
[ "${BENCH_NETWORKS:-1}" = 1 ] || exit 0
opt="$build/bin/serenity-opt"
[ -x "$opt" ] || { echo "bench_alloc: $opt not built; skipping networks" >&2; exit 0; }
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
bufferize='builtin.module(func.func(tosa-to-linalg-named,tosa-to-linalg,tosa-to-arith{include-apply-rescale=true},tosa-to-tensor),canonicalize,one-shot-bufferize{bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map},canonicalize,buffer-results-to-out-params{hoist-static-allocs modify-public-functions})'
echo
echo "| network | buffers | no reuse | greedy-size | best-fit | exact | lower bound | exact proven | exact time (s) |"
echo "|---|---:|---:|---:|---:|---:|---:|---|---:|"
for net in resnet8 kws-dscnn vww mobilenetv2 darts-normal randwire-stage random-dag fire-module inception-module densenet-block fc-autoencoder; do
  PYTHONPATH="$root/python" /usr/bin/python3 -m serenity gen "$net" -o "$work/$net.mlir"
  "$opt" "$work/$net.mlir" --pass-pipeline="$bufferize" -o "$work/$net.buf.mlir"
  row="| $net "
  for algo in greedy-size best-fit exact; do
    start="$(date +%s.%N)"
    "$opt" "$work/$net.buf.mlir" --serenity-static-alloc="algorithm=$algo report=$work/$algo.json" -o /dev/null 2>/dev/null
    end="$(date +%s.%N)"
    row="$row|$(/usr/bin/python3 - "$work/$algo.json" "$algo" "$start" "$end" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
sizes = [b["size"] for b in d["buffers"]]
if sys.argv[2] == "greedy-size":
    print(" %d | %d | %d " % (len(sizes), sum(sizes), d["arena_bytes"]), end="")
elif sys.argv[2] == "best-fit":
    print(" %d " % d["arena_bytes"], end="")
else:
    print(" %d | %d | %s | %.2f " % (d["arena_bytes"], d["lower_bound"],
          "yes" if d["proven_optimal"] else "no", float(sys.argv[4]) - float(sys.argv[3])), end="")
PY
)"
  done
  echo "$row|"
done
