// RUN: serenity-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(tosa-to-linalg-named,tosa-to-linalg,tosa-to-arith,tosa-to-tensor),canonicalize,func.func(serenity-accumulate-partial-sums),canonicalize)' | FileCheck %s

// Two partial convs summed (what channel-wise partitioning produces): the
// second one has a zero bias, so it accumulates into the first one's result
// and the add disappears.

// CHECK-LABEL: func.func @partial_sum
// CHECK:       %[[P0:.*]] = linalg.conv_2d_nhwc_fhwc {{.*}} ins(%arg0, %{{.*}}) outs(%{{.*}} : tensor<1x4x4x3xf32>)
// CHECK:       %[[P1:.*]] = linalg.conv_2d_nhwc_fhwc {{.*}} ins(%arg1, %{{.*}}) outs(%[[P0]] : tensor<1x4x4x3xf32>)
// CHECK-NOT:   addf
// CHECK:       return %[[P1]]
func.func @partial_sum(%arg0: tensor<1x4x4x2xf32>, %arg1: tensor<1x4x4x2xf32>) -> tensor<1x4x4x3xf32> {
  %w = "tosa.const"() <{values = dense<[[[[1.0, 2.0]]], [[[3.0, 4.0]]], [[[5.0, 6.0]]]]> : tensor<3x1x1x2xf32>}> : () -> tensor<3x1x1x2xf32>
  %b = "tosa.const"() <{values = dense<[1.0, 2.0, 3.0]> : tensor<3xf32>}> : () -> tensor<3xf32>
  %zero = "tosa.const"() <{values = dense<0.0> : tensor<3xf32>}> : () -> tensor<3xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %p0 = tosa.conv2d %arg0, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x4x4x2xf32>, tensor<3x1x1x2xf32>, tensor<3xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x4x3xf32>
  %p1 = tosa.conv2d %arg1, %w, %zero, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x4x4x2xf32>, tensor<3x1x1x2xf32>, tensor<3xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x4x3xf32>
  %s = tosa.add %p0, %p1 : (tensor<1x4x4x3xf32>, tensor<1x4x4x3xf32>) -> tensor<1x4x4x3xf32>
  return %s : tensor<1x4x4x3xf32>
}

// -----

// The zero-bias conv is the add's first operand: still accumulated.

// CHECK-LABEL: func.func @swapped
// CHECK:       %[[P0:.*]] = linalg.conv_2d_nhwc_fhwc {{.*}} ins(%arg0
// CHECK:       %[[P1:.*]] = linalg.conv_2d_nhwc_fhwc {{.*}} ins(%arg1, %{{.*}}) outs(%[[P0]] : tensor<1x4x4x3xf32>)
// CHECK:       return %[[P1]]
func.func @swapped(%arg0: tensor<1x4x4x2xf32>, %arg1: tensor<1x4x4x2xf32>) -> tensor<1x4x4x3xf32> {
  %w = "tosa.const"() <{values = dense<[[[[1.0, 2.0]]], [[[3.0, 4.0]]], [[[5.0, 6.0]]]]> : tensor<3x1x1x2xf32>}> : () -> tensor<3x1x1x2xf32>
  %b = "tosa.const"() <{values = dense<[1.0, 2.0, 3.0]> : tensor<3xf32>}> : () -> tensor<3xf32>
  %zero = "tosa.const"() <{values = dense<0.0> : tensor<3xf32>}> : () -> tensor<3xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %p0 = tosa.conv2d %arg0, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x4x4x2xf32>, tensor<3x1x1x2xf32>, tensor<3xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x4x3xf32>
  %p1 = tosa.conv2d %arg1, %w, %zero, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x4x4x2xf32>, tensor<3x1x1x2xf32>, tensor<3xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x4x3xf32>
  %s = tosa.add %p1, %p0 : (tensor<1x4x4x3xf32>, tensor<1x4x4x3xf32>) -> tensor<1x4x4x3xf32>
  return %s : tensor<1x4x4x3xf32>
}

// -----

// Kept: a non-zero bias on the second conv, an accumulator with a second
// user, and an accumulator computed after the conv.

// CHECK-LABEL: func.func @kept
// CHECK-COUNT-3: arith.addf
// CHECK-NOT:   arith.addf
// CHECK:       return
func.func @kept(%arg0: tensor<1x4x4x2xf32>, %arg1: tensor<1x4x4x2xf32>) -> (tensor<1x4x4x3xf32>, tensor<1x4x4x3xf32>, tensor<1x4x4x3xf32>, tensor<1x4x4x3xf32>) {
  %w = "tosa.const"() <{values = dense<[[[[1.0, 2.0]]], [[[3.0, 4.0]]], [[[5.0, 6.0]]]]> : tensor<3x1x1x2xf32>}> : () -> tensor<3x1x1x2xf32>
  %b = "tosa.const"() <{values = dense<[1.0, 2.0, 3.0]> : tensor<3xf32>}> : () -> tensor<3xf32>
  %zero = "tosa.const"() <{values = dense<0.0> : tensor<3xf32>}> : () -> tensor<3xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %p0 = tosa.conv2d %arg0, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x4x4x2xf32>, tensor<3x1x1x2xf32>, tensor<3xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x4x3xf32>
  %p1 = tosa.conv2d %arg1, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x4x4x2xf32>, tensor<3x1x1x2xf32>, tensor<3xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x4x3xf32>
  %s0 = tosa.add %p0, %p1 : (tensor<1x4x4x3xf32>, tensor<1x4x4x3xf32>) -> tensor<1x4x4x3xf32>
  %q0 = tosa.exp %s0 : (tensor<1x4x4x3xf32>) -> tensor<1x4x4x3xf32>
  %q1 = tosa.conv2d %arg1, %w, %zero, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x4x4x2xf32>, tensor<3x1x1x2xf32>, tensor<3xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x4x3xf32>
  %s1 = tosa.add %q0, %q1 : (tensor<1x4x4x3xf32>, tensor<1x4x4x3xf32>) -> tensor<1x4x4x3xf32>
  %r1 = tosa.conv2d %arg0, %w, %zero, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x4x4x2xf32>, tensor<3x1x1x2xf32>, tensor<3xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x4x3xf32>
  %r0 = tosa.tanh %s0 : (tensor<1x4x4x3xf32>) -> tensor<1x4x4x3xf32>
  %s2 = tosa.add %r0, %r1 : (tensor<1x4x4x3xf32>, tensor<1x4x4x3xf32>) -> tensor<1x4x4x3xf32>
  return %s1, %q0, %s2, %s0 : tensor<1x4x4x3xf32>, tensor<1x4x4x3xf32>, tensor<1x4x4x3xf32>, tensor<1x4x4x3xf32>
}

// -----

// Integer partial sums (i8 x i8 -> i32 with zero points) accumulate too: the
// quantized conv adds its products to the init exactly.

// CHECK-LABEL: func.func @int8
// CHECK:       %[[P0:.*]] = linalg.conv_2d_nhwc_fhwc_q {{.*}} ins(%arg0
// CHECK:       linalg.conv_2d_nhwc_fhwc_q {{.*}} ins(%arg1, %{{.*}}) outs(%[[P0]] : tensor<1x4x4x3xi32>)
// CHECK-NOT:   arith.addi
func.func @int8(%arg0: tensor<1x4x4x2xi8>, %arg1: tensor<1x4x4x2xi8>) -> tensor<1x4x4x3xi32> {
  %w = "tosa.const"() <{values = dense<[[[[1, 2]]], [[[3, 4]]], [[[5, 6]]]]> : tensor<3x1x1x2xi8>}> : () -> tensor<3x1x1x2xi8>
  %b = "tosa.const"() <{values = dense<[10, 20, 30]> : tensor<3xi32>}> : () -> tensor<3xi32>
  %zero = "tosa.const"() <{values = dense<0> : tensor<3xi32>}> : () -> tensor<3xi32>
  %izp = "tosa.const"() <{values = dense<-3> : tensor<1xi8>}> : () -> tensor<1xi8>
  %wzp = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %p0 = tosa.conv2d %arg0, %w, %b, %izp, %wzp {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x4x4x2xi8>, tensor<3x1x1x2xi8>, tensor<3xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x4x4x3xi32>
  %p1 = tosa.conv2d %arg1, %w, %zero, %izp, %wzp {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x4x4x2xi8>, tensor<3x1x1x2xi8>, tensor<3xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x4x4x3xi32>
  %s = tosa.add %p0, %p1 : (tensor<1x4x4x3xi32>, tensor<1x4x4x3xi32>) -> tensor<1x4x4x3xi32>
  return %s : tensor<1x4x4x3xi32>
}
