// An MLIR integration test as they are usually written: the network and a
// driver (constants in, call, cast to unranked, print) in one module, run by
// mlir-runner. serenity-pipeline optimizes @net (scheduled, one static arena)
// and leaves @main, which is outside the memory model (unranked tensors), to
// the ordinary upstream lowering with a remark. The printed values equal
// the upstream reference lowering's.
// RUN: serenity-opt %s --serenity-pipeline -o %t.ll.mlir 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: grep -q arena %t.ll.mlir
// RUN: mlir-runner %t.ll.mlir -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_runner_utils,%mlir_c_runner_utils | FileCheck %s
// RUN: mlir-opt %s --pass-pipeline="builtin.module(func.func(tosa-to-linalg-named,tosa-to-linalg,tosa-to-arith,tosa-to-tensor),one-shot-bufferize{bufferize-function-boundaries},convert-linalg-to-loops,convert-scf-to-cf,expand-strided-metadata,lower-affine,finalize-memref-to-llvm,convert-math-to-llvm,convert-arith-to-llvm,convert-cf-to-llvm,convert-func-to-llvm,reconcile-unrealized-casts)" -o %t.ref.mlir
// RUN: mlir-runner %t.ref.mlir -e main -entry-point-result=void \
// RUN:   -shared-libs=%mlir_runner_utils,%mlir_c_runner_utils | FileCheck %s
//
// Only @net is optimized: selecting @main alone leaves both to the upstream
// lowering (no arena at all), and strict=true makes @main an error.
// RUN: serenity-opt %s --serenity-pipeline=functions=main -o %t.none.mlir 2>&1 | FileCheck %s --check-prefix=NONE
// RUN: not grep -q arena %t.none.mlir
// RUN: not serenity-opt %s --serenity-pipeline=strict=true -o /dev/null 2>&1 | FileCheck %s --check-prefix=STRICT
// arena=argument and io=arena change the optimized function's signature or
// where its operands live: with a caller in the module that is an error.
// RUN: not serenity-opt %s --serenity-pipeline=arena=argument -o /dev/null 2>&1 | FileCheck %s --check-prefix=ARGUMENT
// RUN: not serenity-opt %s --serenity-pipeline=io=arena -o /dev/null 2>&1 | FileCheck %s --check-prefix=IO
//
// REMARK-DAG: remark: serenity-pipeline: @main is not optimized (serenity memory model: result #0 of type 'tensor<*xf32>': unranked type is outside the memory model (static shapes only)); it gets the ordinary upstream lowering
// REMARK-DAG: remark: serenity-schedule (dp): peak
// NONE-DAG: remark: serenity-pipeline: @net is not optimized (not selected by functions=)
// NONE-DAG: remark: serenity-pipeline: @main is not optimized (serenity memory model
// STRICT: error: serenity memory model: result #0 of type 'tensor<*xf32>': unranked type is outside the memory model
// ARGUMENT: error: serenity-static-alloc: arena=argument changes the signature of @net, which is called in this module
// IO: error: serenity-static-alloc: @net is called here, but io=arena plans its inputs and outputs in the arena
//
// |-1.5| + 2 = 3.5, then the max with 3 of each: 3.5 everywhere.
// CHECK: Unranked Memref base@ = {{.*}} rank = 4 offset = 0 sizes = [1, 4, 4, 2]
// CHECK-NEXT: {{\[\[\[\[}}3.5, 3.5],
// CHECK-COUNT-15: [3.5, 3.5]

func.func private @printMemrefF32(tensor<*xf32>)

func.func @net(%x: tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32> {
  %two = "tosa.const"() {values = dense<2.0> : tensor<1x4x4x2xf32>} : () -> tensor<1x4x4x2xf32>
  %three = "tosa.const"() {values = dense<3.0> : tensor<1x4x4x2xf32>} : () -> tensor<1x4x4x2xf32>
  %a = tosa.abs %x : (tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32>
  %b = tosa.add %a, %two : (tensor<1x4x4x2xf32>, tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32>
  // A transpose between the element-wise ops keeps one buffer in the arena
  // (element-wise ops alone fuse into one loop writing the result).
  %t = tosa.transpose %b {perms = array<i32: 0, 2, 1, 3>} : (tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32>
  %c = tosa.maximum %t, %three : (tensor<1x4x4x2xf32>, tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32>
  return %c : tensor<1x4x4x2xf32>
}

func.func @main() {
  %in = arith.constant dense<-1.5> : tensor<1x4x4x2xf32>
  %out = call @net(%in) : (tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32>
  %u = tensor.cast %out : tensor<1x4x4x2xf32> to tensor<*xf32>
  call @printMemrefF32(%u) : (tensor<*xf32>) -> ()
  return
}
