// The bundled example, a residual block. Every activation is 1x16x16x16 f32 =
// 16384 B; %x is read by conv1 (step 0) and by the add (step 3).
//   step 0 conv1: x + c1                 = 32768
//   step 1 relu:  x + c1 + r1            = 49152  <- peak (first step reaching it)
//   step 2 conv2: x + r1 + c2            = 49152
//   step 3 add:   x + c2 + sum           = 49152
//   step 4 relu:  sum + out              = 32768
// RUN: serenity-opt %serenity_src/examples/residual_block.mlir --serenity-annotate-lifetimes | FileCheck %s
// RUN: serenity-opt %serenity_src/examples/residual_block.mlir --serenity-memory-report -o /dev/null | FileCheck %s --check-prefix=TABLE
// RUN: serenity-opt %serenity_src/examples/residual_block.mlir --serenity-memory-report=format=json -o /dev/null | FileCheck %s --check-prefix=JSON

// CHECK: func.func @main{{.*}}serenity.peak_bytes = 49152 : i64, serenity.peak_step = 1 : i64
// CHECK: tosa.conv2d {{.*}}#serenity.lifetime<bytes = 16384, def = 0, last = 1>
// CHECK: tosa.clamp {{.*}}#serenity.lifetime<bytes = 16384, def = 1, last = 2>
// CHECK: tosa.conv2d {{.*}}#serenity.lifetime<bytes = 16384, def = 2, last = 3>
// CHECK: tosa.add {{.*}}#serenity.lifetime<bytes = 16384, def = 3, last = 4>
// CHECK: tosa.clamp {{.*}}#serenity.lifetime<bytes = 16384, def = 4, last = 5>

// TABLE: // serenity memory report: @main
// TABLE-NEXT: // peak 49152 bytes at step 1, 5 steps
// TABLE-NEXT: step  op live bytes    new bytes
// TABLE-NEXT:   0  tosa.conv2d 32768        16384{{$}}
// TABLE-NEXT:   1  tosa.clamp 49152        16384  <- peak
// TABLE-NEXT:   2  tosa.conv2d 49152        16384{{$}}
// TABLE-NEXT:   3  tosa.add 49152        16384{{$}}
// TABLE-NEXT:   4  tosa.clamp 32768        16384{{$}}

// JSON: "functions": [
// JSON: "name": "%arg0"
// JSON: "function": "main",
// JSON-NEXT: "peak_bytes": 49152,
// JSON-NEXT: "peak_step": 1,
// JSON: "live_bytes": 32768,
// JSON-NEXT: "loc": "{{.*}}residual_block.mlir:10:9",
// JSON-NEXT: "new_bytes": 16384,
// JSON-NEXT: "op": "tosa.conv2d",
// JSON-NEXT: "step": 0
