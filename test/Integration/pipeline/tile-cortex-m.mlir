// REQUIRES: shared, cortex-m
// Tiled MLPerf Tiny models on Cortex-M4 (QEMU mps2-an386): ResNet-8 with
// serenity-pipeline{target=cortex-m tile=ffmt}, every output element equal to
// the host reference lowering of the untiled model.
// RUN: %python -m serenity import-tflite %shared/models/mlperf_tiny/pretrainedResnet_quant.tflite -o %t.resnet.mlir
// RUN: %python %integration/run_cortex_m.py %t.resnet.mlir --atol 0 --rtol 0 --options "tile=ffmt" | FileCheck %s
// Fused depthwise (channel) tiling on the streaming wakeword model.
// RUN: %python -m serenity import-tflite %shared/models/mlperf_tiny/str_ww_ref_model.tflite -o %t.str_ww.mlir
// RUN: %python %integration/run_cortex_m.py %t.str_ww.mlir --atol 0 --rtol 0 --options "tile=fdt" | FileCheck %s
// CHECK: undefined symbols of the network object:
// CHECK-NOT: {{malloc|free|memrefCopy|expf|floorf|roundf}}
// CHECK-SAME: {{$}}
// CHECK: cortex-m output 0: {{.*}}, max abs diff 0, 0 beyond tolerance
// CHECK: PASS
