// io=arena (inputs and outputs planned in the arena, their bytes reused as
// TFLite Micro does): the harness writes each input into the arena at its
// serenity.io_offsets entry and reads the outputs from there; every output
// must equal the upstream reference lowering exactly. The networks cover a
// padded conv, residual adds and a fully connected layer (resnet8), concats
// (a DARTS cell) and f32 (kws-dscnn), with both arena kinds.
// residual-concat has all four cases in one network: a padded conv, a
// residual add, a concat of two branches and a fully connected classifier.
// RUN: %python -m serenity gen residual-concat --dtype i8 --weights random -o %t.mixed.mlir
// RUN: %python %integration/compare_lowering.py %t.mixed.mlir --atol 0 --rtol 0 | FileCheck %s
// RUN: %python %integration/compare_lowering.py %t.mixed.mlir --atol 0 --rtol 0 --options "io=arena" | FileCheck %s
// RUN: %python %integration/compare_lowering.py %t.mixed.mlir --atol 0 --rtol 0 --options "io=arena concat=inplace arena=argument" | FileCheck %s
// RUN: %python %integration/compare_lowering.py %t.mixed.mlir --atol 0 --rtol 0 --options "tile-channels=0 tile-cols=0 fuse-padding=0" | FileCheck %s
// RUN: %python -m serenity gen resnet8 --dtype i8 --weights random -o %t.resnet8.mlir
// RUN: %python -m serenity gen darts-normal --dtype i8 --channels 4 --resolution 8 --weights random -o %t.darts.mlir
// RUN: %python -m serenity gen kws-dscnn --weights random -o %t.kws-f32.mlir
// RUN: %python %integration/compare_lowering.py %t.resnet8.mlir --atol 0 --rtol 0 --options "io=arena" | FileCheck %s
// RUN: %python %integration/compare_lowering.py %t.resnet8.mlir --atol 0 --rtol 0 --options "io=arena arena=argument" | FileCheck %s
// RUN: %python %integration/compare_lowering.py %t.darts.mlir --atol 0 --rtol 0 --options "io=arena" | FileCheck %s
// RUN: %python %integration/compare_lowering.py %t.darts.mlir --atol 0 --rtol 0 --options "io=arena concat=inplace" | FileCheck %s
// RUN: %python %integration/compare_lowering.py %t.kws-f32.mlir --atol 0 --rtol 0 --options "io=arena" | FileCheck %s
// CHECK: serenity-pipeline: 0 memref.alloc left in @net, arena {{[0-9]+}} bytes
// CHECK: output 0: {{.*}}, 0 beyond tolerance
// CHECK: PASS

// The arena holds the input (32x32x3 i8, 3072 B) and the output too, and
// still needs no more than the arena of io=caller (49152 B, the two 32x32x16
// activations of a conv), which keeps 3072 + 10 bytes outside it.
// RUN: serenity-opt %t.resnet8.mlir --serenity-pipeline="tile=none lower-to-llvm=0 io=arena" 2>/dev/null | FileCheck %s --check-prefix=R8
// R8: serenity.arena_bytes = 49152
// R8-SAME: serenity.io_offsets = array<i64:
