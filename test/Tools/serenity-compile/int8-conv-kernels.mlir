// The int8 convolution kernels (serenity-int8-conv-kernels) compute what the
// upstream reference lowering computes, bit for bit: seeded int8 networks
// with random weights (padded 3x3 convs with three input channels, clipped
// border windows, 1x1 and depthwise convs, channel counts not divisible by
// four, zero and non-zero input zero points) through serenity-compile, on
// QEMU's Cortex-M4 (SXTB16/SMLAD) and on the host with conv-kernels=dot (the
// same loops in plain arithmetic).
// REQUIRES: cortex-m
// RUN: %python -m serenity gen random-dag --dtype i8 --weights random --resolution 16 --seed 3 -o %t-dag.mlir
// RUN: %python %integration/run_compiled.py %t-dag.mlir --target cortex-m4 | FileCheck %s --check-prefix=M4
// RUN: %python %integration/run_compiled.py %t-dag.mlir --target host --pipeline "conv-kernels=dot" | FileCheck %s --check-prefix=HOST
// RUN: %python -m serenity gen residual-concat --dtype i8 --weights random -o %t-rc.mlir
// RUN: %python %integration/run_compiled.py %t-rc.mlir --target cortex-m4 | FileCheck %s --check-prefix=M4
// RUN: %python %integration/run_compiled.py %t-rc.mlir --target host --pipeline "conv-kernels=dot" | FileCheck %s --check-prefix=HOST
// RUN: %python -m serenity gen kws-dscnn --dtype i8 --weights random -o %t-kws.mlir
// RUN: %python %integration/run_compiled.py %t-kws.mlir --target cortex-m4 | FileCheck %s --check-prefix=M4
// RUN: %python %integration/run_compiled.py %t-kws.mlir --target host --pipeline "conv-kernels=dot" | FileCheck %s --check-prefix=HOST
// With a flash budget: some filters widened, the others read as int8.
// RUN: %python %integration/run_compiled.py %t-kws.mlir --target cortex-m4 --pipeline "widen-budget=4096" | FileCheck %s --check-prefix=M4
// RUN: %python -m serenity gen mobilenetv2 --channels 8 --resolution 32 --dtype i8 --weights random -o %t-mnv2.mlir
// RUN: %python %integration/run_compiled.py %t-mnv2.mlir --target cortex-m4 | FileCheck %s --check-prefix=M4
// M4: cortex-m4 output 0: {{.*}}, max abs diff 0, 0 beyond tolerance
// M4: PASS
// HOST: host output 0: {{.*}}, max abs diff 0, 0 beyond tolerance
// HOST: PASS
