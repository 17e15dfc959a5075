// The kept side of serenity-compile's tiling trade (tiling-trade.mlir): the
// streaming wakeword model on the Cortex-M4, whose default tiling (within
// the microcontrollers' 8 % MAC budget) saves 512 bytes of arena (6656 ->
// 6144) for less than 4 bytes of flash per byte: kept, its MACs in the
// report; at one byte of flash per byte of RAM the untiled build is kept.
// REQUIRES: shared
// RUN: rm -rf %t && serenity-compile %shared/models/mlperf_tiny/str_ww_ref_model.tflite --target cortex-m4 -o %t/rate4 | FileCheck %s --check-prefix=RATE4
// RUN: FileCheck %s --check-prefix=JSON4 < %t/rate4/net.json
// RUN: serenity-compile %shared/models/mlperf_tiny/str_ww_ref_model.tflite --target cortex-m4 --flash-per-ram-byte=1 -o %t/rate1 | FileCheck %s --check-prefix=RATE1
// RUN: FileCheck %s --check-prefix=JSON1 < %t/rate1/net.json
// RATE4: serenity-compile: fused tiling saves 512 bytes of RAM for [[COST:[0-9]+]] bytes of flash: kept
// RATE4-NEXT: (arena 6144 bytes, flash
// JSON4: "tiling": {
// JSON4-NEXT: "flash_cost": {{[0-9]+}},
// JSON4-NEXT: "flash_per_ram_byte": 4,
// JSON4-NEXT: "kept": true,
// JSON4-NEXT: "macs": {{[0-9]+}},
// JSON4-NEXT: "ram_saved": 512,
// JSON4-NEXT: "untiled_macs": {{[0-9]+}}
// RATE1: serenity-compile: fused tiling saves 512 bytes of RAM for {{[0-9]+}} bytes of flash: built untiled (--pipeline tile=both keeps it)
// RATE1-NEXT: (arena 6656 bytes, flash
// JSON1: "kept": false,
// JSON1-NEXT: "ram_saved": 512
