// Convolution primitives (#serenity.primitive): carried through the TOSA ->
// linalg conversion, realized by serenity-lower-primitives (im2col,
// winograd), chosen by serenity-select-primitives (one everywhere, or the
// ILP over a profile under a memory or time budget), and checked.
// RUN: serenity-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(serenity-primitives-to-linalg))' | FileCheck %s --check-prefix=CARRY
// RUN: serenity-opt %s --split-input-file --pass-pipeline='builtin.module(func.func(serenity-primitives-to-linalg,serenity-lower-primitives))' | FileCheck %s --check-prefix=LOWER
//
// Two 3x3 convs of 1x8x8x4 f32 (2048 bytes live at each): the profile says
// direct 100, im2col 90 (1760 bytes of workspace: windows, row accumulators, padded rows), winograd2 50 (9216),
// winograd4 40 (6912). Without a budget both are winograd4 (peak 8960);
// within 5000 bytes im2col; below the 2048 bytes of the activations: error.
// With objective=memory and at most 130 ns: the least peak that fast is
// 8960 (im2col + winograd4 reaches it too), and then the faster choice.
// RUN: serenity-opt %s --split-input-file --serenity-select-primitives="profile=%S/Inputs/primitives-profile.json report=%t.json" | FileCheck %s --check-prefix=FAST
// RUN: FileCheck %s --input-file=%t.json --check-prefix=REPORT
// RUN: serenity-opt %s --split-input-file --serenity-select-primitives="profile=%S/Inputs/primitives-profile.json budget-bytes=5000" | FileCheck %s --check-prefix=BUDGET
// RUN: not serenity-opt %s --split-input-file --serenity-select-primitives="profile=%S/Inputs/primitives-profile.json budget-bytes=100" 2>&1 | FileCheck %s --check-prefix=INFEASIBLE
// RUN: serenity-opt %s --split-input-file --serenity-select-primitives="profile=%S/Inputs/primitives-profile.json objective=memory budget-time=130" | FileCheck %s --check-prefix=FAST
// RUN: serenity-opt %s --split-input-file --serenity-select-primitives="uniform=im2col" | FileCheck %s --check-prefix=UNIFORM
// The workspace is a buffer of the memory model, live at its conv's step.
// RUN: serenity-opt %s --split-input-file --serenity-select-primitives="uniform=winograd4" --serenity-memory-report=format=json -o /dev/null | FileCheck %s --check-prefix=MODEL
// RUN: not serenity-opt %s --split-input-file --serenity-select-primitives 2>&1 | FileCheck %s --check-prefix=NOPROFILE
// RUN: not serenity-opt %s --split-input-file --serenity-select-primitives="uniform=fft" 2>&1 | FileCheck %s --check-prefix=BADOPT
// RUN: not serenity-opt %s --split-input-file --serenity-select-primitives="profile=%S/Inputs/missing.json" 2>&1 | FileCheck %s --check-prefix=NOFILE
// With no work budget the ILP solves nothing: the fastest primitive of each
// layer within the budget is taken, unproven, and the warning names the
// budget that stopped it. The budget counts work, not time: two runs give
// the same bytes.
// RUN: serenity-opt %s --split-input-file --serenity-select-primitives="profile=%S/Inputs/primitives-profile.json work-limit=0 report=%t.nowork.json" 2>&1 | FileCheck %s --check-prefix=NOWORK
// RUN: FileCheck %s --input-file=%t.nowork.json --check-prefix=NOWORKREPORT
// RUN: serenity-opt %s --split-input-file --serenity-select-primitives="profile=%S/Inputs/primitives-profile.json work-limit=0" >%t.first 2>&1
// RUN: serenity-opt %s --split-input-file --serenity-select-primitives="profile=%S/Inputs/primitives-profile.json work-limit=0" >%t.second 2>&1
// RUN: diff %t.first %t.second
// RUN: not serenity-opt %s --split-input-file --serenity-select-primitives="profile=%S/Inputs/primitives-profile.json work-limit=-2" 2>&1 | FileCheck %s --check-prefix=BADWORK
// RUN: not serenity-opt %s --split-input-file --serenity-select-primitives="profile=%S/Inputs/primitives-profile.json time-limit=-1" 2>&1 | FileCheck %s --check-prefix=BADTIME

func.func @two(%x: tensor<1x8x8x4xf32>) -> tensor<1x8x8x4xf32> {
  %w = "tosa.const"() {values = dense<0.25> : tensor<4x3x3x4xf32>} : () -> tensor<4x3x3x4xf32>
  %b = "tosa.const"() {values = dense<0.5> : tensor<4xf32>} : () -> tensor<4xf32>
  %z = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
  %y = tosa.conv2d %x, %w, %b, %z, %z {acc_type = f32, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>, serenity.primitive = #serenity.primitive<im2col>} : (tensor<1x8x8x4xf32>, tensor<4x3x3x4xf32>, tensor<4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x8x4xf32>
  %r = tosa.conv2d %y, %w, %b, %z, %z {acc_type = f32, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>, serenity.primitive = #serenity.primitive<winograd2>} : (tensor<1x8x8x4xf32>, tensor<4x3x3x4xf32>, tensor<4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x8x8x4xf32>
  return %r : tensor<1x8x8x4xf32>
}

// CARRY-LABEL: func.func @two
// CARRY: linalg.conv_2d_nhwc_fhwc {{.*}}serenity.primitive = #serenity.primitive<im2col>
// CARRY: linalg.conv_2d_nhwc_fhwc {{.*}}serenity.primitive = #serenity.primitive<winograd2>
// CARRY-NOT: tosa.conv2d

// One output row at a time: the row's windows gathered into a 1x1x8x3x3x4
// workspace, then a product with the filter (reduction over kh, kw, c).
// LOWER-LABEL: func.func @two
// LOWER: scf.for
// LOWER: tensor.empty() : tensor<1x1x8x3x3x4xf32>
// LOWER: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]
// LOWER: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]
// Winograd F(2x2,3x3): the transformed filter (4x4x4x4) and the batched
// products of the 16 tiles.
// LOWER: tensor.empty() : tensor<4x4x4x4xf32>
// LOWER: linalg.batch_matmul
// LOWER-NOT: linalg.conv_2d

// FAST-LABEL: func.func @two
// FAST: tosa.conv2d {{.*}}serenity.primitive = #serenity.primitive<winograd4>
// FAST: tosa.conv2d {{.*}}serenity.primitive = #serenity.primitive<winograd4>

// NOWORK: warning: serenity-select-primitives: the choice is not proven optimal: stopped by work-limit=0
// NOWORKREPORT: "optimal": false,
// NOWORKREPORT: "stopped_by": "work-limit",
// BADWORK: error: serenity-select-primitives: work-limit must be >= 0, or -1 (no limit)
// BADTIME: error: serenity-select-primitives: time-limit must be >= 0 seconds (0: off)

// REPORT: "functions": [
// REPORT: "frontier": [
// REPORT: "peak": 2048,
// REPORT-NEXT: "time": 200
// REPORT: "peak": 3808,
// REPORT-NEXT: "time": 180
// REPORT: "peak": 8960,
// REPORT-NEXT: "time": 80
// REPORT: "least_peak": 2048,
// REPORT: "optimal": true,
// REPORT: "peak": 8960,
// REPORT: "stopped_by": "none",
// REPORT: "time": 80

// BUDGET-COUNT-2: serenity.primitive = #serenity.primitive<im2col>
// INFEASIBLE: error: serenity-select-primitives: budget-bytes=100 is below the least achievable peak, 2048 bytes
// UNIFORM-COUNT-2: serenity.primitive = #serenity.primitive<im2col>
// MODEL: "bytes": 6912,
// MODEL-NEXT: "def": 0,
// MODEL-NEXT: "last": 0,
// MODEL-NEXT: "name": "{{.*}}.workspace"
// NOPROFILE: error: serenity-select-primitives: the selection needs profile=FILE
// BADOPT: invalid uniform='fft'
// NOFILE: error: serenity-select-primitives: cannot read profile
