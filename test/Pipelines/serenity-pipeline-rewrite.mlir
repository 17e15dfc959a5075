// RUN: serenity-opt %s --serenity-pipeline="tile=none rewrite=profitable schedule=dp alloc=none lower-to-llvm=0 accumulate-in-place=1" | FileCheck %s
// RUN: serenity-opt %s --serenity-pipeline="tile=none schedule=dp alloc=none lower-to-llvm=0" | FileCheck %s --check-prefix=NONE
// RUN: not serenity-opt %s --serenity-pipeline="tile=none rewrite=bogus" 2>&1 | FileCheck %s --check-prefix=BAD

// The network of @profitable in test/Graph/serenity-rewrite.mlir: with
// rewrite=profitable the final conv over the concat becomes two partial
// convs, the second accumulating into the first (accumulate-in-place), and
// no concat copy is left.
// CHECK-COUNT-4: linalg.conv_2d_nhwc_fhwc
// CHECK-NOT:     linalg.conv_2d_nhwc_fhwc
// CHECK-NOT:     linalg.copy
//
// NONE-COUNT-3: linalg.conv_2d_nhwc_fhwc
// NONE-NOT:     linalg.conv_2d_nhwc_fhwc
//
// BAD: for the --rewrite option: invalid value 'bogus' (expected one of: none, profitable, all)
func.func @net(%x: tensor<1x8x8x2xf32>) -> tensor<1x8x8x2xf32> {
  %wa = "tosa.const"() <{values = dense<[[[[1.0, 2.0]]], [[[3.0, 4.0]]], [[[5.0, 6.0]]], [[[7.0, 8.0]]], [[[1.5, 2.5]]], [[[3.5, 4.5]]], [[[5.5, 6.5]]], [[[7.5, 8.5]]]]> : tensor<8x1x1x2xf32>}> : () -> tensor<8x1x1x2xf32>
  %w = "tosa.const"() <{values = dense<0.125> : tensor<2x1x1x16xf32>}> : () -> tensor<2x1x1x16xf32>
  %b8 = "tosa.const"() <{values = dense<0.0> : tensor<8xf32>}> : () -> tensor<8xf32>
  %b2 = "tosa.const"() <{values = dense<[1.0, 2.0]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %a = tosa.conv2d %x, %wa, %b8, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x8x8x2xf32>, tensor<8x1x1x2xf32>, tensor<8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x8x8xf32>
  %b = tosa.conv2d %x, %wa, %b8, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x8x8x2xf32>, tensor<8x1x1x2xf32>, tensor<8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x8x8xf32>
  %c = tosa.concat %a, %b {axis = 3 : i32} : (tensor<1x8x8x8xf32>, tensor<1x8x8x8xf32>) -> tensor<1x8x8x16xf32>
  %y = tosa.conv2d %c, %w, %b2, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x8x8x16xf32>, tensor<2x1x1x16xf32>, tensor<2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x8x2xf32>
  return %y : tensor<1x8x8x2xf32>
}
