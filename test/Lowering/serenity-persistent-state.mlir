// RUN: serenity-opt %s -split-input-file --allow-unregistered-dialect --serenity-persistent-state=alignment=4 -verify-diagnostics | FileCheck %s

// Two variables (an int8 and an int16 state, as a model's TOSA variables
// become after tosa-to-mlprogram and bufferization) are packed into one
// public region @f_state at aligned offsets; every access is a view of it;
// @f_reset writes the initial values back (a fill for splats, a copy of a
// constant otherwise). The region keeps the initial values.

// CHECK: memref.global @f_state : memref<14xi8> = dense<[-3, -3, -3, -3, -3, 0, 0, 0, 1, 0, 2, 0, 3, 0]> {alignment = 4 : i64}
// CHECK-NOT: memref.global "private" @a
// CHECK-NOT: memref.global "private" @b
// CHECK-LABEL: func.func @f
// CHECK-SAME: serenity.persistent = [{name = "a", offset = 0 : i64, size = 5 : i64}, {name = "b", offset = 8 : i64, size = 6 : i64}]
// CHECK-SAME: serenity.persistent_bytes = 14 : i64
// CHECK: %[[R:.*]] = memref.get_global @f_state : memref<14xi8>
// CHECK: %[[C0:.*]] = arith.constant 0 : index
// CHECK: %[[A:.*]] = memref.view %[[R]][%[[C0]]][] : memref<14xi8> to memref<5xi8>
// CHECK: %[[R2:.*]] = memref.get_global @f_state : memref<14xi8>
// CHECK: %[[C8:.*]] = arith.constant 8 : index
// CHECK: %[[B:.*]] = memref.view %[[R2]][%[[C8]]][] : memref<14xi8> to memref<3xi16>
// CHECK: "test.use"(%[[A]], %[[B]], %{{.*}})
// CHECK: memref.global "private" constant @f_state_init0 : memref<3xi16> = dense<[1, 2, 3]>
// CHECK-LABEL: func.func @f_reset()
// CHECK: %[[V:.*]] = memref.view {{.*}} to memref<5xi8>
// CHECK: %[[M3:.*]] = arith.constant -3 : i8
// CHECK: linalg.fill ins(%[[M3]] : i8) outs(%[[V]] : memref<5xi8>)
// CHECK: %[[W:.*]] = memref.view {{.*}} to memref<3xi16>
// CHECK: %[[I:.*]] = memref.get_global @f_state_init0 : memref<3xi16>
// CHECK: memref.copy %[[I]], %[[W]]
// CHECK: return
memref.global "private" @a : memref<5xi8> = dense<-3>
memref.global "private" @b : memref<3xi16> = dense<[1, 2, 3]>
memref.global "private" constant @weights : memref<2xi8> = dense<[7, 8]>
func.func @f() {
  %a = memref.get_global @a : memref<5xi8>
  %b = memref.get_global @b : memref<3xi16>
  %w = memref.get_global @weights : memref<2xi8>
  "test.use"(%a, %b, %w) : (memref<5xi8>, memref<3xi16>, memref<2xi8>) -> ()
  return
}

// -----

// Without mutable globals nothing changes (constants and an uninitialized
// arena are not state).

// CHECK-LABEL: func.func @stateless
// CHECK-NOT: persistent
// CHECK-NOT: _reset
memref.global "private" constant @w : memref<2xi8> = dense<[7, 8]>
memref.global "private" @__serenity_arena_g : memref<8xi8> = uninitialized
func.func @stateless() {
  %w = memref.get_global @w : memref<2xi8>
  %a = memref.get_global @__serenity_arena_g : memref<8xi8>
  "test.use"(%w, %a) : (memref<2xi8>, memref<8xi8>) -> ()
  return
}

// -----

// expected-error @+1 {{symbol @g_reset already exists}}
module {
  memref.global "private" @s : memref<2xi8> = dense<0>
  func.func @g() {
    %s = memref.get_global @s : memref<2xi8>
    "test.use"(%s) : (memref<2xi8>) -> ()
    return
  }
  func.func @g_reset() {
    return
  }
}

// -----

// A shift-register update (SVDF's state: old values moved by two places,
// the new ones appended, the result written back) is done in the state
// itself: no buffer, no write-back copy. The shift reads at or after where
// it writes, and comes before the copy of the new values.

// CHECK-LABEL: func.func @shift
// CHECK-NOT: memref.alloc
// CHECK: %[[G:.*]] = memref.view {{.*}} to memref<1x8xi8>
// CHECK: %[[OLD:.*]] = memref.subview %[[G]][0, 2] [1, 6] [1, 1]
// CHECK: %[[S:.*]] = memref.view {{.*}} to memref<1x8xi8>
// CHECK: %[[HEAD:.*]] = memref.subview %[[S]][0, 0] [1, 6] [1, 1]
// CHECK: memref.copy %[[OLD]], %[[HEAD]]
// CHECK: %[[TAIL:.*]] = memref.subview %[[S]][0, 6] [1, 2] [1, 1]
// CHECK: memref.copy %arg0, %[[TAIL]]
// CHECK-NOT: memref.copy
// CHECK: return
memref.global "private" @s : memref<1x8xi8> = dense<0>
func.func @shift(%x: memref<1x2xi8>) {
  %g = memref.get_global @s : memref<1x8xi8>
  %old = memref.subview %g[0, 2] [1, 6] [1, 1] : memref<1x8xi8> to memref<1x6xi8, strided<[8, 1], offset: 2>>
  %a = memref.alloc() : memref<1x8xi8>
  %head = memref.subview %a[0, 0] [1, 6] [1, 1] : memref<1x8xi8> to memref<1x6xi8, strided<[8, 1]>>
  memref.copy %old, %head : memref<1x6xi8, strided<[8, 1], offset: 2>> to memref<1x6xi8, strided<[8, 1]>>
  %tail = memref.subview %a[0, 6] [1, 2] [1, 1] : memref<1x8xi8> to memref<1x2xi8, strided<[8, 1], offset: 6>>
  memref.copy %x, %tail : memref<1x2xi8> to memref<1x2xi8, strided<[8, 1], offset: 6>>
  %g2 = memref.get_global @s : memref<1x8xi8>
  memref.copy %a, %g2 : memref<1x8xi8> to memref<1x8xi8>
  return
}

// -----

// Negative: the new values are copied first, so the shift would read one of
// them: the update stays in a buffer.

// CHECK-LABEL: func.func @tail_first
// CHECK: memref.alloc
// CHECK-COUNT-3: memref.copy
memref.global "private" @t : memref<1x8xi8> = dense<0>
func.func @tail_first(%x: memref<1x2xi8>) {
  %g = memref.get_global @t : memref<1x8xi8>
  %old = memref.subview %g[0, 2] [1, 6] [1, 1] : memref<1x8xi8> to memref<1x6xi8, strided<[8, 1], offset: 2>>
  %a = memref.alloc() : memref<1x8xi8>
  %tail = memref.subview %a[0, 6] [1, 2] [1, 1] : memref<1x8xi8> to memref<1x2xi8, strided<[8, 1], offset: 6>>
  memref.copy %x, %tail : memref<1x2xi8> to memref<1x2xi8, strided<[8, 1], offset: 6>>
  %head = memref.subview %a[0, 0] [1, 6] [1, 1] : memref<1x8xi8> to memref<1x6xi8, strided<[8, 1]>>
  memref.copy %old, %head : memref<1x6xi8, strided<[8, 1], offset: 2>> to memref<1x6xi8, strided<[8, 1]>>
  %g2 = memref.get_global @t : memref<1x8xi8>
  memref.copy %a, %g2 : memref<1x8xi8> to memref<1x8xi8>
  return
}

// -----

// Negative: a right shift (the copy reads before where it writes) would read
// elements its own ascending loop already wrote.

// CHECK-LABEL: func.func @right_shift
// CHECK: memref.alloc
memref.global "private" @u : memref<8xi8> = dense<0>
func.func @right_shift(%x: memref<2xi8>) {
  %g = memref.get_global @u : memref<8xi8>
  %old = memref.subview %g[0] [6] [1] : memref<8xi8> to memref<6xi8, strided<[1]>>
  %a = memref.alloc() : memref<8xi8>
  %head = memref.subview %a[2] [6] [1] : memref<8xi8> to memref<6xi8, strided<[1], offset: 2>>
  memref.copy %old, %head : memref<6xi8, strided<[1]>> to memref<6xi8, strided<[1], offset: 2>>
  %tail = memref.subview %a[0] [2] [1] : memref<8xi8> to memref<2xi8, strided<[1]>>
  memref.copy %x, %tail : memref<2xi8> to memref<2xi8, strided<[1]>>
  %g2 = memref.get_global @u : memref<8xi8>
  memref.copy %a, %g2 : memref<8xi8> to memref<8xi8>
  return
}
