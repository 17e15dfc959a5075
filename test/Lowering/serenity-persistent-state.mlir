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
