// RUN: serenity-opt %s --split-input-file --verify-diagnostics \
// RUN:   --serenity-rewrite="mode=all patterns=push-through-concat explain=true" \
// RUN:   | FileCheck %s

// A chain of elementwise unary ops moves below the concat one op at a time:
// each push creates the concat that the next push starts from. Attributes
// and zero-point operands (negate) are kept.

// CHECK-LABEL: func.func @unary_chain
// CHECK:       %[[C0:.*]] = tosa.clamp %arg0 {max_val = 6.000000e+00 : f32, min_val = 0.000000e+00 : f32} : (tensor<1x2x2x1xf32>) -> tensor<1x2x2x1xf32>
// CHECK:       %[[C1:.*]] = tosa.clamp %arg1 {max_val = 6.000000e+00 : f32, min_val = 0.000000e+00 : f32} : (tensor<1x2x2x3xf32>) -> tensor<1x2x2x3xf32>
// CHECK:       tosa.sigmoid %[[C0]]
// CHECK:       tosa.sigmoid %[[C1]]
// CHECK:       tosa.tanh
// CHECK:       tosa.tanh
// CHECK:       tosa.exp
// CHECK:       tosa.exp
// CHECK:       tosa.abs
// CHECK:       tosa.abs
// CHECK:       %[[N0:.*]] = tosa.negate %{{.*}}, %[[ZP:.*]], %[[ZP]] : (tensor<1x2x2x1xf32>
// CHECK:       %[[N1:.*]] = tosa.negate %{{.*}}, %[[ZP]], %[[ZP]] : (tensor<1x2x2x3xf32>
// CHECK:       %[[C:.*]] = tosa.concat %[[N0]], %[[N1]] {axis = 3 : i32} : (tensor<1x2x2x1xf32>, tensor<1x2x2x3xf32>) -> tensor<1x2x2x4xf32>
// CHECK:       return %[[C]]
func.func @unary_chain(%arg0: tensor<1x2x2x1xf32>, %arg1: tensor<1x2x2x3xf32>) -> tensor<1x2x2x4xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  // expected-remark @+1 {{applied push-through-concat x6; scheduled peak}}
  %c = tosa.concat %arg0, %arg1 {axis = 3 : i32} : (tensor<1x2x2x1xf32>, tensor<1x2x2x3xf32>) -> tensor<1x2x2x4xf32>
  %0 = tosa.clamp %c {min_val = 0.0 : f32, max_val = 6.0 : f32} : (tensor<1x2x2x4xf32>) -> tensor<1x2x2x4xf32>
  %1 = tosa.sigmoid %0 : (tensor<1x2x2x4xf32>) -> tensor<1x2x2x4xf32>
  %2 = tosa.tanh %1 : (tensor<1x2x2x4xf32>) -> tensor<1x2x2x4xf32>
  %3 = tosa.exp %2 : (tensor<1x2x2x4xf32>) -> tensor<1x2x2x4xf32>
  %4 = tosa.abs %3 : (tensor<1x2x2x4xf32>) -> tensor<1x2x2x4xf32>
  %5 = tosa.negate %4, %zp, %zp : (tensor<1x2x2x4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x2x2x4xf32>
  return %5 : tensor<1x2x2x4xf32>
}

// -----

// Pooling on a channel concat: kernel, stride and padding are kept; the
// avg_pool2d zero points are reused.

// CHECK-LABEL: func.func @pooling
// CHECK:       %[[M0:.*]] = tosa.max_pool2d %arg0 {kernel = array<i64: 3, 3>, pad = array<i64: 0, 1, 0, 1>, stride = array<i64: 2, 2>} : (tensor<1x6x6x2xf32>) -> tensor<1x3x3x2xf32>
// CHECK:       %[[M1:.*]] = tosa.max_pool2d %arg1 {kernel = array<i64: 3, 3>, pad = array<i64: 0, 1, 0, 1>, stride = array<i64: 2, 2>} : (tensor<1x6x6x1xf32>) -> tensor<1x3x3x1xf32>
// CHECK:       %[[A0:.*]] = tosa.avg_pool2d %[[M0]], %[[ZP:.*]], %[[ZP]] {acc_type = f32, kernel = array<i64: 2, 2>, pad = array<i64: 1, 0, 1, 0>, stride = array<i64: 1, 1>} : (tensor<1x3x3x2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x3x3x2xf32>
// CHECK:       %[[A1:.*]] = tosa.avg_pool2d %[[M1]], %[[ZP]], %[[ZP]] {{.*}} -> tensor<1x3x3x1xf32>
// CHECK:       tosa.concat %[[A0]], %[[A1]] {axis = 3 : i32}
func.func @pooling(%arg0: tensor<1x6x6x2xf32>, %arg1: tensor<1x6x6x1xf32>) -> tensor<1x3x3x3xf32> {
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  // expected-remark @+1 {{applied push-through-concat x2}}
  %c = tosa.concat %arg0, %arg1 {axis = 3 : i32} : (tensor<1x6x6x2xf32>, tensor<1x6x6x1xf32>) -> tensor<1x6x6x3xf32>
  %m = tosa.max_pool2d %c {kernel = array<i64: 3, 3>, pad = array<i64: 0, 1, 0, 1>, stride = array<i64: 2, 2>} : (tensor<1x6x6x3xf32>) -> tensor<1x3x3x3xf32>
  %a = tosa.avg_pool2d %m, %zp, %zp {acc_type = f32, kernel = array<i64: 2, 2>, pad = array<i64: 1, 0, 1, 0>, stride = array<i64: 1, 1>} : (tensor<1x3x3x3xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x3x3x3xf32>
  return %a : tensor<1x3x3x3xf32>
}

// -----

// Elementwise ops commute with a concat on any axis; pooling only with a
// channel concat.

// CHECK-LABEL: func.func @height_concat
// CHECK:       tosa.exp %arg0
// CHECK:       tosa.exp %arg1
// CHECK:       %[[C:.*]] = tosa.concat %{{.*}}, %{{.*}} {axis = 1 : i32}
// CHECK:       tosa.max_pool2d %[[C]]
func.func @height_concat(%arg0: tensor<1x2x4x1xf32>, %arg1: tensor<1x2x4x1xf32>) -> tensor<1x4x4x1xf32> {
  // expected-remark @+1 {{applied push-through-concat x1}}
  %c = tosa.concat %arg0, %arg1 {axis = 1 : i32} : (tensor<1x2x4x1xf32>, tensor<1x2x4x1xf32>) -> tensor<1x4x4x1xf32>
  // The concat created by the push takes the location of the exp.
  // expected-remark @+1 {{concat kept: [push-through-concat] user 'tosa.max_pool2d' is a pooling and the concat is not on the channel axis;}}
  %e = tosa.exp %c : (tensor<1x4x4x1xf32>) -> tensor<1x4x4x1xf32>
  %m = tosa.max_pool2d %e {kernel = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x4x4x1xf32>) -> tensor<1x4x4x1xf32>
  return %m : tensor<1x4x4x1xf32>
}

// -----

// Two ReLUs read the concat (a DARTS cell output feeds two later cells):
// both are pushed, each gets its own concat.

// CHECK-LABEL: func.func @two_unary_users
// CHECK-COUNT-2: tosa.clamp %arg
// CHECK:       tosa.concat
// CHECK-COUNT-2: tosa.sigmoid %arg
// CHECK:       tosa.concat
func.func @two_unary_users(%arg0: tensor<1x2x2x1xf32>, %arg1: tensor<1x2x2x1xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) {
  // expected-remark @+1 {{applied push-through-concat x1}}
  %c = tosa.concat %arg0, %arg1 {axis = 3 : i32} : (tensor<1x2x2x1xf32>, tensor<1x2x2x1xf32>) -> tensor<1x2x2x2xf32>
  %0 = tosa.clamp %c {min_val = 0.0 : f32, max_val = 6.0 : f32} : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %1 = tosa.sigmoid %c : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  return %0, %1 : tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>
}

// -----

// A binary op reads the concat: nothing is pushed.

// CHECK-LABEL: func.func @binary_user
// CHECK:       %[[C:.*]] = tosa.concat %arg0, %arg1
// CHECK:       tosa.exp %[[C]]
// CHECK:       tosa.add %[[C]], %[[C]]
func.func @binary_user(%arg0: tensor<1x2x2x1xf32>, %arg1: tensor<1x2x2x1xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) {
  // expected-remark @+1 {{concat kept: [push-through-concat] user 'tosa.add' reads the concat as operand #1, not as its input;}}
  %c = tosa.concat %arg0, %arg1 {axis = 3 : i32} : (tensor<1x2x2x1xf32>, tensor<1x2x2x1xf32>) -> tensor<1x2x2x2xf32>
  %0 = tosa.exp %c : (tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %1 = tosa.add %c, %c : (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  return %0, %1 : tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>
}

// -----

// Integer ops move no arithmetic across channels: an i8 clamp is pushed.

// CHECK-LABEL: func.func @int8_clamp
// CHECK-COUNT-2: tosa.clamp %arg{{.*}} -> tensor<1x2x2x1xi8>
// CHECK:       tosa.concat
func.func @int8_clamp(%arg0: tensor<1x2x2x1xi8>, %arg1: tensor<1x2x2x1xi8>) -> tensor<1x2x2x2xi8> {
  // expected-remark @+1 {{applied push-through-concat x1}}
  %c = tosa.concat %arg0, %arg1 {axis = 3 : i32} : (tensor<1x2x2x1xi8>, tensor<1x2x2x1xi8>) -> tensor<1x2x2x2xi8>
  %0 = tosa.clamp %c {min_val = -5 : i8, max_val = 100 : i8} : (tensor<1x2x2x2xi8>) -> tensor<1x2x2x2xi8>
  return %0 : tensor<1x2x2x2xi8>
}
