// Damaged and foreign files are diagnostics naming the file, never crashes.
// RUN: head -c 200 %serenity_src/test/tflite-ops/models/conv_per_channel_stride2_same_relu6.tflite > %t.truncated.tflite
// RUN: not serenity-translate --import-tflite %t.truncated.tflite 2>&1 | FileCheck %s --check-prefix=TRUNC
// RUN: printf 'xxxxABCD this is not a model' > %t.text.tflite
// RUN: not serenity-translate --import-tflite %t.text.tflite 2>&1 | FileCheck %s --check-prefix=IDENT
// RUN: printf 'abc' > %t.tiny.tflite
// RUN: not serenity-translate --import-tflite %t.tiny.tflite 2>&1 | FileCheck %s --check-prefix=TINY
// RUN: not serenity-compile %t.truncated.tflite -o %t.out 2>&1 | FileCheck %s --check-prefix=COMPILE
// RUN: not serenity-opt %t.text.tflite 2>&1 | FileCheck %s --check-prefix=IDENT
// An operator's error names it, its location in a note (index, builtin, output tensor).
// RUN: not serenity-translate --import-tflite %serenity_src/test/tflite-ops/models/add_int16.tflite --tflite-rounding=single 2>&1 | FileCheck %s --check-prefix=OPERATOR
// RUN: not serenity-translate --import-tflite %serenity_src/test/tflite-ops/models/relu_int8.tflite --tflite-rounding=nearest 2>&1 | FileCheck %s --check-prefix=ROUNDING
// RUN: not serenity-translate --import-tflite %serenity_src/test/tflite-ops/models/relu_int8.tflite --tflite-only-op=7 2>&1 | FileCheck %s --check-prefix=ONLY
//
// TRUNC: truncated.tflite:0:0: error: {{.*}}file is truncated or corrupt
// IDENT: text.tflite:0:0: error: not a TFLite model: file identifier is 'ABCD', expected 'TFL3'
// TINY: tiny.tflite:0:0: error: file is too small to be a TFLite model (3 bytes)
// COMPILE: truncated.tflite:0:0: error: {{.*}}file is truncated or corrupt
// COMPILE: serenity-compile: error: importing {{.*}}truncated.tflite failed
// ROUNDING: error: unknown rounding mode 'nearest' (use double, single or armnn)
// ONLY: error: operator index 7 out of range
// OPERATOR: add_int16.tflite:0:0: error: operator 0 (ADD): broadcasting integer ADD is imported with TFLite's arithmetic only (--rounding=double)
// OPERATOR-NEXT: add_int16.tflite:0:0: note: at operator 0 ADD 'out0'
