// The public models of ../shared/models beyond MLPerf Tiny, compiled for
// 32-bit RISC-V (riscv32-imc: the scalar kernels with byte loads, float in
// library calls) and run on QEMU virt (the core limited to I, M and C) on
// TensorFlow Lite Micro's inputs (seed 0): int8 outputs equal TFLite Micro's
// byte for byte, float outputs within 1e-5. face_landmarks_192 is left out
// here for time: its 1.7 MB of float activations fit no RV32IMC part
// (ESP32-C3: 400 KB of SRAM); it runs on the board all the same
// (docs/Deploy.md, "Every board").
// REQUIRES: shared, riscv
// DEFINE: %{ref} = %shared/bench/tflm/reference
// RUN: for m in zoo/fomo_face_detection zoo/har_model zoo/id_model zoo/micro_speech_lstm \
// RUN:          zoo/vww_96_20blk_791k_int8 zoo/yolo_face_detect tflite-micro/hello_world_int8 \
// RUN:          tflite-micro/keyword_scrambled_8bit tflite-micro/micro_speech_quantized \
// RUN:          tflite-micro/person_detect tflite-micro/trained_lstm_int8; do \
// RUN:   b=$(basename $m); e="--expect-file %{ref}/$b.seed0.bin"; \
// RUN:   for k in 1 2; do [ -f %{ref}/$b.seed0.output$k.bin ] && e="$e --expect-file %{ref}/$b.seed0.output$k.bin"; done; \
// RUN:   %python %integration/run_compiled.py %shared/models/$m.tflite --target riscv32-imc \
// RUN:     --input-file %{ref}/$b.seed0.input.bin $e || exit 1; \
// RUN: done | FileCheck %s --check-prefix=INT8
// INT8-COUNT-11: PASS
// INT8-NOT: FAIL
// RUN: for m in zoo/sscma_fomo_float tflite-micro/hello_world_float tflite-micro/magic_wand; do \
// RUN:   b=$(basename $m); \
// RUN:   %python %integration/run_compiled.py %shared/models/$m.tflite --target riscv32-imc --rtol 1e-5 --atol 1e-5 \
// RUN:     --input-file %{ref}/$b.seed0.input.bin --expect-file %{ref}/$b.seed0.bin || exit 1; \
// RUN: done | FileCheck %s --check-prefix=FLOAT
// FLOAT-COUNT-3: PASS
// FLOAT-NOT: FAIL
