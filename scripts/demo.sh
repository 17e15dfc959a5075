#!/usr/bin/env bash
# The main job on the bundled example: set up, build, then walk the example
# network through Serenity: memory model, optimal schedule, static arena,
# execution against the upstream reference lowering, and a Cortex-M4 object.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${SERENITY_BUILD_DIR:-$root/build}"
"$root/scripts/setup.sh" "$build"
example="${1:-$root/examples/residual_block.mlir}"
opt="$build/bin/serenity-opt"
out="$build/demo"
mkdir -p "$out"
export PATH="$build/bin:$PATH"

echo "== 1. memory model of $example as written (serenity-memory-report)"
"$opt" "$example" --serenity-memory-report -o /dev/null
echo
echo "== 2. optimal schedule (serenity-schedule, DP): the serenity.schedule attribute"
"$opt" "$example" --serenity-schedule | grep -o 'serenity.schedule = {[^}]*}'
echo
echo "== 2b. on an irregular network (a RandWire stage from python/, seed 1) the order matters:"
PYTHONPATH="$root/python" /usr/bin/python3 -m serenity gen randwire-stage --channels 8 --resolution 16 \
  --seed 1 -o "$out/randwire.mlir"
echo "peak as written: $("$opt" "$out/randwire.mlir" --serenity-memory-report -o /dev/null | sed -n 2p)"
"$opt" "$out/randwire.mlir" --serenity-schedule 2>/dev/null | grep -o 'serenity.schedule = {[^}]*}'
echo
echo "== 3. full pipeline to LLVM with one static arena (serenity-pipeline; fused tiling on by default)"
"$opt" "$example" --serenity-pipeline="lower-to-llvm=0 tile=none" -o "$out/memref-untiled.mlir" 2>/dev/null
echo "without tiling: $(grep -o 'serenity.arena_bytes = [0-9]*' "$out/memref-untiled.mlir")"
"$opt" "$example" --serenity-pipeline="lower-to-llvm=0" -o "$out/memref.mlir" 2>&1 | grep -o 'serenity-tile: .*' || true
grep -o 'serenity.arena_bytes = [0-9]*\|serenity.arena_lower_bound = [0-9]*' "$out/memref.mlir"
"$opt" "$example" --serenity-pipeline -o "$out/llvm.mlir"
echo "LLVM dialect written to $out/llvm.mlir; malloc calls: $(grep -c 'llvm.call @malloc' "$out/llvm.mlir" || true)"
echo
echo "== 4. execute: serenity-pipeline vs the upstream reference lowering (mlir-runner)"
/usr/bin/python3 "$root/test/Integration/compare_lowering.py" "$example"
echo
echo "== 5. Cortex-M4 object (thumbv7em, hard float)"
"$root/scripts/cortex-m/build-object.sh" -n net "$example" "$out/net-cortex-m4.o"
