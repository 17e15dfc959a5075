// RUN: serenity-opt %s --serenity-pipeline="schedule=none alloc=none lower-to-llvm=0" | FileCheck %s --check-prefix=COPY
// RUN: serenity-opt %s --serenity-pipeline="schedule=none alloc=none lower-to-llvm=0 concat=inplace" | FileCheck %s
// RUN: not serenity-opt %s --serenity-pipeline="concat=bogus" 2>&1 | FileCheck %s --check-prefix=BAD

// One concat of ten operands: eight produced by ops of every kind the memory
// model's concat=inplace treats as in place (conv2d, depthwise_conv2d,
// max_pool2d, avg_pool2d, exp, add, mul, clamp), one with a second user
// (tanh, also returned) and one graph input.
//
// copy (DESIGN.md default): every operand is copied into its slice.
// COPY-COUNT-10: linalg.copy
// COPY-NOT:      linalg.copy
//
// inplace: the eight producers write into subviews of the concat's buffer
// (here the caller's out-parameter %arg2); only the shared tanh result
// (returned: its out-parameter %arg3) and the input %arg0 are copied.
// CHECK:     func.func @net(%arg0: memref<1x4x4x2xf32>, %arg1: memref<1x4x4x2xf32>, %arg2: memref<1x4x4x20xf32>, %arg3: memref<1x4x4x2xf32>)
// CHECK:     %[[S0:.*]] = memref.subview %arg2[0, 0, 0, 0] [1, 4, 4, 2]
// CHECK:     linalg.conv_2d_nhwc_fhwc {{.*}} outs(%[[S0]]
// CHECK-NOT: linalg.copy ins(%alloc
// CHECK:     linalg.copy ins(%arg3 : memref<1x4x4x2xf32>) outs(%{{.*}} : memref<1x4x4x2xf32, strided<[320, 80, 20, 1], offset: 16>>)
// CHECK:     linalg.copy ins(%arg0 : memref<1x4x4x2xf32>) outs(%{{.*}} : memref<1x4x4x2xf32, strided<[320, 80, 20, 1], offset: 18>>)
// CHECK-NOT: linalg.copy
//
// BAD: for the --concat option: invalid value 'bogus' (expected one of: copy, inplace, auto)
// BAD: serenity-pipeline: invalid options
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
