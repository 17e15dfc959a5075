// RUN: serenity-opt %s -split-input-file --serenity-static-alloc="io=arena alignment=1 report=%t.json" | FileCheck %s
// RUN: FileCheck %s --check-prefix=JSON < %t.json
// RUN: serenity-opt %s -split-input-file --serenity-static-alloc="alignment=1 report=%t.caller.json" -o /dev/null
// RUN: FileCheck %s --check-prefix=CALLER < %t.caller.json
// RUN: not serenity-opt %s --serenity-static-alloc="io=heap" -o /dev/null 2>&1 | FileCheck %s --check-prefix=BAD

// io=arena: the input %in (100 B) is live from the entry to its last read
// (copy into %a); the output %out (100 B) from its first write to the end.
// Intervals: %in [0, 1], %a [1, 3], %b [3, 5], %out [5, end]: %in and %b
// can share bytes, %a and %out too. Arena 200 = lower bound (two buffers
// live at once), where io=caller needs 200 in the arena plus 200 outside.

// CHECK-LABEL: func.func @chain
// CHECK-SAME: serenity.arena_bytes = 200 : i64
// CHECK-SAME: serenity.io_offsets = array<i64: [[IN:[0-9]+]], [[OUT:[0-9]+]]>
func.func @chain(%in: memref<100xi8>, %out: memref<100xi8>) {
  %a = memref.alloc() : memref<100xi8>
  memref.copy %in, %a : memref<100xi8> to memref<100xi8>
  %b = memref.alloc() : memref<100xi8>
  memref.copy %a, %b : memref<100xi8> to memref<100xi8>
  memref.copy %b, %out : memref<100xi8> to memref<100xi8>
  return
}

// JSON: "arena_bytes": 200,
// JSON: "function": "chain",
// JSON: "io": "arena",
// JSON: "io_buffers": [
// JSON: "argument": 0,
// JSON-NEXT: "first": 0,
// JSON-NEXT: "kind": "input",
// JSON-NEXT: "last": 3,
// JSON: "argument": 1,
// JSON-NEXT: "first":
// JSON-NEXT: "kind": "output",
// JSON: "io_bytes": 0,
// JSON: "ram_bytes": 200

// CALLER: "arena_bytes": 200,
// CALLER: "io": "caller",
// CALLER: "io_bytes": 200,
// CALLER: "ram_bytes": 400

// BAD: for the --io option: invalid value 'heap' (expected one of: caller, arena)
