// cmake --install of this build into a fresh prefix, then the external
// project examples/embed configured against it with find_package(Serenity),
// built, and run: it parses examples/residual_block.mlir and runs
// buildSerenityPipeline inside its own PassManager.
// RUN: bash %serenity_src/scripts/test-install.sh %serenity_obj %t | FileCheck %s
// CHECK: installed: serenity-alloc serenity-compile serenity-lsp-server serenity-opt serenity-translate
// CHECK: Using SerenityConfig.cmake in: {{.*}}prefix/lib/cmake/Serenity
// The residual block is tiled; its tiles' kernels are shared (two functions
// called from the network's).
// CHECK: embed: serenity-pipeline ran in this program's PassManager: 3 LLVM function(s), arena global of {{[0-9]+}} bytes
// CHECK: llvm.func definitions and declarations: {{[1-9]}}
// The importer library from the installed tree: a .tflite model imported
// by serenity::tflite::importTFLite and compiled in the same program.
// CHECK: embed: serenity-pipeline ran in this program's PassManager: {{[0-9]+}} LLVM function(s)
