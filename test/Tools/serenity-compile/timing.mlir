// serenity-compile --timing prints each stage's wall time to stderr (the
// times themselves are not checked), and nested in the two MLIR pipelines
// each pass's; the object, header and report are the same bytes with and
// without it: timing only reads the clock.
// RUN: rm -rf %t && mkdir -p %t
// RUN: serenity-compile %serenity_src/examples/residual_block.mlir --target cortex-m4 -o %t/plain > /dev/null
// RUN: serenity-compile %serenity_src/examples/residual_block.mlir --target cortex-m4 --timing -o %t/timed 2> %t/timing.txt > /dev/null
// RUN: FileCheck %s < %t/timing.txt
// RUN: cmp %t/plain/net.o %t/timed/net.o
// RUN: cmp %t/plain/net.h %t/timed/net.h
// RUN: cmp %t/plain/net.json %t/timed/net.json
//
// Without --timing, nothing on stderr.
// RUN: serenity-compile %serenity_src/examples/residual_block.mlir --target cortex-m4 -o %t/quiet 2> %t/quiet.txt > /dev/null
// RUN: count 0 < %t/quiet.txt
//
// CHECK: Execution time report
// CHECK-DAG: import
// CHECK-DAG: serenity-pipeline (graph passes, lowering to memref)
// CHECK-DAG: SerenitySchedulePass
// CHECK-DAG: OneShotBufferize
// CHECK-DAG: LLVM dialect lowering
// CHECK-DAG: translation to LLVM IR
// CHECK-DAG: LLVM O2
// CHECK-DAG: code generation
// CHECK-DAG: object reading
// CHECK-DAG: header and report
// CHECK-DAG: Total
