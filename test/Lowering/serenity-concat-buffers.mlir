// RUN: serenity-opt %s --serenity-concat-buffers=alignment=16 | FileCheck %s
// RUN: serenity-opt %s --serenity-concat-buffers --eliminate-empty-tensors --one-shot-bufferize="bufferize-function-boundaries function-boundary-type-conversion=identity-layout-map" --cse --canonicalize | FileCheck %s --check-prefix=BUF

// An in-place concat's insert_slice chain becomes one buffer: each operand
// is materialized in its subview (placed before the tensor.empty its producer
// writes into, where eliminate-empty-tensors puts the slice), and the chain's
// result is a to_tensor of the buffer. %b, a function argument, is written by
// nothing here: its subview stays at its materialization (a copy).
// CHECK-LABEL: func.func @concat
// CHECK:       %[[M:.*]] = memref.alloc() {alignment = 16 : i64} : memref<1x2x2x3xf32>
// CHECK-NEXT:  %[[SA:.*]] = memref.subview %[[M]][0, 0, 0, 0] [1, 2, 2, 1] [1, 1, 1, 1]
// CHECK-NEXT:  %[[EA:.*]] = tensor.empty() : tensor<1x2x2x1xf32>
// CHECK-NEXT:  %[[A:.*]] = linalg.generic {{.*}} outs(%[[EA]]
// CHECK:       %[[SC:.*]] = memref.subview %[[M]][0, 0, 0, 2] [1, 2, 2, 1] [1, 1, 1, 1]
// CHECK-NEXT:  %[[EC:.*]] = tensor.empty() : tensor<1x2x2x1xf32>
// CHECK-NEXT:  %[[C:.*]] = linalg.generic {{.*}} outs(%[[EC]]
// CHECK:       bufferization.materialize_in_destination %[[A]] in restrict writable %[[SA]]
// CHECK-NEXT:  %[[SB:.*]] = memref.subview %[[M]][0, 0, 0, 1] [1, 2, 2, 1] [1, 1, 1, 1]
// CHECK-NEXT:  bufferization.materialize_in_destination %{{.*}} in restrict writable %[[SB]]
// CHECK-NEXT:  bufferization.materialize_in_destination %[[C]] in restrict writable %[[SC]]
// CHECK-NEXT:  %[[R:.*]] = bufferization.to_tensor %[[M]] restrict writable : memref<1x2x2x3xf32> to tensor<1x2x2x3xf32>
// CHECK-NEXT:  return %[[R]]
// CHECK-NOT:   tensor.insert_slice
// After bufferization the producers write into their subviews; only the
// argument is copied.
// BUF-LABEL: func.func @concat
// BUF:       %[[M:.*]] = memref.alloc() {{.*}} : memref<1x2x2x3xf32>
// BUF:       %[[SA:.*]] = memref.subview %[[M]][0, 0, 0, 0]
// BUF-NEXT:  linalg.generic {{.*}} outs(%[[SA]]
// BUF:       %[[SC:.*]] = memref.subview %[[M]][0, 0, 0, 2]
// BUF-NEXT:  linalg.generic {{.*}} outs(%[[SC]]
// BUF:       %[[SB:.*]] = memref.subview %[[M]][0, 0, 0, 1]
// BUF-NEXT:  memref.copy %{{.*}}, %[[SB]]
// BUF-NEXT:  return %[[M]]
#map = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @concat(%x: tensor<1x2x2x1xf32>, %b: tensor<1x2x2x1xf32>) -> tensor<1x2x2x3xf32> {
  %ea = tensor.empty() : tensor<1x2x2x1xf32>
  %a = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : tensor<1x2x2x1xf32>) outs(%ea : tensor<1x2x2x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %t = math.tanh %in : f32
    linalg.yield %t : f32
  } -> tensor<1x2x2x1xf32>
  %ec = tensor.empty() : tensor<1x2x2x1xf32>
  %c = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : tensor<1x2x2x1xf32>) outs(%ec : tensor<1x2x2x1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %t = math.exp %in : f32
    linalg.yield %t : f32
  } -> tensor<1x2x2x1xf32>
  %e = tensor.empty() : tensor<1x2x2x3xf32>
  %0 = tensor.insert_slice %a into %e[0, 0, 0, 0] [1, 2, 2, 1] [1, 1, 1, 1] : tensor<1x2x2x1xf32> into tensor<1x2x2x3xf32>
  %1 = tensor.insert_slice %b into %0[0, 0, 0, 1] [1, 2, 2, 1] [1, 1, 1, 1] : tensor<1x2x2x1xf32> into tensor<1x2x2x3xf32>
  %2 = tensor.insert_slice %c into %1[0, 0, 0, 2] [1, 2, 2, 1] [1, 1, 1, 1] : tensor<1x2x2x1xf32> into tensor<1x2x2x3xf32>
  return %2 : tensor<1x2x2x3xf32>
}

// Single insert_slice ops (fewer than min-operands=2) are left alone.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT:   memref.alloc
// CHECK:       tensor.insert_slice
// CHECK:       tensor.insert_slice
func.func @left_alone(%x: tensor<1x2x2x1xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>) {
  %e = tensor.empty() : tensor<1x2x2x2xf32>
  %0 = tensor.insert_slice %x into %e[0, 0, 0, 0] [1, 2, 2, 1] [1, 1, 1, 1] : tensor<1x2x2x1xf32> into tensor<1x2x2x2xf32>
  %f = tensor.empty() : tensor<1x2x2x2xf32>
  %1 = tensor.insert_slice %x into %f[0, 0, 0, 0] [1, 2, 2, 1] [1, 1, 1, 1] : tensor<1x2x2x1xf32> into tensor<1x2x2x2xf32>
  return %0, %1 : tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>
}
