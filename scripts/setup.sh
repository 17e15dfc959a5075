#!/usr/bin/env bash
# Installs what is missing (Debian 12), configures and builds Serenity.
# Idempotent: packages already present are skipped; the build is incremental.
# Usage: scripts/setup.sh [build-dir]   (default: build)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# SERENITY_SANITIZE=1: an ASan + UBSan build (default directory build-sanitize).
sanitize="${SERENITY_SANITIZE:-0}"
default_build="$root/build"
[ "$sanitize" = 1 ] && default_build="$root/build-sanitize"
build="${1:-${SERENITY_BUILD_DIR:-$default_build}}"

packages=(
  # toolchain and MLIR 22
  libmlir-22-dev mlir-22-tools llvm-22-dev llvm-22-tools clang-22 lld-22
  cmake ninja-build ccache libgtest-dev
  libglpk-dev # primitive selection ILP (serenity-select-primitives)
  libflatbuffers-dev # the TFLite importer reads .tflite flatbuffers (lib/Target/TFLite)
  # python/ (pure Python, driven by subprocess) and its tests
  python3 python3-numpy python3-matplotlib python3-networkx python3-pytest
  python3-flatbuffers
  # TFLite import check: Arm NN reference runtime (CpuRef is only a Recommends)
  python3-pyarmnn libarmnn-cpuref-backend22
  # Cortex-M: objects are built with clang-22; linking and QEMU runs need these
  gcc-arm-none-eabi libnewlib-arm-none-eabi qemu-system-arm
  # RISC-V (riscv32-imc, riscv32-imac): linking with picolibc, QEMU's virt
  gcc-riscv64-unknown-elf picolibc-riscv64-unknown-elf qemu-system-misc
)

# The sanitizer runtimes (compiler-rt) for SERENITY_SANITIZE=1.
[ "$sanitize" = 1 ] && packages+=(libclang-rt-22-dev)

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

llvm_bin="$(llvm-config-22 --bindir)"
llvm_lib="$(llvm-config-22 --libdir)"
launcher=()
if command -v ccache >/dev/null; then
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi
sanitizer=()
san="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined"
[ "$sanitize" = 1 ] && sanitizer=(-DCMAKE_C_FLAGS="$san" -DCMAKE_CXX_FLAGS="$san"
  -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined"
  -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=address,undefined")
if [ ! -f "$build/build.ninja" ]; then
  cmake -S "$root" -B "$build" -G Ninja \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER="$llvm_bin/clang" -DCMAKE_CXX_COMPILER="$llvm_bin/clang++" \
    -DLLVM_USE_LINKER=lld \
    -DMLIR_DIR="$llvm_lib/cmake/mlir" \
    -DLLVM_EXTERNAL_LIT="$llvm_bin/lit" \
    "${launcher[@]}" "${sanitizer[@]}"
fi
cmake --build "$build"
