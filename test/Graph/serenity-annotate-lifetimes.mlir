// RUN: serenity-opt %s -split-input-file --serenity-annotate-lifetimes | FileCheck %s

// Each expected number is derived from DESIGN.md: usage(t) = bytes of buffers
// defined before step t and still needed at or after t + bytes step t defines.

// A chain that changes the element type: f32 (4 B) -> f16 (2 B) -> i8 -> f32.
//   %arg0 64 B (16 x 4), live [-1, 0]
//   step 0 %0 f16 32 B: 64 + 32 = 96  <- peak
//   step 1 %1 i8  16 B: 32 + 16 = 48
//   step 2 %2 f32 64 B: 16 + 64 = 80
// CHECK-LABEL: func @chain
// CHECK-SAME: serenity.peak_bytes = 96 : i64, serenity.peak_step = 0 : i64
// CHECK: tosa.cast %arg0 {serenity.lifetime = [#serenity.lifetime<bytes = 32, def = 0, last = 1>]}
// CHECK: tosa.cast %{{.*}} {serenity.lifetime = [#serenity.lifetime<bytes = 16, def = 1, last = 2>]}
// The returned value is used by the terminator, step 3.
// CHECK: tosa.cast %{{.*}} {serenity.lifetime = [#serenity.lifetime<bytes = 64, def = 2, last = 3>]}
func.func @chain(%arg0: tensor<16xf32>) -> tensor<16xf32> {
  %0 = tosa.cast %arg0 : (tensor<16xf32>) -> tensor<16xf16>
  %1 = tosa.cast %0 : (tensor<16xf16>) -> tensor<16xi8>
  %2 = tosa.cast %1 : (tensor<16xi8>) -> tensor<16xf32>
  return %2 : tensor<16xf32>
}

// -----

// A diamond; every tensor is 8 x f32 = 32 B.
//   step 0 %a: %arg0 + %a = 64
//   step 1 %b: %a + %b = 64 (%arg0 freed after step 0)
//   step 2 %c: %a + %b + %c = 96  <- peak (%a freed after step 2)
//   step 3 %d: %b + %c + %d = 96
// CHECK-LABEL: func @diamond
// CHECK-SAME: serenity.peak_bytes = 96 : i64, serenity.peak_step = 2 : i64
// CHECK: tosa.exp %arg0 {serenity.lifetime = [#serenity.lifetime<bytes = 32, def = 0, last = 2>]}
// CHECK: tosa.tanh {{.*}}#serenity.lifetime<bytes = 32, def = 1, last = 3>
// CHECK: tosa.sigmoid {{.*}}#serenity.lifetime<bytes = 32, def = 2, last = 3>
// CHECK: tosa.add {{.*}}#serenity.lifetime<bytes = 32, def = 3, last = 4>
func.func @diamond(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  %a = tosa.exp %arg0 : (tensor<8xf32>) -> tensor<8xf32>
  %b = tosa.tanh %a : (tensor<8xf32>) -> tensor<8xf32>
  %c = tosa.sigmoid %a : (tensor<8xf32>) -> tensor<8xf32>
  %d = tosa.add %b, %c : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return %d : tensor<8xf32>
}

// -----

// A concat of three branches; each branch is 1x4 f32 = 16 B, the concat 48 B.
//   step 0: %arg0 16 + %b1 16 = 32
//   step 1: %arg0 + %b1 + %b2 = 48
//   step 2: %arg0 + %b1 + %b2 + %b3 = 64 (%arg0's last use)
//   step 3: %b1 + %b2 + %b3 + %cat 48 = 96  <- peak
// CHECK-LABEL: func @concat3
// CHECK-SAME: serenity.peak_bytes = 96 : i64, serenity.peak_step = 3 : i64
// CHECK: tosa.concat {{.*}}#serenity.lifetime<bytes = 48, def = 3, last = 4>
func.func @concat3(%arg0: tensor<1x4xf32>) -> tensor<1x12xf32> {
  %b1 = tosa.exp %arg0 : (tensor<1x4xf32>) -> tensor<1x4xf32>
  %b2 = tosa.tanh %arg0 : (tensor<1x4xf32>) -> tensor<1x4xf32>
  %b3 = tosa.sigmoid %arg0 : (tensor<1x4xf32>) -> tensor<1x4xf32>
  %cat = tosa.concat %b1, %b2, %b3 {axis = 1 : i32} : (tensor<1x4xf32>, tensor<1x4xf32>, tensor<1x4xf32>) -> tensor<1x12xf32>
  return %cat : tensor<1x12xf32>
}

// -----

// Reshape aliasing: %r and %r2 (a reshape of a reshape) are views of %0, so
// %0 (64 B) stays live until %r2's last use at step 4. Constants are not steps.
//   step 0 %0:  %arg0 64 + %0 64 = 128
//   step 1 %r:  %0 64 = 64 (a view adds no bytes)
//   step 2 %r2: 64
//   step 3 %1:  %0 64 + %1 64 = 128
//   step 4 %2:  %0 64 + %1 64 + %2 64 = 192  <- peak
// CHECK-LABEL: func @reshape_alias
// CHECK-SAME: serenity.peak_bytes = 192 : i64, serenity.peak_step = 4 : i64
// CHECK: tosa.exp %arg0 {serenity.lifetime = [#serenity.lifetime<bytes = 64, def = 0, last = 4>]}
// CHECK: tosa.reshape {{.*}}#serenity.lifetime<bytes = 0, def = 1, last = 2>
// CHECK: tosa.reshape {{.*}}#serenity.lifetime<bytes = 0, def = 2, last = 4>
// CHECK: tosa.exp {{.*}}#serenity.lifetime<bytes = 64, def = 3, last = 4>
// CHECK: tosa.add {{.*}}#serenity.lifetime<bytes = 64, def = 4, last = 5>
func.func @reshape_alias(%arg0: tensor<2x8xf32>) -> tensor<4x4xf32> {
  %0 = tosa.exp %arg0 : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %s16 = tosa.const_shape {values = dense<[16]> : tensor<1xindex>} : () -> !tosa.shape<1>
  %s44 = tosa.const_shape {values = dense<[4, 4]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %r = tosa.reshape %0, %s16 : (tensor<2x8xf32>, !tosa.shape<1>) -> tensor<16xf32>
  %r2 = tosa.reshape %r, %s44 : (tensor<16xf32>, !tosa.shape<2>) -> tensor<4x4xf32>
  %1 = tosa.exp %r2 : (tensor<4x4xf32>) -> tensor<4x4xf32>
  %2 = tosa.add %1, %r2 : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
  return %2 : tensor<4x4xf32>
}

// -----

// Two inputs (32 B each), an unused input (never counted), an input returned
// directly (live to the end), an i1 result (1 B per element: 8 B), and a value
// used twice by one op (counted once).
//   step 0 %0 = greater: %a 32 + %b 32 + %0 8 = 72
//   step 1 %1 = select:  %a + %b + %0 + %1 32 = 104  <- peak
//   step 2 %2 = add(%1, %1): %a (returned) 32 + %1 32 + %2 32 = 96
// CHECK-LABEL: func @two_inputs
// CHECK-SAME: serenity.peak_bytes = 104 : i64, serenity.peak_step = 1 : i64
// CHECK: tosa.greater {{.*}}#serenity.lifetime<bytes = 8, def = 0, last = 1>
// CHECK: tosa.select {{.*}}#serenity.lifetime<bytes = 32, def = 1, last = 2>
// CHECK: tosa.add {{.*}}#serenity.lifetime<bytes = 32, def = 2, last = 3>
func.func @two_inputs(%a: tensor<8xf32>, %b: tensor<8xf32>, %unused: tensor<100xf32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %0 = tosa.greater %a, %b : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
  %1 = tosa.select %0, %a, %b : (tensor<8xi1>, tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %2 = tosa.add %1, %1 : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return %2, %a : tensor<8xf32>, tensor<8xf32>
}

// -----

// An op with a region is one opaque step; the use of %y inside the region is a
// use by that step. The rank-0 tensors are buffers too (f32: 4 B, i1: 1 B).
//   step 0 %c = greater: %x 16 + %y 16 + %p 4 + %q 4 + %c 1 = 41
//   step 1 cond_if:      %x 16 + %y 16 + %c 1 + %r 16 = 49  <- peak
// CHECK-LABEL: func @cond_if
// CHECK-SAME: serenity.peak_bytes = 49 : i64, serenity.peak_step = 1 : i64
func.func @cond_if(%x: tensor<4xf32>, %y: tensor<4xf32>, %p: tensor<f32>, %q: tensor<f32>) -> tensor<4xf32> {
  %c = tosa.greater %p, %q : (tensor<f32>, tensor<f32>) -> tensor<i1>
  %r = tosa.cond_if %c (%a = %x) : tensor<i1> (tensor<4xf32>) -> tensor<4xf32> {
  ^bb0(%a: tensor<4xf32>):
    %e = tosa.exp %y : (tensor<4xf32>) -> tensor<4xf32>
    tosa.yield %e : tensor<4xf32>
  } else {
  ^bb0(%a: tensor<4xf32>):
    tosa.yield %a : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}

// -----

// Constants live in ROM: neither steps nor buffers. conv2d output 1x4x4x2 f32
// = 128 B; input 1x4x4x1 f32 = 64 B.
//   step 0 conv2d: 64 + 128 = 192  <- peak
// CHECK-LABEL: func @constants
// CHECK-SAME: serenity.peak_bytes = 192 : i64, serenity.peak_step = 0 : i64
// CHECK: "tosa.const"() <{values
// CHECK-NOT: serenity.lifetime
// CHECK: tosa.conv2d {{.*}}#serenity.lifetime<bytes = 128, def = 0, last = 1>
func.func @constants(%x: tensor<1x4x4x1xf32>) -> tensor<1x4x4x2xf32> {
  %w = "tosa.const"() {values = dense<0.5> : tensor<2x1x1x1xf32>} : () -> tensor<2x1x1x1xf32>
  %b = "tosa.const"() {values = dense<0.0> : tensor<2xf32>} : () -> tensor<2xf32>
  %zp = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
  %c = tosa.conv2d %x, %w, %b, %zp, %zp {acc_type = f32, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x4x4x1xf32>, tensor<2x1x1x1xf32>, tensor<2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x4x2xf32>
  return %c : tensor<1x4x4x2xf32>
}

// -----

// Persistent state: a read of a TOSA variable takes no arena bytes (it is the
// state itself, outside the arena), and so does a shift-register update of
// it (a concat of a slice of the read with new values, only written back to
// the same variable: done in the state). Step 0 reads, 1 slices (a view),
// 2 concats (0 bytes), 3 writes, 4 reads, 5 negates into 8 new bytes: the
// input's 2 bytes are live until step 2, the result's 8 from step 5.
// CHECK-LABEL: func.func @state
// CHECK-SAME: serenity.peak_bytes = 8 : i64
module {
  tosa.variable @v = dense<3> : tensor<1x8xi8>
  func.func @state(%arg0: tensor<1x2xi8>) -> tensor<1x8xi8> {
    %s = tosa.variable_read @v : tensor<1x8xi8>
    %start = tosa.const_shape {values = dense<[0, 2]> : tensor<2xindex>} : () -> !tosa.shape<2>
    %size = tosa.const_shape {values = dense<[1, 6]> : tensor<2xindex>} : () -> !tosa.shape<2>
    %sl = tosa.slice %s, %start, %size : (tensor<1x8xi8>, !tosa.shape<2>, !tosa.shape<2>) -> tensor<1x6xi8>
    %c = tosa.concat %sl, %arg0 {axis = 1 : i32} : (tensor<1x6xi8>, tensor<1x2xi8>) -> tensor<1x8xi8>
    tosa.variable_write @v, %c : tensor<1x8xi8>
    %r = tosa.variable_read @v : tensor<1x8xi8>
    %z = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
    %n = tosa.negate %r, %z, %z : (tensor<1x8xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x8xi8>
    return %n : tensor<1x8xi8>
  }
}
