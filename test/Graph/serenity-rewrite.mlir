// RUN: serenity-opt %s --split-input-file --verify-diagnostics \
// RUN:   --serenity-rewrite | FileCheck %s
// RUN: not serenity-opt %s --split-input-file --serenity-rewrite=mode=all \
// RUN:   2>&1 >/dev/null | FileCheck %s --check-prefix=ALL
// RUN: not serenity-opt %s --serenity-rewrite=mode=bogus 2>&1 \
// RUN:   | FileCheck %s --check-prefix=MODE
// RUN: not serenity-opt %s --serenity-rewrite=patterns=bogus 2>&1 \
// RUN:   | FileCheck %s --check-prefix=GROUP
// RUN: not serenity-opt %s --serenity-rewrite=time-limit-ms=-1 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BADLIMIT
// RUN: not serenity-opt %s --serenity-rewrite=work-limit=-2 2>&1 \
// RUN:   | FileCheck %s --check-prefix=BADLIMIT
// With no work at all, the profitable search evaluates no candidate, keeps
// the function as it is and says which budget stopped it (the file's
// dynamic-shape case fails). The budget counts work, not time: two runs give
// the same bytes.
// RUN: not serenity-opt %s --split-input-file --serenity-rewrite=work-limit=0 \
// RUN:   2>&1 >/dev/null | FileCheck %s --check-prefix=NOWORK
// RUN: not serenity-opt %s --split-input-file --serenity-rewrite=work-limit=0 \
// RUN:   >%t.first 2>&1
// RUN: not serenity-opt %s --split-input-file --serenity-rewrite=work-limit=0 \
// RUN:   >%t.second 2>&1
// RUN: diff %t.first %t.second
// RUN: not serenity-opt %s --split-input-file --serenity-rewrite=work-limit=0 \
// RUN:   2>/dev/null | FileCheck %s --check-prefix=NOWORKIR
// time-limit-ms=0 is no safety net, and the largest one is none either (it
// used to overflow the deadline and read as reached at once); work-limit=-1
// is no budget: the profitable rewrite is applied.
// RUN: not serenity-opt %s --split-input-file \
// RUN:   --serenity-rewrite="time-limit-ms=0 work-limit=-1" 2>/dev/null \
// RUN:   | FileCheck %s
// RUN: not serenity-opt %s --split-input-file \
// RUN:   --serenity-rewrite=time-limit-ms=9223372036854775807 2>/dev/null \
// RUN:   | FileCheck %s

// MODE: for the --mode option: invalid value 'bogus' (expected one of: profitable, all)
// GROUP: error: serenity-rewrite: unknown pattern group 'bogus'
// BADLIMIT: error: serenity-rewrite: work-limit must be >= -1 and time-limit-ms >= 0
// NOWORK: remark: serenity-rewrite: stopped by work-limit=0; kept the rewrites applied so far (scheduled peak 8192 bytes), remaining candidates not evaluated
// NOWORKIR-LABEL: func.func @profitable
// NOWORKIR: tosa.concat

// Two 8-channel branches of x (512 B) concatenated into a 1x1 conv.
// Before: every order computes a and b (2048 B each) before the concat
// (4096 B): peak a + b + concat = 8192 at the concat.
// After: a, its partial p0 (512 B), then b while x and p0 are live:
// x + p0 + b = 512 + 512 + 2048 = 3072 (also at p1: p0 + b + p1).

// CHECK-LABEL: func.func @profitable
// CHECK-NOT:   tosa.concat
// CHECK:       tosa.add
// ALL:         remark: serenity-rewrite: applied channel-partition x1; scheduled peak 8192 -> 3072 bytes
func.func @profitable(%x: tensor<1x8x8x2xf32>) -> tensor<1x8x8x2xf32> {
  %wa = "tosa.const"() <{values = dense<[[[[1.0, 2.0]]], [[[3.0, 4.0]]], [[[5.0, 6.0]]], [[[7.0, 8.0]]], [[[1.5, 2.5]]], [[[3.5, 4.5]]], [[[5.5, 6.5]]], [[[7.5, 8.5]]]]> : tensor<8x1x1x2xf32>}> : () -> tensor<8x1x1x2xf32>
  %w = "tosa.const"() <{values = dense<0.125> : tensor<2x1x1x16xf32>}> : () -> tensor<2x1x1x16xf32>
  %b8 = "tosa.const"() <{values = dense<0.0> : tensor<8xf32>}> : () -> tensor<8xf32>
  %b2 = "tosa.const"() <{values = dense<[1.0, 2.0]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %a = tosa.conv2d %x, %wa, %b8, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x8x8x2xf32>, tensor<8x1x1x2xf32>, tensor<8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x8x8xf32>
  %b = tosa.conv2d %x, %wa, %b8, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x8x8x2xf32>, tensor<8x1x1x2xf32>, tensor<8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x8x8xf32>
  // expected-remark @+1 {{serenity-rewrite: applied channel-partition x1; scheduled peak 8192 -> 3072 bytes}}
  %c = tosa.concat %a, %b {axis = 3 : i32} : (tensor<1x8x8x8xf32>, tensor<1x8x8x8xf32>) -> tensor<1x8x8x16xf32>
  %y = tosa.conv2d %c, %w, %b2, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x8x8x16xf32>, tensor<2x1x1x16xf32>, tensor<2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x8x2xf32>
  return %y : tensor<1x8x8x2xf32>
}

// -----

// The concat reads two inputs (128 B each, live from the start) and the conv
// widens 4 -> 8 channels (512 B). Before: concat step a + b + c = 512, conv
// step c + y = 768. After: the first partial (512 B) stays live while the
// second is computed: p0 + b + p1 = 512 + 128 + 512 = 1152, and the add
// holds p0 + p1 + sum = 1536. The peak would go up: not applied (applied
// anyway under mode=all).

// CHECK-LABEL: func.func @unprofitable
// CHECK:       tosa.concat
// ALL:         remark: serenity-rewrite: applied channel-partition x1; scheduled peak 768 -> 1536 bytes
func.func @unprofitable(%a: tensor<1x4x4x2xf32>, %b: tensor<1x4x4x2xf32>) -> tensor<1x4x4x8xf32> {
  %w = "tosa.const"() <{values = dense<0.5> : tensor<8x1x1x4xf32>}> : () -> tensor<8x1x1x4xf32>
  %bias = "tosa.const"() <{values = dense<0.0> : tensor<8xf32>}> : () -> tensor<8xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  // expected-remark @+1 {{serenity-rewrite: not applied: scheduled peak 768 -> 1536 bytes does not go down}}
  %c = tosa.concat %a, %b {axis = 3 : i32} : (tensor<1x4x4x2xf32>, tensor<1x4x4x2xf32>) -> tensor<1x4x4x4xf32>
  %y = tosa.conv2d %c, %w, %bias, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x4x4x4xf32>, tensor<8x1x1x4xf32>, tensor<8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x4x8xf32>
  return %y : tensor<1x4x4x8xf32>
}

// -----

// Outside the memory model (dynamic shape): an error, the IR is unchanged.

// expected-error @+1 {{serenity memory model: argument #0 of type 'tensor<?x4x4x2xf32>': dynamic shape is outside the memory model}}
func.func @dynamic(%a: tensor<?x4x4x2xf32>) -> tensor<?x4x4x2xf32> {
  %e = tosa.exp %a : (tensor<?x4x4x2xf32>) -> tensor<?x4x4x2xf32>
  return %e : tensor<?x4x4x2xf32>
}

// -----

// Two regions with the same peak (8192 at each concat, as in @profitable):
// partitioning one alone leaves the other's peak, so no single rewrite
// lowers the function's peak; both together bring it to 3072.

// CHECK-LABEL: func.func @only_together
// CHECK-NOT:   tosa.concat
// CHECK-COUNT-2: tosa.add
// expected-remark @+1 {{serenity-rewrite: applied 2 rewrites together, none of which lowers the peak alone; scheduled peak 8192 -> 3072 bytes}}
func.func @only_together(%x: tensor<1x8x8x2xf32>) -> tensor<1x8x8x2xf32> {
  %wa = "tosa.const"() <{values = dense<[[[[1.0, 2.0]]], [[[3.0, 4.0]]], [[[5.0, 6.0]]], [[[7.0, 8.0]]], [[[1.5, 2.5]]], [[[3.5, 4.5]]], [[[5.5, 6.5]]], [[[7.5, 8.5]]]]> : tensor<8x1x1x2xf32>}> : () -> tensor<8x1x1x2xf32>
  %w = "tosa.const"() <{values = dense<0.125> : tensor<2x1x1x16xf32>}> : () -> tensor<2x1x1x16xf32>
  %b8 = "tosa.const"() <{values = dense<0.0> : tensor<8xf32>}> : () -> tensor<8xf32>
  %b2 = "tosa.const"() <{values = dense<[1.0, 2.0]> : tensor<2xf32>}> : () -> tensor<2xf32>
  %zp = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %a = tosa.conv2d %x, %wa, %b8, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x8x8x2xf32>, tensor<8x1x1x2xf32>, tensor<8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x8x8xf32>
  %b = tosa.conv2d %x, %wa, %b8, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x8x8x2xf32>, tensor<8x1x1x2xf32>, tensor<8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x8x8xf32>
  // expected-remark @+1 {{serenity-rewrite: applied channel-partition x1; scheduled peak 8192 -> 8192 bytes}}
  %c = tosa.concat %a, %b {axis = 3 : i32} : (tensor<1x8x8x8xf32>, tensor<1x8x8x8xf32>) -> tensor<1x8x8x16xf32>
  %y = tosa.conv2d %c, %w, %b2, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x8x8x16xf32>, tensor<2x1x1x16xf32>, tensor<2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x8x2xf32>
  %a2 = tosa.conv2d %y, %wa, %b8, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x8x8x2xf32>, tensor<8x1x1x2xf32>, tensor<8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x8x8xf32>
  %b2b = tosa.conv2d %y, %wa, %b8, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x8x8x2xf32>, tensor<8x1x1x2xf32>, tensor<8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x8x8xf32>
  // expected-remark @+1 {{serenity-rewrite: applied channel-partition x1; scheduled peak 8192 -> 3072 bytes}}
  %c2 = tosa.concat %a2, %b2b {axis = 3 : i32} : (tensor<1x8x8x8xf32>, tensor<1x8x8x8xf32>) -> tensor<1x8x8x16xf32>
  %y2 = tosa.conv2d %c2, %w, %b2, %zp, %zp {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x8x8x16xf32>, tensor<2x1x1x16xf32>, tensor<2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x8x2xf32>
  return %y2 : tensor<1x8x8x2xf32>
}
