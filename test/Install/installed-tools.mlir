// The installed tools start and work from their own prefix: cmake --install
// of this build (a copy, no rebuild) into a fresh prefix, then the installed
// serenity-opt and serenity-compile run from another directory with no
// LD_LIBRARY_PATH. They find libMLIR.so and libLLVM.so through their run
// path (CMAKE_INSTALL_RPATH: $ORIGIN/../lib and LLVM's library directory);
// before it was set, they stopped at "libMLIR.so.22.1: cannot open shared
// object file".
// RUN: rm -rf %t && mkdir -p %t/elsewhere
// RUN: cmake --install %serenity_obj --prefix %t/prefix > %t/install.log
// RUN: cd %t/elsewhere && env -u LD_LIBRARY_PATH %t/prefix/bin/serenity-opt --version | FileCheck %s --check-prefix=VERSION
// RUN: cd %t/elsewhere && env -u LD_LIBRARY_PATH %t/prefix/bin/serenity-opt %serenity_src/examples/residual_block.mlir --serenity-memory-report | FileCheck %s --check-prefix=REPORT
// RUN: cd %t/elsewhere && env -u LD_LIBRARY_PATH %t/prefix/bin/serenity-compile %serenity_src/examples/residual_block.mlir --name resblock -o %t/out | FileCheck %s --check-prefix=COMPILE
// RUN: FileCheck %s --check-prefix=HEADER < %t/out/resblock.h
// RUN: cd %t/elsewhere && env -u LD_LIBRARY_PATH %t/prefix/bin/serenity-alloc --help | FileCheck %s --check-prefix=ALLOC
// A .tflite model is imported in process: a copy of a model, the installed
// tools run with an empty environment (no PATH, so no python3, no
// PYTHONPATH) and nothing of the checkout in reach.
// RUN: cp %serenity_src/test/tflite-ops/models/conv_per_channel_stride2_same_relu6.tflite %t/elsewhere/conv.tflite
// RUN: cd %t/elsewhere && env -i %t/prefix/bin/serenity-compile conv.tflite --name conv -o %t/tfl | FileCheck %s --check-prefix=TFLITE
// RUN: FileCheck %s --check-prefix=TFLITE-HEADER < %t/tfl/conv.h
// RUN: cd %t/elsewhere && env -i %t/prefix/bin/serenity-translate --import-tflite conv.tflite | FileCheck %s --check-prefix=TRANSLATE
// RUN: cd %t/elsewhere && env -i %t/prefix/bin/serenity-opt conv.tflite --serenity-memory-report | FileCheck %s --check-prefix=OPT
//
// VERSION: LLVM version 22
// The residual block's 16x16x16 f32 tensors are 16384 bytes each; three live
// at once (the input kept for the residual add, two activations).
// REPORT: // peak 49152 bytes at step 1, 5 steps
// COMPILE: serenity-compile: wrote {{.*}}out/resblock.o, {{.*}}out/resblock.h, {{.*}}out/resblock.json (arena {{[0-9]+}} bytes, flash {{[0-9]+}} bytes: text {{[0-9]+}}, rodata {{[0-9]+}})
// HEADER: #define RESBLOCK_ARENA_BYTES {{[0-9]+}}
// HEADER: static inline int resblock_run(
// ALLOC: USAGE: serenity-alloc
// TFLITE: serenity-compile: wrote {{.*}}tfl/conv.o, {{.*}}tfl/conv.h, {{.*}}tfl/conv.json
// TFLITE-HEADER: #define CONV_ARENA_BYTES {{[0-9]+}}
// TRANSLATE: func.func @main(
// TRANSLATE: tosa.conv2d
// OPT: // peak {{[0-9]+}} bytes
