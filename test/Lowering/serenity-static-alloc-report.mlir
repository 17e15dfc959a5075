// RUN: serenity-opt %s --allow-unregistered-dialect --serenity-static-alloc="report=%t.json alignment=1" -o /dev/null
// RUN: FileCheck %s < %t.json
// RUN: serenity-opt %s --allow-unregistered-dialect --serenity-static-alloc="report=%t.greedy.json algorithm=greedy-size alignment=1" -o /dev/null
// RUN: FileCheck %s --check-prefix=GREEDY < %t.greedy.json
// RUN: serenity-opt %s --allow-unregistered-dialect --serenity-static-alloc="report=%t.nowork.json work-limit=0 alignment=1" -o /dev/null
// RUN: FileCheck %s --check-prefix=NOWORK < %t.nowork.json

// TFLite Micro's TestGreedyMedium as IR: sizes 10, 20, 30, 40, 50 bytes
// (alignment 1) live like its buffers; greedy-size reproduces TFLM's 90,
// exact finds the lower bound 80 (%b0 + %b1 + %b4 live together).
// Report steps are those of the rewritten function (constants and views
// included); "last" is the final use.

// CHECK: "algorithm": "exact",
// CHECK: "arena_bytes": 80,
// CHECK: "buffers": [
// CHECK-COUNT-5: "name": "%alloc
// CHECK: "function": "medium",
// CHECK: "lower_bound": 80,
// CHECK: "proven_optimal": true
// CHECK: "stopped_by": "none"

// GREEDY: "algorithm": "greedy-size",
// GREEDY: "arena_bytes": 90,
// GREEDY: "lower_bound": 80,
// GREEDY: "proven_optimal": false
// GREEDY: "stopped_by": "none"

// Exact with no work budget keeps the better heuristic (90), not proven, and
// the report says which limit stopped the search.
// NOWORK: "algorithm": "exact",
// NOWORK: "arena_bytes": 90,
// NOWORK: "proven_optimal": false
// NOWORK: "stopped_by": "work-limit"
func.func @medium(%in: memref<50xi8>) {
  %b0 = memref.alloc() : memref<10xi8>
  %b4 = memref.alloc() : memref<50xi8>
  %b1 = memref.alloc() : memref<20xi8>
  "test.use"(%b0, %b4) : (memref<10xi8>, memref<50xi8>) -> ()
  %b2 = memref.alloc() : memref<30xi8>
  "test.use"(%b1) : (memref<20xi8>) -> ()
  %b3 = memref.alloc() : memref<40xi8>
  "test.use"(%b2) : (memref<30xi8>) -> ()
  "test.use"(%b3) : (memref<40xi8>) -> ()
  return
}
