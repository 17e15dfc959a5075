// serenity-compile --float: a .tflite model imported as its dequantized
// float32 graph (import-tflite --float). TFLite Micro's micro_speech model
// (int8, ending in a softmax) as float32: float input and output in the
// header, expf (-lm) in the report, and the outputs of the compiled program
// equal the upstream reference lowering of the same float import, on the host
// and on QEMU's Cortex-M4 (linked with the report's link_flags).
// REQUIRES: shared
// RUN: rm -rf %t && serenity-compile %shared/models/tflite-micro/micro_speech_quantized.tflite --float -o %t
// RUN: FileCheck %s --check-prefix=HEADER < %t/net.h
// RUN: %python %integration/run_compiled.py %shared/models/tflite-micro/micro_speech_quantized.tflite --float --target host --atol 1e-5 --rtol 1e-4 | FileCheck %s --check-prefix=EXEC -DTARGET=host
// RUN: %if cortex-m %{ %python %integration/run_compiled.py %shared/models/tflite-micro/micro_speech_quantized.tflite --float --target cortex-m4 --atol 1e-5 --rtol 1e-4 | FileCheck %s --check-prefix=EXEC -DTARGET=cortex-m4 %}
// Without --float the same model is int8, with no math library.
// RUN: serenity-compile %shared/models/tflite-micro/micro_speech_quantized.tflite -o %t/int8
// RUN: FileCheck %s --check-prefix=INT8 < %t/int8/net.h
// A .mlir model has its own types: --float is an error.
// RUN: not serenity-compile %serenity_src/examples/residual_block.mlir --float -o %t/x 2>&1 | FileCheck %s --check-prefix=NOTFLITE
// HEADER: Link with -lm (the C math library: expf).
// HEADER: /* input 0: float[1][1960] */
// HEADER: /* output 0: float[1][4] */
// EXEC: [[TARGET]] output 0: 4 elements, {{.*}}, 0 beyond tolerance
// EXEC: PASS
// INT8: No math library: link without -lm.
// INT8: /* input 0: int8_t[1][1960], real = scale * (q - zero_point) */
// NOTFLITE: serenity-compile: error: --float applies to .tflite models
