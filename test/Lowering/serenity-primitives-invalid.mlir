// Primitives that cannot compute a convolution, and malformed tags.
// RUN: serenity-opt %s --split-input-file -verify-diagnostics --pass-pipeline='builtin.module(func.func(serenity-primitives-to-linalg))'

func.func @winograd_1x1(%x: tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32> {
  %w = "tosa.const"() {values = dense<0.25> : tensor<4x1x1x4xf32>} : () -> tensor<4x1x1x4xf32>
  %b = "tosa.const"() {values = dense<0.5> : tensor<4xf32>} : () -> tensor<4xf32>
  %z = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
  // expected-error @+1 {{primitive 'winograd2' cannot compute this convolution: winograd needs a 3x3 filter}}
  %y = tosa.conv2d %x, %w, %b, %z, %z {acc_type = f32, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>, serenity.primitive = #serenity.primitive<winograd2>} : (tensor<1x8x8x4xf32>, tensor<4x1x1x4xf32>, tensor<4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x8x4xf32>
  return %y : tensor<1x8x8x4xf32>
}

// -----

func.func @dot_f32(%x: tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32> {
  %w = "tosa.const"() {values = dense<0.25> : tensor<4x1x1x4xf32>} : () -> tensor<4x1x1x4xf32>
  %b = "tosa.const"() {values = dense<0.5> : tensor<4xf32>} : () -> tensor<4xf32>
  %z = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
  // expected-error @+1 {{primitive 'dot' cannot compute this convolution: dot needs int8 input and filter and an int32 result}}
  %y = tosa.conv2d %x, %w, %b, %z, %z {acc_type = f32, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>, serenity.primitive = #serenity.primitive<dot>} : (tensor<1x8x8x4xf32>, tensor<4x1x1x4xf32>, tensor<4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x8x4xf32>
  return %y : tensor<1x8x8x4xf32>
}

// -----

func.func @im2col_depthwise(%x: tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32> {
  %w = "tosa.const"() {values = dense<0.25> : tensor<3x3x4x1xf32>} : () -> tensor<3x3x4x1xf32>
  %b = "tosa.const"() {values = dense<0.5> : tensor<4xf32>} : () -> tensor<4xf32>
  %z = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
  // expected-error @+1 {{primitive 'im2col' cannot compute this convolution: im2col computes tosa.conv2d only}}
  %y = tosa.depthwise_conv2d %x, %w, %b, %z, %z {acc_type = f32, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>, serenity.primitive = #serenity.primitive<im2col>} : (tensor<1x8x8x4xf32>, tensor<3x3x4x1xf32>, tensor<4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x8x4xf32>
  return %y : tensor<1x8x8x4xf32>
}

// -----

func.func @not_a_conv(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'serenity.primitive' must be a #serenity.primitive<...> attribute}}
  %y = tosa.abs %x {serenity.primitive = "im2col"} : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @on_abs(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'serenity.primitive' belongs on a convolution}}
  %y = tosa.abs %x {serenity.primitive = #serenity.primitive<im2col>} : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

func.func @vector_multiplier(%x: tensor<1x8x8x4xf32>) -> tensor<1x8x8x8xf32> {
  %w = "tosa.const"() {values = dense<0.25> : tensor<3x3x4x2xf32>} : () -> tensor<3x3x4x2xf32>
  %b = "tosa.const"() {values = dense<0.5> : tensor<8xf32>} : () -> tensor<8xf32>
  %z = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
  // expected-error @+1 {{primitive 'vector' cannot compute this convolution: vector needs a depthwise multiplier of 1}}
  %y = tosa.depthwise_conv2d %x, %w, %b, %z, %z {acc_type = f32, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>, serenity.primitive = #serenity.primitive<vector>} : (tensor<1x8x8x4xf32>, tensor<3x3x4x2xf32>, tensor<8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x8x8xf32>
  return %y : tensor<1x8x8x8xf32>
}

// -----

func.func @vector_int8(%x: tensor<1x8x8x4xi8>) -> tensor<1x8x8x4xi32> {
  %w = "tosa.const"() {values = dense<3> : tensor<4x1x1x4xi8>} : () -> tensor<4x1x1x4xi8>
  %b = "tosa.const"() {values = dense<7> : tensor<4xi32>} : () -> tensor<4xi32>
  %z = "tosa.const"() {values = dense<0> : tensor<1xi8>} : () -> tensor<1xi8>
  // expected-error @+1 {{primitive 'vector' cannot compute this convolution: vector computes f32 convolutions only}}
  %y = tosa.conv2d %x, %w, %b, %z, %z {acc_type = i32, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>, serenity.primitive = #serenity.primitive<vector>} : (tensor<1x8x8x4xi8>, tensor<4x1x1x4xi8>, tensor<4xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x8x8x4xi32>
  return %y : tensor<1x8x8x4xi32>
}

// -----

func.func @vector_filter_argument(%x: tensor<1x8x8x4xf32>, %w: tensor<4x3x3x4xf32>) -> tensor<1x8x8x4xf32> {
  %b = "tosa.const"() {values = dense<0.5> : tensor<4xf32>} : () -> tensor<4xf32>
  %z = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
  // expected-error @+1 {{primitive 'vector' cannot compute this convolution: vector needs a constant filter}}
  %y = tosa.conv2d %x, %w, %b, %z, %z {acc_type = f32, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>, serenity.primitive = #serenity.primitive<vector>} : (tensor<1x8x8x4xf32>, tensor<4x3x3x4xf32>, tensor<4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x8x4xf32>
  return %y : tensor<1x8x8x4xf32>
}
