// RUN: serenity-opt %s -split-input-file --allow-unregistered-dialect --serenity-elide-output-copies | FileCheck %s

// The buffer copied (through a reshape) into the out-parameter becomes a view
// of the out-parameter: no copy, no separate result buffer.

// CHECK-LABEL: func.func @reshaped
// CHECK-SAME: (%[[IN:.*]]: memref<1x4xi8>, %[[OUT:.*]]: memref<1x4xi8>)
// CHECK-NEXT: %[[V:.*]] = memref.expand_shape %[[OUT]] {{\[}}[0, 1, 2], [3]] output_shape [1, 1, 1, 4] : memref<1x4xi8> into memref<1x1x1x4xi8>
// CHECK-NEXT: "test.write"(%[[IN]], %[[V]])
// CHECK-NOT: memref.copy
// CHECK-NOT: memref.alloc
func.func @reshaped(%in: memref<1x4xi8>, %out: memref<1x4xi8>) {
  %a = memref.alloc() : memref<1x1x1x4xi8>
  "test.write"(%in, %a) : (memref<1x4xi8>, memref<1x1x1x4xi8>) -> ()
  %c = memref.collapse_shape %a [[0, 1, 2], [3]] : memref<1x1x1x4xi8> into memref<1x4xi8>
  memref.copy %c, %out : memref<1x4xi8> to memref<1x4xi8>
  return
}

// -----

// Negative: the buffer is read after the copy, so it must stay separate.

// CHECK-LABEL: func.func @used_after
// CHECK: memref.alloc
// CHECK: memref.copy
func.func @used_after(%in: memref<4xi8>, %out: memref<4xi8>) {
  %a = memref.alloc() : memref<4xi8>
  "test.write"(%in, %a) : (memref<4xi8>, memref<4xi8>) -> ()
  memref.copy %a, %out : memref<4xi8> to memref<4xi8>
  "test.read"(%a) : (memref<4xi8>) -> ()
  return
}

// -----

// Negative: the copied value is the input itself, not a buffer of the function.

// CHECK-LABEL: func.func @returns_input
// CHECK: memref.copy %{{.*}}, %{{.*}}
func.func @returns_input(%in: memref<4xi8>, %out: memref<4xi8>) {
  memref.copy %in, %out : memref<4xi8> to memref<4xi8>
  return
}
