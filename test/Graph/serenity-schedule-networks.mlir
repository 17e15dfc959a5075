// Generated networks (python/serenity) scheduled by dp: the memory model of
// the reordered IR (--serenity-annotate-lifetimes runs after the pass) must
// equal the peak the scheduler reports, which dp proves optimal. The IR is
// verified after each pass, so the new order is also valid IR.
//
// RUN: %python -m serenity gen randwire-stage --seed 1 --channels 8 --resolution 8 \
// RUN:   | serenity-opt --serenity-schedule --serenity-annotate-lifetimes 2>/dev/null | FileCheck %s
// RUN: %python -m serenity gen randwire-stage --seed 2 --channels 8 --resolution 8 \
// RUN:   | serenity-opt --serenity-schedule --serenity-annotate-lifetimes 2>/dev/null | FileCheck %s
// RUN: %python -m serenity gen random-dag --seed 3 --channels 8 --resolution 8 \
// RUN:   | serenity-opt --serenity-schedule --serenity-annotate-lifetimes 2>/dev/null | FileCheck %s
// RUN: %python -m serenity gen inception-module --channels 16 --resolution 8 \
// RUN:   | serenity-opt --serenity-schedule --serenity-annotate-lifetimes 2>/dev/null | FileCheck %s
//
// A fused-tiled chain (25 interchangeable tiles in 5 interchangeable rows):
// proven within a state limit (not a time limit, so the check does not
// depend on the machine) only because interchangeable branches are ordered
// before the search (docs/Scheduling.md, "Symmetry"); without that the dp
// stopped unproven after millions of states.
// RUN: %python -m serenity gen tiled-chain --seed 0 --channels 4 --resolution 20 \
// RUN:   | serenity-opt --serenity-schedule="work-limit=600000000 max-states=200000" --serenity-annotate-lifetimes 2>/dev/null \
// RUN:   | FileCheck %s
//
// Every other algorithm agrees with the memory model as well.
// RUN: %python -m serenity gen randwire-stage --seed 1 --channels 8 --resolution 8 \
// RUN:   | serenity-opt --serenity-schedule=algorithm=greedy --serenity-annotate-lifetimes 2>/dev/null \
// RUN:   | FileCheck %s --check-prefix=HEURISTIC
// RUN: %python -m serenity gen randwire-stage --seed 1 --channels 8 --resolution 8 \
// RUN:   | serenity-opt --serenity-schedule=algorithm=kahn --serenity-annotate-lifetimes 2>/dev/null \
// RUN:   | FileCheck %s --check-prefix=HEURISTIC
//
// The same under in-place concatenation (and partial sums accumulating in
// place, after rewriting so that there are some): the scheduler and the
// memory model agree with the same options, and dp still proves its peak.
// RUN: %python -m serenity gen randwire-stage --seed 1 --channels 8 --resolution 8 \
// RUN:   | serenity-opt --serenity-schedule=concat=inplace --serenity-annotate-lifetimes=concat=inplace 2>/dev/null | FileCheck %s
// RUN: %python -m serenity gen random-dag --seed 3 --channels 8 --resolution 8 \
// RUN:   | serenity-opt --serenity-schedule=concat=inplace --serenity-annotate-lifetimes=concat=inplace 2>/dev/null | FileCheck %s
// RUN: %python -m serenity gen inception-module --channels 16 --resolution 8 \
// RUN:   | serenity-opt --serenity-schedule=concat=inplace --serenity-annotate-lifetimes=concat=inplace 2>/dev/null | FileCheck %s
// RUN: %python -m serenity gen densenet-block --channels 8 --resolution 8 \
// RUN:   | serenity-opt --serenity-rewrite="mode=all concat=inplace accumulate-in-place=true" \
// RUN:       --serenity-schedule="concat=inplace accumulate-in-place=true" \
// RUN:       --serenity-annotate-lifetimes="concat=inplace accumulate-in-place=true" 2>/dev/null | FileCheck %s
// RUN: %python -m serenity gen randwire-stage --seed 2 --channels 8 --resolution 8 \
// RUN:   | serenity-opt --serenity-schedule="concat=inplace algorithm=greedy" --serenity-annotate-lifetimes=concat=inplace 2>/dev/null \
// RUN:   | FileCheck %s --check-prefix=HEURISTIC

// CHECK: func.func @main
// CHECK-SAME: serenity.peak_bytes = [[PEAK:[0-9]+]] : i64, serenity.peak_step = {{[0-9]+}} : i64, serenity.schedule = {algorithm = "dp", lower_bound_bytes = [[PEAK]] : i64, optimal = true, peak_bytes = [[PEAK]] : i64

// HEURISTIC: func.func @main
// HEURISTIC-SAME: serenity.peak_bytes = [[PEAK:[0-9]+]] : i64, serenity.peak_step = {{[0-9]+}} : i64, serenity.schedule = {algorithm = "{{greedy|kahn}}", lower_bound_bytes = {{[0-9]+}} : i64, optimal = {{true|false}}, peak_bytes = [[PEAK]] : i64
