// RUN: serenity-opt %s --serenity-concat-copies=concat=auto | FileCheck %s
// RUN: serenity-opt %s --serenity-concat-copies=concat=inplace | FileCheck %s --check-prefix=ALL
// RUN: serenity-opt %s --serenity-concat-copies | FileCheck %s --check-prefix=COPY
// RUN: not serenity-opt %s --serenity-concat-copies=concat=bogus 2>&1 | FileCheck %s --check-prefix=BAD

// A concat that copies (unmarked) becomes a tensor.concat: one copy per
// operand after bufferization, without the insert_slice chain whose one-shot
// analysis grows like the operand count to the fourth power. A marked
// (in place) concat stays a tosa.concat; its operand with another user (%w,
// also returned) is copied, so eliminate-empty-tensors moves only what the
// memory model counts in place.
// concat=auto:
// CHECK-LABEL: func.func @three
// CHECK:       tensor.concat dim(3) %{{.*}}, %{{.*}} : (tensor<1x2x2x1xf32>, tensor<1x2x2x1xf32>) -> tensor<1x2x2x2xf32>
// CHECK:       %[[U:.*]] = tosa.tanh
// CHECK:       %[[W:.*]] = tosa.tanh
// CHECK:       %[[E:.*]] = tensor.empty() : tensor<1x2x2x1xf32>
// CHECK:       %[[C:.*]] = linalg.copy ins(%[[W]] : tensor<1x2x2x1xf32>) outs(%[[E]] : tensor<1x2x2x1xf32>)
// CHECK:       tosa.concat %[[U]], %[[C]] {axis = 3 : i32, serenity.concat_inplace}
// concat=inplace: both concats stay; only %w is copied.
// ALL-LABEL: func.func @three
// ALL-NOT:   tensor.concat
// ALL:       linalg.copy
// ALL-NOT:   linalg.copy
// concat=copy (the default): both are copies, the mark is not looked at.
// COPY-LABEL: func.func @three
// COPY-COUNT-2: tensor.concat
// COPY-NOT:   tosa.concat
// BAD: for the --concat option: invalid value 'bogus' (expected one of: copy, inplace, auto)
func.func @three(%a: tensor<1x2x2x1xf32>, %b: tensor<1x2x2x1xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>, tensor<1x2x2x1xf32>) {
  %x = tosa.exp %a : (tensor<1x2x2x1xf32>) -> tensor<1x2x2x1xf32>
  %y = tosa.exp %b : (tensor<1x2x2x1xf32>) -> tensor<1x2x2x1xf32>
  %c = tosa.concat %x, %y {axis = 3 : i32} : (tensor<1x2x2x1xf32>, tensor<1x2x2x1xf32>) -> tensor<1x2x2x2xf32>
  %u = tosa.tanh %a : (tensor<1x2x2x1xf32>) -> tensor<1x2x2x1xf32>
  %w = tosa.tanh %b : (tensor<1x2x2x1xf32>) -> tensor<1x2x2x1xf32>
  %d = tosa.concat %u, %w {axis = 3 : i32, serenity.concat_inplace} : (tensor<1x2x2x1xf32>, tensor<1x2x2x1xf32>) -> tensor<1x2x2x2xf32>
  return %c, %d, %w : tensor<1x2x2x2xf32>, tensor<1x2x2x2xf32>, tensor<1x2x2x1xf32>
}
