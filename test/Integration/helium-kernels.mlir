// The Helium kernels on QEMU mps3-an547 (Cortex-M55), bit for bit against
// the upstream reference lowering run by mlir-runner: 24 seeded random int8
// convolution networks (random_conv_nets.py: channel counts that are not
// multiples of 16 or 4, odd and non-square windows, strides, dilations,
// padding, input zero points 0/-128/127/..., per-channel requantization with
// the multiplier 2^30 and shifts that make rounding ties frequent, tables of
// shift 31 only and power-of-two scales). Without the negative-value fixup
// before VRSHL, one network of each seed differs.
// REQUIRES: cortex-m
// RUN: %python %integration/random_conv_nets.py --seed 1 --cases 12 --target cortex-m55 | FileCheck %s
// RUN: %python %integration/random_conv_nets.py --seed 2 --cases 12 --target cortex-m55 | FileCheck %s
// CHECK: random conv nets on cortex-m55: 12 of 12 bit-exact
//
// The M55 object's convolution kernels are Helium code: VMLAVA.S8 dot
// products, VQRDMULH and VRSHL for the requantization and VLDRB gathers for
// the first layer's short rows (kws); the Cortex-M4 object has none of them
// (SMLAD instead).
// REQUIRES: shared
// RUN: rm -rf %t && serenity-compile %shared/models/mlperf_tiny/kws_ref_model.tflite --target cortex-m55 --name kws -o %t/m55
// RUN: serenity-compile %shared/models/mlperf_tiny/kws_ref_model.tflite --target cortex-m4 --name kws -o %t/m4
// RUN: llvm-objdump -d --mcpu=cortex-m55 %t/m55/kws.o | %python -c "import re, sys; text = sys.stdin.read(); print('m55', *('%%s=%%d' %% (k, len(re.findall(p, text))) for k, p in [('vmlava', r'\bvmlava\.s8'), ('vqrdmulh', r'\bvqrdmulh\.s32'), ('vrshl', r'\bvrshl\.s32'), ('gather', r'\bvldrbt?\.u8\s+q\d+, \[r\d+, q\d+\]'), ('smlad', r'\bsmlad\b')]))" | FileCheck %s --check-prefix=M55
// M55: m55 vmlava={{[1-9][0-9]*}} vqrdmulh={{[1-9][0-9]*}} vrshl={{[1-9][0-9]*}} gather={{[1-9][0-9]*}}
// RUN: llvm-objdump -d --mcpu=cortex-m4 %t/m4/kws.o | %python -c "import re, sys; text = sys.stdin.read(); print('m4', *('%%s=%%d' %% (k, len(re.findall(p, text))) for k, p in [('vmlava', r'\bvmlava'), ('vqrdmulh', r'\bvqrdmulh'), ('smlad', r'\bsmlad\b')]))" | FileCheck %s --check-prefix=M4
// M4: m4 vmlava=0 vqrdmulh=0 smlad={{[1-9][0-9]*}}
