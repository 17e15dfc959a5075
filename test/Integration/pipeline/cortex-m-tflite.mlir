// The five MLPerf Tiny models on Cortex-M4: imported from ../shared (int8,
// default --rounding=double, i.e. TFLite Micro's integer arithmetic), built
// with serenity-pipeline{target=cortex-m} (fused requantization, static
// arena), run on QEMU mps2-an386; every output element must equal the host
// reference lowering (mlir-runner) exactly. The object needs neither libm (the
// softmax is fixed point) nor malloc/free/memrefCopy: only libgcc's
// __aeabi_mem* helpers.
// REQUIRES: shared, cortex-m
// RUN: %python -m serenity import-tflite %shared/models/mlperf_tiny/ad01_int8.tflite -o %t.ad01.mlir
// RUN: %python %integration/run_cortex_m.py %t.ad01.mlir --atol 0 --rtol 0 | FileCheck %s
// RUN: %python -m serenity import-tflite %shared/models/mlperf_tiny/kws_ref_model.tflite -o %t.kws.mlir
// RUN: %python %integration/run_cortex_m.py %t.kws.mlir --atol 0 --rtol 0 | FileCheck %s
// RUN: %python -m serenity import-tflite %shared/models/mlperf_tiny/pretrainedResnet_quant.tflite -o %t.resnet.mlir
// RUN: %python %integration/run_cortex_m.py %t.resnet.mlir --atol 0 --rtol 0 | FileCheck %s
// RUN: %python -m serenity import-tflite %shared/models/mlperf_tiny/str_ww_ref_model.tflite -o %t.str_ww.mlir
// RUN: %python %integration/run_cortex_m.py %t.str_ww.mlir --atol 0 --rtol 0 | FileCheck %s
// RUN: %python -m serenity import-tflite %shared/models/mlperf_tiny/vww_96_int8.tflite -o %t.vww.mlir
// RUN: %python %integration/run_cortex_m.py %t.vww.mlir --atol 0 --rtol 0 | FileCheck %s
// CHECK: undefined symbols of the network object:
// CHECK-NOT: {{malloc|free|memrefCopy|expf|floorf|roundf}}
// CHECK-SAME: {{$}}
// CHECK: cortex-m output 0: {{.*}}, max abs diff 0, 0 beyond tolerance
// CHECK: PASS
