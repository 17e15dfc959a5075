// RUN: python3 %S/compare_rewrite.py %s --mode all --concat inplace --min-rewrites 0 | FileCheck %s

// Executes the network of test/Pipelines/serenity-pipeline-concat.mlir
// lowered with the reference pipeline (copies) and with serenity-pipeline
// concat=inplace (eight of ten operands produced in place) and compares.
// The reference copies the ten operands and its two results into the
// out-parameters (12); serenity-pipeline the shared operand and the input.
// CHECK: original: 12 copies after bufferization
// CHECK: rewritten: 2 copies after bufferization
// CHECK: output 0: 320 elements {{.*}} 0 beyond tolerance
// CHECK: output 1: 32 elements {{.*}} 0 beyond tolerance
// CHECK: PASS

func.func @net(%x: tensor<1x4x4x2xf32>, %y: tensor<1x4x4x2xf32>) -> (tensor<1x4x4x20xf32>, tensor<1x4x4x2xf32>) {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %w = "tosa.const"() <{values = dense<[[[[1.0, 2.0]]], [[[-1.0, 0.5]]]]> : tensor<2x1x1x2xf32>}> : () -> tensor<2x1x1x2xf32>
  %dw = "tosa.const"() <{values = dense<[[[[1.5], [-2.0]]]]> : tensor<1x1x2x1xf32>}> : () -> tensor<1x1x2x1xf32>
  %b = "tosa.const"() <{values = dense<[0.25, -0.25]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %conv = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x4x4x2xf32>, tensor<2x1x1x2xf32>, tensor<2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x4x2xf32>
  %dwc = tosa.depthwise_conv2d %x, %dw, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x4x4x2xf32>, tensor<1x1x2x1xf32>, tensor<2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x4x2xf32>
  %max = tosa.max_pool2d %y {kernel = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32>
  %avg = tosa.avg_pool2d %x, %zp, %zp {acc_type = f32, kernel = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x4x4x2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x4x2xf32>
  %exp = tosa.exp %y : (tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32>
  %add = tosa.add %x, %y : (tensor<1x4x4x2xf32>, tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32>
  %mul = tosa.mul %x, %y, %shift : (tensor<1x4x4x2xf32>, tensor<1x4x4x2xf32>, tensor<1xi8>) -> tensor<1x4x4x2xf32>
  %clamp = tosa.clamp %y {min_val = 0.0 : f32, max_val = 0.5 : f32} : (tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32>
  %shared = tosa.tanh %x : (tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32>
  %c = tosa.concat %conv, %dwc, %max, %avg, %exp, %add, %mul, %clamp, %shared, %x {axis = 3 : i32} : (tensor<1x4x4x2xf32>, tensor<1x4x4x2xf32>, tensor<1x4x4x2xf32>, tensor<1x4x4x2xf32>, tensor<1x4x4x2xf32>, tensor<1x4x4x2xf32>, tensor<1x4x4x2xf32>, tensor<1x4x4x2xf32>, tensor<1x4x4x2xf32>, tensor<1x4x4x2xf32>) -> tensor<1x4x4x20xf32>
  return %c, %shared : tensor<1x4x4x20xf32>, tensor<1x4x4x2xf32>
}
