// The bundled example through serenity-pipeline vs the reference lowering
// (see densenet-block.mlir), in both arena modes and with every allocator.
// RUN: %python %integration/compare_lowering.py %serenity_src/examples/residual_block.mlir | FileCheck %s
// RUN: %python %integration/compare_lowering.py %serenity_src/examples/residual_block.mlir --options "arena=argument" | FileCheck %s
// RUN: %python %integration/compare_lowering.py %serenity_src/examples/residual_block.mlir --options "alloc=best-fit schedule=program-order" | FileCheck %s
// RUN: %python %integration/compare_lowering.py %serenity_src/examples/residual_block.mlir --options "alloc=greedy-size concat=inplace" | FileCheck %s
// CHECK: serenity-pipeline: 0 memref.alloc left in @net, arena {{[0-9]+}} bytes
// CHECK: output 0: 4096 elements, {{.*}}, 0 beyond tolerance
// CHECK: PASS
