// examples/deploy/measure.py: per MLPerf Tiny model compiled for Cortex-M4
// and run on QEMU, the arena (io=arena, and arena + io with io=caller) next to
// TensorFlow Lite Micro's, the stack high-water mark of NAME_run, .text and
// .rodata of the object and the instruction count (QEMU -icount shift=0,
// CMSDK timer). The numbers are checked to be there and sane; the arena must
// not exceed TFLite Micro's smallest arena.
// REQUIRES: shared, cortex-m
// RUN: env PATH=%serenity_obj/bin:%PATH% %python %serenity_src/examples/deploy/measure.py > %t.txt
// RUN: FileCheck %s < %t.txt
// CHECK: | model | arena, io=arena | arena + io, io=caller | TFLM smallest arena | TFLM activations | stack (bytes) | .text | .rodata | instructions |
// CHECK: | ad01_int8 | {{[0-9]+}} | {{[0-9]+}} | 4080 | 768 | {{[0-9]+}} | {{[0-9]+}} | {{[0-9]+}} | {{[0-9]+}} |
// CHECK: | kws_ref_model | {{[0-9]+}} | {{[0-9]+}} | 23992 | 16000 |
// CHECK: | pretrainedResnet_quant | {{[0-9]+}} | {{[0-9]+}} | 55704 | 49152 |
// CHECK: | str_ww_ref_model | {{[0-9]+}} | {{[0-9]+}} | 16352 | 6656 |
// CHECK: | vww_96_int8 | {{[0-9]+}} | {{[0-9]+}} | 103392 | 73728 |
// RUN: %python -c "import sys; rows = [l.split('|')[1:-1] for l in sys.stdin if l.startswith('| ') and l.split('|')[2].strip().isdigit()]; bad = [r[0] for r in rows if int(r[1]) > int(r[3]) or int(r[5]) <= 0 or int(r[8]) <= 0]; print('%%d models, arena above TFLM or empty measure: %%s' %% (len(rows), bad or 'none'))" < %t.txt | FileCheck %s --check-prefix=SANE
// SANE: 5 models, arena above TFLM or empty measure: none
