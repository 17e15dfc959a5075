// serenity-pipeline (schedule, bufferize, static arena, lower to LLVM) vs the
// upstream reference lowering of ../shared/MLIR22.md, executed by mlir-runner
// on the same seeded inputs: outputs must match and no memref.alloc may be
// left for intermediates (outputs are caller-owned out-parameters).
// RUN: %python -m serenity gen resnet8 --dtype i8 --weights random -o %t.mlir
// RUN: %python %integration/compare_lowering.py %t.mlir --atol 0 --rtol 0 | FileCheck %s
// RUN: %python %integration/compare_lowering.py %t.mlir --atol 0 --rtol 0 --options "schedule=greedy alloc=best-fit arena=argument" | FileCheck %s
// RUN: %python %integration/compare_lowering.py %t.mlir --atol 0 --rtol 0 --options "schedule=kahn alloc=greedy-size alignment=16" | FileCheck %s
// Every kernel outlined into its own function (serenity-outline-kernels),
// also with the arena passed by the caller.
// RUN: %python %integration/compare_lowering.py %t.mlir --atol 0 --rtol 0 --options "outline-min-ops=0" | FileCheck %s
// RUN: %python %integration/compare_lowering.py %t.mlir --atol 0 --rtol 0 --options "outline-min-ops=0 arena=argument io=arena" | FileCheck %s
// CHECK: serenity-pipeline: 0 memref.alloc left in @net, arena {{[0-9]+}} bytes
// CHECK: output 0: {{.*}}, 0 beyond tolerance
// CHECK: PASS
