func.func @split(%x: tensor<1x8x8x32xf32>) -> tensor<1x8x8x4xf32> {
  %dw = "tosa.const"() <{values = dense<0.25> : tensor<3x3x32x1xf32>}> : () -> tensor<3x3x32x1xf32>
  %b = "tosa.const"() <{values = dense<0.1> : tensor<32xf32>}> : () -> tensor<32xf32>
  %w2 = "tosa.const"() <{values = dense<0.5> : tensor<4x1x1x32xf32>}> : () -> tensor<4x1x1x32xf32>
  %b2 = "tosa.const"() <{values = dense<0.1> : tensor<4xf32>}> : () -> tensor<4xf32>
  %z = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %r = tosa.clamp %x {max_val = 6.0 : f32, min_val = 0.0 : f32} : (tensor<1x8x8x32xf32>) -> tensor<1x8x8x32xf32>
  %d = tosa.depthwise_conv2d %r, %dw, %b, %z, %z {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x8x8x32xf32>, tensor<3x3x32x1xf32>, tensor<32xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x8x32xf32>
  %r2 = tosa.clamp %d {max_val = 6.0 : f32, min_val = 0.0 : f32} : (tensor<1x8x8x32xf32>) -> tensor<1x8x8x32xf32>
  %p = tosa.conv2d %r2, %w2, %b2, %z, %z {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x8x8x32xf32>, tensor<4x1x1x32xf32>, tensor<4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x8x4xf32>
  return %p : tensor<1x8x8x4xf32>
}
