// serenity-compile: object, header and report for the bundled example; a C
// program built against the header and object computes what the upstream
// reference lowering computes (host; Cortex-M4 on QEMU in cortex-m.mlir).
// By default (--io arena) the inputs and outputs sit at offsets in the
// arena, NAME_run(arena).
// RUN: rm -rf %t && serenity-compile %serenity_src/examples/residual_block.mlir --name resblock -o %t | FileCheck %s --check-prefix=TOOL
// RUN: FileCheck %s --check-prefix=INARENA < %t/resblock.h
// RUN: FileCheck %s --check-prefix=JSON < %t/resblock.json
// RUN: %python %integration/run_compiled.py %serenity_src/examples/residual_block.mlir --target host --atol 1e-5 --rtol 1e-5 | FileCheck %s --check-prefix=EXEC
//
// --io caller: NAME_run(inputs..., outputs..., arena), the caller's buffers.
// RUN: serenity-compile %serenity_src/examples/residual_block.mlir --io caller --name resblock -o %t/caller
// RUN: FileCheck %s --check-prefix=HEADER < %t/caller/resblock.h
// RUN: FileCheck %s --check-prefix=JSON-CALLER < %t/caller/resblock.json
// RUN: %python %integration/run_compiled.py %serenity_src/examples/residual_block.mlir --target host --io caller --atol 1e-5 --rtol 1e-5 | FileCheck %s --check-prefix=EXEC
// INARENA: #define RESBLOCK_INPUT0_OFFSET {{[0-9]+}} /* in the arena */
// INARENA: #define RESBLOCK_OUTPUT0_OFFSET {{[0-9]+}} /* in the arena */
// INARENA: static inline float *resblock_input0(void *arena) {
// INARENA: static inline int resblock_run(void *arena) {
// INARENA: resblock_input0(arena), resblock_input0(arena), 0, 1, 16, 16, 16,
//
// Bad input: a clear error, non-zero exit.
// RUN: not serenity-compile %serenity_src/examples/residual_block.mlir --target cortex-a9 -o %t/x 2>&1 | FileCheck %s --check-prefix=BADTARGET
// RUN: not serenity-compile %serenity_src/examples/residual_block.mlir --name 9lives -o %t/x 2>&1 | FileCheck %s --check-prefix=BADNAME
// RUN: not serenity-compile %serenity_src/examples/residual_block.mlir --pipeline "arena=global" -o %t/x 2>&1 | FileCheck %s --check-prefix=FIXED
// RUN: not serenity-compile %serenity_src/examples/residual_block.mlir --pipeline "schedule=fastest" -o %t/x 2>&1 | FileCheck %s --check-prefix=BADOPTION
// RUN: not serenity-compile %serenity_src/examples/residual_block.mlir --function net -o %t/x 2>&1 | FileCheck %s --check-prefix=NOFUNC
// RUN: not serenity-compile %t/missing.mlir -o %t/x 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not serenity-compile %serenity_src/examples/residual_block.mlir --io heap -o %t/x 2>&1 | FileCheck %s --check-prefix=BADIO
//
// TOOL: serenity-compile: wrote {{.*}}resblock.o, {{.*}}resblock.h, {{.*}}resblock.json (arena [[ARENA:[0-9]+]] bytes, flash {{[0-9]+}} bytes: text {{[0-9]+}}, rodata {{[0-9]+}})
// HEADER: #define RESBLOCK_ARENA_BYTES [[ARENA:[0-9]+]]
// HEADER: #define RESBLOCK_ARENA_ALIGNMENT 64
// HEADER: /* input 0: float[1][16][16][16] */
// HEADER-NEXT: #define RESBLOCK_INPUT0_ELEMENTS 4096
// HEADER: /* output 0: float[1][16][16][16] */
// HEADER: static inline int resblock_run(const float *input0, float *output0, void *arena) {
// HEADER-NEXT: if ((uintptr_t)arena % RESBLOCK_ARENA_ALIGNMENT != 0)
// HEADER: resblock((int8_t *)arena, (int8_t *)arena, 0, [[ARENA]], 1,
// HEADER-NEXT: (float *)input0, (float *)input0, 0, 1, 16, 16, 16, 4096, 256, 16, 1,
// HEADER-NEXT: output0, output0, 0, 1, 16, 16, 16, 4096, 256, 16, 1);
// JSON-DAG: "arena_bytes": {{[0-9]+}},
// JSON-DAG: "algorithm": "exact",
// JSON-DAG: "optimal": true,
// JSON-DAG: "target": "host"
// JSON-DAG: "io": "arena"
// JSON-CALLER-DAG: "io": "caller"
// JSON-CALLER-DAG: "target": "host"
// EXEC: host output 0: 4096 elements, {{.*}}, 0 beyond tolerance
// EXEC: PASS
// BADTARGET: serenity-compile: error: unknown --target 'cortex-a9' (expected host, cortex-m4, cortex-m7, cortex-m33, cortex-m55, cortex-m0plus, riscv32-imc or riscv32-imac)
// BADNAME: serenity-compile: error: --name '9lives' is not a C identifier
// FIXED: serenity-compile: error: --pipeline may not set arena
// BADOPTION: for the --schedule option: invalid value 'fastest' (expected one of: dp, kahn, greedy, program-order, none)
// BADOPTION: serenity-compile: error: bad --pipeline options 'schedule=fastest'
// NOFUNC: serenity-compile: error: the model has no function @net with a body (--function selects another)
// MISSING: missing.mlir
// BADIO: serenity-compile: error: unknown --io 'heap' (expected one of: caller, arena)
