// RUN: serenity-opt %s --split-input-file --verify-diagnostics \
// RUN:   --serenity-rewrite="mode=all patterns=kernel-partition explain=true" \
// RUN:   | FileCheck %s

// Inputs of 1 and 2 channels, channel multiplier M = 2: weights [1,1,3,2]
// are split along C into [1,1,1,2] and [1,1,2,2]; the bias [6] (output
// channel c * M + m) into [2] (elements 0-1) and [4] (elements 2-5). The
// depthwise results are concatenated again; stride/pad/dilation are kept.

// CHECK-LABEL: func.func @multiplier_two
// CHECK:       %[[W0:.*]] = "tosa.const"() <{values = dense<{{\[\[\[\[}}1.000000e+00, 2.000000e+00]]]]> : tensor<1x1x1x2xf32>}>
// CHECK-NEXT:  %[[B0:.*]] = "tosa.const"() <{values = dense<[1.000000e-01, 2.000000e-01]> : tensor<2xf32>}>
// CHECK:       %[[D0:.*]] = tosa.depthwise_conv2d %arg0, %[[W0]], %[[B0]], %{{.*}}, %{{.*}} {acc_type = f32, dilation = array<i64: 2, 2>, pad = array<i64: 0, 1, 1, 0>, stride = array<i64: 2, 1>} : {{.*}} -> tensor<1x4x7x2xf32>
// CHECK:       %[[W1:.*]] = "tosa.const"() <{values = dense<{{\[\[\[\[}}3.000000e+00, 4.000000e+00], [5.000000e+00, 6.000000e+00]]]]> : tensor<1x1x2x2xf32>}>
// CHECK:       %[[B1:.*]] = "tosa.const"() <{values = dense<[3.000000e-01, 4.000000e-01, 5.000000e-01, 6.000000e-01]> : tensor<4xf32>}>
// CHECK:       %[[D1:.*]] = tosa.depthwise_conv2d %arg1, %[[W1]], %[[B1]], %{{.*}}, %{{.*}} {acc_type = f32, dilation = array<i64: 2, 2>, pad = array<i64: 0, 1, 1, 0>, stride = array<i64: 2, 1>} : {{.*}} -> tensor<1x4x7x4xf32>
// CHECK:       %[[C:.*]] = tosa.concat %[[D0]], %[[D1]] {axis = 3 : i32} : (tensor<1x4x7x2xf32>, tensor<1x4x7x4xf32>) -> tensor<1x4x7x6xf32>
// CHECK:       return %[[C]]
func.func @multiplier_two(%arg0: tensor<1x6x6x1xf32>, %arg1: tensor<1x6x6x2xf32>) -> tensor<1x4x7x6xf32> {
  %w = "tosa.const"() <{values = dense<[[[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]]]> : tensor<1x1x3x2xf32>}> : () -> tensor<1x1x3x2xf32>
  %b = "tosa.const"() <{values = dense<[0.1, 0.2, 0.3, 0.4, 0.5, 0.6]> : tensor<6xf32>}> : () -> tensor<6xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  // expected-remark @+1 {{applied kernel-partition x1; scheduled peak}}
  %c = tosa.concat %arg0, %arg1 {axis = 3 : i32} : (tensor<1x6x6x1xf32>, tensor<1x6x6x2xf32>) -> tensor<1x6x6x3xf32>
  %y = tosa.depthwise_conv2d %c, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 2, 2>, pad = array<i64: 0, 1, 1, 0>, stride = array<i64: 2, 1>} : (tensor<1x6x6x3xf32>, tensor<1x1x3x2xf32>, tensor<6xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x7x6xf32>
  return %y : tensor<1x4x7x6xf32>
}

// -----

// Integer depthwise convs are partitioned too: slicing weights and bias and
// concatenating results moves no arithmetic, so the result is bit-exact.
// A bias of one element is broadcast and reused by every part.

// CHECK-LABEL: func.func @int8
// CHECK:       %[[B:.*]] = "tosa.const"() <{values = dense<5> : tensor<1xi32>}>
// CHECK:       tosa.depthwise_conv2d %arg0, %{{.*}}, %[[B]], {{.*}} -> tensor<1x4x4x1xi32>
// CHECK:       tosa.depthwise_conv2d %arg1, %{{.*}}, %[[B]], {{.*}} -> tensor<1x4x4x1xi32>
// CHECK:       tosa.concat {{.*}} -> tensor<1x4x4x2xi32>
func.func @int8(%arg0: tensor<1x4x4x1xi8>, %arg1: tensor<1x4x4x1xi8>) -> tensor<1x4x4x2xi32> {
  %w = "tosa.const"() <{values = dense<[[[[3], [-4]]]]> : tensor<1x1x2x1xi8>}> : () -> tensor<1x1x2x1xi8>
  %b = "tosa.const"() <{values = dense<5> : tensor<1xi32>}> : () -> tensor<1xi32>
  %zp = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  // expected-remark @+1 {{applied kernel-partition x1}}
  %c = tosa.concat %arg0, %arg1 {axis = 3 : i32} : (tensor<1x4x4x1xi8>, tensor<1x4x4x1xi8>) -> tensor<1x4x4x2xi8>
  %y = tosa.depthwise_conv2d %c, %w, %b, %zp, %zp {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x4x4x2xi8>, tensor<1x1x2x1xi8>, tensor<1xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x4x4x2xi32>
  return %y : tensor<1x4x4x2xi32>
}

// -----

// Two depthwise users: both are partitioned, the input concat disappears
// and each user gets its own concat of results.

// CHECK-LABEL: func.func @two_users
// CHECK-NOT:   tosa.concat %arg0
// CHECK-COUNT-2: tosa.depthwise_conv2d %arg
// CHECK:       tosa.concat {{.*}} -> tensor<1x4x4x2xf32>
// CHECK-COUNT-2: tosa.depthwise_conv2d %arg
// CHECK:       tosa.concat {{.*}} -> tensor<1x4x4x2xf32>
// CHECK-NOT:   tosa.concat
func.func @two_users(%arg0: tensor<1x4x4x1xf32>, %arg1: tensor<1x4x4x1xf32>) -> (tensor<1x4x4x2xf32>, tensor<1x4x4x2xf32>) {
  %w0 = "tosa.const"() <{values = dense<[[[[1.0], [2.0]]]]> : tensor<1x1x2x1xf32>}> : () -> tensor<1x1x2x1xf32>
  %w1 = "tosa.const"() <{values = dense<[[[[3.0], [4.0]]]]> : tensor<1x1x2x1xf32>}> : () -> tensor<1x1x2x1xf32>
  %b = "tosa.const"() <{values = dense<0.0> : tensor<2xf32>}> : () -> tensor<2xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  // expected-remark @+1 {{applied kernel-partition x1}}
  %c = tosa.concat %arg0, %arg1 {axis = 3 : i32} : (tensor<1x4x4x1xf32>, tensor<1x4x4x1xf32>) -> tensor<1x4x4x2xf32>
  %y0 = tosa.depthwise_conv2d %c, %w0, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x4x4x2xf32>, tensor<1x1x2x1xf32>, tensor<2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x4x2xf32>
  %y1 = tosa.depthwise_conv2d %c, %w1, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x4x4x2xf32>, tensor<1x1x2x1xf32>, tensor<2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x4x2xf32>
  return %y0, %y1 : tensor<1x4x4x2xf32>, tensor<1x4x4x2xf32>
}

// -----

// A depthwise user next to a non-depthwise user: kept.

// CHECK-LABEL: func.func @mixed_users
// CHECK:       tosa.concat
// CHECK:       tosa.depthwise_conv2d %{{.*}} : (tensor<1x4x4x2xf32>
func.func @mixed_users(%arg0: tensor<1x4x4x1xf32>, %arg1: tensor<1x4x4x1xf32>) -> (tensor<1x4x4x2xf32>, tensor<1x4x4x2xf32>) {
  %w = "tosa.const"() <{values = dense<[[[[1.0], [2.0]]]]> : tensor<1x1x2x1xf32>}> : () -> tensor<1x1x2x1xf32>
  %b = "tosa.const"() <{values = dense<0.0> : tensor<2xf32>}> : () -> tensor<2xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  // expected-remark @+1 {{concat kept: [kernel-partition] not every user is a tosa.depthwise_conv2d; partitioning only some would keep the concat alive;}}
  %c = tosa.concat %arg0, %arg1 {axis = 3 : i32} : (tensor<1x4x4x1xf32>, tensor<1x4x4x1xf32>) -> tensor<1x4x4x2xf32>
  %y = tosa.depthwise_conv2d %c, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x4x4x2xf32>, tensor<1x1x2x1xf32>, tensor<2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x4x2xf32>
  %e = tosa.exp %c : (tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32>
  return %y, %e : tensor<1x4x4x2xf32>, tensor<1x4x4x2xf32>
}

// -----

// A per-channel bias computed at run time cannot be sliced into constants.

// CHECK-LABEL: func.func @runtime_bias
// CHECK:       tosa.concat
func.func @runtime_bias(%arg0: tensor<1x4x4x1xf32>, %arg1: tensor<1x4x4x1xf32>, %b: tensor<2xf32>) -> tensor<1x4x4x2xf32> {
  %w = "tosa.const"() <{values = dense<[[[[1.0], [2.0]]]]> : tensor<1x1x2x1xf32>}> : () -> tensor<1x1x2x1xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  // expected-remark @+1 {{concat kept: [kernel-partition] per-channel depthwise bias is not a dense constant;}}
  %c = tosa.concat %arg0, %arg1 {axis = 3 : i32} : (tensor<1x4x4x1xf32>, tensor<1x4x4x1xf32>) -> tensor<1x4x4x2xf32>
  %y = tosa.depthwise_conv2d %c, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x4x4x2xf32>, tensor<1x1x2x1xf32>, tensor<2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x4x2xf32>
  return %y : tensor<1x4x4x2xf32>
}
