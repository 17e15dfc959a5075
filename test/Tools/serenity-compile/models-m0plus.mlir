// The public models of ../shared/models beyond MLPerf Tiny, compiled for the
// Cortex-M0+ (ARMv6-M: generic kernels, no DSP, no divide, float in library
// calls) and run on QEMU mps2-an385 on TensorFlow Lite Micro's inputs (seed
// 0): int8 outputs equal TFLite Micro's byte for byte, float outputs within
// 1e-5. face_landmarks_192 is left out: its 1.7 MB arena fits no Cortex-M0+
// part (RP2040: 264 KB of SRAM); it runs on the board all the same
// (docs/Deploy.md, "Every board"). The M7 and M33 compile with the M4's
// pipeline family and kernels; all 20 models ran on their boards too
// (docs/Deploy.md).
// REQUIRES: shared, cortex-m
// DEFINE: %{ref} = %shared/bench/tflm/reference
// RUN: for m in zoo/fomo_face_detection zoo/har_model zoo/id_model zoo/micro_speech_lstm \
// RUN:          zoo/vww_96_20blk_791k_int8 zoo/yolo_face_detect tflite-micro/hello_world_int8 \
// RUN:          tflite-micro/keyword_scrambled_8bit tflite-micro/micro_speech_quantized \
// RUN:          tflite-micro/person_detect tflite-micro/trained_lstm_int8; do \
// RUN:   b=$(basename $m); e="--expect-file %{ref}/$b.seed0.bin"; \
// RUN:   for k in 1 2; do [ -f %{ref}/$b.seed0.output$k.bin ] && e="$e --expect-file %{ref}/$b.seed0.output$k.bin"; done; \
// RUN:   %python %integration/run_compiled.py %shared/models/$m.tflite --target cortex-m0plus \
// RUN:     --input-file %{ref}/$b.seed0.input.bin $e || exit 1; \
// RUN: done | FileCheck %s --check-prefix=INT8
// INT8-COUNT-11: PASS
// INT8-NOT: FAIL
// RUN: for m in zoo/sscma_fomo_float tflite-micro/hello_world_float tflite-micro/magic_wand; do \
// RUN:   b=$(basename $m); \
// RUN:   %python %integration/run_compiled.py %shared/models/$m.tflite --target cortex-m0plus --rtol 1e-5 --atol 1e-5 \
// RUN:     --input-file %{ref}/$b.seed0.input.bin --expect-file %{ref}/$b.seed0.bin || exit 1; \
// RUN: done | FileCheck %s --check-prefix=FLOAT
// FLOAT-COUNT-3: PASS
// FLOAT-NOT: FAIL
