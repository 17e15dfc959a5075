// serenity-compile --help lists the tool's own options, not the few hundred
// lines of options the LLVM libraries register; --help-hidden lists those too.
// RUN: serenity-compile --help | FileCheck %s
// RUN: serenity-compile --help | %python -c "import sys; n = len(sys.stdin.readlines()); sys.exit(0 if n < 40 else f'{n} lines')"
// RUN: serenity-compile --help-hidden | FileCheck %s --check-prefix=HIDDEN
// CHECK: USAGE: serenity-compile [options] <MODEL.mlir|MODEL.tflite>
// CHECK-NOT: --arm-
// CHECK: serenity-compile options:
// CHECK-NOT: --arm-
// CHECK: --float
// CHECK: --target=<string>
// CHECK-NOT: --arm-
// HIDDEN: --arm-
// HIDDEN: --target=<string>
