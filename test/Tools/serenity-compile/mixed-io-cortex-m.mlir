// Inputs/mixed-io.mlir (two inputs and two outputs, float32 next to int8) on
// QEMU's Cortex-M4: linked with the report's link_flags (-lm: expf, and
// roundf from the expanded float-to-int rounding), the outputs equal the
// upstream reference lowering's on the host.
// REQUIRES: cortex-m
// RUN: %python %integration/run_compiled.py %S/Inputs/mixed-io.mlir --target cortex-m4 --atol 1e-6 --rtol 1e-5 | FileCheck %s
// RUN: %python %integration/run_compiled.py %S/Inputs/mixed-io.mlir --target cortex-m4 --io caller --atol 1e-6 --rtol 1e-5 | FileCheck %s
// CHECK: undefined symbols of the object: expf roundf
// CHECK: cortex-m4 output 0: 8 elements, {{.*}}, 0 beyond tolerance
// CHECK: cortex-m4 output 1: 8 elements, {{.*}}, 0 beyond tolerance
// CHECK: PASS
