// Two inputs of different types and two outputs of different types around an
// integer body: a float32 input quantized (x * 4, rounded) and added to an
// int8 input in int32, saturated to the int8 output 0; the int8 input
// dequantized (q / 16) into a float softmax, output 1 (calls expf).
func.func @main(%x: tensor<1x8xf32>,
                %q: tensor<1x8xi8> {serenity.quantization = {scale = 0.25 : f64, zero_point = -3 : i64}})
    -> (tensor<1x8xi8> {serenity.quantization = {scale = 0.25 : f64, zero_point = 0 : i64}},
        tensor<1x8xf32>) {
  %shift = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %four = "tosa.const"() <{values = dense<4.0> : tensor<1x1xf32>}> : () -> tensor<1x1xf32>
  %quarter = "tosa.const"() <{values = dense<0.0625> : tensor<1x1xf32>}> : () -> tensor<1x1xf32>
  %xs = tosa.mul %x, %four, %shift : (tensor<1x8xf32>, tensor<1x1xf32>, tensor<1xi8>) -> tensor<1x8xf32>
  %xq = tosa.cast %xs : (tensor<1x8xf32>) -> tensor<1x8xi32>
  %qi = tosa.cast %q : (tensor<1x8xi8>) -> tensor<1x8xi32>
  %sum = tosa.add %xq, %qi : (tensor<1x8xi32>, tensor<1x8xi32>) -> tensor<1x8xi32>
  %sat = tosa.clamp %sum {min_val = -128 : i32, max_val = 127 : i32} : (tensor<1x8xi32>) -> tensor<1x8xi32>
  %out0 = tosa.cast %sat : (tensor<1x8xi32>) -> tensor<1x8xi8>
  %qf = tosa.cast %q : (tensor<1x8xi8>) -> tensor<1x8xf32>
  %m = tosa.mul %qf, %quarter, %shift : (tensor<1x8xf32>, tensor<1x1xf32>, tensor<1xi8>) -> tensor<1x8xf32>
  %max = tosa.reduce_max %m {axis = 1 : i32} : (tensor<1x8xf32>) -> tensor<1x1xf32>
  %d = tosa.sub %m, %max : (tensor<1x8xf32>, tensor<1x1xf32>) -> tensor<1x8xf32>
  %e = tosa.exp %d : (tensor<1x8xf32>) -> tensor<1x8xf32>
  %s = tosa.reduce_sum %e {axis = 1 : i32} : (tensor<1x8xf32>) -> tensor<1x1xf32>
  %r = tosa.reciprocal %s : (tensor<1x1xf32>) -> tensor<1x1xf32>
  %out1 = tosa.mul %e, %r, %shift : (tensor<1x8xf32>, tensor<1x1xf32>, tensor<1xi8>) -> tensor<1x8xf32>
  return %out0, %out1 : tensor<1x8xi8>, tensor<1x8xf32>
}
