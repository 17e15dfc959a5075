// The five MLPerf Tiny models compiled for the cortex-m0plus (--target cortex-m0plus),
// run on QEMU mps2-an385 (a Cortex-M3 running the ARMv6-M code unchanged,
// unaligned accesses trapped as on the M0+) on TensorFlow Lite Micro's own inputs
// (../shared/bench/tflm/reference, seeds 0-2): every output byte equals
// TFLite Micro's.
// REQUIRES: shared, cortex-m
// DEFINE: %{ref} = %shared/bench/tflm/reference
// RUN: for m in ad01_int8 kws_ref_model pretrainedResnet_quant str_ww_ref_model vww_96_int8; do \
// RUN:   for s in 0 1 2; do \
// RUN:     %python %integration/run_compiled.py %shared/models/mlperf_tiny/$m.tflite --target cortex-m0plus \
// RUN:       --input-file %{ref}/$m.seed$s.input.bin --expect-file %{ref}/$m.seed$s.bin || exit 1; \
// RUN:   done; \
// RUN: done | FileCheck %s
// CHECK-COUNT-15: cortex-m0plus output 0: {{.*}}, max abs diff 0, 0 beyond tolerance
// CHECK-NOT: FAIL
