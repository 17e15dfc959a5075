// RUN: serenity-opt %s --serenity-schedule --split-input-file -verify-diagnostics | FileCheck %s

// Remarks report the peak before and after (derivations in
// serenity-schedule.mlir): a chain has a single order.
// CHECK-LABEL: func.func @chain
// CHECK-SAME: serenity.schedule = {algorithm = "dp", lower_bound_bytes = 64 : i64, optimal = true, peak_bytes = 64 : i64
// expected-remark @below {{serenity-schedule (dp): peak 64 -> 64 bytes, proven optimal}}
func.func @chain(%arg0: tensor<1x8xf32>) -> tensor<1x8xf32> {
  %0 = tosa.exp %arg0 : (tensor<1x8xf32>) -> tensor<1x8xf32>
  %1 = tosa.exp %0 : (tensor<1x8xf32>) -> tensor<1x8xf32>
  return %1 : tensor<1x8xf32>
}

// -----

// A function outside the memory model gets the model's error; the pass
// fails without touching it.
// expected-error @below {{serenity memory model: argument #0 of type 'tensor<?x8xf32>': dynamic shape is outside the memory model (static shapes only)}}
func.func @dynamic(%arg0: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %0 = tosa.exp %arg0 : (tensor<?x8xf32>) -> tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}

// -----

// Declarations are skipped silently.
// CHECK-LABEL: func.func private @external
// CHECK-NOT: serenity.schedule
func.func private @external(tensor<4xf32>) -> tensor<4xf32>
