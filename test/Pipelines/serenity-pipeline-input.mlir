// serenity-pipeline checks its input with the memory model's own located
// diagnostics first (serenity-prepare-input), even when nothing schedules.
// A function outside the memory model without TOSA ops (a driver) is left to
// the upstream lowering with a remark; one with TOSA ops (a network) must fit,
// so it is an error at the model's location (no upstream conversion sees
// unranked or dynamic TOSA ops, on some of which it asserts or crashes).
// strict=true makes every function outside the model an error.
// RUN: split-file %s %t
// RUN: not serenity-opt %t/unranked.mlir --serenity-pipeline="schedule=none" -o /dev/null 2>&1 | FileCheck %s --check-prefix=UNRANKED
// RUN: serenity-opt %t/dynamic.mlir --serenity-pipeline="schedule=none" -o /dev/null 2>&1 | FileCheck %s --check-prefix=DYNAMIC
// RUN: not serenity-opt %t/dynamic.mlir --serenity-pipeline="schedule=none strict=true" -o /dev/null 2>&1 | FileCheck %s --check-prefix=STRICT
// RUN: serenity-opt %t/twice.mlir --serenity-prepare-input | FileCheck %s --check-prefix=TWICE
// RUN: serenity-opt %t/dead.mlir --serenity-prepare-input | FileCheck %s --check-prefix=DEAD
// UNRANKED: unranked.mlir:1:{{[0-9]+}}: error: serenity memory model: argument #0 of type 'tensor<*xf32>': unranked type is outside the memory model (static shapes only) (@f has TOSA ops, so serenity-pipeline needs it inside the memory model; only functions without TOSA ops are left to the upstream lowering)
// UNRANKED: unranked.mlir:2:{{[0-9]+}}: note: a TOSA op of @f
// DYNAMIC: dynamic.mlir:1:{{[0-9]+}}: remark: serenity-pipeline: @f is not optimized (serenity memory model: result #0 of type 'tensor<?x4x4x2xf32>': dynamic shape is outside the memory model (static shapes only)); it gets the ordinary upstream lowering
// STRICT: dynamic.mlir:2:{{[0-9]+}}: error: serenity memory model: result #0 of type 'tensor<?x4x4x2xf32>': dynamic shape is outside the memory model
// TWICE: %[[E:.*]] = tosa.exp
// TWICE: %[[EMPTY:.*]] = bufferization.alloc_tensor() : tensor<4xf32>
// TWICE: %[[COPY:.*]] = linalg.copy ins(%[[E]] : tensor<4xf32>) outs(%[[EMPTY]] : tensor<4xf32>)
// TWICE: return %[[E]], %[[COPY]], %arg0
// Results nothing reads are erased (a dead reshape and the shape it read).
// DEAD-LABEL: func.func @f
// DEAD-NEXT: tosa.const
// DEAD-NEXT: %[[N:.*]] = tosa.negate
// DEAD-NEXT: %[[E:.*]] = tosa.exp %[[N]]
// DEAD-NEXT: return %[[E]]

//--- unranked.mlir
func.func @f(%a: tensor<*xf32>, %w: tensor<2x3x3x2xf32>, %b: tensor<2xf32>, %z: tensor<1xf32>) -> tensor<*xf32> {
  %c = tosa.conv2d %a, %w, %b, %z, %z {acc_type = f32, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<*xf32>, tensor<2x3x3x2xf32>, tensor<2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<*xf32>
  return %c : tensor<*xf32>
}
//--- dynamic.mlir
func.func @f(%a: tensor<1x4x4x2xf32>) -> tensor<?x4x4x2xf32> {
  %c = tensor.cast %a : tensor<1x4x4x2xf32> to tensor<?x4x4x2xf32>
  return %c : tensor<?x4x4x2xf32>
}
//--- twice.mlir
func.func @f(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %e = tosa.exp %a : (tensor<4xf32>) -> tensor<4xf32>
  return %e, %e, %a : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
//--- dead.mlir
func.func @f(%a: tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32> {
  %z = "tosa.const"() <{values = dense<0.0> : tensor<1xf32>}> : () -> tensor<1xf32>
  %n = tosa.negate %a, %z, %z : (tensor<1x4x4x2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x4x4x2xf32>
  %s = tosa.const_shape {values = dense<[1, 32]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %r = tosa.reshape %n, %s : (tensor<1x4x4x2xf32>, !tosa.shape<2>) -> tensor<1x32xf32>
  %e = tosa.exp %n : (tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32>
  return %e : tensor<1x4x4x2xf32>
}
