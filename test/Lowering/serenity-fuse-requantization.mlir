// RUN: serenity-opt %s --split-input-file -verify-diagnostics --pass-pipeline='builtin.module(func.func(tosa-to-linalg-named,tosa-to-linalg,tosa-to-arith{include-apply-rescale=true},tosa-to-tensor),canonicalize,func.func(serenity-fuse-requantization{tile-cols=0 tile-channels=0 fuse-padding=0}),canonicalize)' | FileCheck %s
// RUN: serenity-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(tosa-to-linalg-named,tosa-to-linalg,tosa-to-arith{include-apply-rescale=true},tosa-to-tensor),canonicalize,func.func(serenity-fuse-requantization),canonicalize)' 2>/dev/null | FileCheck %s --check-prefix=PIXEL
// RUN: serenity-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(tosa-to-linalg-named,tosa-to-linalg,tosa-to-arith{include-apply-rescale=true},tosa-to-tensor),canonicalize,func.func(serenity-fuse-requantization{tile-cols=3}),canonicalize)' 2>&1 >/dev/null | FileCheck %s --check-prefix=COLS3
// RUN: serenity-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(tosa-to-linalg-named,tosa-to-linalg,tosa-to-arith{include-apply-rescale=true},tosa-to-tensor),canonicalize,func.func(serenity-fuse-requantization{tile-cols=2}),canonicalize)' 2>/dev/null | FileCheck %s --check-prefix=COLS2
// RUN: serenity-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(tosa-to-linalg-named,tosa-to-linalg,tosa-to-arith{include-apply-rescale=true},tosa-to-tensor),canonicalize,func.func(serenity-fuse-requantization{tile-rows=2 tile-cols=0 tile-channels=0 fuse-padding=0}),canonicalize)' 2>/dev/null | FileCheck %s --check-prefix=ROWS2
// RUN: serenity-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(tosa-to-linalg-named,tosa-to-linalg,tosa-to-arith{include-apply-rescale=true},tosa-to-tensor),canonicalize,func.func(serenity-fuse-requantization{all-convs=true tile-cols=0 tile-channels=0 fuse-padding=0}),canonicalize)' 2>/dev/null | FileCheck %s --check-prefix=ALL
// RUN: serenity-opt %s --split-input-file --serenity-memory-report=fuse-requantization=1 -o /dev/null 2>/dev/null | FileCheck %s --check-prefix=MODEL

// An int8 conv (bias 7, -7, 100, 0) followed by rescale and clamp: the clamp
// is fused into the rescale generic, and that generic is tiled along the 8
// output rows with the conv and its bias broadcast fused into the loop. The
// i32 accumulator is one 1x1x8x4 row (128 bytes) instead of 1x8x8x4 (1 KiB);
// the conv reads the 3 padded input rows that row needs.

// CHECK-LABEL: func.func @conv_rescale_clamp
// CHECK:       %[[PAD:.*]] = tensor.pad
// CHECK:       %[[OUT:.*]] = tensor.empty() : tensor<1x8x8x4xi8>
// CHECK:       %[[LOOP:.*]] = scf.for %[[H:.*]] = %c0 to %c8 step %c1 iter_args(%[[ACC:.*]] = %[[OUT]])
// CHECK:         %[[ROWS:.*]] = tensor.extract_slice %[[PAD]][0, %[[H]], 0, 0] [1, 3, 10, 3]
// CHECK:         %[[TILE:.*]] = tensor.empty() : tensor<1x1x8x4xi32>
// CHECK:         %[[BIAS:.*]] = linalg.generic {{.*}} outs(%[[TILE]] : tensor<1x1x8x4xi32>)
// CHECK:         %[[CONV:.*]] = linalg.conv_2d_nhwc_fhwc {{.*}} ins(%[[ROWS]], %{{.*}} : tensor<1x3x10x3xi8>, tensor<4x3x3x3xi8>) outs(%[[BIAS]] : tensor<1x1x8x4xi32>)
// CHECK:         %[[DST:.*]] = tensor.extract_slice %[[ACC]][0, %[[H]], 0, 0] [1, 1, 8, 4]
// CHECK:         %[[Q:.*]] = linalg.generic {{.*}} ins(%[[CONV]] : tensor<1x1x8x4xi32>) outs(%[[DST]] : tensor<1x1x8x4xi8>)
// CHECK:           arith.shrsi
// CHECK:           arith.maxsi
// CHECK:           arith.minsi
// CHECK:           arith.trunci
// CHECK:           arith.maxsi
// CHECK:           arith.minsi
// CHECK:         %[[INS:.*]] = tensor.insert_slice %[[Q]] into %[[ACC]][0, %[[H]], 0, 0] [1, 1, 8, 4]
// CHECK:         scf.yield %[[INS]]
// CHECK-NOT:   linalg.conv_2d
// CHECK:       return %[[LOOP]]

// Defaults (tile-cols=1, fuse-padding): one output pixel per iteration. The
// accumulator is 1x1x1x4 (16 bytes), and no padded copy of the input exists:
// each pixel pads the (up to) 3x3 input window it reads.
// PIXEL-LABEL: func.func @conv_rescale_clamp
// PIXEL-NOT:   tensor.pad
// PIXEL:       scf.for %[[H:.*]] = %c0 to %c8 step %c1
// PIXEL:         scf.for %[[W:.*]] = %c0 to %c8 step %c1
// PIXEL:           scf.for %[[F:.*]] = %c0 to %c4 step %c1
// The window is read unpadded: its rows/columns clipped to the image, and
// the filter clipped to match (the padding would add 0 * w).
// PIXEL:             %[[WIN:.*]] = tensor.extract_slice %arg0[0, %{{.*}}, %{{.*}}, 0] [1, %[[KH:[0-9]+]], %[[KW:[0-9]+]], 3]
// PIXEL-NOT:         tensor.pad
// PIXEL:             tensor.empty() : tensor<1x1x1x1xi32>
// PIXEL:             %[[FILTER:.*]] = tensor.extract_slice %{{.*}}[0, %{{.*}}, %{{.*}}, 0] [1, %[[KH]], %[[KW]], 3]
// PIXEL:             linalg.conv_2d_nhwc_fhwc {{.*}} ins(%[[WIN]], %[[FILTER]] : tensor<1x?x?x3xi8>, tensor<1x?x?x3xi8>) outs(%{{.*}} : tensor<1x1x1x1xi32>)
// PIXEL-NOT:         scf.if
// PIXEL:             tensor.insert_slice %{{.*}} into %{{.*}}[0, %[[H]], %[[W]], %[[F]]] [1, 1, 1, 1]

// With several pixels per tile the window is padded per tile (clipping
// would differ between the pixels).
// COLS2-LABEL: func.func @conv_rescale_clamp
// COLS2:       scf.for
// COLS2:         scf.for
// COLS2:           scf.for
// COLS2:             %[[WIN:.*]] = tensor.extract_slice %arg0[0, %{{.*}}, %{{.*}}, 0] [1, %{{.*}}, %{{.*}}, 3]
// COLS2:             %[[PADDED:.*]] = tensor.pad %[[WIN]]
// COLS2:             } : tensor<1x?x?x3xi8> to tensor<1x3x4x3xi8>
// COLS2:             linalg.conv_2d_nhwc_fhwc {{.*}} ins(%[[PADDED]], %{{.*}} : tensor<1x3x4x3xi8>, tensor<1x3x3x3xi8>) outs(%{{.*}} : tensor<1x1x2x1xi32>)

// COLS3: remark: serenity-fuse-requantization: not fused: tile-rows=1 tile-cols=3 tile-channels=1 does not divide the 8x8x4 output

// Two rows per tile: 4 iterations, the conv reads 4 padded rows.
// ROWS2-LABEL: func.func @conv_rescale_clamp
// ROWS2:       scf.for %{{.*}} = %c0 to %c8 step %c2
// ROWS2:         tensor.extract_slice {{.*}} [1, 4, 10, 3]
// ROWS2:         linalg.conv_2d_nhwc_fhwc {{.*}} outs(%{{.*}} : tensor<1x2x8x4xi32>)
func.func @conv_rescale_clamp(%input: tensor<1x8x8x3xi8>) -> tensor<1x8x8x4xi8> {
  %w = "tosa.const"() <{values = dense<3> : tensor<4x3x3x3xi8>}> : () -> tensor<4x3x3x3xi8>
  %b = "tosa.const"() <{values = dense<[7, -7, 100, 0]> : tensor<4xi32>}> : () -> tensor<4xi32>
  %zp = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %zp32 = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %m = "tosa.const"() <{values = dense<1073741824> : tensor<1xi32>}> : () -> tensor<1xi32>
  %s = "tosa.const"() <{values = dense<38> : tensor<1xi8>}> : () -> tensor<1xi8>
  %c = tosa.conv2d %input, %w, %b, %zp, %zp {acc_type = i32, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x8x8x3xi8>, tensor<4x3x3x3xi8>, tensor<4xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x8x8x4xi32>
  %r = tosa.rescale %c, %m, %s, %zp32, %zp {scale32 = true, rounding_mode = SINGLE_ROUND, per_channel = false, input_unsigned = false, output_unsigned = false} : (tensor<1x8x8x4xi32>, tensor<1xi32>, tensor<1xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x8x8x4xi8>
  %k = tosa.clamp %r {min_val = -100 : i8, max_val = 100 : i8} : (tensor<1x8x8x4xi8>) -> tensor<1x8x8x4xi8>
  return %k : tensor<1x8x8x4xi8>
}


// -----

// A strided int8 depthwise conv: its [N, H, W, C, M] result is collapsed
// before the bias add; the bias add, rescale and clamp are expanded to five
// dimensions and fused, so they read the conv directly, and the collapse
// moves to the int8 result after the loop. Output row h reads padded rows
// 2h .. 2h+2 (stride 2).

// CHECK-LABEL: func.func @depthwise
// CHECK:       %[[PAD:.*]] = tensor.pad
// CHECK:       %[[LOOP:.*]] = scf.for %[[H:.*]] = %c0 to %c4 step %c1
// CHECK:         %[[ROW0:.*]] = affine.apply #{{.*}}(%[[H]])
// CHECK:         tensor.extract_slice %[[PAD]][0, %[[ROW0]], 0, 0] [1, 3, 9, 4]
// CHECK:         tensor.empty() : tensor<1x1x4x4x1xi32>
// CHECK:         linalg.fill
// CHECK:         %[[CONV:.*]] = linalg.depthwise_conv_2d_nhwc_hwcm {{.*}} -> tensor<1x1x4x4x1xi32>
// CHECK:         linalg.generic {{.*}} ins(%{{.*}}, %[[CONV]] : tensor<4x1xi32>, tensor<1x1x4x4x1xi32>) outs(%{{.*}} : tensor<1x1x4x4x1xi8>)
// CHECK:         scf.yield
// CHECK:       %[[RESULT:.*]] = tensor.collapse_shape %[[LOOP]] {{\[}}[0], [1], [2], [3, 4]] : tensor<1x4x4x4x1xi8> into tensor<1x4x4x4xi8>
// CHECK:       return %[[RESULT]]
// One output element per tile: channel %[[C]] of pixel (h, w) reads its
// channel of the clipped window, with the clipped filter of that channel.
// PIXEL-LABEL: func.func @depthwise
// PIXEL-NOT:   tensor.pad
// PIXEL:       scf.for
// PIXEL:         scf.for
// PIXEL:           scf.for %[[C:.*]] = %c0 to %c4 step %c1
// PIXEL:             %[[WIN:.*]] = tensor.extract_slice %arg0[0, %{{.*}}, %{{.*}}, %[[C]]] [1, %[[KH:[0-9]+]], %[[KW:[0-9]+]], 1]
// PIXEL:             %[[FILTER:.*]] = tensor.extract_slice %{{.*}}[%{{.*}}, %{{.*}}, 0, 0] [%[[KH]], %[[KW]], 1, 1]
// PIXEL:             linalg.depthwise_conv_2d_nhwc_hwcm {{.*}} ins(%[[WIN]], %[[FILTER]] : tensor<1x?x?x1xi8>, tensor<?x?x1x1xi8>) outs(%{{.*}} : tensor<1x1x1x1x1xi32>)
func.func @depthwise(%input: tensor<1x7x7x4xi8>) -> tensor<1x4x4x4xi8> {
  %w = "tosa.const"() <{values = dense<2> : tensor<3x3x4x1xi8>}> : () -> tensor<3x3x4x1xi8>
  %b = "tosa.const"() <{values = dense<[1, 2, 3, 4]> : tensor<4xi32>}> : () -> tensor<4xi32>
  %zp = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %zp32 = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %m = "tosa.const"() <{values = dense<1073741824> : tensor<1xi32>}> : () -> tensor<1xi32>
  %s = "tosa.const"() <{values = dense<33> : tensor<1xi8>}> : () -> tensor<1xi8>
  %c = tosa.depthwise_conv2d %input, %w, %b, %zp, %zp {acc_type = i32, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 2, 2>, dilation = array<i64: 1, 1>} : (tensor<1x7x7x4xi8>, tensor<3x3x4x1xi8>, tensor<4xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x4x4x4xi32>
  %r = tosa.rescale %c, %m, %s, %zp32, %zp {scale32 = true, rounding_mode = SINGLE_ROUND, per_channel = false, input_unsigned = false, output_unsigned = false} : (tensor<1x4x4x4xi32>, tensor<1xi32>, tensor<1xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x4x4x4xi8>
  %k = tosa.clamp %r {min_val = 0 : i8, max_val = 127 : i8} : (tensor<1x4x4x4xi8>) -> tensor<1x4x4x4xi8>
  return %k : tensor<1x4x4x4xi8>
}


// -----

// Negative: the i32 accumulator is also returned, so it must exist in full
// anyway; nothing is tiled.

// CHECK-LABEL: func.func @two_users
// CHECK-NOT:   scf.for
// CHECK:       %[[CONV:.*]] = linalg.conv_2d_nhwc_fhwc {{.*}} -> tensor<1x8x8x4xi32>
// CHECK:       %[[Q:.*]] = linalg.generic {{.*}} ins(%[[CONV]] : tensor<1x8x8x4xi32>)
// CHECK-NOT:   scf.for
// CHECK:       return %[[Q]], %[[CONV]]
func.func @two_users(%input: tensor<1x8x8x3xi8>) -> (tensor<1x8x8x4xi8>, tensor<1x8x8x4xi32>) {
  %w = "tosa.const"() <{values = dense<3> : tensor<4x3x3x3xi8>}> : () -> tensor<4x3x3x3xi8>
  %b = "tosa.const"() <{values = dense<7> : tensor<4xi32>}> : () -> tensor<4xi32>
  %zp = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %zp32 = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %m = "tosa.const"() <{values = dense<1073741824> : tensor<1xi32>}> : () -> tensor<1xi32>
  %s = "tosa.const"() <{values = dense<38> : tensor<1xi8>}> : () -> tensor<1xi8>
  // expected-remark @below {{not fused: the convolution result has 2 user(s)}}
  %c = tosa.conv2d %input, %w, %b, %zp, %zp {acc_type = i32, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x8x8x3xi8>, tensor<4x3x3x3xi8>, tensor<4xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x8x8x4xi32>
  %r = tosa.rescale %c, %m, %s, %zp32, %zp {scale32 = true, rounding_mode = SINGLE_ROUND, per_channel = false, input_unsigned = false, output_unsigned = false} : (tensor<1x8x8x4xi32>, tensor<1xi32>, tensor<1xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x8x8x4xi8>
  return %r, %c : tensor<1x8x8x4xi8>, tensor<1x8x8x4xi32>
}

// -----

// An f32 conv + relu: the accumulator is as wide as the result, so row tiles
// would not lower the peak (the padded input would outlive the loop next to
// the result) and, by default, nothing is tiled; all-convs tiles it anyway.

// CHECK-LABEL: func.func @f32_conv_relu
// CHECK-NOT:   scf.for
// CHECK:       linalg.conv_2d_nhwc_fhwc {{.*}} -> tensor<1x4x4x2xf32>
// CHECK-NOT:   scf.for
// CHECK:       return

// ALL-LABEL: func.func @f32_conv_relu
// ALL:       scf.for %{{.*}} = %c0 to %c4 step %c1
// ALL:         linalg.conv_2d_nhwc_fhwc {{.*}} -> tensor<1x1x4x2xf32>
// ALL:         arith.maximumf
// ALL:         scf.yield
func.func @f32_conv_relu(%x: tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32> {
  %w = "tosa.const"() <{values = dense<[[[[1.0, 2.0]]], [[[-1.0, 0.5]]]]> : tensor<2x1x1x2xf32>}> : () -> tensor<2x1x1x2xf32>
  %b = "tosa.const"() <{values = dense<[0.25, -0.25]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %c = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x4x4x2xf32>, tensor<2x1x1x2xf32>, tensor<2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x4x2xf32>
  %r = tosa.clamp %c {min_val = 0.0 : f32, max_val = 3.4028235e+38 : f32} : (tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32>
  return %r : tensor<1x4x4x2xf32>
}

// -----

// An unpadded f32 1x1 conv that expands 2 channels to 6 (MobileNetV2's
// expansion, sscma FOMO): its input is smaller than its result, so tiled by
// pixels with its relu only the input and the relu's result exist, not the
// conv's result as well; the memory model counts the same (peak 96 + 288
// bytes: the conv's input and the relu's result, not 288 + 288).

// PIXEL-LABEL: func.func @f32_expanding_conv_relu
// PIXEL:       scf.for
// PIXEL:         linalg.conv_2d_nhwc_fhwc {{.*}} -> tensor<1x1x1x{{[0-9]}}xf32>
// PIXEL:         arith.maximumf
// MODEL-LABEL: serenity memory report: @f32_expanding_conv_relu
// MODEL-NEXT:  peak 384 bytes at step 1
func.func @f32_expanding_conv_relu(%x: tensor<1x4x3x2xf32>) -> tensor<1x4x3x6xf32> {
  %w = "tosa.const"() <{values = dense<0.5> : tensor<6x1x1x2xf32>}> : () -> tensor<6x1x1x2xf32>
  %b = "tosa.const"() <{values = dense<0.25> : tensor<6xf32>}> : () -> tensor<6xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %c = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x4x3x2xf32>, tensor<6x1x1x2xf32>, tensor<6xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x3x6xf32>
  %r = tosa.clamp %c {min_val = 0.0 : f32, max_val = 3.4028235e+38 : f32} : (tensor<1x4x3x6xf32>) -> tensor<1x4x3x6xf32>
  return %r : tensor<1x4x3x6xf32>
}

// -----

// A fully connected layer (a 1x1 conv on one pixel): the single-pixel output
// is tiled by output channel, so the accumulator is one i32 element.

// PIXEL-LABEL: func.func @fully_connected
// PIXEL:       scf.for %[[C:.*]] = %c0 to %c6 step %c1
// PIXEL:         tensor.empty() : tensor<1x1x1x1xi32>
// PIXEL:         linalg.conv_2d_nhwc_fhwc {{.*}} outs(%{{.*}} : tensor<1x1x1x1xi32>)
// PIXEL:         tensor.insert_slice %{{.*}} into %{{.*}}[0, 0, 0, %[[C]]] [1, 1, 1, 1]
func.func @fully_connected(%x: tensor<1x1x1x5xi8>) -> tensor<1x1x1x6xi8> {
  %w = "tosa.const"() <{values = dense<3> : tensor<6x1x1x5xi8>}> : () -> tensor<6x1x1x5xi8>
  %b = "tosa.const"() <{values = dense<[1, 2, 3, 4, 5, 6]> : tensor<6xi32>}> : () -> tensor<6xi32>
  %zp = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %zp32 = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %m = "tosa.const"() <{values = dense<1073741824> : tensor<1xi32>}> : () -> tensor<1xi32>
  %s = "tosa.const"() <{values = dense<33> : tensor<1xi8>}> : () -> tensor<1xi8>
  %c = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = i32, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x1x1x5xi8>, tensor<6x1x1x5xi8>, tensor<6xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x1x1x6xi32>
  %r = tosa.rescale %c, %m, %s, %zp32, %zp {scale32 = true, rounding_mode = DOUBLE_ROUND, per_channel = false, input_unsigned = false, output_unsigned = false} : (tensor<1x1x1x6xi32>, tensor<1xi32>, tensor<1xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x1x1x6xi8>
  return %r : tensor<1x1x1x6xi8>
}

// -----

// An f32 padded conv (no narrower result) added to a padded max pool: the
// padded conv is tiled with its elementwise consumer (the add) and the pool,
// which has none, by output pixel alone, so that each reads its window
// unpadded (the pool's window shape sliced from a read-only zero constant);
// no tensor.pad is left, so no padded copy of either input exists. With
// whole-row tiles the pads stay.
// PIXEL-LABEL: func.func @f32_padded_conv_and_pool
// PIXEL-NOT:   tensor.pad
// PIXEL:       scf.for
// PIXEL:         scf.for
// PIXEL:           linalg.pooling_nhwc_max {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x?x?x2xf32>, tensor<?x?xf32>) outs(%{{.*}} : tensor<1x1x1x2xf32>)
// PIXEL:       scf.for
// PIXEL:         scf.for
// PIXEL:           scf.for
// PIXEL:             linalg.conv_2d_nhwc_fhwc {{.*}} ins(%{{.*}}, %{{.*}} : tensor<1x?x?x2xf32>, tensor<1x?x?x2xf32>) outs(%{{.*}} : tensor<1x1x1x1xf32>)
// PIXEL-NOT:   tensor.pad
// ROWS2-LABEL: func.func @f32_padded_conv_and_pool
// ROWS2-COUNT-2: tensor.pad
func.func @f32_padded_conv_and_pool(%x: tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32> {
  %w = "tosa.const"() <{values = dense<0.5> : tensor<2x3x3x2xf32>}> : () -> tensor<2x3x3x2xf32>
  %b = "tosa.const"() <{values = dense<0.0> : tensor<2xf32>}> : () -> tensor<2xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %c = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = f32, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x4x4x2xf32>, tensor<2x3x3x2xf32>, tensor<2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x4x2xf32>
  %p = tosa.max_pool2d %x {kernel = array<i64: 3, 3>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32>
  %s = tosa.add %c, %p : (tensor<1x4x4x2xf32>, tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32>
  return %s : tensor<1x4x4x2xf32>
}

// -----

// Pointwise ops that no conv chain reaches (after a slice): an int16 table
// interpolation as the LSTM import emits it. The index (`%hi`, read by two
// gathers) and the scaled input (`%v`, read by the abs and the sign) have
// several users, all pointwise and element for element: each recomputes
// them, so the whole DAG is one loop and no i32 temporary is stored; its
// inputs are views of one tensor, held once. The i16 result read by a
// slice stays a tensor of its own.
// CHECK-LABEL: func.func @pointwise_dag
// CHECK:       %[[X:.*]] = tensor.extract_slice %arg0
// CHECK:       linalg.generic {{.*}} ins(%[[X]], %{{.*}} : tensor<1x6xi16>, tensor<1x6x1xi16>) outs(%{{.*}} : tensor<1x6x1xi16>)
// CHECK-COUNT-2: tensor.extract %cst{{.*}} : tensor<1x256x1xi32>
// CHECK:       arith.trunci {{.*}} : i32 to i16
// CHECK-NOT:   linalg.generic
// CHECK:       return
// The memory model counts the same loop (serenity-schedule plans with it):
// only the input (16 bytes) and the i16 result (12 bytes) take bytes; one
// i32 temporary would take 24.
// MODEL-LABEL: serenity memory report: @pointwise_dag
// MODEL-NEXT:  peak 28 bytes at step 16, 17 steps
func.func @pointwise_dag(%x: tensor<1x8xi16>) -> tensor<1x6x1xi16> {
  %s0 = tosa.const_shape {values = dense<[0, 0]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %s6 = tosa.const_shape {values = dense<[1, 6]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %s3 = tosa.const_shape {values = dense<[1, 6, 1]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %three = "tosa.const"() <{values = dense<3> : tensor<1x1xi32>}> : () -> tensor<1x1xi32>
  %three3 = "tosa.const"() <{values = dense<3> : tensor<1x1x1xi32>}> : () -> tensor<1x1x1xi32>
  %nine = "tosa.const"() <{values = dense<9> : tensor<1x1xi32>}> : () -> tensor<1x1xi32>
  %mask = "tosa.const"() <{values = dense<511> : tensor<1x1x1xi32>}> : () -> tensor<1x1x1xi32>
  %c31 = "tosa.const"() <{values = dense<31> : tensor<1x1x1xi32>}> : () -> tensor<1x1x1xi32>
  %sh = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %base = "tosa.const"() <{values = dense<[[[0], [1], [4], [9], [16], [25], [36], [49], [64], [81], [100], [121], [144], [169], [196], [225], [256], [289], [324], [361], [400], [441], [484], [529], [576], [625], [676], [729], [784], [841], [900], [961], [24], [89], [156], [225], [296], [369], [444], [521], [600], [681], [764], [849], [936], [25], [116], [209], [304], [401], [500], [601], [704], [809], [916], [25], [136], [249], [364], [481], [600], [721], [844], [969], [96], [225], [356], [489], [624], [761], [900], [41], [184], [329], [476], [625], [776], [929], [84], [241], [400], [561], [724], [889], [56], [225], [396], [569], [744], [921], [100], [281], [464], [649], [836], [25], [216], [409], [604], [801], [0], [201], [404], [609], [816], [25], [236], [449], [664], [881], [100], [321], [544], [769], [996], [225], [456], [689], [924], [161], [400], [641], [884], [129], [376], [625], [876], [129], [384], [641], [900], [161], [424], [689], [956], [225], [496], [769], [44], [321], [600], [881], [164], [449], [736], [25], [316], [609], [904], [201], [500], [801], [104], [409], [716], [25], [336], [649], [964], [281], [600], [921], [244], [569], [896], [225], [556], [889], [224], [561], [900], [241], [584], [929], [276], [625], [976], [329], [684], [41], [400], [761], [124], [489], [856], [225], [596], [969], [344], [721], [100], [481], [864], [249], [636], [25], [416], [809], [204], [601], [0], [401], [804], [209], [616], [25], [436], [849], [264], [681], [100], [521], [944], [369], [796], [225], [656], [89], [524], [961], [400], [841], [284], [729], [176], [625], [76], [529], [984], [441], [900], [361], [824], [289], [756], [225], [696], [169], [644], [121], [600], [81], [564], [49], [536], [25], [516], [9], [504], [1], [500], [1], [504], [9], [516], [25]]]> : tensor<1x256x1xi32>}> : () -> tensor<1x256x1xi32>
  %slope = "tosa.const"() <{values = dense<[[[0], [7], [1], [8], [2], [9], [3], [10], [4], [11], [5], [12], [6], [0], [7], [1], [8], [2], [9], [3], [10], [4], [11], [5], [12], [6], [0], [7], [1], [8], [2], [9], [3], [10], [4], [11], [5], [12], [6], [0], [7], [1], [8], [2], [9], [3], [10], [4], [11], [5], [12], [6], [0], [7], [1], [8], [2], [9], [3], [10], [4], [11], [5], [12], [6], [0], [7], [1], [8], [2], [9], [3], [10], [4], [11], [5], [12], [6], [0], [7], [1], [8], [2], [9], [3], [10], [4], [11], [5], [12], [6], [0], [7], [1], [8], [2], [9], [3], [10], [4], [11], [5], [12], [6], [0], [7], [1], [8], [2], [9], [3], [10], [4], [11], [5], [12], [6], [0], [7], [1], [8], [2], [9], [3], [10], [4], [11], [5], [12], [6], [0], [7], [1], [8], [2], [9], [3], [10], [4], [11], [5], [12], [6], [0], [7], [1], [8], [2], [9], [3], [10], [4], [11], [5], [12], [6], [0], [7], [1], [8], [2], [9], [3], [10], [4], [11], [5], [12], [6], [0], [7], [1], [8], [2], [9], [3], [10], [4], [11], [5], [12], [6], [0], [7], [1], [8], [2], [9], [3], [10], [4], [11], [5], [12], [6], [0], [7], [1], [8], [2], [9], [3], [10], [4], [11], [5], [12], [6], [0], [7], [1], [8], [2], [9], [3], [10], [4], [11], [5], [12], [6], [0], [7], [1], [8], [2], [9], [3], [10], [4], [11], [5], [12], [6], [0], [7], [1], [8], [2], [9], [3], [10], [4], [11], [5], [12], [6], [0], [7], [1], [8], [2], [9], [3], [10], [4]]]> : tensor<1x256x1xi32>}> : () -> tensor<1x256x1xi32>
  %xs = tosa.slice %x, %s0, %s6 : (tensor<1x8xi16>, !tosa.shape<2>, !tosa.shape<2>) -> tensor<1x6xi16>
  %x2 = tosa.cast %xs : (tensor<1x6xi16>) -> tensor<1x6xi32>
  %v2 = tosa.mul %x2, %three, %sh : (tensor<1x6xi32>, tensor<1x1xi32>, tensor<1xi8>) -> tensor<1x6xi32>
  %a2 = tosa.abs %v2 : (tensor<1x6xi32>) -> tensor<1x6xi32>
  %hi = tosa.arithmetic_right_shift %a2, %nine {round = false} : (tensor<1x6xi32>, tensor<1x1xi32>) -> tensor<1x6xi32>
  %xr = tosa.reshape %xs, %s3 : (tensor<1x6xi16>, !tosa.shape<3>) -> tensor<1x6x1xi16>
  %x3 = tosa.cast %xr : (tensor<1x6x1xi16>) -> tensor<1x6x1xi32>
  %v = tosa.mul %x3, %three3, %sh : (tensor<1x6x1xi32>, tensor<1x1x1xi32>, tensor<1xi8>) -> tensor<1x6x1xi32>
  %a = tosa.abs %v : (tensor<1x6x1xi32>) -> tensor<1x6x1xi32>
  %lo = tosa.bitwise_and %a, %mask : (tensor<1x6x1xi32>, tensor<1x1x1xi32>) -> tensor<1x6x1xi32>
  %gb = tosa.gather %base, %hi : (tensor<1x256x1xi32>, tensor<1x6xi32>) -> tensor<1x6x1xi32>
  %gs = tosa.gather %slope, %hi : (tensor<1x256x1xi32>, tensor<1x6xi32>) -> tensor<1x6x1xi32>
  %m = tosa.mul %lo, %gs, %sh : (tensor<1x6x1xi32>, tensor<1x6x1xi32>, tensor<1xi8>) -> tensor<1x6x1xi32>
  %r = tosa.add %gb, %m : (tensor<1x6x1xi32>, tensor<1x6x1xi32>) -> tensor<1x6x1xi32>
  %sign = tosa.arithmetic_right_shift %v, %c31 {round = false} : (tensor<1x6x1xi32>, tensor<1x1x1xi32>) -> tensor<1x6x1xi32>
  %y = tosa.bitwise_xor %r, %sign : (tensor<1x6x1xi32>, tensor<1x6x1xi32>) -> tensor<1x6x1xi32>
  %y16 = tosa.cast %y : (tensor<1x6x1xi32>) -> tensor<1x6x1xi16>
  return %y16 : tensor<1x6x1xi16>
}
