// The five MLPerf Tiny models compiled for Cortex-M4 (the default int8
// convolution kernels: SXTB16/SMLAD, int8 filters and the widened copies of
// the default budget, fused
// requantization), run on QEMU mps2-an386 on TFLite Micro's own inputs
// (../shared/bench/tflm/reference, seeds 0-2): every output byte equals TFLite
// Micro's. Also the host with conv-kernels=dot (the same kernels in plain
// arithmetic) on seed 1.
// REQUIRES: shared, cortex-m
// DEFINE: %{ref} = %shared/bench/tflm/reference
// RUN: for m in ad01_int8 kws_ref_model pretrainedResnet_quant str_ww_ref_model vww_96_int8; do \
// RUN:   for s in 0 1 2; do \
// RUN:     %python %integration/run_compiled.py %shared/models/mlperf_tiny/$m.tflite --target cortex-m4 \
// RUN:       --input-file %{ref}/$m.seed$s.input.bin --expect-file %{ref}/$m.seed$s.bin || exit 1; \
// RUN:   done; \
// RUN:   %python %integration/run_compiled.py %shared/models/mlperf_tiny/$m.tflite --target host --pipeline conv-kernels=dot \
// RUN:     --input-file %{ref}/$m.seed1.input.bin --expect-file %{ref}/$m.seed1.bin || exit 1; \
// RUN: done | FileCheck %s
// CHECK-COUNT-20: {{(cortex-m4|host)}} output 0: {{.*}}, max abs diff 0, 0 beyond tolerance
// CHECK-NOT: FAIL
