// Runs the same program with memref.alloc and with every buffer placed in
// one arena, through mlir-runner: both must print the same values, which
// are derived by hand below. Buffers reuse arena bytes only if the
// lifetimes (loops, aliases through expand/collapse_shape and subview) are
// right; a wrong overlap corrupts the numbers.
//
// DEFINE: %{lower} = builtin.module(convert-linalg-to-loops,convert-scf-to-cf,expand-strided-metadata,lower-affine,finalize-memref-to-llvm,convert-math-to-llvm,convert-arith-to-llvm,convert-cf-to-llvm,convert-func-to-llvm,reconcile-unrealized-casts)
// RUN: mlir-opt %s --pass-pipeline="%{lower}" \
// RUN:   | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_c_runner_utils,%mlir_runner_utils \
// RUN:   | FileCheck %s
// RUN: serenity-opt %s --serenity-static-alloc=arena=global -o %t.global.mlir
// RUN: FileCheck %s --check-prefix=IR < %t.global.mlir
// RUN: mlir-opt %t.global.mlir --pass-pipeline="%{lower}" \
// RUN:   | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_c_runner_utils,%mlir_runner_utils \
// RUN:   | FileCheck %s
// RUN: serenity-opt %s --serenity-static-alloc="algorithm=greedy-size alignment=16" \
// RUN:   | mlir-opt --pass-pipeline="%{lower}" \
// RUN:   | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_c_runner_utils,%mlir_runner_utils \
// RUN:   | FileCheck %s

// in[i] = i; a = 2 in; b[i] = a[i] - a[7-i] = 4i - 14; d = b * b;
// e[i] = d[i] + b[i]; then e[k] += d[4+k] for k < 4 (through a subview):
//   i:    0    1    2    3  4   5    6    7
//   d:  196  100   36    4  4  36  100  196
//   e:  186  126  130  198  6  42  110  210
// CHECK: [186,  126,  130,  198,  6,  42,  110,  210]

// IR-LABEL: func.func @compute
// IR-SAME: serenity.arena_bytes
// IR-NOT: memref.alloc(
// IR-NOT: memref.dealloc
// IR: return

func.func private @printMemrefF32(memref<*xf32>)

func.func @compute(%in: memref<8xf32>, %out: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c7 = arith.constant 7 : index
  %c8 = arith.constant 8 : index
  %two = arith.constant 2.0 : f32
  %a = memref.alloc() : memref<8xf32>
  scf.for %i = %c0 to %c8 step %c1 {
    %x = memref.load %in[%i] : memref<8xf32>
    %y = arith.mulf %x, %two : f32
    memref.store %y, %a[%i] : memref<8xf32>
  }
  %b = memref.alloc() : memref<8xf32>
  scf.for %i = %c0 to %c8 step %c1 {
    %tmp = memref.alloc() : memref<1xf32>
    %j = arith.subi %c7, %i : index
    %x = memref.load %a[%i] : memref<8xf32>
    %z = memref.load %a[%j] : memref<8xf32>
    %s = arith.subf %x, %z : f32
    memref.store %s, %tmp[%c0] : memref<1xf32>
    %v = memref.load %tmp[%c0] : memref<1xf32>
    memref.store %v, %b[%i] : memref<8xf32>
    memref.dealloc %tmp : memref<1xf32>
  }
  memref.dealloc %a : memref<8xf32>
  %c = memref.alloc() : memref<2x4xf32>
  %bc = memref.expand_shape %b [[0, 1]] output_shape [2, 4] : memref<8xf32> into memref<2x4xf32>
  memref.copy %bc, %c : memref<2x4xf32> to memref<2x4xf32>
  %d = memref.alloc() : memref<8xf32>
  %cf = memref.collapse_shape %c [[0, 1]] : memref<2x4xf32> into memref<8xf32>
  scf.for %i = %c0 to %c8 step %c1 {
    %x = memref.load %cf[%i] : memref<8xf32>
    %y = arith.mulf %x, %x : f32
    memref.store %y, %d[%i] : memref<8xf32>
  }
  memref.dealloc %c : memref<2x4xf32>
  %e = memref.alloc() : memref<8xf32>
  scf.for %i = %c0 to %c8 step %c1 {
    %x = memref.load %d[%i] : memref<8xf32>
    %y = memref.load %b[%i] : memref<8xf32>
    %s = arith.addf %x, %y : f32
    memref.store %s, %e[%i] : memref<8xf32>
  }
  %sub = memref.subview %d[4] [4] [1] : memref<8xf32> to memref<4xf32, strided<[1], offset: 4>>
  scf.for %k = %c0 to %c4 step %c1 {
    %x = memref.load %e[%k] : memref<8xf32>
    %y = memref.load %sub[%k] : memref<4xf32, strided<[1], offset: 4>>
    %s = arith.addf %x, %y : f32
    memref.store %s, %e[%k] : memref<8xf32>
  }
  memref.copy %e, %out : memref<8xf32> to memref<8xf32>
  memref.dealloc %b : memref<8xf32>
  memref.dealloc %d : memref<8xf32>
  memref.dealloc %e : memref<8xf32>
  return
}

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c8 = arith.constant 8 : index
  %in = memref.alloc() : memref<8xf32>
  scf.for %i = %c0 to %c8 step %c1 {
    %ii = arith.index_cast %i : index to i32
    %f = arith.sitofp %ii : i32 to f32
    memref.store %f, %in[%i] : memref<8xf32>
  }
  %out = memref.alloc() : memref<8xf32>
  call @compute(%in, %out) : (memref<8xf32>, memref<8xf32>) -> ()
  %u = memref.cast %out : memref<8xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  memref.dealloc %in : memref<8xf32>
  memref.dealloc %out : memref<8xf32>
  return
}
