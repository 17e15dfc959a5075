// RUN: serenity-opt %s --split-input-file --verify-diagnostics \
// RUN:   --serenity-tile="method=fdt max-partitions=2 concat=auto" | FileCheck %s
// RUN: serenity-opt %s --split-input-file \
// RUN:   --serenity-tile="method=fdt max-partitions=4 concat=auto" 2>/dev/null | FileCheck %s --check-prefix=SPLIT
// RUN: not serenity-opt %s --serenity-tile=method=bogus 2>&1 | FileCheck %s --check-prefix=METHOD

// METHOD: for the --method option: invalid value 'bogus' (expected one of: ffmt, fdt, both)

// An inverted residual block (expand 1x1 -> ReLU6 -> depthwise 3x3 ->
// ReLU6 -> project 1x1), f32. Untiled peak: the two 8x8x32 buffers at the
// depthwise conv, 8192 + 8192 = 16384. Two channel partitions of 16: the
// expand conv split by output channels, ReLU6 and the depthwise conv per
// partition (weights and bias sliced), the project conv split by input
// channels and the two partial sums added (the first keeps the bias, the
// second gets a zero bias). Peak 9216: x 1024 + 4096 + 4096 at the first
// partition's ReLU6 (the second's: partial sum 1024 + 4096 + 4096, x dead).

// CHECK-LABEL: func.func @main
// CHECK: %[[BIAS:.*]] = "tosa.const"() <{values = dense<1.000000e-01> : tensor<4xf32>}>
// CHECK: tosa.conv2d %arg0, {{.*}} -> tensor<1x8x8x16xf32>
// CHECK: tosa.clamp {{.*}} -> tensor<1x8x8x16xf32>
// CHECK: tosa.depthwise_conv2d {{.*}} : (tensor<1x8x8x16xf32>, tensor<3x3x16x1xf32>, tensor<16xf32>
// CHECK: tosa.clamp
// CHECK: %[[P0:.*]] = tosa.conv2d {{.*}}, %[[BIAS]], {{.*}} : (tensor<1x8x8x16xf32>, tensor<4x1x1x16xf32>
// CHECK: tosa.conv2d %arg0, {{.*}} -> tensor<1x8x8x16xf32>
// CHECK: %[[ZERO:.*]] = "tosa.const"() <{values = dense<0.000000e+00> : tensor<4xf32>}>
// CHECK: %[[P1:.*]] = tosa.conv2d {{.*}}, %[[ZERO]], {{.*}} : (tensor<1x8x8x16xf32>, tensor<4x1x1x16xf32>
// CHECK: %[[SUM:.*]] = tosa.add %[[P0]], %[[P1]]
// CHECK: return %[[SUM]]
func.func @main(%x: tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32> {
  %w = "tosa.const"() <{values = dense<0.5> : tensor<32x1x1x4xf32>}> : () -> tensor<32x1x1x4xf32>
  %b = "tosa.const"() <{values = dense<0.1> : tensor<32xf32>}> : () -> tensor<32xf32>
  %dw = "tosa.const"() <{values = dense<0.25> : tensor<3x3x32x1xf32>}> : () -> tensor<3x3x32x1xf32>
  %w2 = "tosa.const"() <{values = dense<0.5> : tensor<4x1x1x32xf32>}> : () -> tensor<4x1x1x32xf32>
  %b2 = "tosa.const"() <{values = dense<0.1> : tensor<4xf32>}> : () -> tensor<4xf32>
  %z = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  // expected-remark @+1 {{serenity-tile: fdt 2 channel partitions over 5 ops (tosa.conv2d, tosa.clamp, tosa.depthwise_conv2d, tosa.clamp, tosa.conv2d) from 1x8x8x4 to 1x8x8x4 (fan-in); peak 16384 -> 9216 bytes; MACs +0.0% of the function}}
  %c = tosa.conv2d %x, %w, %b, %z, %z {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x8x8x4xf32>, tensor<32x1x1x4xf32>, tensor<32xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x8x32xf32>
  %r = tosa.clamp %c {max_val = 6.0 : f32, min_val = 0.0 : f32} : (tensor<1x8x8x32xf32>) -> tensor<1x8x8x32xf32>
  %d = tosa.depthwise_conv2d %r, %dw, %b, %z, %z {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x8x8x32xf32>, tensor<3x3x32x1xf32>, tensor<32xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x8x32xf32>
  %r2 = tosa.clamp %d {max_val = 6.0 : f32, min_val = 0.0 : f32} : (tensor<1x8x8x32xf32>) -> tensor<1x8x8x32xf32>
  %p = tosa.conv2d %r2, %w2, %b2, %z, %z {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x8x8x32xf32>, tensor<4x1x1x32xf32>, tensor<4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x8x4xf32>
  return %p : tensor<1x8x8x4xf32>
}

// -----

// A second activation read inside the chain (a residual add) ends a channel
// region before it; the only region left, conv -> clamp, gains nothing.
// CHECK-LABEL: func.func @second_activation
// CHECK-NOT: serenity.tile
// CHECK: return
func.func @second_activation(%x: tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32> {
  %w = "tosa.const"() <{values = dense<0.5> : tensor<4x1x1x4xf32>}> : () -> tensor<4x1x1x4xf32>
  %b = "tosa.const"() <{values = dense<0.1> : tensor<4xf32>}> : () -> tensor<4xf32>
  %z = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %c = tosa.conv2d %x, %w, %b, %z, %z {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x8x8x4xf32>, tensor<4x1x1x4xf32>, tensor<4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x8x4xf32>
  %r = tosa.clamp %c {max_val = 6.0 : f32, min_val = 0.0 : f32} : (tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32>
  %s = tosa.add %r, %x : (tensor<1x8x8x4xf32>, tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32>
  return %s : tensor<1x8x8x4xf32>
}

// -----

// An explicit split (the paper's SPLIT block) - the region starts with a
// channel-independent op, so each
// partition starts with a slice of the input's channels (a view). The input
// (8192) stays live until the last partition's ReLU6 has read it. Two
// partitions gain nothing (8192 + 4096 + 4096 + 1024 > 16384, the untiled
// peak of the two 8x8x32 buffers at the depthwise conv); with four the peak
// is 13312 at the second partition's depthwise conv: x 8192 + the partial
// sum 1024 + 2048 + 2048.
// CHECK-LABEL: func.func @split
// CHECK-NOT: tosa.slice
// SPLIT-LABEL: func.func @split
// SPLIT: tosa.slice %arg0, {{.*}} -> tensor<1x8x8x8xf32>
// SPLIT: tosa.clamp {{.*}} -> tensor<1x8x8x8xf32>
// SPLIT: tosa.depthwise_conv2d {{.*}} : (tensor<1x8x8x8xf32>, tensor<3x3x8x1xf32>
// SPLIT-COUNT-3: tosa.slice %arg0
// SPLIT: tosa.add
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
