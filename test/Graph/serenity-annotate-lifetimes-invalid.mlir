// RUN: serenity-opt %s -split-input-file -allow-unregistered-dialect --serenity-annotate-lifetimes -verify-diagnostics
// RUN: not serenity-opt %s -split-input-file -allow-unregistered-dialect --serenity-annotate-lifetimes 2>&1 | FileCheck %s
// RUN: not serenity-opt %s -split-input-file -allow-unregistered-dialect --serenity-memory-report -o /dev/null 2>&1 | FileCheck %s

// CHECK: error: serenity memory model: argument #0 of type 'tensor<?x8xf32>': dynamic shape
// expected-error @+1 {{serenity memory model: argument #0 of type 'tensor<?x8xf32>': dynamic shape is outside the memory model (static shapes only)}}
func.func @dynamic_arg(%arg0: tensor<?x8xf32>) -> tensor<?x8xf32> {
  %0 = tosa.exp %arg0 : (tensor<?x8xf32>) -> tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}

// -----

// CHECK: error: serenity memory model: result #0 of type 'tensor<*xf32>': unranked type
func.func @unranked_result(%arg0: tensor<8xf32>) -> tensor<*xf32> {
  // expected-error @+1 {{serenity memory model: result #0 of type 'tensor<*xf32>': unranked type is outside the memory model}}
  %0 = tensor.cast %arg0 : tensor<8xf32> to tensor<*xf32>
  return %0 : tensor<*xf32>
}

// -----

// CHECK: error: serenity memory model: function body has 2 blocks
// expected-error @+1 {{serenity memory model: function body has 2 blocks; only single-block bodies can be scheduled}}
func.func @two_blocks(%arg0: tensor<8xf32>) -> tensor<8xf32> {
  cf.br ^bb1
^bb1:
  return %arg0 : tensor<8xf32>
}

// -----

// An unknown op is an opaque step, but this result's element type has no size.
// CHECK: error: serenity memory model: result #0 of type 'tensor<4x!llvm.ptr>': cannot size element type
func.func @unsizable(%arg0: tensor<4xf32>) {
  // expected-error @+1 {{serenity memory model: result #0 of type 'tensor<4x!llvm.ptr>': cannot size element type of this value}}
  %0 = "foo.make_pointers"(%arg0) : (tensor<4xf32>) -> tensor<4x!llvm.ptr>
  return
}

// -----

// 2^60 elements of 4 bytes: the size would overflow int64 (it used to wrap
// to a peak of 0 bytes); refused above 2^40 bytes.
// CHECK: error: serenity memory model: argument #0 of type 'tensor<1073741824x1073741824x4xf32>': larger than the memory model's limit of 2^40 bytes
// expected-error @+1 {{serenity memory model: argument #0 of type 'tensor<1073741824x1073741824x4xf32>': larger than the memory model's limit of 2^40 bytes}}
func.func @huge(%arg0: tensor<1073741824x1073741824x4xf32>) -> tensor<1073741824x1073741824x4xf32> {
  %0 = tosa.exp %arg0 : (tensor<1073741824x1073741824x4xf32>) -> tensor<1073741824x1073741824x4xf32>
  return %0 : tensor<1073741824x1073741824x4xf32>
}
