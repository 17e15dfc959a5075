// RUN: serenity-opt %s | FileCheck %s
// RUN: serenity-opt %s | serenity-opt | FileCheck %s
// RUN: serenity-opt %s --mlir-print-op-generic | serenity-opt | FileCheck %s

// CHECK-LABEL: func @roundtrip
// CHECK-SAME: serenity.test = #serenity.lifetime<bytes = 0, def = -1, last = -1>
// CHECK: tosa.exp
// CHECK-SAME: serenity.lifetime = [#serenity.lifetime<bytes = 4096, def = 0, last = 3>]
func.func @roundtrip(%arg0: tensor<1024xf32>) -> tensor<1024xf32>
    attributes {serenity.test = #serenity.lifetime<bytes = 0, def = -1, last = -1>} {
  %0 = tosa.exp %arg0 {serenity.lifetime = [#serenity.lifetime<bytes = 4096, def = 0, last = 3>]} : (tensor<1024xf32>) -> tensor<1024xf32>
  return %0 : tensor<1024xf32>
}
