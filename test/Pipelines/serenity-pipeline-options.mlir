// Options of serenity-pipeline: the allocation report, the Cortex-M index
// width, stopping on memref, and bad values.
// RUN: serenity-opt %serenity_src/examples/residual_block.mlir --serenity-pipeline="lower-to-llvm=0 alloc-report=%t.json" -o %t.memref.mlir 2>/dev/null
// RUN: FileCheck %s --check-prefix=REPORT < %t.json
// RUN: FileCheck %s --check-prefix=MEMREF < %t.memref.mlir
// RUN: serenity-opt %serenity_src/examples/residual_block.mlir --serenity-pipeline="target=cortex-m" 2>/dev/null | FileCheck %s --check-prefix=CORTEX
// RUN: not serenity-opt %serenity_src/examples/residual_block.mlir --serenity-pipeline="target=riscv" 2>&1 | FileCheck %s --check-prefix=BADTARGET
// RUN: not serenity-opt %serenity_src/examples/residual_block.mlir --serenity-pipeline="alignment=48" 2>&1 | FileCheck %s --check-prefix=BADALIGN
// RUN: not serenity-opt %serenity_src/examples/residual_block.mlir --serenity-pipeline="alloc=first-fit" 2>&1 | FileCheck %s --check-prefix=BADALLOC
// RUN: not serenity-opt %serenity_src/examples/residual_block.mlir --serenity-pipeline="tile=spatial" 2>&1 | FileCheck %s --check-prefix=BADTILE
// RUN: not serenity-opt %serenity_src/examples/residual_block.mlir --serenity-pipeline="tile=ffmt concat=copy" 2>&1 | FileCheck %s --check-prefix=TILECOPY
// RUN: not serenity-opt %serenity_src/examples/residual_block.mlir --serenity-pipeline="tile=fdt tile-max-mac-overhead=-1" 2>&1 | FileCheck %s --check-prefix=TILEMAC
// RUN: not serenity-opt %serenity_src/examples/residual_block.mlir --serenity-pipeline="outline-min-ops=-1" 2>&1 | FileCheck %s --check-prefix=OUTLINE
// RUN: not serenity-opt %serenity_src/examples/residual_block.mlir --serenity-pipeline="functions=mian" 2>&1 | FileCheck %s --check-prefix=NOFUNC
// RUN: not serenity-opt %serenity_src/examples/residual_block.mlir --serenity-pipeline="primitives=vector target=cortex-m" 2>&1 | FileCheck %s --check-prefix=VECTORM
// Tiling without a concat option uses concat=auto (the tiles are written in
// place into the region's output).
// RUN: serenity-opt %serenity_src/examples/residual_block.mlir --serenity-pipeline="tile=both lower-to-llvm=0" -o /dev/null 2>&1 | FileCheck %s --check-prefix=TILEAUTO

// REPORT: "arena_bytes":
// REPORT: "buffers":
// REPORT: "function": "main"
// REPORT: "lower_bound":

// The output is an out-parameter, intermediates are views into the arena.
// MEMREF: memref.global "private" @{{.*}} : memref<{{[0-9]+}}xi8>
// MEMREF: func.func @main(%{{.*}}: memref<1x16x16x16xf32>, %{{.*}}: memref<1x16x16x16xf32>)
// MEMREF-SAME: serenity.arena_bytes
// MEMREF-NOT: memref.alloc(
// MEMREF: memref.view
// MEMREF-NOT: memref.alloc(
// MEMREF: return

// 32-bit index: memref descriptors carry i32 offsets and sizes.
// CORTEX: llvm.func @main(%{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr, %{{.*}}: i32
// CORTEX-NOT: llvm.call @malloc

// BADTARGET: for the --target option: invalid value 'riscv' (expected one of: host, cortex-m, cortex-m-helium, cortex-m-baseline, riscv32)
// BADTARGET: serenity-pipeline: invalid options
// BADALIGN: serenity-pipeline: alignment must be a power of two
// BADTILE: for the --tile option: invalid value 'spatial' (expected one of: none, ffmt, fdt, both)
// TILECOPY: serenity-pipeline: tile=ffmt needs concat=auto or concat=inplace (the tiles are written into their slice of the output)
// TILEMAC: serenity-pipeline: tile-max-mac-overhead must be >= 0 (percent)
// OUTLINE: serenity-pipeline: outline-min-ops must be >= 0
// NOFUNC: error: serenity-pipeline: functions= names @mian, which is not a function defined in this module (defined: @main)
// TILEAUTO: serenity-tile: ffmt
// VECTORM: serenity-pipeline: primitives=vector needs a vector unit: target=host only
// BADALLOC: for the --alloc option: invalid value 'first-fit' (expected one of: exact, best-fit, greedy-size, none)
