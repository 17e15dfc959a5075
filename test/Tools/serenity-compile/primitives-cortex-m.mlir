// The int8 primitives on QEMU's Cortex-M4 (SMLAD kernels, im2col
// workspaces in the arena, direct loops): bit-exact with the reference.
// REQUIRES: cortex-m
// RUN: %python -m serenity gen resnet8 --dtype i8 --weights random --channels 8 --resolution 16 -o %t-i8.mlir
// RUN: %python %integration/run_compiled.py %t-i8.mlir --target cortex-m4 --pipeline "primitives=im2col" | FileCheck %s
// RUN: %python %integration/run_compiled.py %t-i8.mlir --target cortex-m4 --pipeline "primitives=direct" | FileCheck %s
// CHECK: cortex-m4 output 0: {{.*}}, max abs diff 0, 0 beyond tolerance
// CHECK: PASS
