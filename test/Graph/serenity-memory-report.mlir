// RUN: serenity-opt %s -allow-unregistered-dialect --serenity-memory-report -o /dev/null | FileCheck %s
// RUN: serenity-opt %s -allow-unregistered-dialect --serenity-memory-report=format=json -o /dev/null | FileCheck %s --check-prefix=JSON
// RUN: not serenity-opt %s -allow-unregistered-dialect --serenity-memory-report=format=xml -o /dev/null 2>&1 | FileCheck %s --check-prefix=BADFORMAT
// RUN: not serenity-opt %s -allow-unregistered-dialect --serenity-memory-report=output=/nonexistent/dir/r.txt -o /dev/null 2>&1 | FileCheck %s --check-prefix=BADFILE
// RUN: serenity-opt %s -allow-unregistered-dialect --serenity-memory-report=output=%t.txt -o /dev/null && FileCheck %s < %t.txt

// Functions are reported in module order; external functions are skipped.
// An unknown op with two results is one opaque step defining both.
//   step 0 "foo.split": %arg0 64 + %0#0 32 + %0#1 32 = 128  <- peak
//   step 1 tosa.add:    %0#0 32 + %0#1 32 + %1 32 = 96
// CHECK: // serenity memory report: @first
// CHECK-NEXT: // peak 128 bytes at step 0, 2 steps
// CHECK-NEXT: step op live bytes new bytes
// CHECK-NEXT: 0 foo.split 128 64 <- peak
// CHECK-NEXT: 1 tosa.add 96 32{{$}}
// CHECK: // serenity memory report: @second
// CHECK-NEXT: // peak 8 bytes at step 0, 1 steps
// CHECK-NOT: @external

// JSON: "functions": [
// JSON: "buffers": [
// JSON-NEXT: {
// JSON-NEXT: "bytes": 64,
// JSON-NEXT: "def": -1,
// JSON-NEXT: "last": 0,
// JSON-NEXT: "name": "%arg0"
// JSON: "name": "%0#0"
// JSON: "name": "%0#1"
// JSON: "function": "first",
// JSON-NEXT: "peak_bytes": 128,
// JSON-NEXT: "peak_step": 0,
// JSON: "function": "second",

// BADFORMAT: for the --format option: invalid value 'xml' (expected one of: table, json)
// BADFILE: error: serenity-memory-report: cannot open '/nonexistent/dir/r.txt'

func.func @first(%arg0: tensor<16xf32>) -> tensor<8xf32> {
  %0:2 = "foo.split"(%arg0) : (tensor<16xf32>) -> (tensor<8xf32>, tensor<8xf32>)
  %1 = tosa.add %0#0, %0#1 : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return %1 : tensor<8xf32>
}

func.func private @external(tensor<4xf32>) -> tensor<4xf32>

func.func @second(%arg0: tensor<1xf32>) -> tensor<1xf32> {
  %0 = tosa.exp %arg0 : (tensor<1xf32>) -> tensor<1xf32>
  return %0 : tensor<1xf32>
}
