// RUN: serenity-opt %s --serenity-share-kernels=min-copies=2 | FileCheck %s

// Two copies of a kernel that differ only in where their scratch lies (a
// per-tile accumulator serenity-static-alloc placed in the arena, viewed
// inside the loop at a constant offset): the views move in front of the
// loops, become arguments, and the loops share one function.

// CHECK-LABEL: func.func @g
// CHECK: %[[T0:.*]] = memref.view %{{.*}}[%{{.*}}][] : memref<64xi8> to memref<1xi32>
// CHECK: memref.cast %[[T0]]
// CHECK: call @g_shared0(
// CHECK: %[[T1:.*]] = memref.view %{{.*}}[%{{.*}}][] : memref<64xi8> to memref<1xi32>
// CHECK: memref.cast %[[T1]]
// CHECK: call @g_shared0(
// CHECK-NOT: scf.for
// CHECK: func.func private @g_shared0
// CHECK-NOT: memref.view
// CHECK: scf.for
// CHECK: return
func.func @g(%arena: memref<64xi8>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %in = memref.view %arena[%c0][] : memref<64xi8> to memref<4xi8>
  %out0 = memref.view %arena[%c4][] : memref<64xi8> to memref<4xi8>
  %out1 = memref.view %arena[%c8][] : memref<64xi8> to memref<4xi8>
  scf.for %i = %c0 to %c4 step %c1 {
    %c16 = arith.constant 16 : index
    %t = memref.view %arena[%c16][] : memref<64xi8> to memref<1xi32>
    %v = memref.load %in[%i] : memref<4xi8>
    %e = arith.extsi %v : i8 to i32
    memref.store %e, %t[%c0] : memref<1xi32>
    %r = memref.load %t[%c0] : memref<1xi32>
    %n = arith.trunci %r : i32 to i8
    memref.store %n, %out0[%i] : memref<4xi8>
  }
  scf.for %i = %c0 to %c4 step %c1 {
    %c20 = arith.constant 20 : index
    %t = memref.view %arena[%c20][] : memref<64xi8> to memref<1xi32>
    %v = memref.load %out0[%i] : memref<4xi8>
    %e = arith.extsi %v : i8 to i32
    memref.store %e, %t[%c0] : memref<1xi32>
    %r = memref.load %t[%c0] : memref<1xi32>
    %n = arith.trunci %r : i32 to i8
    memref.store %n, %out1[%i] : memref<4xi8>
  }
  return
}
