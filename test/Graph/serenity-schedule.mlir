// RUN: serenity-opt %s --serenity-schedule 2>/dev/null | FileCheck %s --check-prefixes=CHECK,DP
// RUN: serenity-opt %s --serenity-schedule=algorithm=program-order 2>/dev/null | FileCheck %s --check-prefixes=CHECK,PROG
// RUN: serenity-opt %s --serenity-schedule=algorithm=kahn 2>/dev/null | FileCheck %s --check-prefixes=CHECK,KAHN
// RUN: serenity-opt %s --serenity-schedule="algorithm=greedy" 2>/dev/null | FileCheck %s --check-prefixes=CHECK,GREEDY
// RUN: serenity-opt %s --serenity-schedule="algorithm=hill-valley" 2>/dev/null | FileCheck %s --check-prefixes=CHECK,HV
// RUN: serenity-opt %s --serenity-schedule="algorithm=dp work-limit=100000 max-states=1000" 2>/dev/null | FileCheck %s --check-prefixes=CHECK,DP
// RUN: serenity-opt %s --serenity-schedule -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
//
// Idempotence: scheduling the scheduled IR again changes nothing but the
// measured time and the number of search states.
// RUN: serenity-opt %s --serenity-schedule 2>/dev/null | sed -e 's/work = [0-9]*/work = W/' -e 's/states = [0-9]*/states = S/' > %t.once
// RUN: serenity-opt %s --serenity-schedule 2>/dev/null | serenity-opt --serenity-schedule 2>/dev/null | sed -e 's/work = [0-9]*/work = W/' -e 's/states = [0-9]*/states = S/' > %t.twice
// RUN: diff %t.once %t.twice
// RUN: serenity-opt %s --serenity-schedule 2>/dev/null | serenity-opt --serenity-schedule 2>/dev/null | FileCheck %s --check-prefixes=CHECK,DP
//
// Bad options.
// RUN: not serenity-opt %s --serenity-schedule=algorithm=fastest 2>&1 | FileCheck %s --check-prefix=BADALG
// RUN: not serenity-opt %s --serenity-schedule=time-limit-ms=-1 2>&1 | FileCheck %s --check-prefix=BADLIMIT
// RUN: not serenity-opt %s --serenity-schedule=max-states=-5 2>&1 | FileCheck %s --check-prefix=BADLIMIT
// RUN: not serenity-opt %s --serenity-schedule=work-limit=-1 2>&1 | FileCheck %s --check-prefix=BADLIMIT
// RUN: not serenity-opt %s --serenity-schedule=memory-limit-mb=0 2>&1 | FileCheck %s --check-prefix=BADMEMORY
// RUN: serenity-opt %s --serenity-schedule=memory-limit-mb=1 2>/dev/null | FileCheck %s --check-prefixes=CHECK,DP

// BADALG: for the --algorithm option: invalid value 'fastest' (expected one of: dp, kahn, greedy, hill-valley, program-order)
// BADLIMIT: error: serenity-schedule: work-limit, time-limit-ms and max-states must not be negative
// BADMEMORY: error: serenity-schedule: memory-limit-mb must be between 1 and 2^30 (got 0)

// Bytes: tensor<1x8x8x4xf32> = 1024, 1x8x8x16 = 4096, 1x8x8x2 = 512.
// Two branches expand the input x (1024) to 16 channels (4096) and reduce
// it to 2 (512); the results are concatenated (1024).
//
// As written (a1, b1, a2, b2, cat) both expansions are live together:
//   a1: x 1024 + a1 4096                = 5120
//   b1: x 1024 + a1 4096 + b1 4096      = 9216  <- peak
//   a2: a1 4096 + b1 4096 + a2 512      = 8704
//   b2: b1 4096 + a2 512 + b2 512       = 5120
//   cat: a2 512 + b2 512 + cat 1024     = 2048
// Finishing branch a first (a1, a2, b1, b2, cat):
//   a1: 5120; a2: x 1024 + a1 4096 + a2 512 = 5632;
//   b1: x 1024 + a2 512 + b1 4096 = 5632; b2: 512 + 4096 + 512 = 5120;
//   cat: 2048                                          -> peak 5632.
// Every order runs one expansion while the other branch's input or result
// is live, so 5632 is optimal (the dp proves it).
// REMARK: remark: serenity-schedule (dp): peak 9216 -> 5632 bytes, proven optimal
// REMARK: remark: serenity-schedule (dp): peak 8208 -> 8208 bytes, proven optimal
// REMARK: remark: serenity-schedule (dp): peak 8208 -> 8196 bytes, proven optimal

// The static bound (5120: x and b1 while b1 runs) is below the optimum, so
// only the dp proves optimality; the heuristics report the bound.
// CHECK-LABEL: func.func @diamond_concat
// DP-SAME: serenity.schedule = {algorithm = "dp", lower_bound_bytes = 5632 : i64, optimal = true, peak_bytes = 5632 : i64, states = {{[0-9]+}} : i64, stopped_by = "none", work = {{[0-9]+}} : i64}
// PROG-SAME: serenity.schedule = {algorithm = "program-order", lower_bound_bytes = 5120 : i64, optimal = false, peak_bytes = 9216 : i64, states = 0 : i64
// KAHN-SAME: serenity.schedule = {algorithm = "kahn", lower_bound_bytes = 5120 : i64, optimal = false, peak_bytes = 9216 : i64, states = 0 : i64
// GREEDY-SAME: serenity.schedule = {algorithm = "greedy", lower_bound_bytes = 5120 : i64, optimal = false, peak_bytes = 5632 : i64, states = 0 : i64
// hill-valley: the branches are parallel; each, run alone, peaks 4608 above
// the live bytes before it (a1 4096 + a2 512, x stays: the other branch
// reads it) and leaves 512 more: equal jobs keep their order, a then b.
// HV-SAME: serenity.schedule = {algorithm = "hill-valley", lower_bound_bytes = 5120 : i64, optimal = false, peak_bytes = 5632 : i64, states = 0 : i64
// Each constant sits right before its first user.
// CHECK:          %[[WA1:.+]] = "tosa.const"() <{values = dense<1.0
// CHECK-NEXT:     %[[BA1:.+]] = "tosa.const"() <{values = dense<0.0{{.*}}tensor<16xf32>
// CHECK-NEXT:     %[[ZP:.+]] = "tosa.const"() <{values = dense<0.0{{.*}}tensor<1xf32>
// CHECK-NEXT:     %[[A1:.+]] = tosa.conv2d %arg0, %[[WA1]], %[[BA1]], %[[ZP]], %[[ZP]]
// DP:             %[[A2:.+]] = tosa.conv2d %[[A1]]
// DP:             %[[WB1:.+]] = "tosa.const"() <{values = dense<2.0
// DP-NEXT:        %[[B1:.+]] = tosa.conv2d %arg0, %[[WB1]], %[[BA1]]
// DP:             %[[B2:.+]] = tosa.conv2d %[[B1]]
// DP-NEXT:        tosa.concat %[[A2]], %[[B2]]
// GREEDY:         %[[A2:.+]] = tosa.conv2d %[[A1]]
// GREEDY:         %[[B1:.+]] = tosa.conv2d %arg0
// GREEDY:         %[[B2:.+]] = tosa.conv2d %[[B1]]
// GREEDY-NEXT:    tosa.concat %[[A2]], %[[B2]]
// HV:             %[[A2:.+]] = tosa.conv2d %[[A1]]
// HV:             %[[B1:.+]] = tosa.conv2d %arg0
// HV:             %[[B2:.+]] = tosa.conv2d %[[B1]]
// HV-NEXT:        tosa.concat %[[A2]], %[[B2]]
// PROG-NEXT:      %[[WB1:.+]] = "tosa.const"() <{values = dense<2.0
// PROG-NEXT:      %[[B1:.+]] = tosa.conv2d %arg0, %[[WB1]]
// PROG:           %[[A2:.+]] = tosa.conv2d %[[A1]]
// PROG:           %[[B2:.+]] = tosa.conv2d %[[B1]]
// PROG-NEXT:      tosa.concat %[[A2]], %[[B2]]
// KAHN-NEXT:      %[[WB1:.+]] = "tosa.const"() <{values = dense<2.0
// KAHN-NEXT:      %[[B1:.+]] = tosa.conv2d %arg0, %[[WB1]]
// KAHN:           %[[A2:.+]] = tosa.conv2d %[[A1]]
// KAHN:           %[[B2:.+]] = tosa.conv2d %[[B1]]
// KAHN-NEXT:      tosa.concat %[[A2]], %[[B2]]
func.func @diamond_concat(%x: tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32> {
  %zp = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
  %wa1 = "tosa.const"() {values = dense<1.0> : tensor<16x1x1x4xf32>} : () -> tensor<16x1x1x4xf32>
  %wb1 = "tosa.const"() {values = dense<2.0> : tensor<16x1x1x4xf32>} : () -> tensor<16x1x1x4xf32>
  %ba1 = "tosa.const"() {values = dense<0.0> : tensor<16xf32>} : () -> tensor<16xf32>
  %wa2 = "tosa.const"() {values = dense<3.0> : tensor<2x1x1x16xf32>} : () -> tensor<2x1x1x16xf32>
  %wb2 = "tosa.const"() {values = dense<4.0> : tensor<2x1x1x16xf32>} : () -> tensor<2x1x1x16xf32>
  %ba2 = "tosa.const"() {values = dense<0.0> : tensor<2xf32>} : () -> tensor<2xf32>
  %a1 = tosa.conv2d %x, %wa1, %ba1, %zp, %zp {acc_type = f32, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>}
      : (tensor<1x8x8x4xf32>, tensor<16x1x1x4xf32>, tensor<16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x8x16xf32>
  %b1 = tosa.conv2d %x, %wb1, %ba1, %zp, %zp {acc_type = f32, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>}
      : (tensor<1x8x8x4xf32>, tensor<16x1x1x4xf32>, tensor<16xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x8x16xf32>
  %a2 = tosa.conv2d %a1, %wa2, %ba2, %zp, %zp {acc_type = f32, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>}
      : (tensor<1x8x8x16xf32>, tensor<2x1x1x16xf32>, tensor<2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x8x2xf32>
  %b2 = tosa.conv2d %b1, %wb2, %ba2, %zp, %zp {acc_type = f32, pad = array<i64: 0, 0, 0, 0>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>}
      : (tensor<1x8x8x16xf32>, tensor<2x1x1x16xf32>, tensor<2xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x8x2xf32>
  %cat = tosa.concat %a2, %b2 {axis = 3 : i32} : (tensor<1x8x8x2xf32>, tensor<1x8x8x2xf32>) -> tensor<1x8x8x4xf32>
  return %cat : tensor<1x8x8x4xf32>
}

// Calls have unknown memory effects, so they keep their order although
// running @produce_temp and its reduction first would lower the peak
// (x 16, kept and temp 4096, sum 4, out 4096 bytes):
//   kept: x 16 + kept 4096 = 4112; temp: 16 + 4096 + 4096 = 8208 <- peak;
//   sum: 4096 + 4096 + 4 = 8196; out: 4096 + 4 + 4096 = 8196.
// CHECK-LABEL: func.func @calls_keep_order
// DP-SAME:       peak_bytes = 8208
// CHECK:         %[[KEPT:.+]] = call @produce_kept(%arg0)
// CHECK-NEXT:    %[[TEMP:.+]] = call @produce_temp(%arg0)
// CHECK-NEXT:    tosa.reduce_sum %[[TEMP]]
func.func private @produce_kept(tensor<4xf32>) -> tensor<1024xf32>
func.func private @produce_temp(tensor<4xf32>) -> tensor<1024xf32>
func.func @calls_keep_order(%x: tensor<4xf32>) -> tensor<1024xf32> {
  %kept = func.call @produce_kept(%x) : (tensor<4xf32>) -> tensor<1024xf32>
  %temp = func.call @produce_temp(%x) : (tensor<4xf32>) -> tensor<1024xf32>
  %sum = tosa.reduce_sum %temp {axis = 0 : i32} : (tensor<1024xf32>) -> tensor<1xf32>
  %out = tosa.add %kept, %sum : (tensor<1024xf32>, tensor<1xf32>) -> tensor<1024xf32>
  return %out : tensor<1024xf32>
}

// The same graph with pure ops is reordered: temp and its reduction first,
//   temp: 16 + 4096 = 4112; sum: 16 + 4096 + 4 = 4116;
//   kept: 16 + 4 + 4096 = 4116; out: 4096 + 4 + 4096 = 8196 <- peak,
// which the final add needs in every order (proven).
// CHECK-LABEL: func.func @pure_ops_reorder
// DP-SAME:       peak_bytes = 8196
// DP:            %[[TEMP:.+]] = tosa.tile %arg0
// DP-NEXT:       %[[SUM:.+]] = tosa.reduce_sum %[[TEMP]]
// DP-NEXT:       %[[KEPT:.+]] = tosa.tile %arg0
// DP-NEXT:       tosa.add %[[KEPT]], %[[SUM]]
func.func @pure_ops_reorder(%x: tensor<4xf32>) -> tensor<1024xf32> {
  %m = tosa.const_shape {values = dense<256> : tensor<1xindex>} : () -> !tosa.shape<1>
  %kept = tosa.tile %x, %m : (tensor<4xf32>, !tosa.shape<1>) -> tensor<1024xf32>
  %temp = tosa.tile %x, %m : (tensor<4xf32>, !tosa.shape<1>) -> tensor<1024xf32>
  %sum = tosa.reduce_sum %temp {axis = 0 : i32} : (tensor<1024xf32>) -> tensor<1xf32>
  %out = tosa.add %kept, %sum : (tensor<1024xf32>, tensor<1xf32>) -> tensor<1024xf32>
  return %out : tensor<1024xf32>
}
