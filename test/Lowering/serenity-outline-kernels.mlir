// RUN: serenity-opt %s --split-input-file --serenity-outline-kernels="min-ops=0 group-size=1" | FileCheck %s
// RUN: serenity-opt %s --split-input-file --serenity-outline-kernels=min-ops=0 | FileCheck %s --check-prefix=GROUP
// RUN: not serenity-opt %s --split-input-file --serenity-outline-kernels=group-size=0 2>&1 | FileCheck %s --check-prefix=BADGROUP
// RUN: serenity-opt %s --split-input-file --serenity-outline-kernels | FileCheck %s --check-prefix=SMALL
// RUN: not serenity-opt %s --split-input-file --serenity-outline-kernels=min-ops=x 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not serenity-opt %s --split-input-file --serenity-outline-kernels=min-ops=-1 2>&1 | FileCheck %s --check-prefix=NEGATIVE

// Each kernel becomes a private function, in order, called where it was.
// The arena global, its views and constants are rebuilt inside (addresses
// stay constants); the accumulator alloca only the second kernel uses moves
// into it; a view of a function argument is passed.
// With the default min-ops (256) a function of two kernels stays as it is.

memref.global "private" @arena : memref<64xi8> = uninitialized {alignment = 64 : i64}

func.func @net(%in: memref<4xf32>, %out: memref<f32>) {
  %acc = memref.alloca() {alignment = 64 : i64} : memref<f32>
  %arena = memref.get_global @arena : memref<64xi8>
  %c0 = arith.constant 0 : index
  %t = memref.view %arena[%c0][] : memref<64xi8> to memref<1x4xf32>
  %t1 = memref.view %arena[%c0][] : memref<64xi8> to memref<4xf32>
  %ein = memref.expand_shape %in [[0, 1]] output_shape [1, 4] : memref<4xf32> into memref<1x4xf32>
  linalg.copy ins(%ein : memref<1x4xf32>) outs(%t : memref<1x4xf32>)
  %zero = arith.constant 0.0 : f32
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  scf.for %j = %c0 to %c1 step %c1 {
    memref.store %zero, %acc[] : memref<f32>
    scf.for %i = %c0 to %c4 step %c1 {
      %x = memref.load %t1[%i] : memref<4xf32>
      %s = memref.load %acc[] : memref<f32>
      %y = arith.addf %s, %x : f32
      memref.store %y, %acc[] : memref<f32>
    }
    %r = memref.load %acc[] : memref<f32>
    memref.store %r, %out[] : memref<f32>
  }
  return
}

// CHECK-LABEL: func.func @net(
// CHECK-SAME: %[[IN:[a-z0-9]+]]: memref<4xf32>
// CHECK-SAME: %[[OUT:[a-z0-9]+]]: memref<f32>
// CHECK-NOT: memref.alloca
// CHECK: %[[EIN:.*]] = memref.expand_shape %[[IN]]
// CHECK-NEXT: call @net_kernel0(%[[EIN]]) : (memref<1x4xf32>) -> ()
// CHECK-NEXT: call @net_kernel1(%[[OUT]]) : (memref<f32>) -> ()
// CHECK-NOT: scf.for
// CHECK: return
// CHECK-LABEL: func.func private @net_kernel0(
// CHECK-SAME: %[[A:.*]]: memref<1x4xf32>)
// CHECK: %[[G:.*]] = memref.get_global @arena
// CHECK: %[[V:.*]] = memref.view %[[G]]
// CHECK: linalg.copy ins(%[[A]] : memref<1x4xf32>) outs(%[[V]] : memref<1x4xf32>)
// CHECK-NEXT: return
// CHECK-LABEL: func.func private @net_kernel1(
// CHECK: memref.alloca() {alignment = 64 : i64} : memref<f32>
// CHECK: memref.get_global @arena
// CHECK: scf.for
// CHECK: return

// By default (group-size=32) consecutive kernels share one function.
// GROUP-LABEL: func.func @net(
// GROUP: %[[EIN:.*]] = memref.expand_shape
// GROUP-NEXT: call @net_kernel0(%[[EIN]], %{{.*}}) : (memref<1x4xf32>, memref<f32>) -> ()
// GROUP-NEXT: return
// GROUP-LABEL: func.func private @net_kernel0(
// GROUP: memref.alloca
// GROUP: linalg.copy
// GROUP: scf.for
// GROUP: return
// GROUP-NOT: func.func private @net_kernel1

// SMALL-LABEL: func.func @net(
// SMALL: linalg.copy
// SMALL: scf.for
// SMALL-NOT: func.func private @net_kernel

// BAD: for the --min-ops option: 'x' value invalid for long argument
// BADGROUP: error: serenity-outline-kernels: group-size must be >= 1 (got 0)
// NEGATIVE: error: serenity-outline-kernels: min-ops must be >= 0 (got -1)

// -----

// An alloca two kernels use is passed to both as an argument.
// Functions marked serenity.unoptimized and external ones are left alone.

func.func @shared(%out: memref<f32>) {
  %acc = memref.alloca() : memref<f32>
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f32
  scf.for %i = %c0 to %c2 step %c1 {
    memref.store %one, %acc[] : memref<f32>
  }
  scf.for %i = %c0 to %c2 step %c1 {
    %s = memref.load %acc[] : memref<f32>
    memref.store %s, %out[] : memref<f32>
  }
  return
}

func.func @driver(%out: memref<f32>) attributes {serenity.unoptimized = "a driver"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %c1 step %c1 {
    func.call @shared(%out) : (memref<f32>) -> ()
  }
  return
}

func.func private @external(memref<f32>)

// CHECK-LABEL: func.func @shared(
// CHECK: %[[ACC:.*]] = memref.alloca() : memref<f32>
// CHECK: call @shared_kernel0(%[[ACC]])
// CHECK: call @shared_kernel1(%[[ACC]], %{{.*}})
// CHECK-LABEL: func.func private @shared_kernel0(
// CHECK-NOT: memref.alloca
// CHECK: scf.for
// CHECK-LABEL: func.func private @shared_kernel1(
// CHECK-LABEL: func.func @driver(
// CHECK: scf.for
// CHECK: func.call @shared
// CHECK-NOT: driver_kernel
// CHECK: func.func private @external(memref<f32>)
