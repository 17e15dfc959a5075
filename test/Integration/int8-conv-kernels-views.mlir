// serenity-int8-conv-kernels (plain arithmetic) computes what
// convert-linalg-to-loops computes on filter views the pipeline does not
// make but valid IR may hold: a view of some of the input channels and a
// view striding over the output channels (the zero point is folded only
// where the weight sums match the view; both were miscompiled before), and
// a fused accumulator tile whose consumer writes through a reversed map.
// DEFINE: %{lower} = builtin.module(convert-linalg-to-loops,convert-scf-to-cf,expand-strided-metadata,lower-affine,finalize-memref-to-llvm,convert-arith-to-llvm,convert-cf-to-llvm,convert-func-to-llvm,convert-to-llvm,reconcile-unrealized-casts)
// RUN: for f in channel-slice strided-filter fused-maps; do \
// RUN:   mlir-opt %S/Inputs/int8-conv-$f.mlir --pass-pipeline="%{lower}" \
// RUN:     | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_c_runner_utils,%mlir_runner_utils | grep -v Unranked > %t.$f.want && \
// RUN:   serenity-opt %S/Inputs/int8-conv-$f.mlir --serenity-int8-conv-kernels=target=generic \
// RUN:     | mlir-opt --pass-pipeline="%{lower}" \
// RUN:     | mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_c_runner_utils,%mlir_runner_utils | grep -v Unranked > %t.$f.got && \
// RUN:   diff %t.$f.want %t.$f.got && wc -l < %t.$f.got || exit 1; done | FileCheck %s
// Three lists of output rows, equal:
// CHECK-COUNT-3: {{^[1-9][0-9]*$}}
