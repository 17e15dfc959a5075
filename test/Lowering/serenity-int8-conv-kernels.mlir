// serenity-int8-conv-kernels on a DS-CNN (conv 10x4 with one input channel,
// depthwise 3x3, pointwise 1x1) after the memref-level pipeline: every int8
// convolution becomes a kernel; on Cortex-M the pointwise filters are read
// from int16 copies (SMLAD pair order), the depthwise ones per byte lane.
// RUN: %python -m serenity gen kws-dscnn --dtype i8 -o %t.mlir
// RUN: serenity-opt %t.mlir --serenity-pipeline="lower-to-llvm=false target=cortex-m conv-kernels=loops tile-channels=4" 2>/dev/null > %t.memref.mlir
// RUN: serenity-opt %t.memref.mlir --serenity-int8-conv-kernels | FileCheck %s
// RUN: serenity-opt %t.memref.mlir --serenity-int8-conv-kernels=target=generic | FileCheck %s --check-prefix=GENERIC
// RUN: not serenity-opt %t.memref.mlir --serenity-int8-conv-kernels=target=x86 2>&1 | FileCheck %s --check-prefix=BAD
// A flash budget for the widened copies: none, or the 256 bytes of one
// pointwise filter tile (the five are equal: one is taken).
// RUN: serenity-opt %t.memref.mlir --serenity-int8-conv-kernels=widen-budget=0 | FileCheck %s --check-prefix=B0 --implicit-check-not=_smlad
// RUN: serenity-opt %t.memref.mlir --serenity-int8-conv-kernels=widen-budget=256 | FileCheck %s --check-prefix=B256
// RUN: not serenity-opt %t.memref.mlir --serenity-int8-conv-kernels=widen-budget=-3 2>&1 | FileCheck %s --check-prefix=BADBUDGET
// RUN: not serenity-opt %t.mlir --serenity-pipeline="widen-budget=-3" 2>&1 | FileCheck %s --check-prefix=BADBUDGET
// A per-layer decision: exactly the filters named (each copy says which
// int8 global it stands for); a name that is not a widenable filter is an
// error naming those that are.
// RUN: serenity-opt %t.memref.mlir --serenity-int8-conv-kernels="widen-filters=__constant_4x1x1x64xi8,__constant_4x1x1x64xi8_2" | FileCheck %s --check-prefix=WF
// RUN: not serenity-opt %t.memref.mlir --serenity-int8-conv-kernels="widen-filters=__constant_4x1x1x64xi8,nope" 2>&1 | FileCheck %s --check-prefix=BADWF
// RUN: serenity-opt %t.mlir --serenity-pipeline="lower-to-llvm=false target=cortex-m widen-filters=__constant_4x1x1x64xi8_1" 2>/dev/null > %t.wf.mlir
// RUN: FileCheck %s --check-prefix=WFPIPE < %t.wf.mlir
// RUN: grep -c 'memref.global .*_smlad :' %t.wf.mlir | FileCheck %s --check-prefix=WFCOUNT
// In the pipeline (before static allocation) each kernel is fused with its
// accumulator tile's bias and requantization: no tile buffer is left.
// RUN: serenity-opt %t.mlir --serenity-pipeline="lower-to-llvm=false target=cortex-m" 2>/dev/null | FileCheck %s --check-prefix=FUSED --implicit-check-not="memref<1x1x1x4xi32>" --implicit-check-not="memref<1x1x1x4x1xi32>"
// The pipeline runs the pass by default on cortex-m only.
// RUN: serenity-opt %t.mlir --serenity-pipeline="target=cortex-m" 2>/dev/null | FileCheck %s --check-prefix=PIPE
// RUN: serenity-opt %t.mlir --serenity-pipeline="target=host" 2>/dev/null | FileCheck %s --check-prefix=HOST
// RUN: not serenity-opt %t.mlir --serenity-pipeline="conv-kernels=simd" 2>&1 | FileCheck %s --check-prefix=BADPIPE

// CHECK-DAG: memref.global "private" constant @{{.*}}_smlad : memref<{{[0-9]+}}xi16> = dense<{{.*}}> {alignment = 8 : i64, serenity.widened_from = @{{.*}}}
// CHECK-DAG: llvm.call_intrinsic "llvm.arm.sxtb16"
// CHECK-DAG: llvm.call_intrinsic "llvm.arm.smlad"
// CHECK-DAG: llvm.call_intrinsic "llvm.arm.smlabb"
// CHECK-DAG: llvm.call_intrinsic "llvm.arm.smlatt"
// CHECK-NOT: linalg.conv_2d
// CHECK-NOT: linalg.depthwise_conv_2d

// GENERIC: memref.global "private" constant @{{.*}}_smlad : memref<{{[0-9]+}}xi16>
// GENERIC-NOT: llvm.call_intrinsic
// GENERIC-NOT: linalg.conv_2d
// GENERIC-NOT: linalg.depthwise_conv_2d

// BAD: for the --target option: invalid value 'x86' (expected one of: cortex-m, helium, cortex-m-baseline, riscv32, generic, generic-vector)

// WF-DAG: memref.global "private" constant @__constant_4x1x1x64xi8_smlad : memref<256xi16> = dense<{{.*}}> {alignment = 8 : i64, serenity.widened_from = @__constant_4x1x1x64xi8}
// WF-DAG: memref.global "private" constant @__constant_4x1x1x64xi8_2_smlad : memref<256xi16> = dense<{{.*}}> {alignment = 8 : i64, serenity.widened_from = @__constant_4x1x1x64xi8_2}
// WF-NOT: constant @__constant_4x1x1x64xi8_{{[0-9]}}_smlad :

// BADWF: error: serenity-int8-conv-kernels: widen-filters: 'nope' is not a filter global a widened kernel reads (the widenable ones: __constant_4x1x1x64xi8

// WFPIPE: memref.global "private" constant @__constant_4x1x1x64xi8_1_smlad :
// WFCOUNT: {{^}}1{{$}}

// B0: llvm.call_intrinsic "llvm.arm.smlad"
// B256-COUNT-1: memref.global "private" constant @{{.*}}_smlad : memref<256xi16>
// B256-NOT: memref.global "private" constant @{{.*}}_smlad
// BADBUDGET: error: serenity-{{int8-conv-kernels|pipeline}}: widen-budget must be >= 0 bytes, -1 (no limit) or -2 (auto)

// FUSED: llvm.call_intrinsic "llvm.arm.smlad"
// PIPE: llvm.call_intrinsic "llvm.arm.smlad"
// HOST-NOT: llvm.call_intrinsic
// BADPIPE: for the --conv-kernels option: invalid value 'simd' (expected one of: auto, loops, dot)
