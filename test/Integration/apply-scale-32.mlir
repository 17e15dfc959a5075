// serenity-apply-scale-32 computes what the upstream lowering of
// tosa.apply_scale computes: 6100 seeded triples (every shift 2..62, values
// and multipliers over int32 with its extremes), both rounding modes, run by
// mlir-runner with and without the pass; constant shifts (one path) and a
// table of shifts 32-62 (the path for tables whose least shift is 32).
// RUN: %python %integration/apply_scale.py | FileCheck %s
// CHECK: apply_scale DOUBLE_ROUND: 6100 values, 6100 computed, 0 differ
// CHECK: apply_scale SINGLE_ROUND: 6100 values, 6100 computed, 0 differ
// CHECK: apply_scale DOUBLE_ROUND shift 45: 6100 values, 6100 computed, 0 differ
// CHECK: apply_scale DOUBLE_ROUND shift 20: 6100 values, 6100 computed, 0 differ
// CHECK: apply_scale DOUBLE_ROUND shifts 32-62: 6100 values, 6100 computed, 0 differ
// CHECK: apply_scale SINGLE_ROUND shifts 32-62: 6100 values, 6100 computed, 0 differ
// The same with split-multiply (ARMv6-M: hi(v * m + d) from four 16-bit
// products in 32-bit arithmetic), on other seeded triples.
// RUN: %python %integration/apply_scale.py --split-multiply --seed 2 | FileCheck %s --check-prefix=SPLIT
// SPLIT: apply_scale DOUBLE_ROUND: 6100 values, 6100 computed, 0 differ
// SPLIT: apply_scale SINGLE_ROUND: 6100 values, 6100 computed, 0 differ
// SPLIT: apply_scale DOUBLE_ROUND shift 45: 6100 values, 6100 computed, 0 differ
// SPLIT: apply_scale DOUBLE_ROUND shift 20: 6100 values, 6100 computed, 0 differ
// SPLIT: apply_scale DOUBLE_ROUND shifts 32-62: 6100 values, 6100 computed, 0 differ
// SPLIT: apply_scale SINGLE_ROUND shifts 32-62: 6100 values, 6100 computed, 0 differ
