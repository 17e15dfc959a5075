// RUN: serenity-opt %s --split-input-file --verify-diagnostics \
// RUN:   --serenity-rewrite="mode=all patterns=channel-partition explain=true" \
// RUN:   | FileCheck %s

// Two inputs of 2 and 3 channels: weights [4,1,1,5] are split along IC into
// [4,1,1,2] (columns 0-1) and [4,1,1,3] (columns 2-4); the bias goes to the
// first partial only, the second gets zeros.

// CHECK-LABEL: func.func @two_inputs
// CHECK-DAG:   %[[ZP:.*]] = "tosa.const"() <{values = dense<0.000000e+00> : tensor<1xf32>}>
// CHECK-DAG:   %[[B:.*]] = "tosa.const"() <{values = dense<[5.000000e-01, 1.500000e+00, 2.500000e+00, 3.500000e+00]> : tensor<4xf32>}>
// CHECK:       %[[W0:.*]] = "tosa.const"() <{values = dense<{{\[\[\[\[}}1.000000e+00, 2.000000e+00]]], {{\[\[\[}}6.000000e+00, 7.000000e+00]]], {{\[\[\[}}1.100000e+01, 1.200000e+01]]], {{\[\[\[}}1.600000e+01, 1.700000e+01]]]]> : tensor<4x1x1x2xf32>}>
// CHECK:       %[[P0:.*]] = tosa.conv2d %arg0, %[[W0]], %[[B]], %[[ZP]], %[[ZP]]
// CHECK:       %[[W1:.*]] = "tosa.const"() <{values = dense<{{\[\[\[\[}}3.000000e+00, 4.000000e+00, 5.000000e+00]]], {{\[\[\[}}8.000000e+00, 9.000000e+00, 1.000000e+01]]], {{\[\[\[}}1.300000e+01, 1.400000e+01, 1.500000e+01]]], {{\[\[\[}}1.800000e+01, 1.900000e+01, 2.000000e+01]]]]> : tensor<4x1x1x3xf32>}>
// CHECK:       %[[Z:.*]] = "tosa.const"() <{values = dense<0.000000e+00> : tensor<4xf32>}>
// CHECK:       %[[P1:.*]] = tosa.conv2d %arg1, %[[W1]], %[[Z]], %[[ZP]], %[[ZP]]
// CHECK:       %[[S:.*]] = tosa.add %[[P0]], %[[P1]]
// CHECK:       return %[[S]]
// CHECK-NOT:   tosa.concat
func.func @two_inputs(%arg0: tensor<1x4x4x2xf32>, %arg1: tensor<1x4x4x3xf32>) -> tensor<1x4x4x4xf32> {
  %w = "tosa.const"() <{values = dense<[[[[1.0, 2.0, 3.0, 4.0, 5.0]]], [[[6.0, 7.0, 8.0, 9.0, 10.0]]], [[[11.0, 12.0, 13.0, 14.0, 15.0]]], [[[16.0, 17.0, 18.0, 19.0, 20.0]]]]> : tensor<4x1x1x5xf32>}> : () -> tensor<4x1x1x5xf32>
  %b = "tosa.const"() <{values = dense<[0.5, 1.5, 2.5, 3.5]> : tensor<4xf32>}> : () -> tensor<4xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  // expected-remark @+1 {{applied channel-partition x1; scheduled peak}}
  %c = tosa.concat %arg0, %arg1 {axis = 3 : i32} : (tensor<1x4x4x2xf32>, tensor<1x4x4x3xf32>) -> tensor<1x4x4x5xf32>
  %y = tosa.conv2d %c, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x4x4x5xf32>, tensor<4x1x1x5xf32>, tensor<4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x4x4xf32>
  return %y : tensor<1x4x4x4xf32>
}

// -----

// Three inputs; stride, padding, dilation, acc_type and local_bound are kept
// on every partial; the sum is a chain of adds in input order.

// CHECK-LABEL: func.func @three_inputs_strided
// CHECK:       %[[P0:.*]] = tosa.conv2d %arg0, %{{.*}} {acc_type = f32, dilation = array<i64: 2, 1>, local_bound = true, pad = array<i64: 1, 1, 2, 1>, stride = array<i64: 2, 3>} : (tensor<1x9x9x1xf32>, tensor<2x3x3x1xf32>
// CHECK:       %[[P1:.*]] = tosa.conv2d %arg1, %{{.*}} {acc_type = f32, dilation = array<i64: 2, 1>, local_bound = true, pad = array<i64: 1, 1, 2, 1>, stride = array<i64: 2, 3>} : (tensor<1x9x9x2xf32>, tensor<2x3x3x2xf32>
// CHECK:       %[[A:.*]] = tosa.add %[[P0]], %[[P1]]
// CHECK:       %[[P2:.*]] = tosa.conv2d %arg2, %{{.*}} {acc_type = f32, dilation = array<i64: 2, 1>, local_bound = true, pad = array<i64: 1, 1, 2, 1>, stride = array<i64: 2, 3>} : (tensor<1x9x9x1xf32>, tensor<2x3x3x1xf32>
// CHECK:       %[[S:.*]] = tosa.add %[[A]], %[[P2]]
// CHECK:       return %[[S]]
func.func @three_inputs_strided(%arg0: tensor<1x9x9x1xf32>, %arg1: tensor<1x9x9x2xf32>, %arg2: tensor<1x9x9x1xf32>) -> tensor<1x4x4x2xf32> {
  %w = "tosa.const"() <{values = dense<0.25> : tensor<2x3x3x4xf32>}> : () -> tensor<2x3x3x4xf32>
  %b = "tosa.const"() <{values = dense<[1.0, -1.0]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  // expected-remark @+1 {{applied channel-partition x1}}
  %c = tosa.concat %arg0, %arg1, %arg2 {axis = 3 : i32} : (tensor<1x9x9x1xf32>, tensor<1x9x9x2xf32>, tensor<1x9x9x1xf32>) -> tensor<1x9x9x4xf32>
  %y = tosa.conv2d %c, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 2, 1>, local_bound = true, pad = array<i64: 1, 1, 2, 1>, stride = array<i64: 2, 3>} : (tensor<1x9x9x4xf32>, tensor<2x3x3x4xf32>, tensor<2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x4x2xf32>
  return %y : tensor<1x4x4x2xf32>
}

// -----

// Two convs read the concat: both are partitioned and the concat disappears.

// CHECK-LABEL: func.func @two_conv_users
// CHECK-COUNT-4: tosa.conv2d
// CHECK-NOT:   tosa.concat
func.func @two_conv_users(%arg0: tensor<1x2x2x1xf32>, %arg1: tensor<1x2x2x1xf32>) -> (tensor<1x2x2x3xf32>, tensor<1x2x2x1xf32>) {
  %w0 = "tosa.const"() <{values = dense<[[[[1.0, 2.0]]], [[[3.0, 4.0]]], [[[5.0, 6.0]]]]> : tensor<3x1x1x2xf32>}> : () -> tensor<3x1x1x2xf32>
  %w1 = "tosa.const"() <{values = dense<[[[[7.0, 8.0]]]]> : tensor<1x1x1x2xf32>}> : () -> tensor<1x1x1x2xf32>
  %b0 = "tosa.const"() <{values = dense<0.0> : tensor<3xf32>}> : () -> tensor<3xf32>
  %b1 = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  // expected-remark @+1 {{applied channel-partition x1}}
  %c = tosa.concat %arg0, %arg1 {axis = 3 : i32} : (tensor<1x2x2x1xf32>, tensor<1x2x2x1xf32>) -> tensor<1x2x2x2xf32>
  %y0 = tosa.conv2d %c, %w0, %b0, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x2x2x2xf32>, tensor<3x1x1x2xf32>, tensor<3xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x2x2x3xf32>
  %y1 = tosa.conv2d %c, %w1, %b1, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x2x2x2xf32>, tensor<1x1x1x2xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x2x2x1xf32>
  return %y0, %y1 : tensor<1x2x2x3xf32>, tensor<1x2x2x1xf32>
}

// -----

// The concat is also returned: partitioning the conv would not free it.

// CHECK-LABEL: func.func @also_returned
// CHECK:       tosa.concat
// CHECK:       tosa.conv2d %{{.*}} : (tensor<1x2x2x2xf32>
func.func @also_returned(%arg0: tensor<1x2x2x1xf32>, %arg1: tensor<1x2x2x1xf32>) -> (tensor<1x2x2x1xf32>, tensor<1x2x2x2xf32>) {
  %w = "tosa.const"() <{values = dense<[[[[7.0, 8.0]]]]> : tensor<1x1x1x2xf32>}> : () -> tensor<1x1x1x2xf32>
  %b = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  // expected-remark @+1 {{concat kept: [channel-partition] user 'func.return' reads the concat as operand #1, not as its input;}}
  %c = tosa.concat %arg0, %arg1 {axis = 3 : i32} : (tensor<1x2x2x1xf32>, tensor<1x2x2x1xf32>) -> tensor<1x2x2x2xf32>
  %y = tosa.conv2d %c, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x2x2x2xf32>, tensor<1x1x1x2xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x2x2x1xf32>
  return %y, %c : tensor<1x2x2x1xf32>, tensor<1x2x2x2xf32>
}

// -----

// A concat along W is not a channel concat.

// CHECK-LABEL: func.func @width_concat
// CHECK:       tosa.concat
func.func @width_concat(%arg0: tensor<1x2x1x2xf32>, %arg1: tensor<1x2x1x2xf32>) -> tensor<1x2x2x1xf32> {
  %w = "tosa.const"() <{values = dense<[[[[7.0, 8.0]]]]> : tensor<1x1x1x2xf32>}> : () -> tensor<1x1x1x2xf32>
  %b = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  // expected-remark @+1 {{concat kept: [channel-partition] not a concat of static 4-D tensors on the channel axis (3);}}
  %c = tosa.concat %arg0, %arg1 {axis = 2 : i32} : (tensor<1x2x1x2xf32>, tensor<1x2x1x2xf32>) -> tensor<1x2x2x2xf32>
  %y = tosa.conv2d %c, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x2x2x2xf32>, tensor<1x1x1x2xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x2x2x1xf32>
  return %y : tensor<1x2x2x1xf32>
}

// -----

// Weights computed at run time cannot be sliced into constants.

// CHECK-LABEL: func.func @runtime_weights
// CHECK:       tosa.concat
func.func @runtime_weights(%arg0: tensor<1x2x2x1xf32>, %arg1: tensor<1x2x2x1xf32>, %w: tensor<1x1x1x2xf32>) -> tensor<1x2x2x1xf32> {
  %b = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  // expected-remark @+1 {{concat kept: [channel-partition] conv2d weights are not a dense constant;}}
  %c = tosa.concat %arg0, %arg1 {axis = 3 : i32} : (tensor<1x2x2x1xf32>, tensor<1x2x2x1xf32>) -> tensor<1x2x2x2xf32>
  %y = tosa.conv2d %c, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x2x2x2xf32>, tensor<1x1x1x2xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x2x2x1xf32>
  return %y : tensor<1x2x2x1xf32>
}

// -----

// Quantized conv2d (i8 x i8 -> i32, input zero point -3): partitioned, since
// i32 accumulation is associative; every partial keeps the zero points.

// CHECK-LABEL: func.func @int8
// CHECK-DAG:   %[[IZP:.*]] = "tosa.const"() <{values = dense<-3> : tensor<1xi8>}>
// CHECK-DAG:   %[[WZP:.*]] = "tosa.const"() <{values = dense<0> : tensor<1xi8>}>
// CHECK:       %[[P0:.*]] = tosa.conv2d %arg0, %{{.*}}, %{{.*}}, %[[IZP]], %[[WZP]] {acc_type = i32, {{.*}}} : (tensor<1x2x2x1xi8>, tensor<1x1x1x1xi8>, tensor<1xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x2x2x1xi32>
// CHECK:       %[[P1:.*]] = tosa.conv2d %arg1, %{{.*}}, %{{.*}}, %[[IZP]], %[[WZP]] {acc_type = i32, {{.*}}} : (tensor<1x2x2x1xi8>, tensor<1x1x1x1xi8>, tensor<1xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x2x2x1xi32>
// CHECK:       tosa.add %[[P0]], %[[P1]] : (tensor<1x2x2x1xi32>, tensor<1x2x2x1xi32>) -> tensor<1x2x2x1xi32>
func.func @int8(%arg0: tensor<1x2x2x1xi8>, %arg1: tensor<1x2x2x1xi8>) -> tensor<1x2x2x1xi32> {
  %w = "tosa.const"() <{values = dense<[[[[7, -8]]]]> : tensor<1x1x1x2xi8>}> : () -> tensor<1x1x1x2xi8>
  %b = "tosa.const"() <{values = dense<100> : tensor<1xi32>}> : () -> tensor<1xi32>
  %izp = "tosa.const"() <{values = dense<-3> : tensor<1xi8>}> : () -> tensor<1xi8>
  %wzp = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  // expected-remark @+1 {{applied channel-partition x1}}
  %c = tosa.concat %arg0, %arg1 {axis = 3 : i32} : (tensor<1x2x2x1xi8>, tensor<1x2x2x1xi8>) -> tensor<1x2x2x2xi8>
  %y = tosa.conv2d %c, %w, %b, %izp, %wzp {acc_type = i32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x2x2x2xi8>, tensor<1x1x1x2xi8>, tensor<1xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x2x2x1xi32>
  return %y : tensor<1x2x2x1xi32>
}

// -----

// i16 x i8 -> i48: there is no i48 tosa.add to sum the partials; rejected
// with its reason.

// CHECK-LABEL: func.func @int16
// CHECK:       tosa.concat
// CHECK:       tosa.conv2d %{{.*}} : (tensor<1x2x2x2xi16>
func.func @int16(%arg0: tensor<1x2x2x1xi16>, %arg1: tensor<1x2x2x1xi16>) -> tensor<1x2x2x1xi48> {
  %w = "tosa.const"() <{values = dense<[[[[7, 8]]]]> : tensor<1x1x1x2xi8>}> : () -> tensor<1x1x1x2xi8>
  %b = "tosa.const"() <{values = dense<0> : tensor<1xi48>}> : () -> tensor<1xi48>
  %izp = "tosa.const"() <{values = dense<0> : tensor<1xi16>}> : () -> tensor<1xi16>
  %wzp = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  // expected-remark @+1 {{concat kept: [channel-partition] channel-wise partitioning of a conv2d from 'i16' to 'i48' is not supported}}
  %c = tosa.concat %arg0, %arg1 {axis = 3 : i32} : (tensor<1x2x2x1xi16>, tensor<1x2x2x1xi16>) -> tensor<1x2x2x2xi16>
  %y = tosa.conv2d %c, %w, %b, %izp, %wzp {acc_type = i48, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x2x2x2xi16>, tensor<1x1x1x2xi8>, tensor<1xi48>, tensor<1xi16>, tensor<1xi8>) -> tensor<1x2x2x1xi48>
  return %y : tensor<1x2x2x1xi48>
}

// -----

// f16 with an f32 accumulator: each partial would be rounded to f16.

// CHECK-LABEL: func.func @wide_accumulator
// CHECK:       tosa.concat
func.func @wide_accumulator(%arg0: tensor<1x2x2x1xf16>, %arg1: tensor<1x2x2x1xf16>) -> tensor<1x2x2x1xf16> {
  %w = "tosa.const"() <{values = dense<[[[[7.0, 8.0]]]]> : tensor<1x1x1x2xf16>}> : () -> tensor<1x1x1x2xf16>
  %b = "tosa.const"() <{values = dense<0.0> : tensor<1xf16>}> : () -> tensor<1xf16>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf16>}> : () -> tensor<1xf16>
  // expected-remark @+1 {{concat kept: [channel-partition] acc_type 'f32' is wider than result 'f16'}}
  %c = tosa.concat %arg0, %arg1 {axis = 3 : i32} : (tensor<1x2x2x1xf16>, tensor<1x2x2x1xf16>) -> tensor<1x2x2x2xf16>
  %y = tosa.conv2d %c, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x2x2x2xf16>, tensor<1x1x1x2xf16>, tensor<1xf16>, tensor<1xf16>, tensor<1xf16>) -> tensor<1x2x2x1xf16>
  return %y : tensor<1x2x2x1xf16>
}
