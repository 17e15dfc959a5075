// serenity-int8-conv-kernels reorders a fused convolution's loop nest from
// (rows, columns, channel blocks) to (channel blocks, rows, columns) where
// its iterations are independent and the block's table reads outnumber the
// pixel's window work (channel-blocks-first, on by default): on a DS-CNN
// with per-channel requantization tables (random weights), without in-place
// convolutions, the pointwise nests are reordered; the first conv (one
// input channel, a 10x4 window clipped at the border) and the depthwise
// ones (one multiplier for the tensor) keep pixels outermost.
// RUN: %python -m serenity gen kws-dscnn --dtype i8 --weights random -o %t.mlir
// RUN: serenity-opt %t.mlir --serenity-pipeline="lower-to-llvm=false target=cortex-m in-place-convs=false" 2>/dev/null | FileCheck %s
// With in-place convolutions (the default) no nest qualifies: a 1x1 conv
// computed over its input reads what it writes.
// RUN: serenity-opt %t.mlir --serenity-pipeline="lower-to-llvm=false target=cortex-m" 2>/dev/null \
// RUN:   | awk '/to %c64 step %c4 \{/ { getline next_line; if (next_line ~ /to %c25 step/) n++ } END { print "reordered", n + 0 }' \
// RUN:   | FileCheck %s --check-prefix=INPLACE
// The option off: every nest keeps its order.
// RUN: serenity-opt %t.mlir --serenity-pipeline="lower-to-llvm=false target=cortex-m in-place-convs=false" --mlir-print-ir-before=serenity-int8-conv-kernels 2>&1 >/dev/null | sed -n '/IR Dump Before/,$p' | tail -n +2 > %t.before.mlir
// RUN: serenity-opt %t.before.mlir --serenity-int8-conv-kernels=channel-blocks-first=false \
// RUN:   | awk '/to %c64 step %c4 \{/ { getline next_line; if (next_line ~ /to %c25 step/) n++ } END { print "reordered", n + 0 }' \
// RUN:   | FileCheck %s --check-prefix=OFF
// RUN: serenity-opt %t.before.mlir --serenity-int8-conv-kernels \
// RUN:   | awk '/to %c64 step %c4 \{/ { getline next_line; if (next_line ~ /to %c25 step/) n++ } END { print "reordered", n + 0 }' \
// RUN:   | FileCheck %s --check-prefix=ON

// The first conv: pixels outermost.
// CHECK:      scf.for %{{.*}} = %c0 to %c25 step %c1 {
// CHECK-NEXT:   scf.for %{{.*}} = %c0 to %c5 step %c1 {
// CHECK-NEXT:     scf.for %{{.*}} = %c0 to %c64 step %c4 {
// CHECK:      llvm.arm.smlad
// The depthwise conv: pixels outermost.
// CHECK:      scf.for %{{.*}} = %c0 to %c25 step %c1 {
// CHECK-NEXT:   scf.for %{{.*}} = %c0 to %c5 step %c1 {
// CHECK-NEXT:     scf.for %{{.*}} = %c0 to %c64 step %c4 {
// CHECK:      llvm.arm.smlabb
// The pointwise conv: blocks outermost.
// CHECK:      scf.for %{{.*}} = %c0 to %c64 step %c4 {
// CHECK-NEXT:   scf.for %{{.*}} = %c0 to %c25 step %c1 {
// CHECK-NEXT:     scf.for %{{.*}} = %c0 to %c5 step %c1 {
// CHECK:      llvm.arm.smlad

// INPLACE: reordered 0
// OFF: reordered 0
// ON: reordered 4
