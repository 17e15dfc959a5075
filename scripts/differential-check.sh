#!/usr/bin/env bash
# Differential check of serenity-pipeline against the upstream reference
# lowering on many seeded random networks (test/Integration/compare_lowering.py
# per network and option set). Slower than the test suite; prints one line per
# mismatch and a count at the end; exits non-zero on any mismatch.
# Usage: scripts/differential-check.sh [SEEDS]   (default 12)
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${SERENITY_BUILD_DIR:-$root/build}"
export PATH="$build/bin:$PATH" PYTHONPATH="$root/python"
seeds="${1:-12}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
networks=(
  "random-dag --param nodes=14 --param resolution=8"
  "randwire-stage --channels 4 --resolution 8"
  "random-dag --param nodes=10 --param resolution=8 --dtype i8"
)
option_sets=(
  ""
  "rewrite=all concat=inplace accumulate-in-place=1"
  "schedule=greedy alloc=best-fit arena=argument"
  "rewrite=profitable alloc=greedy-size fuse-requantization=0"
)
runs=0
bad=0
for ((seed = 0; seed < seeds; ++seed)); do
  for net in "${networks[@]}"; do
    # shellcheck disable=SC2086
    /usr/bin/python3 -m serenity gen $net --seed "$seed" --weights random -o "$work/net.mlir" || {
      echo "generator failed: $net --seed $seed"; bad=$((bad + 1)); continue; }
    tol=(--atol 1e-4 --rtol 1e-4)
    [[ "$net" == *i8* ]] && tol=(--atol 0 --rtol 0)
    for options in "${option_sets[@]}"; do
      runs=$((runs + 1))
      result="$(/usr/bin/python3 "$root/test/Integration/compare_lowering.py" "$work/net.mlir" \
        --options "$options" "${tol[@]}" 2>&1 | tail -n 1)"
      if [ "$result" != "PASS" ]; then
        bad=$((bad + 1))
        echo "MISMATCH seed=$seed network=[$net] options=[$options]: $result"
      fi
    done
  done
done
echo "$runs runs, $bad mismatches"
[ "$bad" -eq 0 ]
