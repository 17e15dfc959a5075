// The --import-tflite translation on a committed test model: TOSA in one
// @main, the input's quantization on the argument, every op located at its
// TFLite operator (file, index, builtin, output tensor), and the same module
// through serenity-opt's in-process import.
// RUN: serenity-translate --import-tflite %serenity_src/test/tflite-ops/models/conv_per_channel_stride2_same_relu6.tflite --mlir-print-debuginfo | FileCheck %s
// RUN: serenity-opt %serenity_src/test/tflite-ops/models/conv_per_channel_stride2_same_relu6.tflite | FileCheck %s --check-prefix=OPT
//
// CHECK: [[FILE:#loc]] = loc("{{.*}}conv_per_channel_stride2_same_relu6.tflite":0:0)
// CHECK: func.func @main(%{{.*}}: tensor<1x7x6x3xi8> {serenity.quantization = {scale = {{.*}} : f64, zero_point = 5 : i64}}
// CHECK-SAME: -> (tensor<1x4x3x4xi8> {serenity.quantization = {scale = {{.*}} : f64, zero_point = -20 : i64}})
// CHECK: tosa.conv2d {{.*}}loc([[CONV:#loc[0-9]+]])
// CHECK: tosa.clamp {{.*}}loc([[CONV]])
// CHECK: return
// CHECK: [[CONV]] = loc("operator 0 CONV_2D 'out0'"([[FILE]]))
//
// OPT: func.func @main(
// OPT: tosa.conv2d
