// The five MLPerf Tiny models compiled for 32-bit RISC-V (--target riscv32-imc,
// riscv32-imac), run on QEMU virt with the core limited to those extensions
// (qemu-system-riscv32 -cpu rv32,a=off,f=off,d=off; rv32,f=off,d=off) on
// TensorFlow Lite Micro's own inputs (../shared/bench/tflm/reference, seeds
// 0-2 on rv32imc, seed 0 on rv32imac): every output byte equals TFLite Micro's.
// REQUIRES: shared, riscv
// DEFINE: %{ref} = %shared/bench/tflm/reference
// RUN: for m in ad01_int8 kws_ref_model pretrainedResnet_quant str_ww_ref_model vww_96_int8; do \
// RUN:   for s in 0 1 2; do \
// RUN:     %python %integration/run_compiled.py %shared/models/mlperf_tiny/$m.tflite --target riscv32-imc \
// RUN:       --input-file %{ref}/$m.seed$s.input.bin --expect-file %{ref}/$m.seed$s.bin || exit 1; \
// RUN:   done; \
// RUN:   %python %integration/run_compiled.py %shared/models/mlperf_tiny/$m.tflite --target riscv32-imac \
// RUN:     --input-file %{ref}/$m.seed0.input.bin --expect-file %{ref}/$m.seed0.bin || exit 1; \
// RUN: done | FileCheck %s
// CHECK-COUNT-20: {{riscv32-ima?c}} output 0: {{.*}}, max abs diff 0, 0 beyond tolerance
// CHECK-NOT: FAIL
