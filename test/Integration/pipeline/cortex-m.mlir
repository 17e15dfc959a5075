// Cortex-M4 end to end: serenity-pipeline{target=cortex-m} (32-bit index) ->
// LLVM IR -> clang thumbv7em object (scripts/cortex-m/build-object.sh),
// linked with a generated C harness and run on QEMU's mps2-an386 board; the
// printed outputs must equal the host reference lowering. The object must not
// need malloc/free (all intermediates live in the static arena) nor the MLIR
// runtime's memrefCopy.
// REQUIRES: cortex-m
// RUN: %python %integration/run_cortex_m.py %serenity_src/examples/residual_block.mlir | FileCheck %s
// RUN: %python %integration/run_cortex_m.py %serenity_src/examples/residual_block.mlir --options "arena=argument alloc=best-fit" | FileCheck %s
// RUN: %python -m serenity gen resnet8 --dtype i8 --weights random -o %t.resnet8.mlir
// RUN: %python %integration/run_cortex_m.py %t.resnet8.mlir --atol 0 --rtol 0 | FileCheck %s
// RUN: %python %integration/run_cortex_m.py %t.resnet8.mlir --atol 0 --rtol 0 --options "outline-min-ops=0" | FileCheck %s
// RUN: %python -m serenity gen residual-concat --dtype i8 --weights random -o %t.residual-concat.mlir
// RUN: %python %integration/run_cortex_m.py %t.residual-concat.mlir --atol 0 --rtol 0 | FileCheck %s
// RUN: %python -m serenity gen randwire-stage --channels 4 --resolution 16 --seed 2 --weights random -o %t.randwire.mlir
// RUN: %python %integration/run_cortex_m.py %t.randwire.mlir | FileCheck %s
// CHECK: undefined symbols of the network object:
// CHECK-NOT: {{malloc|free|memrefCopy}}
// CHECK: cortex-m output 0: {{.*}}, 0 beyond tolerance
// CHECK: PASS
