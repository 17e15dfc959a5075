#!/usr/bin/env bash
# Installs the build into a fresh prefix, builds the external example
# project examples/embed against it with find_package(Serenity), and runs it
# on examples/residual_block.mlir. Usage: test-install.sh BUILD_DIR WORK_DIR
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$(cd "$1" && pwd)"
work="$2"
rm -rf "$work" && mkdir -p "$work"
cmake --install "$build" --prefix "$work/prefix" > "$work/install.log"
echo "installed: $(ls "$work/prefix/bin" | tr '\n' ' ')"
test -f "$work/prefix/lib/cmake/Serenity/SerenityConfig.cmake"
test -f "$work/prefix/include/Serenity/Pipelines/Pipelines.h"
test -f "$work/prefix/include/Serenity/Graph/Passes.h.inc"
test -f "$work/prefix/include/Serenity/Lowering/Passes.h.inc"
# The build's own compiler flags (e.g. sanitizers of SERENITY_SANITIZE=1),
# which the installed libraries need from their users too.
cxx_flags="$(sed -n 's/^CMAKE_CXX_FLAGS:STRING=//p' "$build/CMakeCache.txt")"
link_flags="$(sed -n 's/^CMAKE_EXE_LINKER_FLAGS:STRING=//p' "$build/CMakeCache.txt")"
launcher=()
command -v ccache > /dev/null && launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S "$root/examples/embed" -B "$work/embed" -G Ninja \
  -DCMAKE_C_COMPILER="$(llvm-config-22 --bindir)/clang" \
  -DCMAKE_CXX_COMPILER="$(llvm-config-22 --bindir)/clang++" \
  -DCMAKE_CXX_FLAGS="$cxx_flags" -DCMAKE_EXE_LINKER_FLAGS="-fuse-ld=lld $link_flags" \
  "${launcher[@]}" \
  -DSerenity_DIR="$work/prefix/lib/cmake/Serenity" > "$work/configure.log" 2>&1 ||
  { cat "$work/configure.log"; exit 1; }
grep "Using SerenityConfig.cmake in" "$work/configure.log"
cmake --build "$work/embed" > "$work/build.log" 2>&1 || { tail -30 "$work/build.log"; exit 1; }
"$work/embed/embed" "$root/examples/residual_block.mlir" "io=arena" -o "$work/out.mlir"
grep -c "llvm.func @" "$work/out.mlir" | sed 's/^/llvm.func definitions and declarations: /'
# The importer library from the installed tree: a .tflite model (a copy,
# away from the checkout) through serenity::tflite::importTFLite.
cp "$root/test/tflite-ops/models/conv_per_channel_stride2_same_relu6.tflite" "$work/conv.tflite"
"$work/embed/embed" "$work/conv.tflite" "io=arena" -o "$work/conv.mlir"
