// Every case of corpus.mlir through every Serenity pass and pipeline variant:
// the exit status may be 0 or 1 (a diagnostic), never a crash (a signal, an
// LLVM "PLEASE submit a bug report") or a hang (60 s).
// RUN: split-file %S/corpus.mlir %t
// RUN: bash %S/crash-check.sh %t serenity-opt | FileCheck %s
// CHECK: checked 13 inputs x 21 pass lists, 0 crashes or hangs
