// serenity-compile --print-targets prints the target table
// (include/Serenity/Target/TargetDescription.h) as JSON, without a model or
// -o, in the format python/serenity/deploy.py reads (docs/Deploy.md).
// RUN: serenity-compile --print-targets | FileCheck %s
// RUN: serenity-compile --print-targets | %python -c "import json, sys; t = json.load(sys.stdin)['targets']; sys.exit(0 if [x['name'] for x in t] == ['host', 'cortex-m4', 'cortex-m7', 'cortex-m33', 'cortex-m55', 'cortex-m0plus', 'riscv32-imc', 'riscv32-imac'] else t)"
// A budget needs a target with a QEMU board (the table's).
// RUN: not serenity-compile %s --target host --ram-budget 1000 -o %t 2>&1 | FileCheck %s --check-prefix=NOBOARD

// CHECK:      "targets": [
// CHECK:        "name": "host"
// CHECK:        "qemu_machine": null
// CHECK:        "cflags": [
// CHECK-NEXT:     "-mcpu=cortex-m4",
// CHECK-NEXT:     "-mthumb",
// CHECK-NEXT:     "-mfloat-abi=hard",
// CHECK-NEXT:     "-mfpu=fpv4-sp-d16"
// CHECK-NEXT:   ],
// CHECK:        "features": "+dsp,+hwdiv,+vfp4d16sp,+fp16,-fp64,-d32,-neon",
// CHECK:        "name": "cortex-m4",
// CHECK:        "pipeline_target": "cortex-m",
// CHECK:        "qemu_machine": "mps2-an386",
// CHECK:        "triple": "thumbv7em-unknown-none-eabihf"
// CHECK:        "name": "cortex-m7",
// CHECK:        "qemu_machine": "mps2-an500",
// CHECK:        "name": "cortex-m33",
// CHECK:        "qemu_machine": "mps2-an505",
// CHECK:        "capabilities": {
// CHECK-NEXT:     "dsp": true,
// CHECK-NEXT:     "fpu": true,
// CHECK-NEXT:     "hardware_divide": true,
// CHECK-NEXT:     "mve": true,
// CHECK-NEXT:     "unaligned_access": true
// CHECK-NEXT:   },
// CHECK:        "float_abi": "hard",
// CHECK:        "name": "cortex-m55",
// CHECK:        "pipeline_target": "cortex-m-helium",
// CHECK:        "qemu_machine": "mps3-an547",
// CHECK:        "triple": "thumbv8.1m.main-unknown-none-eabihf"
// CHECK:        "capabilities": {
// CHECK-NEXT:     "dsp": false,
// CHECK-NEXT:     "fpu": false,
// CHECK-NEXT:     "hardware_divide": false,
// CHECK-NEXT:     "mve": false,
// CHECK-NEXT:     "unaligned_access": false
// CHECK-NEXT:   },
// CHECK:        "float_abi": "soft",
// CHECK:        "name": "cortex-m0plus",
// CHECK:        "pipeline_target": "cortex-m-baseline",
// CHECK:        "qemu_machine": "mps2-an385",
// CHECK:        "triple": "thumbv6m-unknown-none-eabi"
// CHECK:        "cc": "riscv64-unknown-elf-gcc",
// CHECK-NEXT:   "cflags": [
// CHECK-NEXT:     "-march=rv32imc",
// CHECK-NEXT:     "-mabi=ilp32"
// CHECK-NEXT:   ],
// CHECK:        "features": "+m,+c,+relax",
// CHECK:        "name": "riscv32-imc",
// CHECK:        "pipeline_target": "riscv32",
// CHECK:        "qemu_cpu": "rv32,a=off,f=off,d=off",
// CHECK-NEXT:   "qemu_machine": "virt",
// CHECK-NEXT:   "qemu_system": "qemu-system-riscv32",
// CHECK-NEXT:   "triple": "riscv32-unknown-unknown-elf"
// CHECK:        "name": "riscv32-imac",

// NOBOARD: serenity-compile: error: --ram-budget/--flash-budget need --target cortex-m4, cortex-m7, cortex-m33, cortex-m55, cortex-m0plus, riscv32-imc or riscv32-imac (the configurations are measured on QEMU)

func.func @main(%x: tensor<1x4xf32>) -> tensor<1x4xf32> {
  return %x : tensor<1x4xf32>
}
