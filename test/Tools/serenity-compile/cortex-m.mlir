// serenity-compile for the Cortex-M4, M7 and M55 cores: objects for each (ARM EABI,
// hard float, no undefined symbols beyond libgcc's); the M4 one linked with a
// C program that includes the header runs on QEMU mps2-an386 and computes
// what the upstream reference lowering computes on the host.
// REQUIRES: cortex-m
// RUN: rm -rf %t && serenity-compile %serenity_src/examples/residual_block.mlir --target cortex-m7 -o %t/m7
// RUN: arm-none-eabi-readelf -A %t/m7/net.o | FileCheck %s --check-prefix=M7
// RUN: serenity-compile %serenity_src/examples/residual_block.mlir --target cortex-m55 -o %t/m55
// RUN: arm-none-eabi-readelf -A %t/m55/net.o | FileCheck %s --check-prefix=M55
// RUN: %python %integration/run_compiled.py %serenity_src/examples/residual_block.mlir --target cortex-m4 --atol 1e-5 --rtol 1e-5 | FileCheck %s
// M7: Tag_CPU_name: "cortex-m7"
// M7: Tag_FP_arch: FPv5/FP-D16 for ARMv8
// M7: Tag_ABI_VFP_args: VFP registers
// M55: Tag_CPU_name: "cortex-m55"
// M55: Tag_ABI_VFP_args: VFP registers
// M55: Tag_MVE_arch: MVE Integer and FP
// CHECK: undefined symbols of the object: none
// CHECK: cortex-m4 output 0: 4096 elements, {{.*}}, 0 beyond tolerance
// CHECK: PASS
