// RUN: serenity-opt %s -split-input-file --serenity-static-alloc | FileCheck %s
// RUN: serenity-opt %s -split-input-file --serenity-static-alloc=arena=argument | FileCheck %s --check-prefix=ARG
// RUN: serenity-opt %s -split-input-file --serenity-static-alloc=algorithm=greedy-size | FileCheck %s --check-prefix=GREEDY

// Steps are the pre-order op numbers of the function body. Intervals:
// %a [0,3], %b [2,5], %c [4,6]; %a and %c never live together.
//   %a: +0  (64)
//   %b: +64 (64)
//   %c: +0  (64)      arena 128 = lower bound 64 + 64

// CHECK: memref.global "private" @__serenity_arena_chain : memref<128xi8> = uninitialized {alignment = 64 : i64}
// CHECK-LABEL: func.func @chain
// CHECK-SAME: serenity.arena_bytes = 128 : i64, serenity.arena_lower_bound = 128 : i64
// CHECK: %[[ARENA:.*]] = memref.get_global @__serenity_arena_chain : memref<128xi8>
// CHECK: %[[O0:.*]] = arith.constant 0 : index
// CHECK: %[[A:.*]] = memref.view %[[ARENA]][%[[O0]]][] : memref<128xi8> to memref<16xf32>
// CHECK: %[[O64:.*]] = arith.constant 64 : index
// CHECK: %[[B:.*]] = memref.view %[[ARENA]][%[[O64]]][] : memref<128xi8> to memref<16xf32>
// CHECK: memref.copy %[[A]], %[[B]]
// CHECK: %[[O0B:.*]] = arith.constant 0 : index
// CHECK: %[[C:.*]] = memref.view %[[ARENA]][%[[O0B]]][] : memref<128xi8> to memref<16xf32>
// CHECK-NOT: memref.alloc

// ARG-LABEL: func.func @chain
// ARG-SAME: (%[[ARENA:.*]]: memref<128xi8>, %{{.*}}: memref<16xf32>, %{{.*}}: memref<16xf32>)
// ARG-NOT: memref.global
// ARG: memref.view %[[ARENA]]
func.func @chain(%arg0: memref<16xf32>, %out: memref<16xf32>) {
  %a = memref.alloc() : memref<16xf32>
  memref.copy %arg0, %a : memref<16xf32> to memref<16xf32>
  %b = memref.alloc() : memref<16xf32>
  memref.copy %a, %b : memref<16xf32> to memref<16xf32>
  %c = memref.alloc() : memref<16xf32>
  memref.copy %b, %c : memref<16xf32> to memref<16xf32>
  memref.copy %c, %out : memref<16xf32> to memref<16xf32>
  return
}

// -----

// All three live at steps 3-4 (lower bound 100 + 10 + 100 = 210). Offsets
// are multiples of 64, and of 128 for %b. Best layout:
//   %a: +0   (100)
//   %c: +128 (100 align 64)
//   %b: +256 (10 align 128)   arena 266
// (%b lower down pushes a 100-byte buffer to +192: arena 292.)

// CHECK-LABEL: func.func @aligned
// CHECK-SAME: serenity.arena_bytes = 266 : i64, serenity.arena_lower_bound = 210 : i64
// CHECK: arith.constant 0 : index
// CHECK: arith.constant 256 : index
// CHECK: arith.constant 128 : index
func.func @aligned(%arg0: memref<100xi8>, %small: memref<10xi8>, %out: memref<100xi8>) {
  %a = memref.alloc() : memref<100xi8>
  memref.copy %arg0, %a : memref<100xi8> to memref<100xi8>
  %b = memref.alloc() {alignment = 128 : i64} : memref<10xi8>
  %c = memref.alloc() : memref<100xi8>
  memref.copy %a, %c : memref<100xi8> to memref<100xi8>
  memref.copy %small, %b : memref<10xi8> to memref<10xi8>
  memref.copy %c, %out : memref<100xi8> to memref<100xi8>
  return
}

// -----

// A buffer used inside a loop stays live for the whole loop (every
// iteration); one allocated in the body lives within the body; the dealloc
// of a planned buffer goes away.
//   %big   [3,10] (whole scf.for): +0   (256)
//   %tmp   [6,8]:                  +256 (64)
//   %after [11,13]:                +0   (256)   arena 320 = 256 + 64

// CHECK-LABEL: func.func @loop
// CHECK-SAME: serenity.arena_bytes = 320 : i64, serenity.arena_lower_bound = 320 : i64
// CHECK: %[[ARENA:.*]] = memref.get_global
// CHECK: arith.constant 0 : index
// CHECK: memref.view %[[ARENA]]{{.*}} to memref<64xf32>
// CHECK: scf.for
// CHECK: arith.constant 256 : index
// CHECK: memref.view %[[ARENA]]{{.*}} to memref<16xf32>
// CHECK-NOT: memref.dealloc
// CHECK: }
// CHECK: arith.constant 0 : index
// CHECK: memref.view %[[ARENA]]{{.*}} to memref<64xf32>

// GREEDY-LABEL: func.func @loop
// GREEDY-SAME: serenity.arena_bytes = 320 : i64
func.func @loop(%arg0: memref<64xf32>, %out: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %big = memref.alloc() : memref<64xf32>
  memref.copy %arg0, %big : memref<64xf32> to memref<64xf32>
  scf.for %i = %c0 to %c4 step %c1 {
    %tmp = memref.alloc() : memref<16xf32>
    %v = memref.load %big[%i] : memref<64xf32>
    memref.store %v, %tmp[%i] : memref<16xf32>
    memref.dealloc %tmp : memref<16xf32>
  }
  %after = memref.alloc() : memref<64xf32>
  memref.copy %arg0, %after : memref<64xf32> to memref<64xf32>
  memref.copy %after, %out : memref<64xf32> to memref<64xf32>
  return
}

// -----

// Uses through aliases keep the root buffer alive: %a is last read at
// step 10 through collapse_shape -> cast -> reinterpret_cast, so it
// overlaps %b [3,8] and %c [7,8]; without alias tracking it would die at
// step 1 and share %b's bytes (arena 128).
//   %a: +0, %b: +64, %c: +128 (64 each)   arena 192 = lower bound

// CHECK-LABEL: func.func @aliases
// CHECK-SAME: serenity.arena_bytes = 192 : i64, serenity.arena_lower_bound = 192 : i64
func.func @aliases(%arg0: memref<4x4xf32>, %out: memref<16xf32>) {
  %a = memref.alloc() : memref<4x4xf32>
  memref.copy %arg0, %a : memref<4x4xf32> to memref<4x4xf32>
  %s = memref.subview %a[0, 0] [2, 4] [1, 1] : memref<4x4xf32> to memref<2x4xf32, strided<[4, 1]>>
  %b = memref.alloc() : memref<4x4xf32>
  memref.copy %arg0, %b : memref<4x4xf32> to memref<4x4xf32>
  %f = memref.collapse_shape %a [[0, 1]] : memref<4x4xf32> into memref<16xf32>
  %e = memref.cast %f : memref<16xf32> to memref<?xf32>
  %c = memref.alloc() : memref<4x4xf32>
  memref.copy %b, %c : memref<4x4xf32> to memref<4x4xf32>
  %r = memref.reinterpret_cast %e to offset: [0], sizes: [16], strides: [1] : memref<?xf32> to memref<16xf32>
  memref.copy %r, %out : memref<16xf32> to memref<16xf32>
  return
}

// -----

// A function without static allocs is left alone.
// CHECK-LABEL: func.func @nothing
// CHECK-NOT: serenity.arena_bytes
func.func @nothing(%arg0: memref<4xf32>) -> memref<4xf32> {
  return %arg0 : memref<4xf32>
}

// -----

// A pooling op's window operand only gives the window's shape (tosa-to-linalg
// makes it a tensor.empty): never read or written, it takes no bytes. The
// arena holds the 64-byte sum alone.
// CHECK-LABEL: func.func @pooling_window
// CHECK-SAME: serenity.arena_bytes = 64 : i64, serenity.arena_lower_bound = 64 : i64
// CHECK: %[[WINDOW:.*]] = memref.view %{{.*}}[%{{.*}}][] : memref<64xi8> to memref<24x5xi32>
// CHECK: linalg.pooling_nhwc_sum {{.*}} ins(%{{.*}}, %[[WINDOW]] :
func.func @pooling_window(%arg0: memref<1x24x5x16xi8>, %out: memref<1x1x1x16xi32>) {
  %c0 = arith.constant 0 : i32
  %sum = memref.alloc() : memref<1x1x1x16xi32>
  linalg.fill ins(%c0 : i32) outs(%sum : memref<1x1x1x16xi32>)
  %window = memref.alloc() : memref<24x5xi32>
  linalg.pooling_nhwc_sum {dilations = dense<1> : vector<2xi64>, strides = dense<[24, 5]> : vector<2xi64>} ins(%arg0, %window : memref<1x24x5x16xi8>, memref<24x5xi32>) outs(%sum : memref<1x1x1x16xi32>)
  memref.copy %sum, %out : memref<1x1x1x16xi32> to memref<1x1x1x16xi32>
  return
}
