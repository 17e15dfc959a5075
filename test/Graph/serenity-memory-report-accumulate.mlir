// RUN: serenity-opt %s --serenity-memory-report -o /dev/null | FileCheck %s --check-prefix=SEPARATE
// RUN: serenity-opt %s --serenity-memory-report=accumulate-in-place=1 -o /dev/null | FileCheck %s --check-prefix=ACC
// RUN: serenity-opt %s --serenity-annotate-lifetimes=accumulate-in-place=1 | FileCheck %s --check-prefix=LIFETIMES

// A channel-partitioned conv in a good order: branch a (2048 B) and its
// partial p0 (2048 B, with the bias), then branch b and its zero-bias
// partial p1, then the sum. x is 512 B.
//
// separate: a: x+a = 2560; p0: x+a+p0 = 4608; b: x+p0+b = 4608;
// p1: p0+b+p1 = 6144; add: p0+p1+s = 6144.
// SEPARATE: peak 6144 bytes at step 3
// SEPARATE:    3  tosa.conv2d   {{ *}}6144         2048  <- peak
// SEPARATE:    4  tosa.add      {{ *}}6144         2048
//
// accumulate-in-place: p1 writes into p0's buffer and the add is an alias:
// p1: p0+b = 4096; add: p0 = 2048. The peak is p0's step: 4608.
// ACC: peak 4608 bytes at step 1
// ACC:    3  tosa.conv2d   {{ *}}4096            0
// ACC:    4  tosa.add      {{ *}}2048            0
//
// LIFETIMES: serenity.peak_bytes = 4608
// LIFETIMES: tosa.conv2d %{{.*}}#serenity.lifetime<bytes = 2048, def = 1, last = 5>
// LIFETIMES: tosa.conv2d %{{.*}}#serenity.lifetime<bytes = 0, def = 3, last = 4>
// LIFETIMES: tosa.add {{.*}}#serenity.lifetime<bytes = 0, def = 4, last = 5>
func.func @f(%x: tensor<1x8x8x2xf32>) -> tensor<1x8x8x8xf32> {
  %wx = "tosa.const"() <{values = dense<0.5> : tensor<8x1x1x2xf32>}> : () -> tensor<8x1x1x2xf32>
  %w = "tosa.const"() <{values = dense<0.25> : tensor<8x1x1x8xf32>}> : () -> tensor<8x1x1x8xf32>
  %bias = "tosa.const"() <{values = dense<1.0> : tensor<8xf32>}> : () -> tensor<8xf32>
  %zero = "tosa.const"() <{values = dense<0.0> : tensor<8xf32>}> : () -> tensor<8xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %a = tosa.conv2d %x, %wx, %bias, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x8x8x2xf32>, tensor<8x1x1x2xf32>, tensor<8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x8x8xf32>
  %p0 = tosa.conv2d %a, %w, %bias, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x8x8x8xf32>, tensor<8x1x1x8xf32>, tensor<8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x8x8xf32>
  %b = tosa.conv2d %x, %wx, %bias, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x8x8x2xf32>, tensor<8x1x1x2xf32>, tensor<8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x8x8xf32>
  %p1 = tosa.conv2d %b, %w, %zero, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x8x8x8xf32>, tensor<8x1x1x8xf32>, tensor<8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x8x8xf32>
  %s = tosa.add %p0, %p1 : (tensor<1x8x8x8xf32>, tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  return %s : tensor<1x8x8x8xf32>
}
