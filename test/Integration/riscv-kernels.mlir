// The kernels of the riscv32-imc and riscv32-imac targets on QEMU virt (the
// core limited to those extensions), bit for bit against the upstream
// reference lowering run by mlir-runner: seeded random int8 convolution
// networks (random_conv_nets.py: channel counts that are not multiples of 4,
// odd and non-square windows, strides, dilations, padding, zero points
// 0/-128/127/..., per-channel requantization with ties).
// REQUIRES: riscv
// RUN: %python %integration/random_conv_nets.py --seed 6 --cases 16 --target riscv32-imc | FileCheck %s --check-prefix=IMC
// RUN: %python %integration/random_conv_nets.py --seed 7 --cases 8 --target riscv32-imac | FileCheck %s --check-prefix=IMAC
// IMC: random conv nets on riscv32-imc: 16 of 16 bit-exact
// IMAC: random conv nets on riscv32-imac: 8 of 8 bit-exact
//
// The rv32imc object is RV32IMC code: multiplies (MUL, MULH* for the
// requantization's 64-bit products, no libgcc call for them), sign-extending
// byte loads (LB) in the kernels, no atomics (A), no floating point (F), and
// no call but memset.
// REQUIRES: shared
// RUN: rm -rf %t && serenity-compile %shared/models/mlperf_tiny/kws_ref_model.tflite --target riscv32-imc --name kws -o %t > /dev/null
// RUN: llvm-objdump -d --mattr=+m,+c %t/kws.o | %python -c "import re, sys; text = sys.stdin.read(); print('rv32imc', *('%%s=%%d' %% (k, len(re.findall(p, text))) for k, p in [('mul', r'\tmul\b'), ('mulh', r'\tmulh'), ('lb', r'\tlb\b'), ('amo', r'\t(amo|lr\.|sc\.)'), ('fp', r'\tf[a-z]+\.[sd]\b|\tf(lw|sw|ld|sd)\b'), ('unknown', r'<unknown>')]))" \
// RUN:   | FileCheck %s --check-prefix=ISA
// RUN: llvm-nm -u %t/kws.o | FileCheck %s --check-prefix=CALLS
// ISA: rv32imc mul={{[1-9][0-9]*}} mulh={{[1-9][0-9]*}} lb={{[1-9][0-9]*}} amo=0 fp=0 unknown=0
// CALLS-NOT: __
// CALLS: memset
// CALLS-NOT: __
