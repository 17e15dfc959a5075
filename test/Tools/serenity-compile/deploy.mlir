// docs/Deploy.md, run as written (examples/deploy/deploy.sh): the keyword
// spotting .tflite model through serenity-compile for Cortex-M4, Cortex-M55
// and the host, examples/deploy/kws_main.c built against each, run on QEMU
// mps2-an386, QEMU mps3-an547 and natively, then on the M7, M33 and M0+
// boards and on RISC-V (rv32imc on QEMU virt, where its tools are installed:
// a differing score fails the script either way): the same scores.
// REQUIRES: shared, cortex-m
// RUN: env SERENITY_BUILD_DIR=%serenity_obj bash %serenity_src/examples/deploy/deploy.sh %shared/models/mlperf_tiny/kws_ref_model.tflite %t | FileCheck %s
// CHECK: serenity-compile: wrote out/kws.o, out/kws.h, out/kws.json (arena {{[0-9]+}} bytes, flash {{[0-9]+}} bytes: text {{[0-9]+}}, rodata {{[0-9]+}})
// CHECK: kws.elf
// CHECK: class  0: q =
// CHECK: best class {{[0-9]+}}; arena {{[0-9]+}} bytes
// CHECK: QEMU and host print the same scores
// CHECK: QEMU Cortex-M55 and host print the same scores
// CHECK: QEMU cortex-m7 (mps2-an500) and host print the same scores
// CHECK: QEMU cortex-m33 (mps2-an505) and host print the same scores
// CHECK: QEMU cortex-m0plus (mps2-an385) and host print the same scores
// CHECK: {{QEMU riscv32-imc \(virt\) and host print the same scores|RISC-V skipped}}
