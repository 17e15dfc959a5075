// examples/deploy/measure.py on the boards of issue 49 with a recorded anchor
// (python/serenity/data/tflm_cmsis_nn.json, measured on the same QEMU boards):
// the five MLPerf Tiny models must take at most TFLite Micro + CMSIS-NN's
// instructions on the Cortex-M0+ (CMSIS-NN's pure C kernels) and at most half
// of TFLite Micro's reference kernels' on RISC-V rv32imc, with less flash and
// a smaller arena + stack than TFLite Micro's arena. Instruction counts are
// QEMU's -icount counts: the same on any machine.
// REQUIRES: shared, cortex-m, riscv
// RUN: env PATH=%serenity_obj/bin:%PATH% %python %serenity_src/examples/deploy/measure.py --target cortex-m0plus > %t.m0plus.txt
// RUN: env PATH=%serenity_obj/bin:%PATH% %python %serenity_src/examples/deploy/measure.py --target riscv32-imc > %t.riscv.txt
// RUN: FileCheck %s --check-prefix=M0PLUS < %t.m0plus.txt
// RUN: FileCheck %s --check-prefix=RISCV < %t.riscv.txt
// M0PLUS: | TFLM+CMSIS-NN instructions | ratio |
// RISCV: | TFLM reference kernels instructions | ratio |
// DEFINE: %{goal} = %python -c "import json, sys; limit = float(sys.argv[1]); tflm = json.load(open(sys.argv[2]))[sys.argv[3]]; rows = [[c.strip() for c in l.split('|')[1:-1]] for l in sys.stdin if l.startswith('| ') and l.split('|')[2].strip().isdigit()]; bad = [r[0] for r in rows if int(r[10]) > limit * tflm[r[0]]['instructions'] or int(r[8]) >= tflm[r[0]]['flash'] or int(r[1]) + int(r[5]) >= tflm[r[0]]['arena']]; print('%%d models, %%s: %%s' %% (len(rows), sys.argv[3], bad or 'all within'))"
// RUN: %{goal} 1.0 %serenity_src/python/serenity/data/tflm_cmsis_nn.json cortex-m0plus < %t.m0plus.txt | FileCheck %s --check-prefix=GOAL0
// RUN: %{goal} 0.5 %serenity_src/python/serenity/data/tflm_cmsis_nn.json riscv32-imc < %t.riscv.txt | FileCheck %s --check-prefix=GOAL1
// GOAL0: 5 models, cortex-m0plus: all within
// GOAL1: 5 models, riscv32-imc: all within
