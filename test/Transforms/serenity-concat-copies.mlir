// RUN: serenity-opt %s --serenity-concat-copies | FileCheck %s

// The unmarked concat gets a copy of each operand; the marked one (in place
// under concat=auto) is left alone.
// CHECK-LABEL: func.func @two
// CHECK:       %[[E0:.*]] = tensor.empty() : tensor<1x2x2x1xf32>
// CHECK:       %[[C0:.*]] = linalg.copy ins(%{{.*}} : tensor<1x2x2x1xf32>) outs(%[[E0]] : tensor<1x2x2x1xf32>)
// CHECK:       %[[E1:.*]] = tensor.empty() : tensor<1x2x2x1xf32>
// CHECK:       %[[C1:.*]] = linalg.copy ins(%{{.*}} : tensor<1x2x2x1xf32>) outs(%[[E1]] : tensor<1x2x2x1xf32>)
// CHECK:       tosa.concat %[[C0]], %[[C1]] {axis = 3 : i32}
// CHECK-NOT:   linalg.copy
// CHECK:       tosa.concat %{{.*}}, %{{.*}} {axis = 3 : i32, serenity.concat_inplace}
func.func @two(%a: tensor<1x2x2x1xf32>, %b: tensor<1x2x2x1xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) {
  %x = tosa.exp %a : (tensor<1x2x2x1xf32>) -> tensor<1x2x2x1xf32>
  %y = tosa.exp %b : (tensor<1x2x2x1xf32>) -> tensor<1x2x2x1xf32>
  %c = tosa.concat %x, %y {axis = 3 : i32} : (tensor<1x2x2x1xf32>, tensor<1x2x2x1xf32>) -> tensor<1x2x2x2xf32>
  %u = tosa.tanh %a : (tensor<1x2x2x1xf32>) -> tensor<1x2x2x1xf32>
  %v = tosa.tanh %b : (tensor<1x2x2x1xf32>) -> tensor<1x2x2x1xf32>
  %d = tosa.concat %u, %v {axis = 3 : i32, serenity.concat_inplace} : (tensor<1x2x2x1xf32>, tensor<1x2x2x1xf32>) -> tensor<1x2x2x2xf32>
  return %c, %d : tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>
}
