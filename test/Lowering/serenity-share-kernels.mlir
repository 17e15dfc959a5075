// RUN: serenity-opt %s -split-input-file --serenity-share-kernels=min-copies=2 | FileCheck %s
// RUN: serenity-opt %s -split-input-file --serenity-share-kernels=min-copies=3 | FileCheck %s --check-prefix=THREE
// RUN: serenity-opt %s -split-input-file --serenity-share-kernels="min-copies=2 only-stateful=1" | FileCheck %s --check-prefix=THREE
// RUN: sed 's/func.func @f(%%arena: memref<32xi8>)/func.func @f(%%arena: memref<32xi8>) attributes {serenity.persistent_bytes = 4 : i64}/' %s | serenity-opt --serenity-share-kernels="min-copies=2 only-stateful=1" | FileCheck %s
// RUN: not serenity-opt %s --serenity-share-kernels=min-copies=1 2>&1 | FileCheck %s --check-prefix=BAD

// Two copies of one kernel (the same weights, buffers at different offsets
// of the arena) become calls of one function taking the buffers with a
// dynamic offset; the weights are rebuilt inside it. The third kernel reads
// other weights and stays.

// CHECK-LABEL: func.func @f
// CHECK: %[[A:.*]] = memref.cast %{{.*}} : memref<4xi8, strided<[1]>> to memref<4xi8, strided<[1], offset: ?>>
// CHECK: %[[B:.*]] = memref.cast %{{.*}} : memref<4xi8, strided<[1], offset: 4>> to memref<4xi8, strided<[1], offset: ?>>
// CHECK: call @f_shared0(%[[A]], %[[B]]) : (memref<4xi8, strided<[1], offset: ?>>, memref<4xi8, strided<[1], offset: ?>>) -> ()
// CHECK: call @f_shared0(
// CHECK: linalg.add ins(%{{.*}}, %{{.*}} : memref<4xi8, strided<[1], offset: 12>>, memref<4xi8>)
// CHECK: func.func private @f_shared0(%[[X:.*]]: memref<4xi8, strided<[1], offset: ?>>, %[[Y:.*]]: memref<4xi8, strided<[1], offset: ?>>)
// CHECK-SAME: llvm.linkage = #llvm.linkage<internal>
// CHECK-SAME: passthrough = ["noinline"]
// CHECK: memref.get_global @w : memref<4xi8>
// CHECK: linalg.add
// CHECK-NOT: linalg.add
// CHECK: return

// (THREE also: only-stateful leaves a function without state alone.)
// THREE-LABEL: func.func @f
// THREE-NOT: call
// THREE-COUNT-3: linalg.add

// BAD: min-copies must be 0 (off) or >= 2 (got 1)
memref.global "private" constant @w : memref<4xi8> = dense<[1, 2, 3, 4]>
memref.global "private" constant @v : memref<4xi8> = dense<[5, 6, 7, 8]>
func.func @f(%arena: memref<32xi8>) {
  %w = memref.get_global @w : memref<4xi8>
  %v = memref.get_global @v : memref<4xi8>
  %c0 = arith.constant 0 : index
  %buf = memref.view %arena[%c0][] : memref<32xi8> to memref<32xi8>
  %in0 = memref.subview %buf[0] [4] [1] : memref<32xi8> to memref<4xi8, strided<[1]>>
  %out0 = memref.subview %buf[4] [4] [1] : memref<32xi8> to memref<4xi8, strided<[1], offset: 4>>
  linalg.add ins(%in0, %w : memref<4xi8, strided<[1]>>, memref<4xi8>) outs(%out0 : memref<4xi8, strided<[1], offset: 4>>)
  %out1 = memref.subview %buf[8] [4] [1] : memref<32xi8> to memref<4xi8, strided<[1], offset: 8>>
  linalg.add ins(%out0, %w : memref<4xi8, strided<[1], offset: 4>>, memref<4xi8>) outs(%out1 : memref<4xi8, strided<[1], offset: 8>>)
  %out2 = memref.subview %buf[12] [4] [1] : memref<32xi8> to memref<4xi8, strided<[1], offset: 12>>
  linalg.add ins(%out2, %v : memref<4xi8, strided<[1], offset: 12>>, memref<4xi8>) outs(%out1 : memref<4xi8, strided<[1], offset: 8>>)
  return
}
