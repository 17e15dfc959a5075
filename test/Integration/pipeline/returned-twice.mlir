// A function that returns the same value twice, and one of its arguments:
// valid IR that upstream buffer-results-to-out-params crashed on.
// serenity-prepare-input gives the repeated result its own copy; outputs
// equal the reference lowering, with both arena kinds and io=arena.
// RUN: %python %integration/compare_lowering.py %s | FileCheck %s
// RUN: %python %integration/compare_lowering.py %s --options "io=arena arena=argument" | FileCheck %s
// RUN: %python %integration/compare_lowering.py %s --options "schedule=none" | FileCheck %s
// The in-place concat modes run eliminate-empty-tensors, which must not fold
// the repeated result's copy away (it crashed buffer-results-to-out-params).
// RUN: %python %integration/compare_lowering.py %s --options "concat=auto tile=none" | FileCheck %s
// RUN: %python %integration/compare_lowering.py %s --options "concat=inplace" | FileCheck %s
// CHECK: output 0: {{.*}}, 0 beyond tolerance
// CHECK: output 1: {{.*}}, 0 beyond tolerance
// CHECK: output 2: {{.*}}, 0 beyond tolerance
// CHECK: PASS

func.func @main(%a: tensor<1x4x4x2xf32>) -> (tensor<1x4x4x2xf32>, tensor<1x4x4x2xf32>, tensor<1x4x4x2xf32>) {
  %e = tosa.exp %a : (tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32>
  return %e, %e, %a : tensor<1x4x4x2xf32>, tensor<1x4x4x2xf32>, tensor<1x4x4x2xf32>
}
