// TensorFlow Lite Micro's sequence models compiled by serenity-compile and
// run as a C program, on the host and on QEMU's Cortex-M4 and Cortex-M55, on
// TFLite Micro's own inputs (../shared/bench/tflm/reference): every output
// byte equals TFLite Micro's. trained_lstm_int8 is an int8 LSTM unrolled
// over 28 steps whose identical step kernels are shared
// (serenity-share-kernels), with its state outside the arena.
// REQUIRES: shared
// DEFINE: %{ref} = %shared/bench/tflm/reference
// DEFINE: %{m} = %shared/models/tflite-micro
// RUN: for s in 0 1 10; do \
// RUN:   %python %integration/run_compiled.py %{m}/trained_lstm_int8.tflite --target host \
// RUN:     --input-file %{ref}/trained_lstm_int8.seed$s.input.bin --expect-file %{ref}/trained_lstm_int8.seed$s.bin || exit 1; \
// RUN: done | FileCheck %s --check-prefix=LSTM
// RUN: %if cortex-m %{ for t in cortex-m4 cortex-m55; do \
// RUN:   %python %integration/run_compiled.py %{m}/trained_lstm_int8.tflite --target $t \
// RUN:     --input-file %{ref}/trained_lstm_int8.seed10.input.bin --expect-file %{ref}/trained_lstm_int8.seed10.bin || exit 1; \
// RUN: done | FileCheck %s --check-prefix=LSTM %}
// LSTM: (arena {{[0-9]+}} bytes, state {{[0-9]+}} bytes, flash
// LSTM: output 0: 10 elements, {{.*}} 0 beyond tolerance
// LSTM: PASS

// Fifteen invocations in a row in one program (the state carries over), a
// reset (NAME_reset) before the 13th: every step's output and state (the
// NAME_state region cut at the report's offsets) equal TFLite Micro's
// (test/tflite-seq, made with a repeated-Invoke copy of the oracle).
// RUN: %python %integration/run_compiled.py %{m}/trained_lstm_int8.tflite --target host \
// RUN:   --sequence %serenity_src/test/tflite-seq/trained_lstm_int8.seq0 | FileCheck %s --check-prefix=SEQ
// RUN: %if cortex-m %{ %python %integration/run_compiled.py %{m}/trained_lstm_int8.tflite --target cortex-m4 \
// RUN:   --sequence %serenity_src/test/tflite-seq/trained_lstm_int8.seq1 | FileCheck %s --check-prefix=SEQ %}
// SEQ: state {{[0-9]+}} bytes, 15 steps
// SEQ-COUNT-12: step {{[0-9]+}} 0: 10 elements, {{.*}} 0 beyond tolerance
// SEQ: step 12 (after reset) 0: 10 elements, {{.*}} 0 beyond tolerance
// SEQ: step 14 0: 10 elements, {{.*}} 0 beyond tolerance
// SEQ: step 14 state state16: 20 values, {{.*}} 0 differ
// SEQ: step 14 state state17: 20 values, {{.*}} 0 differ
// SEQ: PASS

// keyword_scrambled_8bit: seven SVDF layers, each with an int8 state of
// 512 or 1024 bytes shifted in place (the arena holds no state), int16 input,
// int16 softmax, int32 output. Its outputs saturate on full-range inputs, so
// the states are what this checks: all seven at every step.
// RUN: %python %integration/run_compiled.py %{m}/keyword_scrambled_8bit.tflite --target host \
// RUN:   --input-file %{ref}/keyword_scrambled_8bit.seed1.input.bin --expect-file %{ref}/keyword_scrambled_8bit.seed1.bin | FileCheck %s --check-prefix=KWS1
// RUN: %python %integration/run_compiled.py %{m}/keyword_scrambled_8bit.tflite --target host \
// RUN:   --sequence %serenity_src/test/tflite-seq/keyword_scrambled_8bit.seq0 | FileCheck %s --check-prefix=KWS
// RUN: %if cortex-m %{ %python %integration/run_compiled.py %{m}/keyword_scrambled_8bit.tflite --target cortex-m4 \
// RUN:   --sequence %serenity_src/test/tflite-seq/keyword_scrambled_8bit.seq1 | FileCheck %s --check-prefix=KWS %}
// RUN: %if cortex-m %{ %python %integration/run_compiled.py %{m}/keyword_scrambled_8bit.tflite --target cortex-m55 \
// RUN:   --sequence %serenity_src/test/tflite-seq/keyword_scrambled_8bit.seq0 | FileCheck %s --check-prefix=KWS %}
// KWS1: state 5120 bytes
// KWS1: PASS
// KWS: state 5120 bytes, 15 steps
// KWS: step 12 (after reset) 0: 2 elements, {{.*}} 0 beyond tolerance
// KWS-COUNT-7: step 12 (after reset) state state{{[0-9]+}}: {{(512|1024)}} values, {{.*}} 0 differ
// KWS: step 14 state state46: 1024 values, {{.*}} 0 differ
// KWS: PASS
