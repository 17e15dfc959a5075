// An int16 tosa.matmul accumulates in i48. MLIR's default data layout says an
// i48 takes 6 bytes, but LLVM (and so memref indexing in the lowered code)
// steps by 8: the arena must give each i48 buffer 8 bytes per element, or
// the buffer overlaps the next one (the results differed on Cortex-M before
// this was fixed). Outputs against the upstream reference lowering:
// REQUIRES: cortex-m
// RUN: %python %integration/run_compiled.py %s --target host | FileCheck %s
// RUN: %python %integration/run_compiled.py %s --target cortex-m4 | FileCheck %s
// RUN: %python %integration/run_compiled.py %s --target cortex-m55 | FileCheck %s
// RUN: serenity-compile %s --target cortex-m4 -o %t && FileCheck %s --check-prefix=JSON < %t/net.json
// CHECK: max abs diff 0, 0 beyond tolerance
// CHECK: PASS
// The i48 accumulator: 4 elements x 8 bytes.
// JSON: "size": 32
func.func @main(%a: tensor<4x1x5xi16>) -> tensor<4x1x1xi32> {
  %w = "tosa.const"() <{values = dense<[[[30000], [-32768], [32767], [-20000], [12345]], [[1], [2], [3], [4], [5]], [[-32768], [-32768], [-32768], [-32768], [-32768]], [[100], [-100], [1000], [-1000], [7]]]> : tensor<4x5x1xi16>}> : () -> tensor<4x5x1xi16>
  %z = "tosa.const"() <{values = dense<0> : tensor<1xi16>}> : () -> tensor<1xi16>
  %m = tosa.matmul %a, %w, %z, %z : (tensor<4x1x5xi16>, tensor<4x5x1xi16>, tensor<1xi16>, tensor<1xi16>) -> tensor<4x1x1xi48>
  %c = tosa.cast %m : (tensor<4x1x1xi48>) -> tensor<4x1x1xi32>
  return %c : tensor<4x1x1xi32>
}
