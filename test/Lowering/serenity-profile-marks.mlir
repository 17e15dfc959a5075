// serenity-profile-marks through the pipeline on an int8 DS-CNN: a call of
// the hook before every kernel (the depthwise convs in place: each one's last
// held row copied back is a kernel of its own) and before the return, and the JSON naming
// each kernel with the filters it reads through a widened copy (the int8
// global the copy stands for and its bytes), which the per-layer cost model
// of `python3 -m serenity frontier` pairs kernel by kernel.
// RUN: %python -m serenity gen kws-dscnn --dtype i8 -o %t.mlir
// RUN: serenity-opt %t.mlir --serenity-pipeline="lower-to-llvm=false target=cortex-m widen-filters=__constant_4x1x1x64xi8_1 profile-marks=%t.json" 2>/dev/null | FileCheck %s --check-prefix=IR
// RUN: FileCheck %s --check-prefix=JSON < %t.json
// Nothing widened: no kernel names a filter.
// RUN: serenity-opt %t.mlir --serenity-pipeline="lower-to-llvm=false target=cortex-m widen-budget=0 profile-marks=%t.none.json" 2>/dev/null > /dev/null
// RUN: FileCheck %s --check-prefix=NONE < %t.none.json

// IR: func.func private @serenity_profile_mark(i32)
// IR: func.func @main(
// IR-COUNT-18: call @serenity_profile_mark(
// IR-NEXT: return
// IR-NOT: call @serenity_profile_mark(

// JSON: "begin": 9,
// JSON-NEXT: "end": 10,
// JSON: "widened": [
// JSON-NEXT: {
// JSON-NEXT: "bytes": 256,
// JSON-NEXT: "copy": "__constant_4x1x1x64xi8_1_smlad",
// JSON-NEXT: "filter": "__constant_4x1x1x64xi8_1"
// JSON: "marks": 18

// NONE-NOT: "filter"
// NONE: "marks": 18
