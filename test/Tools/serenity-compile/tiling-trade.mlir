// serenity-compile weighs the code fused tiling costs against the RAM it
// saves (issue 46): on a microcontroller, when serenity-tile tiled the
// network, it is also built untiled, and the untiled build is kept when the
// tiled one needs more bytes of flash than it saves bytes of RAM. The report
// records the trade. An explicit tile option keeps what it asks for; the
// host build is not weighed.
// RUN: rm -rf %t && serenity-compile %serenity_src/examples/residual_block.mlir --target cortex-m4 -o %t/default | FileCheck %s --check-prefix=DEFAULT
// RUN: FileCheck %s --check-prefix=JSON < %t/default/net.json
// RUN: ls -A %t/default | FileCheck %s --check-prefix=FILES
// RUN: serenity-compile %serenity_src/examples/residual_block.mlir --target cortex-m4 --pipeline tile=none -o %t/none | FileCheck %s --check-prefix=NONE
// RUN: cmp %t/default/net.o %t/none/net.o
// RUN: cmp %t/default/net.h %t/none/net.h
// RUN: serenity-compile %serenity_src/examples/residual_block.mlir --target cortex-m4 --pipeline tile=both -o %t/both | FileCheck %s --check-prefix=BOTH
// RUN: serenity-compile %serenity_src/examples/residual_block.mlir --target host -o %t/host | FileCheck %s --check-prefix=HOST
//
// The residual block tiled saves 49168 - 42064 = 7104 bytes of arena for
// more code than that on the Cortex-M4: the untiled build is kept, the same
// bytes as tile=none's.
// DEFAULT: serenity-compile: fused tiling saves 7104 bytes of RAM for [[COST:[0-9]+]] bytes of flash: built untiled (--pipeline tile=both keeps it)
// DEFAULT-NEXT: serenity-compile: wrote {{.*}}net.o, {{.*}}net.h, {{.*}}net.json (arena 49168 bytes, flash
// JSON: "tiling": {
// JSON-NEXT: "flash_cost": [[COST2:[0-9]+]],
// JSON-NEXT: "kept": false,
// JSON-NEXT: "ram_saved": 7104
// FILES-NOT: untiled
// NONE-NOT: fused tiling
// NONE: (arena 49168 bytes, flash
// BOTH-NOT: fused tiling
// BOTH: (arena 42064 bytes, flash
// HOST-NOT: fused tiling
// HOST: (arena 42048 bytes, flash
