// Real MLPerf Tiny models on Cortex-M4: imported from ../shared (int8,
// default double rounding), built with serenity-pipeline{target=cortex-m}
// (fused requantization, static arena), run on QEMU mps2-an386; every output
// element must equal the host reference lowering (mlir-runner) exactly. The
// object needs libm (expf, floorf, roundf of the float softmax) but no
// malloc/free/memrefCopy.
// REQUIRES: shared, cortex-m
// RUN: %python -m serenity import-tflite %shared/models/mlperf_tiny/kws_ref_model.tflite -o %t.kws.mlir
// RUN: %python %integration/run_cortex_m.py %t.kws.mlir --atol 0 --rtol 0 | FileCheck %s
// RUN: %python -m serenity import-tflite %shared/models/mlperf_tiny/pretrainedResnet_quant.tflite -o %t.resnet.mlir
// RUN: %python %integration/run_cortex_m.py %t.resnet.mlir --atol 0 --rtol 0 | FileCheck %s
// CHECK: undefined symbols of the network object:
// CHECK-NOT: {{malloc|free|memrefCopy}}
// CHECK: cortex-m output 0: {{.*}}, max abs diff 0, 0 beyond tolerance
// CHECK: PASS
