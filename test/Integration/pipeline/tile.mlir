// serenity-pipeline{tile=ffmt}: fused feature-map tiling, executed with
// mlir-runner against the upstream reference lowering of the untiled network
// on the same seeded inputs. Tiles compute every output element with the
// same arithmetic in the same order, so f32 must match exactly as well.
// Inputs/ffmt-int8-chain.mlir has a 4-D int8 output (512 elements, every
// one compared) and every tile case: padded 3x3 conv with an input zero
// point, max pool with padding, strided depthwise conv with asymmetric
// padding, average pool with padding (its divisor counts real pixels only),
// a per-channel broadcast add. Swapping a tile's top and bottom padding in
// the rewrite makes it fail (223 of 512 elements differ).
// RUN: %python %integration/compare_lowering.py %S/Inputs/ffmt-int8-chain.mlir --atol 0 --rtol 0 --options "tile=ffmt tile-max-mac-overhead=100" | FileCheck %s --check-prefixes=CHECK,TILED
// RUN: %python %integration/compare_lowering.py %S/Inputs/ffmt-int8-chain.mlir --atol 0 --rtol 0 --options "tile=ffmt concat=inplace io=arena" | FileCheck %s --check-prefixes=CHECK,TILED
// Fused depthwise (channel) tiling: the int8 chain bit-exact with its
// channel regions (conv split by output channels, per-channel rescale,
// clamp, max pool, depthwise conv, concat), and an f32 inverted residual
// block whose projection is split by input channels (partial sums added:
// float summation order changes, 1e-4).
// RUN: %python %integration/compare_lowering.py %S/Inputs/ffmt-int8-chain.mlir --atol 0 --rtol 0 --options "tile=fdt" | FileCheck %s --check-prefixes=CHECK,FDT
// RUN: %python %integration/compare_lowering.py %S/Inputs/ffmt-int8-chain.mlir --atol 0 --rtol 0 --options "tile=both io=arena fuse-requantization=0" | FileCheck %s --check-prefixes=CHECK,TILED
// RUN: %python %integration/compare_lowering.py %S/Inputs/fdt-inverted-residual.mlir --atol 1e-4 --rtol 1e-4 --options "tile=fdt" | FileCheck %s --check-prefixes=FANIN
// RUN: %python %integration/compare_lowering.py %S/Inputs/fdt-explicit-split.mlir --func split --atol 1e-4 --rtol 1e-4 --options "tile=fdt" | FileCheck %s --check-prefixes=FANIN
// FDT: serenity-tile: fdt {{[0-9]+}} channel partitions
// FANIN: serenity-tile: fdt {{[0-9]+}} channel partitions {{.*}}(fan-in)
// FANIN: PASS
// RUN: %python -m serenity gen resnet8 --dtype i8 --weights random -o %t.resnet8.mlir
// RUN: %python %integration/compare_lowering.py %t.resnet8.mlir --atol 0 --rtol 0 --options "tile=ffmt io=arena" | FileCheck %s --check-prefixes=CHECK,TILED
// The greedy search (one region, the best peak first: 32256 B at +18.5 %
// MACs) misses the two smaller regions a beam of 4 partial tilings finds:
// less RAM for fewer MACs, and still bit-exact.
// RUN: %python %integration/compare_lowering.py %t.resnet8.mlir --atol 0 --rtol 0 --options "tile=ffmt io=arena tile-beam-width=4" | FileCheck %s --check-prefixes=CHECK,BEAM
// BEAM: serenity-tile: ffmt {{.*}}; peak 49152 -> 32768 bytes; MACs +6.5%
// BEAM: serenity-tile: ffmt {{.*}}; peak 32768 -> 29696 bytes; MACs +7.7%
// RUN: %python -m serenity gen vww --dtype i8 --resolution 48 --weights random -o %t.vww.mlir
// RUN: %python %integration/compare_lowering.py %t.vww.mlir --atol 0 --rtol 0 --options "tile=ffmt tile-max-mac-overhead=100" | FileCheck %s --check-prefixes=CHECK,TILED
// RUN: %python -m serenity gen mobilenetv2 --channels 8 --resolution 32 --weights random --param classes=10 -o %t.mbv2.mlir
// RUN: %python %integration/compare_lowering.py %t.mbv2.mlir --atol 0 --rtol 0 --options "tile=ffmt" | FileCheck %s --check-prefixes=CHECK,TILED
// RUN: %python %integration/compare_lowering.py %t.mbv2.mlir --atol 1e-4 --rtol 1e-4 --options "tile=fdt" | FileCheck %s --check-prefix=FDTF32
// FDTF32: serenity-tile: fdt
// FDTF32: PASS
// RUN: %python -m serenity gen densenet-block --channels 8 --resolution 16 --param layers=3 --param growth=8 --weights random -o %t.dense.mlir
// RUN: %python %integration/compare_lowering.py %t.dense.mlir --atol 0 --rtol 0 --options "tile=ffmt tile-max-mac-overhead=100" | FileCheck %s --check-prefixes=CHECK,TILED
// RUN: %python %integration/compare_lowering.py %t.dense.mlir --atol 1e-4 --rtol 1e-4 --options "tile=fdt concat=inplace" | FileCheck %s --check-prefix=ANY
// ANY: PASS
// RUN: %python -m serenity gen randwire-stage --channels 8 --resolution 16 --param nodes=12 --weights random -o %t.rw.mlir
// RUN: %python %integration/compare_lowering.py %t.rw.mlir --atol 0 --rtol 0 --options "tile=ffmt tile-max-mac-overhead=100" | FileCheck %s
// RUN: %python %integration/compare_lowering.py %t.rw.mlir --atol 1e-4 --rtol 1e-4 --options "tile=fdt" | FileCheck %s --check-prefix=ANY
// The random RandWire stage's peak is not in a tileable region (no TILED).
// TILED: serenity-tile: ffmt
// CHECK: serenity-pipeline: 0 memref.alloc left in @{{.*}}, arena {{[0-9]+}} bytes
// CHECK: output 0: {{.*}}, max abs diff 0, 0 beyond tolerance
// CHECK: PASS
