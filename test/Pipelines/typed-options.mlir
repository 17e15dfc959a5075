// Options are typed end to end. From C++, a pass's or the pipeline's
// enumerated option takes an enumerator, and a string does not compile:
// RUN: %clangxx -fsyntax-only -std=c++17 -I %serenity_src/include -I %serenity_obj/include -I %llvm_include %S/Inputs/typed-options.cpp
// RUN: not %clangxx -fsyntax-only -std=c++17 -DWRONG_TYPE -I %serenity_src/include -I %serenity_obj/include -I %llvm_include %S/Inputs/typed-options.cpp 2>&1 | FileCheck %s --check-prefix=WRONG
// WRONG: typed-options.cpp:13:{{.*}} error: {{.*}}ScheduleAlgorithm
// WRONG: typed-options.cpp:14:{{.*}} error: {{.*}}IOPlacement
// WRONG: error: assigning to 'serenity::PipelineTarget' from incompatible type
// WRONG: typed-options.cpp:15
// WRONG: 3 errors generated
//
// serenity-pipeline builds its passes from those structs; the pipeline it
// built prints every enumerated option by its spelling (a textual pipeline
// that parses back):
// RUN: serenity-opt %serenity_src/examples/residual_block.mlir --serenity-pipeline="target=cortex-m rewrite=all schedule=greedy alloc=best-fit io=arena" --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=DUMP
// DUMP: serenity-prepare-input
// DUMP: serenity-rewrite{{[{]}}{{.*}} concat=auto {{.*}} mode=all
// DUMP: serenity-schedule{{[{]}}{{.*}} algorithm=greedy concat=auto
// DUMP: serenity-tile{{[{]}}{{.*}} method=both
// DUMP: serenity-concat-copies{concat=auto}
// DUMP: serenity-int8-conv-kernels{{[{]}}{{.*}} target=cortex-m
// DUMP: serenity-static-alloc{algorithm=best-fit alignment=4 arena=global io=arena
