#!/usr/bin/env bash
# Regenerates docs/generated/ (dialect and pass docs from ODS) from a build.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${SERENITY_BUILD_DIR:-$root/build}"
cmake --build "$build" --target mlir-doc
mkdir -p "$root/docs/generated"
cp "$build/docs/Dialects/SerenityDialect.md" "$root/docs/generated/SerenityDialect.md"
cp "$build/docs/Passes/SerenityGraphPasses.md" "$root/docs/generated/SerenityGraphPasses.md"
cp "$build/docs/Passes/SerenityLoweringPasses.md" "$root/docs/generated/SerenityLoweringPasses.md"
echo "updated docs/generated/"
