// REQUIRES: shared, cortex-m
// A tiled MLPerf Tiny model on Cortex-M4 (QEMU mps2-an386): ResNet-8 with
// serenity-pipeline{target=cortex-m tile=ffmt}, every output element equal to
// the host reference lowering of the untiled model.
// RUN: %python -m serenity import-tflite %shared/models/mlperf_tiny/pretrainedResnet_quant.tflite -o %t.resnet.mlir
// RUN: %python %integration/run_cortex_m.py %t.resnet.mlir --atol 0 --rtol 0 --options "tile=ffmt" | FileCheck %s
// CHECK: undefined symbols of the network object:
// CHECK-NOT: {{malloc|free|memrefCopy|expf|floorf|roundf}}
// CHECK-SAME: {{$}}
// CHECK: cortex-m output 0: {{.*}}, max abs diff 0, 0 beyond tolerance
// CHECK: PASS
