// REQUIRES: shared
// fuse-requantization=1 on MLPerf Tiny models imported from .tflite: outputs
// bit-exact against the upstream reference lowering.
// RUN: %python -m serenity import-tflite %shared/models/mlperf_tiny/kws_ref_model.tflite -o %t.kws.mlir
// RUN: %python -m serenity import-tflite %shared/models/mlperf_tiny/str_ww_ref_model.tflite -o %t.str_ww.mlir
// RUN: %python %integration/compare_lowering.py %t.kws.mlir --atol 0 --rtol 0 --options "fuse-requantization=1" | FileCheck %s
// RUN: %python %integration/compare_lowering.py %t.str_ww.mlir --atol 0 --rtol 0 --options "fuse-requantization=1" | FileCheck %s
// CHECK: serenity-pipeline: 0 memref.alloc left in @{{.*}}, arena {{[0-9]+}} bytes
// CHECK: output 0: {{.*}}, 0 beyond tolerance
// CHECK: PASS
