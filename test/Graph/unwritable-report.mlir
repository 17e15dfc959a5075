// A report or output file that cannot be written (here /dev/full: every
// write fails with ENOSPC, like a full disk) is an error with a location and
// a non-zero exit, not an LLVM ERROR abort.
// REQUIRES: dev-full
// RUN: not serenity-opt %s --serenity-pipeline="alloc-report=/dev/full" -o /dev/null 2>&1 | FileCheck %s --check-prefix=ALLOC
// RUN: not serenity-opt %s --serenity-memory-report="output=/dev/full" -o /dev/null 2>&1 | FileCheck %s --check-prefix=REPORT
// RUN: printf 'id,lower,upper,size\na,0,2,10\n' > %t.csv
// RUN: not serenity-alloc %t.csv -o /dev/full 2>&1 | FileCheck %s --check-prefix=CSV
// ALLOC: unwritable-report.mlir:{{.*}}: error: serenity-static-alloc: cannot write report '/dev/full': No space left on device
// ALLOC-NOT: LLVM ERROR
// REPORT: unwritable-report.mlir:{{.*}}: error: serenity-memory-report: cannot write '/dev/full': No space left on device
// REPORT-NOT: LLVM ERROR
// CSV: serenity-alloc: error: cannot write '/dev/full': No space left on device
func.func @main(%x: tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32> {
  %e = tosa.exp %x : (tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32>
  %t = tosa.tanh %e : (tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32>
  return %t : tensor<1x4x4x2xf32>
}
