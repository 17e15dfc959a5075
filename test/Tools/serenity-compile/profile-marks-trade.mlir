// serenity-compile --pipeline profile-marks=FILE with the tiling trade
// (tiling-trade.mlir): the labels written are those of the build kept, the
// tiled one (40 marks, as an explicit 8 % tiling writes) or, at one byte of
// flash per byte of RAM, the untiled one (36 marks, as tile=none writes);
// the untiled build, made beside, does not overwrite the tiled one's. Each
// kernel names the .tflite operators it computes.
// REQUIRES: shared
// RUN: rm -rf %t && serenity-compile %shared/models/mlperf_tiny/str_ww_ref_model.tflite --target cortex-m4 --pipeline "profile-marks=%t/kept.json" -o %t/kept | FileCheck %s --check-prefix=KEPT
// RUN: FileCheck %s --check-prefix=TILED < %t/kept.json
// RUN: serenity-compile %shared/models/mlperf_tiny/str_ww_ref_model.tflite --target cortex-m4 --flash-per-ram-byte=1 --pipeline "profile-marks=%t/untiled.json" -o %t/untiled | FileCheck %s --check-prefix=UNTILEDBUILD
// RUN: FileCheck %s --check-prefix=UNTILED < %t/untiled.json
// RUN: serenity-compile %shared/models/mlperf_tiny/str_ww_ref_model.tflite --target cortex-m4 --pipeline "tile-max-mac-overhead=8 profile-marks=%t/explicit.json" -o %t/explicit
// RUN: FileCheck %s --check-prefix=TILED < %t/explicit.json
// RUN: serenity-compile %shared/models/mlperf_tiny/str_ww_ref_model.tflite --target cortex-m4 --pipeline "tile=none profile-marks=%t/none.json" -o %t/none
// RUN: FileCheck %s --check-prefix=UNTILED < %t/none.json
// RUN: ls -A %t/kept | FileCheck %s --check-prefix=FILES
// RUN: ls -A %t/untiled | FileCheck %s --check-prefix=FILES
// KEPT: fused tiling saves 512 bytes of RAM for {{[0-9]+}} bytes of flash: kept
// UNTILEDBUILD: built untiled
// TILED: "operators": [
// TILED-NEXT: "operator 0 DEPTHWISE_CONV_2D
// TILED: "marks": 40
// UNTILED: "operators": [
// UNTILED-NEXT: "operator 0 DEPTHWISE_CONV_2D
// UNTILED: "marks": 36
// FILES-NOT: {{^}}profile-marks
// FILES-NOT: {{^}}.net.untiled
