// A residual block as a framework would emit it (TOSA v22, NHWC, f32):
//   x -> conv3x3(16->16) -> relu -> conv3x3(16->16) -> add(x) -> relu
// Run: serenity-opt examples/residual_block.mlir --serenity-memory-report
func.func @main(%x: tensor<1x16x16x16xf32>) -> tensor<1x16x16x16xf32> {
  %w1 = "tosa.const"() {values = dense<0.01> : tensor<16x3x3x16xf32>} : () -> tensor<16x3x3x16xf32>
  %b1 = "tosa.const"() {values = dense<0.1> : tensor<16xf32>} : () -> tensor<16xf32>
  %w2 = "tosa.const"() {values = dense<-0.02> : tensor<16x3x3x16xf32>} : () -> tensor<16x3x3x16xf32>
  %b2 = "tosa.const"() {values = dense<0.05> : tensor<16xf32>} : () -> tensor<16xf32>
  %zp = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
  %c1 = tosa.conv2d %x, %w1, %b1, %zp, %zp {acc_type = f32, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>}
      : (tensor<1x16x16x16xf32>, tensor<16x3x3x16xf32>, tensor<16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x16x16x16xf32>
  %r1 = tosa.clamp %c1 {min_val = 0.0 : f32, max_val = 3.4028235e+38 : f32} : (tensor<1x16x16x16xf32>) -> tensor<1x16x16x16xf32>
  %c2 = tosa.conv2d %r1, %w2, %b2, %zp, %zp {acc_type = f32, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>}
      : (tensor<1x16x16x16xf32>, tensor<16x3x3x16xf32>, tensor<16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x16x16x16xf32>
  %sum = tosa.add %c2, %x : (tensor<1x16x16x16xf32>, tensor<1x16x16x16xf32>) -> tensor<1x16x16x16xf32>
  %out = tosa.clamp %sum {min_val = 0.0 : f32, max_val = 3.4028235e+38 : f32} : (tensor<1x16x16x16xf32>) -> tensor<1x16x16x16xf32>
  return %out : tensor<1x16x16x16xf32>
}
