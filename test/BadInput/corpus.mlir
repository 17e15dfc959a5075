// Bad and unusual inputs through serenity-pipeline (and, for each case, every
// Serenity pass in crash-check.test): each gets its expected diagnostic, or
// is handled, never a crash or a hang.
// RUN: split-file %s %t
// RUN: not serenity-opt %t/multiblock.mlir --serenity-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=MULTIBLOCK
// RUN: not serenity-opt %t/unknown-op.mlir --serenity-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=UNKNOWNOP
// RUN: not serenity-opt %t/unknown-type.mlir --serenity-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=UNKNOWNTYPE
// RUN: not serenity-opt %t/zero-sized.mlir --serenity-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: not serenity-opt %t/huge-tensor.mlir --serenity-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=HUGE
// RUN: not serenity-opt %t/garbage.mlir --serenity-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=GARBAGE
// RUN: serenity-opt %t/region.mlir --serenity-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=REGION
// RUN: serenity-opt %t/huge-const.mlir --serenity-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=OK
// RUN: serenity-opt %t/returned-arg.mlir --serenity-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=OK
// RUN: serenity-opt %t/no-results.mlir --serenity-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=OK
// RUN: serenity-opt %t/i1.mlir --serenity-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=OK
// RUN: serenity-opt %t/scalar.mlir --serenity-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=SCALAR
// RUN: serenity-opt %t/empty.mlir --serenity-pipeline -o - | FileCheck %s --check-prefix=EMPTY
//
// MULTIBLOCK: multiblock.mlir:1:1: error: serenity memory model: function body has 3 blocks; only single-block bodies can be scheduled (@f has TOSA ops, so serenity-pipeline needs it inside the memory model
// MULTIBLOCK: multiblock.mlir:4:{{[0-9]+}}: note: a TOSA op of @f
// UNKNOWNOP: unknown-op.mlir:2:{{[0-9]+}}: error: operation being parsed with an unregistered dialect
// UNKNOWNTYPE: unknown-type.mlir:1:{{[0-9]+}}: error: `!"mydialect"<"blob">` type created with unregistered dialect
// ZERO: zero-sized.mlir:2:{{[0-9]+}}: error: 'tosa.exp' op operand #0 must be tosa-conformant tensor of number values, but got 'tensor<0x4xf32>'
// HUGE: huge-tensor.mlir:1:{{[0-9]+}}: error: serenity memory model: argument #0 of type 'tensor<1x1024x1024x1048576xf32>': larger than the memory model's limit of 2^40 bytes
// GARBAGE: garbage.mlir:1:{{[0-9]+}}: error: expected ')'
// REGION: remark: serenity-schedule (dp): peak
// REGION: region.mlir:3:{{[0-9]+}}: remark: serenity-static-alloc: left in place: it escapes through 'scf.yield'
// OK: remark: serenity-schedule (dp): peak {{[0-9]+}} -> {{[0-9]+}} bytes, proven optimal
// SCALAR: remark: serenity-schedule (dp): peak 0 -> 0 bytes, proven optimal
// EMPTY: module {
// EMPTY-NEXT: }

//--- multiblock.mlir
func.func @f(%a: tensor<4xf32>, %c: i1) -> tensor<4xf32> {
  cf.cond_br %c, ^bb1, ^bb2
^bb1:
  %e = tosa.exp %a : (tensor<4xf32>) -> tensor<4xf32>
  return %e : tensor<4xf32>
^bb2:
  return %a : tensor<4xf32>
}
//--- region.mlir
func.func @f(%a: tensor<4xf32>, %c: i1) -> tensor<4xf32> {
  %r = scf.if %c -> tensor<4xf32> {
    %e = tosa.exp %a : (tensor<4xf32>) -> tensor<4xf32>
    scf.yield %e : tensor<4xf32>
  } else {
    scf.yield %a : tensor<4xf32>
  }
  return %r : tensor<4xf32>
}
//--- unknown-op.mlir
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %e = "mydialect.magic"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %e : tensor<4xf32>
}
//--- unknown-type.mlir
func.func @f(%a: !mydialect.blob) -> !mydialect.blob {
  return %a : !mydialect.blob
}
//--- zero-sized.mlir
func.func @f(%a: tensor<0x4xf32>) -> tensor<0x4xf32> {
  %e = tosa.exp %a : (tensor<0x4xf32>) -> tensor<0x4xf32>
  return %e : tensor<0x4xf32>
}
//--- huge-const.mlir
func.func @f(%a: tensor<1x1x1x4xf32>) -> tensor<1x1x1x4xf32> {
  %c = "tosa.const"() {values = dense<1.0> : tensor<1x1x1x1099511627776xf32>} : () -> tensor<1x1x1x1099511627776xf32>
  %s = tosa.exp %a : (tensor<1x1x1x4xf32>) -> tensor<1x1x1x4xf32>
  return %s : tensor<1x1x1x4xf32>
}
//--- huge-tensor.mlir
func.func @f(%a: tensor<1x1024x1024x1048576xf32>) -> tensor<1x1024x1024x1048576xf32> {
  %e = tosa.exp %a : (tensor<1x1024x1024x1048576xf32>) -> tensor<1x1024x1024x1048576xf32>
  return %e : tensor<1x1024x1024x1048576xf32>
}
//--- returned-arg.mlir
func.func @f(%a: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %e = tosa.exp %a : (tensor<4xf32>) -> tensor<4xf32>
  return %a, %e, %e : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
//--- no-results.mlir
func.func @f(%a: tensor<4xf32>) {
  %e = tosa.exp %a : (tensor<4xf32>) -> tensor<4xf32>
  return
}
//--- scalar.mlir
func.func @f(%a: f32) -> f32 {
  %b = arith.addf %a, %a : f32
  return %b : f32
}
//--- i1.mlir
func.func @f(%a: tensor<4xi1>) -> tensor<4xi1> {
  %b = tosa.logical_not %a : (tensor<4xi1>) -> tensor<4xi1>
  return %b : tensor<4xi1>
}
//--- empty.mlir
//--- garbage.mlir
func.func @f(%a: tensor<4xf32> -> {
