// The DARTS networks of serenity-schedule-networks.mlir: scheduled by dp under
// copy and in-place concatenation, the memory model of the reordered IR equals
// the peak the scheduler reports and proves optimal.
//
// RUN: %python -m serenity gen darts-stack --channels 8 --resolution 8 \
// RUN:   | serenity-opt --serenity-schedule --serenity-annotate-lifetimes 2>/dev/null | FileCheck %s
// RUN: %python -m serenity gen darts-stack --channels 8 --resolution 8 \
// RUN:   | serenity-opt --serenity-schedule=concat=inplace --serenity-annotate-lifetimes=concat=inplace 2>/dev/null | FileCheck %s
// RUN: %python -m serenity gen darts-normal --channels 8 --resolution 8 \
// RUN:   | serenity-opt --serenity-schedule --serenity-annotate-lifetimes 2>/dev/null | FileCheck %s

// CHECK: func.func @main
// CHECK-SAME: serenity.peak_bytes = [[PEAK:[0-9]+]] : i64, serenity.peak_step = {{[0-9]+}} : i64, serenity.schedule = {algorithm = "dp", lower_bound_bytes = [[PEAK]] : i64, optimal = true, peak_bytes = [[PEAK]] : i64
