#!/usr/bin/env bash
# The main job on the bundled example: set up, build, then annotate the
# example network's activation lifetimes and print its memory report.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${SERENITY_BUILD_DIR:-$root/build}"
"$root/scripts/setup.sh" "$build"
example="${1:-$root/examples/residual_block.mlir}"
opt="$build/bin/serenity-opt"

echo "== $example: activation lifetimes and peak (serenity-annotate-lifetimes)"
"$opt" "$example" --serenity-annotate-lifetimes
echo
echo "== memory report (serenity-memory-report)"
"$opt" "$example" --serenity-memory-report -o /dev/null
