// RUN: serenity-opt %s --serenity-memory-report -o /dev/null | FileCheck %s --check-prefix=COPY
// RUN: serenity-opt %s --serenity-memory-report=concat=inplace -o /dev/null | FileCheck %s --check-prefix=INPLACE
// RUN: serenity-opt %s --serenity-annotate-lifetimes=concat=inplace | FileCheck %s --check-prefix=LIFETIMES
// RUN: not serenity-opt %s --serenity-memory-report=concat=bogus -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD

// x (128 B) -> exp, tanh (128 B each) -> concat (256 B) -> 1x1 conv (64 B).
//
// copy: exp x+a = 256; tanh x+a+b = 384; concat a+b+c = 512; conv c+y = 320.
// COPY: peak 512 bytes at step 2
// COPY:    0  tosa.exp      {{ *}}256          128
// COPY:    1  tosa.tanh     {{ *}}384          128
// COPY:    2  tosa.concat   {{ *}}512          256  <- peak
// COPY:    3  tosa.conv2d   {{ *}}320           64
//
// inplace: exp and tanh write their halves of the concat output, which exp
// allocates whole: exp x+c = 384; tanh x+c = 384; concat c = 256 (no copy,
// x died at tanh); conv c+y = 320.
// INPLACE: peak 384 bytes at step 0
// INPLACE:    0  tosa.exp      {{ *}}384          256  <- peak
// INPLACE:    1  tosa.tanh     {{ *}}384            0
// INPLACE:    2  tosa.concat   {{ *}}256            0
// INPLACE:    3  tosa.conv2d   {{ *}}320           64
//
// The operands own no bytes; the concat output lives from step 0.
// LIFETIMES: serenity.peak_bytes = 384
// LIFETIMES: tosa.exp {{.*}}#serenity.lifetime<bytes = 0, def = 0, last = 2>
// LIFETIMES: tosa.tanh {{.*}}#serenity.lifetime<bytes = 0, def = 1, last = 2>
// LIFETIMES: tosa.concat {{.*}}#serenity.lifetime<bytes = 256, def = 0, last = 3>
//
// BAD: for the --concat option: invalid value 'bogus' (expected one of: copy, inplace, auto)
func.func @f(%x: tensor<1x4x4x2xf32>) -> tensor<1x4x4x1xf32> {
  %w = "tosa.const"() <{values = dense<[[[[1.0, 2.0, 3.0, 4.0]]]]> : tensor<1x1x1x4xf32>}> : () -> tensor<1x1x1x4xf32>
  %b = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %a = tosa.exp %x : (tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32>
  %t = tosa.tanh %x : (tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32>
  %c = tosa.concat %a, %t {axis = 3 : i32} : (tensor<1x4x4x2xf32>, tensor<1x4x4x2xf32>) -> tensor<1x4x4x4xf32>
  %y = tosa.conv2d %c, %w, %b, %b, %b {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x4x4x4xf32>, tensor<1x1x1x4xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x4x1xf32>
  return %y : tensor<1x4x4x1xf32>
}
