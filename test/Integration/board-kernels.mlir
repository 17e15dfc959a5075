// The kernels of the Cortex-M4, M7, M33 and M0+ targets on their QEMU
// boards (mps2-an386, mps2-an500, mps2-an505, ARMv6-M code on mps2-an385), bit for
// bit against the upstream reference lowering run by mlir-runner: seeded
// random int8 convolution networks (random_conv_nets.py: channel counts
// that are not multiples of 4, odd and non-square windows, strides,
// dilations, padding, zero points 0/-128/127/..., per-channel
// requantization with ties).
// REQUIRES: cortex-m
// RUN: %python %integration/random_conv_nets.py --seed 3 --cases 12 --target cortex-m7 | FileCheck %s --check-prefix=M7
// RUN: %python %integration/random_conv_nets.py --seed 4 --cases 12 --target cortex-m33 | FileCheck %s --check-prefix=M33
// RUN: %python %integration/random_conv_nets.py --seed 5 --cases 12 --target cortex-m0plus | FileCheck %s --check-prefix=M0PLUS
// The Cortex-M4 (mps2-an386): both loop orders of the fused nests
// (channel-blocks-first puts the blocks outermost in some cases, not all).
// RUN: %python %integration/random_conv_nets.py --seed 8 --cases 16 --target cortex-m4 | FileCheck %s --check-prefix=M4
// M4: random conv nets on cortex-m4: 16 of 16 bit-exact (seed 8); {{([1-9]|1[0-5])}} with channel blocks outermost
// M7: random conv nets on cortex-m7: 12 of 12 bit-exact
// M33: random conv nets on cortex-m33: 12 of 12 bit-exact
// M0PLUS: random conv nets on cortex-m0plus: 12 of 12 bit-exact
//
// The M7 and M33 objects use the DSP extension's dot products (SMLAD); the
// M0+ object is ARMv6-M code: no SMLAD, no hardware divide (SDIV/UDIV), no
// FPU instructions, which the M0+ does not have.
// REQUIRES: shared
// RUN: rm -rf %t && for t in cortex-m7 cortex-m33 cortex-m0plus; do \
// RUN:   serenity-compile %shared/models/mlperf_tiny/kws_ref_model.tflite --target $t --name kws -o %t/$t > /dev/null || exit 1; \
// RUN:   llvm-objdump -d --mcpu=$t %t/$t/kws.o | %python -c "import re, sys; text = sys.stdin.read(); print('$t', *('%%s=%%d' %% (k, len(re.findall(p, text))) for k, p in [('smlad', r'\bsmlad\b'), ('div', r'\b[su]div\b'), ('vfp', r'\bv(ldr|str|mov|add|mul|cvt)\b'), ('unknown', r'<unknown>')]))"; \
// RUN: done | FileCheck %s --check-prefix=ISA
// ISA: cortex-m7 smlad={{[1-9][0-9]*}}
// ISA: cortex-m33 smlad={{[1-9][0-9]*}}
// ISA: cortex-m0plus smlad=0 div=0 vfp=0 unknown=0
