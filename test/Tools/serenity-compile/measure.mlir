// examples/deploy/measure.py: per MLPerf Tiny model compiled for a Cortex-M
// board and run on QEMU (cortex-m4: mps2-an386; cortex-m55: mps3-an547,
// Helium), the arena (io=arena, and arena + io with io=caller) next to
// TensorFlow Lite Micro's, the stack high-water mark of NAME_run, .text,
// .rodata and flash of the object and the instruction count (QEMU -icount
// shift=0, the board's timer calibrated in the run), with TFLite Micro +
// CMSIS-NN's flash and instructions on the same board (data/tflm_cmsis_nn.json)
// and the ratio. The numbers are checked
// to be there and sane; the arena must not exceed TFLite Micro's smallest
// arena. On the Cortex-M4 the instructions must stay at or below TFLite Micro
// with CMSIS-NN's (issue 37's table: 583,400 / 7,698,600 / 29,864,680 /
// 2,227,680 / 24,103,680).
// REQUIRES: shared, cortex-m
// RUN: env PATH=%serenity_obj/bin:%PATH% %python %serenity_src/examples/deploy/measure.py > %t.txt
// RUN: env PATH=%serenity_obj/bin:%PATH% %python %serenity_src/examples/deploy/measure.py --target cortex-m55 > %t.m55.txt
// RUN: FileCheck %s < %t.txt
// RUN: FileCheck %s < %t.m55.txt
// CHECK: | model | arena, io=arena | arena + io, io=caller | TFLM smallest arena | TFLM activations | stack (bytes) | .text | .rodata | flash | TFLM program flash | instructions | TFLM+CMSIS-NN instructions | ratio |
// CHECK: | ad01_int8 | {{[0-9]+}} | {{[0-9]+}} | 4080 | 768 | {{[0-9]+}} | {{[0-9]+}} | {{[0-9]+}} | {{[0-9]+}} | {{[0-9]+}} | {{[0-9]+}} | {{[0-9]+}} | {{[0-9.]+}}x |
// CHECK: | kws_ref_model | {{[0-9]+}} | {{[0-9]+}} | 23992 | 16000 |
// CHECK: | pretrainedResnet_quant | {{[0-9]+}} | {{[0-9]+}} | 55704 | 49152 |
// CHECK: | str_ww_ref_model | {{[0-9]+}} | {{[0-9]+}} | 16352 | 6656 |
// CHECK: | vww_96_int8 | {{[0-9]+}} | {{[0-9]+}} | 103392 | 73728 |
// DEFINE: %{sane} = %python -c "import sys; rows = [l.split('|')[1:-1] for l in sys.stdin if l.startswith('| ') and l.split('|')[2].strip().isdigit()]; bad = [r[0] for r in rows if int(r[1]) > int(r[3]) or int(r[5]) <= 0 or int(r[10]) <= 0 or int(r[8]) != int(r[6]) + int(r[7])]; print('%%d models, arena above TFLM or empty measure: %%s' %% (len(rows), bad or 'none'))"
// RUN: %{sane} < %t.txt | FileCheck %s --check-prefix=SANE
// RUN: %{sane} < %t.m55.txt | FileCheck %s --check-prefix=SANE
// SANE: 5 models, arena above TFLM or empty measure: none
// RUN: %python -c "import sys; cmsis = {'ad01_int8': 583400, 'kws_ref_model': 7698600, 'pretrainedResnet_quant': 29864680, 'str_ww_ref_model': 2227680, 'vww_96_int8': 24103680}; rows = [l.split('|')[1:-1] for l in sys.stdin if l.startswith('| ') and l.split('|')[2].strip().isdigit()]; print('above CMSIS-NN on the M4:', [r[0].strip() for r in rows if int(r[10]) > cmsis[r[0].strip()]] or 'none')" < %t.txt | FileCheck %s --check-prefix=M4
// M4: above CMSIS-NN on the M4: none
