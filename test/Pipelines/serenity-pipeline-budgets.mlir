// serenity-pipeline ram-budget/flash-budget: the tiling and widening options
// of the fastest configuration within both budgets in a frontier export
// (Inputs/kws-dscnn-i8.frontier.json, hand-written points); without a
// budget the export is not read.
// RUN: %python -m serenity gen kws-dscnn --dtype i8 -o %t.mlir
// Within 9000 B of RAM and 41000 B of flash: untiled, one filter widened.
// RUN: serenity-opt %t.mlir --serenity-pipeline="target=cortex-m lower-to-llvm=false frontier=%S/Inputs/kws-dscnn-i8.frontier.json ram-budget=9000 flash-budget=41000" 2>&1 | FileCheck %s --check-prefix=WIDE --implicit-check-not="serenity-tile:"
// Within 8000 B of RAM: tiled, two filters widened (the fastest tiled point;
// with in-place-convs=0, since computed in place the DS-CNN needs 8640 B and
// no region is worth tiling).
// RUN: serenity-opt %t.mlir --serenity-pipeline="target=cortex-m lower-to-llvm=false frontier=%S/Inputs/kws-dscnn-i8.frontier.json ram-budget=8000 in-place-convs=0" 2>&1 | FileCheck %s --check-prefix=TILED
// RUN: not serenity-opt %t.mlir --serenity-pipeline="target=cortex-m frontier=%S/Inputs/kws-dscnn-i8.frontier.json ram-budget=6000 flash-budget=44000" 2>&1 | FileCheck %s --check-prefix=NOFIT
// RUN: not serenity-opt %t.mlir --serenity-pipeline="target=cortex-m-helium frontier=%S/Inputs/kws-dscnn-i8.frontier.json ram-budget=8000" 2>&1 | FileCheck %s --check-prefix=BOARD
// RUN: not serenity-opt %t.mlir --serenity-pipeline="target=cortex-m ram-budget=8000" 2>&1 | FileCheck %s --check-prefix=NOFILE
// RUN: not serenity-opt %t.mlir --serenity-pipeline="target=cortex-m frontier=%t.absent.json ram-budget=8000" 2>&1 | FileCheck %s --check-prefix=ABSENT
// RUN: not serenity-opt %t.mlir --serenity-pipeline="target=host frontier=%S/Inputs/kws-dscnn-i8.frontier.json ram-budget=8000" 2>&1 | FileCheck %s --check-prefix=HOST
// RUN: not serenity-opt %t.mlir --serenity-pipeline="target=cortex-m frontier=%S/Inputs/kws-dscnn-i8.frontier.json ram-budget=8000 tile=none" 2>&1 | FileCheck %s --check-prefix=BOTH
// RUN: not serenity-opt %t.mlir --serenity-pipeline="target=cortex-m frontier=%S/Inputs/kws-dscnn-i8.frontier.json ram-budget=0" 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: not serenity-opt %t.mlir --serenity-pipeline="target=cortex-m frontier=%s ram-budget=8000" 2>&1 | FileCheck %s --check-prefix=MALFORMED

// WIDE-DAG: memref.global "private" constant @__constant_4x1x1x64xi8_1_smlad :
// WIDE-NOT: constant @__constant_4x1x1x64xi8_2_smlad

// TILED: serenity-tile: ffmt
// TILED-DAG: constant @__constant_4x1x1x64xi8_1_smlad :
// TILED-DAG: constant @__constant_4x1x1x64xi8_2_smlad :

// NOFIT: error: serenity-pipeline: no configuration (4 measured or predicted) fits RAM 6000 bytes and flash 44000 bytes: the least RAM reachable within 44000 bytes of flash is 9000 bytes; the least flash reachable within 6000 bytes of RAM is none (nothing fits that RAM)
// BOARD: error: serenity-pipeline: {{.*}}kws-dscnn-i8.frontier.json was measured on cortex-m4, not cortex-m55
// NOFILE: error: serenity-pipeline: ram-budget/flash-budget need frontier=FILE (python3 -m serenity frontier MODEL --target cortex-m4 --export FILE)
// ABSENT: error: serenity-pipeline: cannot read {{.*}}absent.json (write it with `python3 -m serenity frontier MODEL --target cortex-m4 --export
// HOST: error: serenity-pipeline: ram-budget/flash-budget need target=cortex-m or target=cortex-m-helium
// BOTH: error: serenity-pipeline: ram-budget/flash-budget choose tile, tile-max-mac-overhead, widen-budget and widen-filters: do not set them as well
// ZERO: error: serenity-pipeline: ram-budget and flash-budget must be positive numbers of bytes
// MALFORMED: error: serenity-pipeline: {{.*}}serenity-pipeline-budgets.mlir is not a frontier file
