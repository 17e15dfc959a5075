// RUN: serenity-opt %s --split-input-file --verify-diagnostics \
// RUN:   --serenity-tile="max-partitions=2 concat=auto" | FileCheck %s
// RUN: not serenity-opt %s --split-input-file \
// RUN:   --serenity-tile="max-partitions=4 concat=auto" 2>&1 >/dev/null | FileCheck %s --check-prefix=GRID
// RUN: not serenity-opt %s --split-input-file \
// RUN:   --serenity-tile="max-partitions=4 concat=auto" 2>/dev/null | FileCheck %s --check-prefix=GRIDIR
// RUN: not serenity-opt %s --split-input-file \
// RUN:   --serenity-tile="max-partitions=2 concat=copy" 2>/dev/null | FileCheck %s --check-prefix=COPY
// RUN: not serenity-opt %s --serenity-tile=max-partitions=1 2>&1 | FileCheck %s --check-prefix=LIMITS
// RUN: not serenity-opt %s --serenity-tile=concat=bogus 2>&1 | FileCheck %s --check-prefix=CONCAT
// RUN: not serenity-opt %s --serenity-tile=work-limit=-2 2>&1 | FileCheck %s --check-prefix=LIMITS
// With no work budget the search evaluates no candidate, keeps the function
// untiled and names the budget that stopped it; the budget counts work, not
// time, so two runs give the same bytes.
// RUN: not serenity-opt %s --split-input-file \
// RUN:   --serenity-tile="max-partitions=2 concat=auto work-limit=0" 2>&1 >/dev/null | FileCheck %s --check-prefix=NOWORK
// RUN: not serenity-opt %s --split-input-file \
// RUN:   --serenity-tile="max-partitions=2 concat=auto work-limit=0" >%t.first 2>&1
// RUN: not serenity-opt %s --split-input-file \
// RUN:   --serenity-tile="max-partitions=2 concat=auto work-limit=0" >%t.second 2>&1
// RUN: diff %t.first %t.second
// RUN: not serenity-opt %s --split-input-file \
// RUN:   --serenity-tile="max-partitions=2 concat=auto work-limit=0" 2>/dev/null | FileCheck %s --check-prefix=NOWORKIR
// No budget (-1) and no safety net (time-limit-ms=0, the default) tile as
// the default does.
// RUN: not serenity-opt %s --split-input-file \
// RUN:   --serenity-tile="max-partitions=2 concat=auto work-limit=-1 time-limit-ms=0" 2>/dev/null | FileCheck %s

// LIMITS: error: serenity-tile: invalid limits (expected max-partitions >= 2
// CONCAT: for the --concat option: invalid value 'bogus' (expected one of: copy, inplace, auto)
// NOWORK: remark: serenity-tile: stopped by work-limit=0; kept the regions tiled so far (peak 4096 bytes)
// NOWORKIR-LABEL: func.func @strips
// NOWORKIR-NOT: serenity.tile
// NOWORKIR: return

// conv 3x3 (pad 1) -> relu -> max pool 2x2/2. Untiled peak, at the conv:
// at the clamp, conv 2048 + clamp 2048 = 4096 (x 512 is dead after the conv).
// Two strips of 2 pool rows each need conv rows 0..3 and 4..7, i.e. input
// rows 0..4 (pad top 1, bottom 0) and 3..7 (pad top 0, bottom 1). A slice is
// a view of x, so x lives until the second strip's conv. Peak 2560 at the
// first strip's clamp: x 512 + conv strip 1024 + clamp strip 1024 (the
// output, allocated whole by the first pool strip written into it, comes
// after); the second strip's clamp: conv 1024 + clamp 1024 + output 512.

// CHECK-LABEL: func.func @strips
// CHECK: %[[S0:.*]] = tosa.slice %arg0, {{.*}} -> tensor<1x5x8x2xf32>
// CHECK: tosa.conv2d %[[S0]], {{.*}}pad = array<i64: 1, 0, 1, 1>, serenity.tile{{.*}} -> tensor<1x4x8x8xf32>
// CHECK: tosa.clamp {{.*}} -> tensor<1x4x8x8xf32>
// CHECK: %[[P0:.*]] = tosa.max_pool2d {{.*}} -> tensor<1x2x4x8xf32>
// CHECK: %[[S1:.*]] = tosa.slice %arg0, {{.*}} -> tensor<1x5x8x2xf32>
// CHECK: tosa.conv2d %[[S1]], {{.*}}pad = array<i64: 0, 1, 1, 1>, serenity.tile{{.*}} -> tensor<1x4x8x8xf32>
// CHECK: %[[P1:.*]] = tosa.max_pool2d {{.*}} -> tensor<1x2x4x8xf32>
// CHECK: %[[C:.*]] = tosa.concat %[[P0]], %[[P1]] {axis = 1 : i32, serenity.concat_inplace}
// CHECK-NOT: tosa.conv2d
// CHECK: return %[[C]]

// GRID: remark: serenity-tile: ffmt 2x2 tiles over 3 ops (tosa.conv2d, tosa.clamp, tosa.max_pool2d) from 1x8x8x2 to 1x4x4x8; peak 4096 -> {{[0-9]+}} bytes; MACs +0.0% of the function
// GRIDIR-COUNT-4: tosa.slice %arg0, {{.*}} -> tensor<1x5x5x2xf32>
// GRIDIR: %[[R0:.*]] = tosa.concat {{.*}}axis = 2 : i32, serenity.concat_inplace
// GRIDIR: %[[R1:.*]] = tosa.concat {{.*}}axis = 2 : i32, serenity.concat_inplace
// GRIDIR: tosa.concat %[[R0]], %[[R1]] {axis = 1 : i32, serenity.concat_inplace}

// Copied concats: no in-place mark.
// COPY-LABEL: func.func @strips
// COPY: tosa.concat {{%[0-9]+}}, {{%[0-9]+}} {axis = 1 : i32} :
func.func @strips(%x: tensor<1x8x8x2xf32>) -> tensor<1x4x4x8xf32> {
  %w = "tosa.const"() <{values = dense<0.5> : tensor<8x3x3x2xf32>}> : () -> tensor<8x3x3x2xf32>
  %b = "tosa.const"() <{values = dense<0.0> : tensor<8xf32>}> : () -> tensor<8xf32>
  %z = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  // expected-remark @+1 {{serenity-tile: ffmt 2x1 tiles over 3 ops (tosa.conv2d, tosa.clamp, tosa.max_pool2d) from 1x8x8x2 to 1x4x4x8; peak 4096 -> 2560 bytes; MACs +0.0% of the function}}
  %c = tosa.conv2d %x, %w, %b, %z, %z {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x8x8x2xf32>, tensor<8x3x3x2xf32>, tensor<8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x8x8xf32>
  %r = tosa.clamp %c {max_val = 3.4e38 : f32, min_val = 0.0 : f32} : (tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32>
  %p = tosa.max_pool2d %r {kernel = array<i64: 2, 2>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 2, 2>} : (tensor<1x8x8x8xf32>) -> tensor<1x4x4x8xf32>
  return %p : tensor<1x4x4x8xf32>
}

// -----

// The peak is the input and output themselves (a 1x1 conv): nothing to tile.
// CHECK-LABEL: func.func @nothing_to_gain
// CHECK-NOT: tosa.slice
// CHECK-NOT: serenity.tile
// CHECK: return
func.func @nothing_to_gain(%x: tensor<1x8x8x8xf32>) -> tensor<1x8x8x8xf32> {
  %w = "tosa.const"() <{values = dense<0.5> : tensor<8x1x1x8xf32>}> : () -> tensor<8x1x1x8xf32>
  %b = "tosa.const"() <{values = dense<0.0> : tensor<8xf32>}> : () -> tensor<8xf32>
  %z = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %c = tosa.conv2d %x, %w, %b, %z, %z {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>} : (tensor<1x8x8x8xf32>, tensor<8x1x1x8xf32>, tensor<8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x8x8xf32>
  return %c : tensor<1x8x8x8xf32>
}

// -----

// A reduction over the spatial axes ends every region: the large buffer
// feeding it cannot be tiled (the region's output would be the reduction).
// CHECK-LABEL: func.func @reduction_stops
// CHECK-NOT: tosa.slice
// CHECK: tosa.reduce_sum
func.func @reduction_stops(%x: tensor<1x8x8x2xf32>) -> tensor<1x1x8x8xf32> {
  %w = "tosa.const"() <{values = dense<0.5> : tensor<8x3x3x2xf32>}> : () -> tensor<8x3x3x2xf32>
  %b = "tosa.const"() <{values = dense<0.0> : tensor<8xf32>}> : () -> tensor<8xf32>
  %z = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %c = tosa.conv2d %x, %w, %b, %z, %z {acc_type = f32, dilation = array<i64: 1, 1>, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>} : (tensor<1x8x8x2xf32>, tensor<8x3x3x2xf32>, tensor<8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x8x8xf32>
  %s = tosa.reduce_sum %c {axis = 1 : i32} : (tensor<1x8x8x8xf32>) -> tensor<1x1x8x8xf32>
  return %s : tensor<1x1x8x8xf32>
}

// -----

// Outside the memory model: the model's own error, located.
// expected-error @+1 {{dynamic shape is outside the memory model}}
func.func @dynamic(%x: tensor<?x8x8x2xf32>) -> tensor<?x8x8x2xf32> {
  %r = tosa.clamp %x {max_val = 3.4e38 : f32, min_val = 0.0 : f32} : (tensor<?x8x8x2xf32>) -> tensor<?x8x8x2xf32>
  return %r : tensor<?x8x8x2xf32>
}
