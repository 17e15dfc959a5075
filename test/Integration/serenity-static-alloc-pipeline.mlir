// A TOSA residual block through serenity-pipeline with each allocation
// algorithm and arena mode, executed with mlir-runner and compared with the
// upstream reference lowering (compare_lowering.py also requires that no
// memref.alloc is left in the network).
// RUN: %python %integration/compare_lowering.py %serenity_src/examples/residual_block.mlir --options "schedule=none alloc=exact arena=global" | FileCheck %s
// RUN: %python %integration/compare_lowering.py %serenity_src/examples/residual_block.mlir --options "schedule=none alloc=greedy-size arena=argument" | FileCheck %s
// RUN: %python %integration/compare_lowering.py %serenity_src/examples/residual_block.mlir --options "schedule=none alloc=best-fit alignment=16" | FileCheck %s
// RUN: %python %integration/compare_lowering.py %serenity_src/examples/residual_block.mlir --options "schedule=dp alloc=exact" | FileCheck %s
// CHECK: serenity-pipeline: 0 memref.alloc left in @net, arena {{[0-9]+}} bytes
// CHECK: 0 beyond tolerance
// CHECK: PASS
