// concat=auto: serenity-schedule marks a concat in place only where that
// lowers the scheduled peak (serenity.concat_inplace), serenity-concat-copies
// keeps the others copies, and the arena follows: on a small Inception
// module in place is better (12288 -> 11264 B, the concat is marked), on a
// random DAG it is worse (120832 -> 148480 B, the scheduled peak under
// concat=inplace, proven: the outputs would be allocated when their first
// slice is written), and auto keeps the copies there. (The in-place arena
// was 207360 B before serenity-concat-buffers: eliminate-empty-tensors moved
// producers up to the insert_slice chain it wrote them into, out of the
// scheduled order; 224000 B before the dp's depth-first decisions tried
// children by live bytes.)
// Outputs equal the reference lowering in every case.
// RUN: %python -m serenity gen inception-module --resolution 8 --channels 16 --param b1=8 --param b2=8 --param b2_reduce=4 --param b3=4 --param b3_reduce=4 --param b4=4 -o %t.inception.mlir
// RUN: %python -m serenity gen random-dag --param nodes=12 --resolution 8 --seed 0 -o %t.dag.mlir
// RUN: %python %integration/compare_lowering.py %t.inception.mlir --options "concat=auto io=arena" | FileCheck %s --check-prefix=INCEPTION
// RUN: %python %integration/compare_lowering.py %t.inception.mlir --options "concat=copy io=arena" | FileCheck %s --check-prefix=INCEPTION-COPY
// RUN: %python %integration/compare_lowering.py %t.dag.mlir --options "concat=auto io=arena" | FileCheck %s --check-prefix=DAG
// RUN: %python %integration/compare_lowering.py %t.dag.mlir --options "concat=inplace io=arena" | FileCheck %s --check-prefix=DAG-INPLACE
// RUN: serenity-opt %t.inception.mlir --serenity-schedule=concat=auto 2>/dev/null | FileCheck %s --check-prefix=MARK
// RUN: serenity-opt %t.dag.mlir --serenity-schedule=concat=auto 2>/dev/null | FileCheck %s --check-prefix=NOMARK
// INCEPTION: serenity-pipeline: 0 memref.alloc left in @net, arena 11264 bytes
// INCEPTION: PASS
// INCEPTION-COPY: arena 12288 bytes
// INCEPTION-COPY: PASS
// DAG: serenity-pipeline: 0 memref.alloc left in @net, arena 120832 bytes
// DAG: PASS
// DAG-INPLACE: arena 148480 bytes
// DAG-INPLACE: PASS
// MARK: tosa.concat {{.*}}serenity.concat_inplace
// NOMARK-NOT: serenity.concat_inplace
