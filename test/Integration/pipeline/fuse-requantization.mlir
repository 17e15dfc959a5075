// serenity-pipeline with fuse-requantization=1 (every conv's i32 accumulator
// computed one output element, or a pixel with tile-channels=0, or a row with
// tile-cols=0, at a time, fused with its rescale/clamp and the padding of its
// input window) vs the
// upstream reference lowering, executed by mlir-runner on the same seeded
// inputs: int8 outputs must be bit-exact, and f32 too (tiling the output rows
// does not change any element's summation order).
// RUN: %python -m serenity gen resnet8 --dtype i8 --weights random -o %t.resnet8.mlir
// RUN: %python -m serenity gen kws-dscnn --dtype i8 --weights random -o %t.kws.mlir
// RUN: %python -m serenity gen vww --dtype i8 --resolution 32 --weights random -o %t.vww.mlir
// RUN: %python -m serenity gen kws-dscnn --weights random -o %t.kws-f32.mlir
// RUN: %python %integration/compare_lowering.py %t.resnet8.mlir --atol 0 --rtol 0 --options "fuse-requantization=1" | FileCheck %s
// RUN: %python %integration/compare_lowering.py %t.kws.mlir --atol 0 --rtol 0 --options "fuse-requantization=1 alloc=best-fit" | FileCheck %s
// RUN: %python %integration/compare_lowering.py %t.vww.mlir --atol 0 --rtol 0 --options "fuse-requantization=1 schedule=kahn" | FileCheck %s
// RUN: %python %integration/compare_lowering.py %t.kws-f32.mlir --atol 0 --rtol 0 --options "fuse-requantization=1" | FileCheck %s
// RUN: %python %integration/compare_lowering.py %t.resnet8.mlir --atol 0 --rtol 0 --options "tile-cols=0" | FileCheck %s
// RUN: %python %integration/compare_lowering.py %t.kws.mlir --atol 0 --rtol 0 --options "tile-cols=0 fuse-padding=0" | FileCheck %s
// RUN: %python %integration/compare_lowering.py %t.kws.mlir --atol 0 --rtol 0 --options "tile-channels=0" | FileCheck %s
// RUN: %python %integration/compare_lowering.py %t.resnet8.mlir --atol 0 --rtol 0 --options "tile-cols=0 tile-channels=0" | FileCheck %s
// CHECK: serenity-pipeline: 0 memref.alloc left in @net, arena {{[0-9]+}} bytes
// CHECK: output 0: {{.*}}, 0 beyond tolerance
// CHECK: PASS

// The most bytes live at once (the arena's lower bound, independent of the
// allocator's search): resnet8 196608 without fusion (the 32x32x16 i32
// accumulators, 64 KiB each), 53312 with row tiles (2 KiB rows) and whole
// padded inputs, 52832 with row tiles padding their 3-row windows, 49216 with
// pixel tiles of all channels (64 B accumulator; the window read in place),
// 49152 with one output element per tile (the default: the accumulator is a
// register) = the two 32x32x16 i8 activations of a conv; kws 76096, 21376,
// 18624, 16256, 16000 (= two 25x5x64 activations).
// RUN: serenity-opt %t.resnet8.mlir --serenity-pipeline="tile=none lower-to-llvm=0 alloc=greedy-size fuse-requantization=0" 2>/dev/null | FileCheck %s --check-prefix=R8-BEFORE
// RUN: serenity-opt %t.resnet8.mlir --serenity-pipeline="tile=none lower-to-llvm=0 alloc=greedy-size tile-cols=0 tile-channels=0 fuse-padding=0" 2>/dev/null | FileCheck %s --check-prefix=R8-ROWS
// RUN: serenity-opt %t.resnet8.mlir --serenity-pipeline="tile=none lower-to-llvm=0 alloc=greedy-size tile-cols=0 tile-channels=0" 2>/dev/null | FileCheck %s --check-prefix=R8-ROWS-PAD
// RUN: serenity-opt %t.resnet8.mlir --serenity-pipeline="tile=none lower-to-llvm=0 alloc=greedy-size tile-channels=0" 2>/dev/null | FileCheck %s --check-prefix=R8-PIXEL
// RUN: serenity-opt %t.resnet8.mlir --serenity-pipeline="tile=none lower-to-llvm=0 alloc=greedy-size fuse-requantization=1" 2>/dev/null | FileCheck %s --check-prefix=R8-AFTER
// RUN: serenity-opt %t.kws.mlir --serenity-pipeline="tile=none lower-to-llvm=0 alloc=greedy-size fuse-requantization=0" 2>/dev/null | FileCheck %s --check-prefix=KWS-BEFORE
// RUN: serenity-opt %t.kws.mlir --serenity-pipeline="tile=none lower-to-llvm=0 alloc=greedy-size tile-cols=0 tile-channels=0 fuse-padding=0" 2>/dev/null | FileCheck %s --check-prefix=KWS-ROWS
// RUN: serenity-opt %t.kws.mlir --serenity-pipeline="tile=none lower-to-llvm=0 alloc=greedy-size tile-cols=0 tile-channels=0" 2>/dev/null | FileCheck %s --check-prefix=KWS-ROWS-PAD
// RUN: serenity-opt %t.kws.mlir --serenity-pipeline="tile=none lower-to-llvm=0 alloc=greedy-size tile-channels=0" 2>/dev/null | FileCheck %s --check-prefix=KWS-PIXEL
// RUN: serenity-opt %t.kws.mlir --serenity-pipeline="tile=none lower-to-llvm=0 alloc=greedy-size fuse-requantization=1 in-place-convs=0" 2>/dev/null | FileCheck %s --check-prefix=KWS-AFTER
// With the depthwise and 1x1 convs in place (the default): one 25x5x64
// activation and a ring of two output rows (2 x 5 x 64 bytes).
// RUN: serenity-opt %t.kws.mlir --serenity-pipeline="tile=none lower-to-llvm=0 alloc=greedy-size fuse-requantization=1" 2>/dev/null | FileCheck %s --check-prefix=KWS-IN-PLACE
// R8-BEFORE: serenity.arena_lower_bound = 196608
// R8-ROWS: serenity.arena_lower_bound = 53312
// R8-ROWS-PAD: serenity.arena_lower_bound = 52832
// R8-PIXEL: serenity.arena_lower_bound = 49216
// R8-AFTER: serenity.arena_lower_bound = 49152
// R8-AFTER: scf.for
// KWS-BEFORE: serenity.arena_lower_bound = 76096
// KWS-ROWS: serenity.arena_lower_bound = 21376
// KWS-ROWS-PAD: serenity.arena_lower_bound = 18624
// KWS-PIXEL: serenity.arena_lower_bound = 16256
// KWS-AFTER: serenity.arena_lower_bound = 16000
// KWS-IN-PLACE: serenity.arena_lower_bound = 8640
