// The five MLPerf Tiny models from their .tflite files through
// serenity-compile, on the host and on Cortex-M4 (QEMU mps2-an386), each
// called through the generated header by a C program: every output element
// equals the upstream reference lowering's (bit-exact int8).
// REQUIRES: shared, cortex-m
// RUN: %python %integration/run_compiled.py %shared/models/mlperf_tiny/ad01_int8.tflite --target host | FileCheck %s --check-prefix=HOST
// RUN: %python %integration/run_compiled.py %shared/models/mlperf_tiny/kws_ref_model.tflite --target host | FileCheck %s --check-prefix=HOST
// RUN: %python %integration/run_compiled.py %shared/models/mlperf_tiny/pretrainedResnet_quant.tflite --target host | FileCheck %s --check-prefix=HOST
// RUN: %python %integration/run_compiled.py %shared/models/mlperf_tiny/str_ww_ref_model.tflite --target host | FileCheck %s --check-prefix=HOST
// RUN: %python %integration/run_compiled.py %shared/models/mlperf_tiny/vww_96_int8.tflite --target host | FileCheck %s --check-prefix=HOST
// RUN: %python %integration/run_compiled.py %shared/models/mlperf_tiny/ad01_int8.tflite --target cortex-m4 | FileCheck %s --check-prefix=M4
// RUN: %python %integration/run_compiled.py %shared/models/mlperf_tiny/kws_ref_model.tflite --target cortex-m4 | FileCheck %s --check-prefix=M4
// RUN: %python %integration/run_compiled.py %shared/models/mlperf_tiny/pretrainedResnet_quant.tflite --target cortex-m4 | FileCheck %s --check-prefix=M4
// RUN: %python %integration/run_compiled.py %shared/models/mlperf_tiny/str_ww_ref_model.tflite --target cortex-m4 | FileCheck %s --check-prefix=M4
// RUN: %python %integration/run_compiled.py %shared/models/mlperf_tiny/vww_96_int8.tflite --target cortex-m4 | FileCheck %s --check-prefix=M4
// With --io caller (the inputs and outputs held by the caller; the default
// --io arena is TFLite Micro's layout):
// RUN: %python %integration/run_compiled.py %shared/models/mlperf_tiny/vww_96_int8.tflite --target cortex-m4 --io caller | FileCheck %s --check-prefix=M4
// RUN: %python %integration/run_compiled.py %shared/models/mlperf_tiny/str_ww_ref_model.tflite --target host --io caller | FileCheck %s --check-prefix=HOST
// HOST: host output 0: {{.*}}, max abs diff 0, 0 beyond tolerance
// HOST: PASS
// M4: undefined symbols of the object:
// M4-NOT: {{malloc|free|memrefCopy|expf|floorf|roundf}}
// M4-SAME: {{$}}
// M4: cortex-m4 output 0: {{.*}}, max abs diff 0, 0 beyond tolerance
// M4: PASS
