// REQUIRES: shared
// serenity-pipeline{tile=ffmt io=arena} on the MLPerf Tiny models where fused
// feature-map tiling applies (ResNet-8, VWW, streaming wakeword; kws and
// ad01 have no region to tile, docs/Tiling.md): outputs bit-exact against
// the upstream reference lowering of the untiled model.
// RUN: %python -m serenity import-tflite %shared/models/mlperf_tiny/pretrainedResnet_quant.tflite -o %t.resnet.mlir
// RUN: %python %integration/compare_lowering.py %t.resnet.mlir --atol 0 --rtol 0 --options "tile=ffmt io=arena" | FileCheck %s
// With a larger MAC budget the ResNet region runs through the second
// residual block, whose shortcut reads a tosa.slice (TFLite's SAME crop)
// of the block input: the slice is part of the region (arena 49152 -> about
// 19 KB at +72 % MACs).
// RUN: %python %integration/compare_lowering.py %t.resnet.mlir --atol 0 --rtol 0 --options "tile=ffmt io=arena tile-max-mac-overhead=100" | FileCheck %s --check-prefixes=CHECK,SLICE
// RUN: %python -m serenity import-tflite %shared/models/mlperf_tiny/str_ww_ref_model.tflite -o %t.str_ww.mlir
// RUN: %python %integration/compare_lowering.py %t.str_ww.mlir --atol 0 --rtol 0 --options "tile=ffmt io=arena" | FileCheck %s
// RUN: %python -m serenity import-tflite %shared/models/mlperf_tiny/vww_96_int8.tflite -o %t.vww.mlir
// RUN: %python %integration/compare_lowering.py %t.vww.mlir --atol 0 --rtol 0 --options "tile=ffmt io=arena alloc=best-fit" | FileCheck %s
// Fused depthwise (channel) tiling, where it applies (VWW, streaming
// wakeword): bit-exact as well.
// RUN: %python %integration/compare_lowering.py %t.str_ww.mlir --atol 0 --rtol 0 --options "tile=fdt io=arena" | FileCheck %s --check-prefix=FDT
// RUN: %python %integration/compare_lowering.py %t.vww.mlir --atol 0 --rtol 0 --options "tile=fdt io=arena alloc=best-fit" | FileCheck %s --check-prefix=FDT
// FDT: serenity-tile: fdt {{[0-9]+}} channel partitions
// FDT: output 0: {{.*}}, max abs diff 0, 0 beyond tolerance
// FDT: PASS
// CHECK: serenity-tile: ffmt
// SLICE-SAME: tosa.slice
// CHECK: serenity-pipeline: 0 memref.alloc left in @{{.*}}, arena {{[0-9]+}} bytes
// CHECK: output 0: {{.*}}, max abs diff 0, 0 beyond tolerance
// CHECK: PASS
