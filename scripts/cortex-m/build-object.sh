#!/usr/bin/env bash
# Compiles a TOSA network to a Cortex-M object file (hard float):
# serenity-pipeline{target=cortex-m or cortex-m-helium} -> LLVM dialect ->
# LLVM IR -> clang. (serenity-compile does the same in one tool.)
#
# Usage: build-object.sh [-c CPU] [-n NAME] [-p "pipeline options"] NET.mlir OUT.o
#   -c CPU   cortex-m4 (default: thumbv7em, DSP kernels) or cortex-m55
#            (thumbv8.1-m, Helium kernels)
#   -n NAME  rename the network function @main to NAME (C's main is taken)
#   -p OPTS  extra serenity-pipeline options, e.g. "schedule=dp alloc=exact"
# The object defines the network function with the MLIR memref calling
# convention (each memref argument expands to allocated ptr, aligned ptr,
# offset, sizes, strides; index is 32-bit); outputs are out-parameters.
set -euo pipefail
usage() { echo "usage: $0 [-c cortex-m4|cortex-m55] [-n NAME] [-p \"pipeline options\"] NET.mlir OUT.o" >&2; exit 2; }
name=""
options=""
cpu="cortex-m4"
while getopts "c:n:p:" flag; do
  case "$flag" in
    c) cpu="$OPTARG" ;;
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
case "$cpu" in
  cortex-m4) target="cortex-m"; clang_flags=(--target=thumbv7em-none-eabi -mcpu=cortex-m4 -mfpu=fpv4-sp-d16) ;;
  cortex-m55) target="cortex-m-helium"; clang_flags=(--target=thumbv8.1m.main-none-eabi -mcpu=cortex-m55) ;;
  *) echo "error: -c takes cortex-m4 or cortex-m55, not '$cpu'" >&2; exit 2 ;;
esac
"$opt" "$net" --serenity-pipeline="target=$target $options" -o "$tmp/net.llvm.mlir"
"$llvm_bin/mlir-translate" --mlir-to-llvmir "$tmp/net.llvm.mlir" -o "$tmp/net.ll"
"$llvm_bin/clang" "${clang_flags[@]}" -mfloat-abi=hard -O2 -Wno-override-module -c "$tmp/net.ll" -o "$out"
echo "wrote $out"
