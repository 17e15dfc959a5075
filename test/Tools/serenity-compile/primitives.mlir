// Every convolution primitive computes what the upstream reference lowering
// computes: seeded networks with random weights, one primitive on every
// convolution it applies to (serenity-pipeline primitives=P), compiled with
// serenity-compile and run on the host and on QEMU's Cortex-M4; int8
// bit-exact, f32 within 1e-4 relative (Winograd's transforms round
// differently).
// RUN: %python -m serenity gen resnet8 --dtype f32 --weights random --channels 8 --resolution 16 -o %t-f32.mlir
// RUN: %python %integration/run_compiled.py %t-f32.mlir --target host --pipeline "primitives=im2col" --rtol 1e-4 --atol 1e-5 | FileCheck %s --check-prefix=HOST
// RUN: %python %integration/run_compiled.py %t-f32.mlir --target host --pipeline "primitives=winograd2" --rtol 1e-4 --atol 1e-5 | FileCheck %s --check-prefix=HOST
// RUN: %python %integration/run_compiled.py %t-f32.mlir --target host --pipeline "primitives=winograd4" --rtol 1e-4 --atol 1e-5 | FileCheck %s --check-prefix=HOST
// RUN: %python %integration/run_compiled.py %t-f32.mlir --target host --pipeline "primitives=vector" --rtol 1e-4 --atol 1e-5 | FileCheck %s --check-prefix=HOST
// Output widths 20, 10 and 5: the vector blocks split off the columns 4 does
// not divide (stride 1 and 2).
// RUN: %python -m serenity gen resnet8 --dtype f32 --weights random --channels 8 --resolution 20 -o %t-f32-20.mlir
// RUN: %python %integration/run_compiled.py %t-f32-20.mlir --target host --pipeline "primitives=vector tile=none" --rtol 1e-4 --atol 1e-5 | FileCheck %s --check-prefix=HOST
// RUN: %python -m serenity gen mobilenetv2 --dtype f32 --weights random --channels 8 --resolution 32 -o %t-mv2.mlir
// RUN: %python %integration/run_compiled.py %t-mv2.mlir --target host --pipeline "primitives=vector" --rtol 1e-4 --atol 1e-4 | FileCheck %s --check-prefix=HOST
// RUN: %python -m serenity gen resnet8 --dtype i8 --weights random --channels 8 --resolution 16 -o %t-i8.mlir
// RUN: %python %integration/run_compiled.py %t-i8.mlir --target host --pipeline "primitives=im2col" | FileCheck %s --check-prefix=HOST-EXACT
// RUN: %python %integration/run_compiled.py %t-i8.mlir --target host --pipeline "primitives=dot" | FileCheck %s --check-prefix=HOST-EXACT
// RUN: %python -m serenity gen kws-dscnn --dtype i8 --weights random -o %t-kws.mlir
// RUN: %python %integration/run_compiled.py %t-kws.mlir --target host --pipeline "primitives=im2col" | FileCheck %s --check-prefix=HOST-EXACT
// HOST: host output 0: {{.*}}, 0 beyond tolerance
// HOST: PASS
// HOST-EXACT: host output 0: {{.*}}, max abs diff 0, 0 beyond tolerance
// HOST-EXACT: PASS
