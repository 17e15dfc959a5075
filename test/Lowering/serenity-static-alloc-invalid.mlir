// RUN: serenity-opt %s -split-input-file -verify-diagnostics --serenity-static-alloc | FileCheck %s
// RUN: not serenity-opt %s -split-input-file --serenity-static-alloc=algorithm=fastest 2>&1 | FileCheck %s --check-prefix=ALGO
// RUN: not serenity-opt %s -split-input-file --serenity-static-alloc=arena=heap 2>&1 | FileCheck %s --check-prefix=ARENA
// RUN: not serenity-opt %s -split-input-file --serenity-static-alloc=alignment=48 2>&1 | FileCheck %s --check-prefix=ALIGN --implicit-check-not="current operation"
// RUN: not serenity-opt %s -split-input-file --serenity-static-alloc=time-limit=-1 2>&1 | FileCheck %s --check-prefix=TIME --implicit-check-not="current operation"
// RUN: not serenity-opt %s -split-input-file --serenity-static-alloc=work-limit=-1 2>&1 | FileCheck %s --check-prefix=WORK --implicit-check-not="current operation"
// RUN: not serenity-opt %s -split-input-file --serenity-static-alloc=io=heap 2>&1 | FileCheck %s --check-prefix=IO
// RUN: not serenity-opt %s -split-input-file --serenity-static-alloc=report=/nonexistent/dir/r.json 2>&1 | FileCheck %s --check-prefix=REPORT

// ALGO: for the --algorithm option: invalid value 'fastest' (expected one of: exact, best-fit, greedy-size)
// ARENA: for the --arena option: invalid value 'heap' (expected one of: global, argument)
// ALIGN: error: serenity-static-alloc: alignment must be a positive power of two, got 48
// TIME: error: serenity-static-alloc: time-limit must be non-negative (seconds)
// WORK: error: serenity-static-alloc: work-limit must be non-negative
// IO: for the --io option: invalid value 'heap' (expected one of: caller, arena)
// REPORT: error: serenity-static-alloc: cannot write report '/nonexistent/dir/r.json'

// Dynamic and escaping buffers stay allocs (with a remark); the static,
// local one is planned alone: arena 64.
// CHECK-LABEL: func.func @left_alone
// CHECK-SAME: serenity.arena_bytes = 64 : i64
// CHECK: memref.alloc(%{{.*}}) : memref<?xf32>
// CHECK: memref.alloc() : memref<16xf32>
// CHECK: memref.view
// CHECK: memref.dealloc %{{.*}} : memref<?xf32>
func.func @left_alone(%n: index) -> memref<16xf32> {
  // expected-remark @below {{serenity-static-alloc: left in place: dynamically sized}}
  %d = memref.alloc(%n) : memref<?xf32>
  // 2^62 elements of 4 bytes: the byte size would overflow int64.
  // expected-remark @below {{serenity-static-alloc: left in place: larger than the memory model's limit of 2^40 bytes}}
  %h = memref.alloc() : memref<1073741824x1073741824x4xf32>
  memref.dealloc %h : memref<1073741824x1073741824x4xf32>
  // expected-remark @below {{serenity-static-alloc: left in place: it escapes through 'func.return'}}
  %r = memref.alloc() : memref<16xf32>
  %a = memref.alloc() : memref<16xf32>
  memref.copy %r, %a : memref<16xf32> to memref<16xf32>
  memref.dealloc %d : memref<?xf32>
  return %r : memref<16xf32>
}

// -----

// A buffer yielded out of a loop may live across iterations: not planned.
func.func @yielded(%arg0: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %arg0) -> memref<4xf32> {
    // expected-remark @below {{serenity-static-alloc: left in place: it escapes through 'scf.yield'}}
    %t = memref.alloc() : memref<4xf32>
    memref.copy %acc, %t : memref<4xf32> to memref<4xf32>
    scf.yield %t : memref<4xf32>
  }
  return
}

// -----

// Layouts and memory spaces are not views of an i8 arena.
func.func @layouts() {
  // expected-remark @below {{serenity-static-alloc: left in place: non-identity layout}}
  %l = memref.alloc() : memref<4xf32, strided<[2]>>
  // expected-remark @below {{serenity-static-alloc: left in place: non-default memory space}}
  %s = memref.alloc() : memref<4xf32, 1>
  return
}

// -----

// Unstructured control flow: program order is not a timeline (the branch
// back would revive buffers), so nothing is planned.
// CHECK-LABEL: func.func @blocks
// CHECK-NOT: serenity.arena_bytes
// CHECK: memref.alloc
// expected-remark @below {{serenity-static-alloc: function left unchanged: it has a region with several blocks}}
func.func @blocks(%c: i1) {
  %a = memref.alloc() : memref<4xf32>
  cf.br ^bb1
^bb1:
  %b = memref.alloc() : memref<4xf32>
  memref.copy %a, %b : memref<4xf32> to memref<4xf32>
  cf.cond_br %c, ^bb1, ^bb2
^bb2:
  return
}
