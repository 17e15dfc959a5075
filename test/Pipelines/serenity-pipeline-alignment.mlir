// The arena alignment follows the target when the alignment option is not
// given: 64 bytes (a cache line) on the host, 4 (a word: what Cortex-M loads
// need) on cortex-m; an explicit alignment wins. Two 20-byte buffers (tanh and
// sigmoid of 1x5xf32) are live together at the copied concat:
//   host:      0 + 20, next at 64 (20 align 64)  -> 64 + 20 = 84 bytes
//   cortex-m:  0 + 20, next at 20 (20 align 4)   -> 20 + 20 = 40 bytes
//   alignment=16 on cortex-m: next at 32          -> 32 + 20 = 52 bytes
// The buffers bufferization creates ask for the same alignment (its default,
// 64, would otherwise win over the arena's).
// RUN: serenity-opt %s --serenity-pipeline="target=host concat=copy lower-to-llvm=false" 2>/dev/null | FileCheck %s --check-prefix=HOST
// RUN: serenity-opt %s --serenity-pipeline="target=cortex-m concat=copy lower-to-llvm=false" 2>/dev/null | FileCheck %s --check-prefix=CORTEXM
// RUN: serenity-opt %s --serenity-pipeline="target=cortex-m concat=copy lower-to-llvm=false alignment=16" 2>/dev/null | FileCheck %s --check-prefix=ALIGN16
// RUN: serenity-opt %s --serenity-pipeline="target=cortex-m concat=copy lower-to-llvm=false alloc=none" 2>/dev/null | FileCheck %s --check-prefix=NOALLOC
// serenity-compile (--io caller: the arena of the intermediates above): the
// header's ARENA_ALIGNMENT and the report follow.
// RUN: rm -rf %t && serenity-compile %s --target cortex-m4 --io caller --pipeline "concat=copy" -o %t/m4
// RUN: FileCheck %s --check-prefix=M4H < %t/m4/net.h
// RUN: FileCheck %s --check-prefix=M4JSON < %t/m4/net.json
// RUN: serenity-compile %s --target host --io caller --pipeline "concat=copy" -o %t/host
// RUN: FileCheck %s --check-prefix=HOSTH < %t/host/net.h
// HOST: serenity.arena_bytes = 84
// HOST: memref.view {{.*}}[%c0]
// HOST: memref.view {{.*}}[%c64]
// CORTEXM: serenity.arena_bytes = 40
// CORTEXM: memref.view {{.*}}[%c0]
// CORTEXM: memref.view {{.*}}[%c20]
// ALIGN16: serenity.arena_bytes = 52
// ALIGN16: memref.view {{.*}}[%c32]
// NOALLOC-COUNT-2: memref.alloc() {alignment = 4 : i64} : memref<1x5xf32>
// M4H: #define NET_ARENA_BYTES 40
// M4H-NEXT: #define NET_ARENA_ALIGNMENT 4
// M4JSON: "arena_alignment": 4,
// HOSTH: #define NET_ARENA_BYTES 84
// HOSTH-NEXT: #define NET_ARENA_ALIGNMENT 64
func.func @main(%x: tensor<1x5xf32>) -> tensor<1x10xf32> {
  %a = tosa.tanh %x : (tensor<1x5xf32>) -> tensor<1x5xf32>
  %b = tosa.sigmoid %x : (tensor<1x5xf32>) -> tensor<1x5xf32>
  %c = tosa.concat %a, %b {axis = 1 : i32} : (tensor<1x5xf32>, tensor<1x5xf32>) -> tensor<1x10xf32>
  return %c : tensor<1x10xf32>
}
