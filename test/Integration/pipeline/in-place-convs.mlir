// REQUIRES: cortex-m
// In-place depthwise and 1x1 convolutions (serenity-in-place-convs, on by
// default) executed: a DS-CNN whose depthwise and 1x1 layers all have one
// 7x5x6 shape, compiled by serenity-compile for the host, the Cortex-M4
// (QEMU mps2-an386) and the Cortex-M55 (mps3-an547, Helium kernels), every
// output element equal to the upstream reference lowering (mlir-runner) of
// the same TOSA; and serenity-pipeline with and without the option on the
// host against the same reference.
// RUN: %python %integration/compare_lowering.py %S/Inputs/ds-cnn-c6.mlir --atol 0 --rtol 0 | FileCheck %s
// RUN: %python %integration/compare_lowering.py %S/Inputs/ds-cnn-c6.mlir --atol 0 --rtol 0 --options "in-place-convs=0" | FileCheck %s
// RUN: %python %integration/compare_lowering.py %S/Inputs/ds-cnn-c6.mlir --atol 0 --rtol 0 --options "tile-channels=4" --seed 3 | FileCheck %s
// RUN: %python %integration/run_compiled.py %S/Inputs/ds-cnn-c6.mlir --target cortex-m4 --atol 0 --rtol 0 | FileCheck %s
// RUN: %python %integration/run_compiled.py %S/Inputs/ds-cnn-c6.mlir --target cortex-m4 --atol 0 --rtol 0 --seed 5 | FileCheck %s
// RUN: %python %integration/run_compiled.py %S/Inputs/ds-cnn-c6.mlir --target cortex-m55 --atol 0 --rtol 0 | FileCheck %s
// CHECK: output 0: {{.*}}, 0 beyond tolerance
// CHECK: PASS
// The arena: the 210-byte 7x5x6 activations once, plus a 105-byte scratch
// plane (7x5x3) for the depthwise convs, instead of twice (341 vs 434 bytes;
// the memory model's peak is 12 bytes below the arena's lower bound either
// way: a 3-channel int32 accumulator tile, which the Cortex-M kernels keep in
// memory rather than registers and the model does not count).
// RUN: serenity-opt %S/Inputs/ds-cnn-c6.mlir --serenity-pipeline="lower-to-llvm=0 target=cortex-m tile=none io=arena" | FileCheck %s --check-prefix=ARENA
// RUN: serenity-opt %S/Inputs/ds-cnn-c6.mlir --serenity-pipeline="lower-to-llvm=0 target=cortex-m tile=none io=arena in-place-convs=0" | FileCheck %s --check-prefix=COPY
// ARENA: serenity.arena_bytes = 341 : i64, serenity.arena_lower_bound = 339 : i64
// ARENA-SAME: peak_bytes = 327 : i64
// COPY: serenity.arena_bytes = 434 : i64, serenity.arena_lower_bound = 432 : i64
// COPY-SAME: peak_bytes = 420 : i64
