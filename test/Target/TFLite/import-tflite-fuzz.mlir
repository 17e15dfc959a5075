// Files scripts/fuzz-tflite.py found crashing the importer under ASan + UBSan,
// rebuilt as one 4-byte patch of a committed test model each: now a
// diagnostic naming the file.
//
// add_bcast_int8_relu.tflite, the word at 292 (an offset to a tensor's
// int64 zero points, 8) set to 4: the vector's length stays 4-byte aligned,
// its elements do not (fuzz-tflite seed 3, case 1318: UBSan "load of
// misaligned address ... for type 'const long'").
// RUN: cp %serenity_src/test/tflite-ops/models/add_bcast_int8_relu.tflite %t.misaligned.tflite
// RUN: printf '\004\000\000\000' | dd of=%t.misaligned.tflite bs=1 seek=292 conv=notrunc 2>/dev/null
// RUN: not serenity-translate --import-tflite %t.misaligned.tflite -o /dev/null 2>&1 | FileCheck %s --check-prefix=MISALIGNED
// MISALIGNED: misaligned.tflite:0:0: error: quantization field 3 (a vector of 8-byte elements) is misaligned: file is truncated or corrupt
//
// pack_int8_axis0.tflite, PACK's second input (the word at 272, tensor 1)
// set to -1, an absent optional input: PACK reads every input it lists
// (fuzz-tflite seed 3, case 1686, a random network: UBSan "addition of
// unsigned offset ... overflowed" reading tensor -1).
// RUN: cp %serenity_src/test/tflite-ops/models/pack_int8_axis0.tflite %t.absent.tflite
// RUN: printf '\377\377\377\377' | dd of=%t.absent.tflite bs=1 seek=272 conv=notrunc 2>/dev/null
// RUN: not serenity-translate --import-tflite %t.absent.tflite -o /dev/null 2>&1 | FileCheck %s --check-prefix=ABSENT
// ABSENT: absent.tflite:0:0: error: operator 0 (PACK): an input it reads is absent (tensor index -1)
// ABSENT-NEXT: absent.tflite:0:0: note: at operator 0 PACK
