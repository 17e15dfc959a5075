// serenity-compile places the inputs and outputs in the arena by default
// (--io arena, the least RAM), on Cortex-M and on the host alike (one header
// interface for both builds of a program; the same host speed on the MLPerf
// Tiny models, docs/Deploy.md); --io caller keeps them in the caller's
// buffers, outside the arena.
// RUN: rm -rf %t && serenity-compile %serenity_src/examples/residual_block.mlir --target cortex-m4 --pipeline "tile=both tile-max-mac-overhead=20" -o %t/m4 | FileCheck %s --check-prefix=M4
// RUN: FileCheck %s --check-prefixes=JSON,ARENA < %t/m4/net.json
// RUN: FileCheck %s --check-prefix=ARENAH < %t/m4/net.h
// RUN: serenity-compile %serenity_src/examples/residual_block.mlir --target host -o %t/host | FileCheck %s --check-prefix=HOST
// RUN: FileCheck %s --check-prefixes=JSON,ARENA < %t/host/net.json
// RUN: FileCheck %s --check-prefix=ARENAH < %t/host/net.h
// RUN: serenity-compile %serenity_src/examples/residual_block.mlir --target host --io caller -o %t/caller | FileCheck %s --check-prefix=CALLER
// RUN: FileCheck %s --check-prefixes=JSON,CALLERJSON < %t/caller/net.json
// RUN: FileCheck %s --check-prefix=CALLERH < %t/caller/net.h
//
// The residual block's input and output are 16x16x16 f32, 16384 bytes each.
// With --io caller the arena holds the intermediates alone (25664 bytes; 28672
// before serenity-concat-buffers, when eliminate-empty-tensors moved the
// tiles' producers out of the scheduled order) and
// the caller 2 x 16384 more: 58432 bytes of RAM. In the arena, the input's
// bytes are reused once the residual add has read it: 42048 bytes in all
// (42064 on Cortex-M, where a convolution keeps a 16-byte accumulator tile;
// tiled with a 20 % MAC budget: by default the Cortex-M build is untiled,
// as its tiling within 8 % saves no RAM, tiling-trade.mlir).
// M4: (arena 42064 bytes, flash
// HOST: (arena 42048 bytes, flash
// CALLER: (arena 25664 bytes, flash
// JSON: "inputs": [
// ARENA-NEXT: {
// ARENA-NEXT: "arena_offset": {{[0-9]+}},
// CALLERJSON-NOT: "arena_offset"
// JSON: "bytes": 16384,
// ARENA: "io": "arena",
// CALLERJSON: "io": "caller",
// JSON: "outputs": [
// ARENA-NEXT: {
// ARENA-NEXT: "arena_offset": {{[0-9]+}},
// CALLERJSON-NOT: "arena_offset"
// JSON: "bytes": 16384,
// ARENAH: #define NET_INPUT0_OFFSET {{[0-9]+}} /* in the arena */
// ARENAH: static inline int net_run(void *arena) {
// CALLERH-NOT: _OFFSET
// CALLERH: static inline int net_run(const float *input0, float *output0, void *arena) {
//
// ad01_int8 (MLPerf Tiny anomaly detection) on Cortex-M4: 768 bytes with the
// default; --io caller needs a 256-byte arena plus 640 + 640 bytes of input
// and output, 1536 bytes.
// RUN: %if shared %{ serenity-compile %shared/models/mlperf_tiny/ad01_int8.tflite --target cortex-m4 -o %t/ad01 | FileCheck %s --check-prefix=AD01 %}
// RUN: %if shared %{ serenity-compile %shared/models/mlperf_tiny/ad01_int8.tflite --target cortex-m4 --io caller -o %t/ad01-caller | FileCheck %s --check-prefix=AD01-CALLER %}
// RUN: %if shared %{ FileCheck %s --check-prefix=AD01-IO < %t/ad01-caller/net.json %}
// AD01: (arena 768 bytes, flash
// AD01-CALLER: (arena 256 bytes, flash
// AD01-IO: "inputs": [
// AD01-IO: "bytes": 640,
// AD01-IO: "outputs": [
// AD01-IO: "bytes": 640,
