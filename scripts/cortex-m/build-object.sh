#!/usr/bin/env bash
# Compiles a TOSA network to a Cortex-M4 object file (thumbv7em, hard float):
# serenity-pipeline{target=cortex-m} -> LLVM dialect -> LLVM IR -> clang.
#
# Usage: build-object.sh [-n NAME] [-p "pipeline options"] NET.mlir OUT.o
#   -n NAME  rename the network function @main to NAME (C's main is taken)
#   -p OPTS  extra serenity-pipeline options, e.g. "schedule=dp alloc=exact"
# The object defines the network function with the MLIR memref calling
# convention (each memref argument expands to allocated ptr, aligned ptr,
# offset, sizes, strides; index is 32-bit); outputs are out-parameters.
set -euo pipefail
usage() { echo "usage: $0 [-n NAME] [-p \"pipeline options\"] NET.mlir OUT.o" >&2; exit 2; }
name=""
options=""
while getopts "n:p:" flag; do
  case "$flag" in
    n) name="$OPTARG" ;;
    p) options="$OPTARG" ;;
    *) usage ;;
  esac
done
shift $((OPTIND - 1))
[ $# -eq 2 ] || usage
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="${SERENITY_BUILD_DIR:-$root/build}"
opt="${SERENITY_OPT:-$build/bin/serenity-opt}"
llvm_bin="$(llvm-config-22 --bindir)"
net="$1"
out="$2"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

if [ -n "$name" ]; then
  sed -E "s/@main\b/@$name/g" "$net" > "$tmp/net.mlir"
  net="$tmp/net.mlir"
fi
"$opt" "$net" --serenity-pipeline="target=cortex-m $options" -o "$tmp/net.llvm.mlir"
"$llvm_bin/mlir-translate" --mlir-to-llvmir "$tmp/net.llvm.mlir" -o "$tmp/net.ll"
"$llvm_bin/clang" --target=thumbv7em-none-eabi -mcpu=cortex-m4 -mfloat-abi=hard \
  -mfpu=fpv4-sp-d16 -O2 -Wno-override-module -c "$tmp/net.ll" -o "$out"
echo "wrote $out"
