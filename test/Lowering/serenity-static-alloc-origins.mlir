// The allocation report names what every arena buffer holds ("kind") and the
// op it belongs to ("op", with the location of the TOSA op it came from).
// Without requantization fusion the lowering keeps the hidden buffers this
// network provokes: the zero-point padded copy of the conv input, the conv's
// whole i32 accumulator, and a concat copy; with the default pipeline the
// accumulator is one element per tile, kept in a register (listed under
// "register_buffers", not in the arena) and the padding is read in place.
// RUN: serenity-opt %s --serenity-pipeline="tile=none fuse-requantization=0 lower-to-llvm=0 alloc-report=%t.unfused.json" -o /dev/null
// RUN: FileCheck %s --check-prefix=UNFUSED < %t.unfused.json
// RUN: serenity-opt %s --serenity-pipeline="tile=none lower-to-llvm=0 alloc-report=%t.fused.json" -o /dev/null
// RUN: FileCheck %s --check-prefix=FUSED < %t.fused.json
// RUN: serenity-opt %s --serenity-pipeline="tile=none alloc-report=%t.llvm.json" | FileCheck %s --check-prefix=LLVM

// Buffers are listed in program order of their allocs.
// UNFUSED:      "buffers": [
// UNFUSED:          "kind": "padded-copy",
// UNFUSED-NEXT:     "last":
// UNFUSED-NEXT:     "loc": "{{.*}}serenity-static-alloc-origins.mlir:[[#CONV:]]:
// UNFUSED-NEXT:     "name":
// UNFUSED-NEXT:     "offset":
// UNFUSED-NEXT:     "op": "linalg.conv_2d_nhwc_fhwc_q",
// UNFUSED-NEXT:     "size": 300
// UNFUSED:          "kind": "accumulator",
// UNFUSED-NEXT:     "last":
// UNFUSED-NEXT:     "loc": "{{.*}}serenity-static-alloc-origins.mlir:[[#CONV]]:
// UNFUSED-NEXT:     "name":
// UNFUSED-NEXT:     "offset":
// UNFUSED-NEXT:     "op": "linalg.conv_2d_nhwc_fhwc_q",
// UNFUSED-NEXT:     "size": 1024
// UNFUSED:          "kind": "tensor",
// UNFUSED-NEXT:     "last":
// UNFUSED-NEXT:     "loc": "{{.*}}serenity-static-alloc-origins.mlir:[[#CONV+1]]:
// UNFUSED-NEXT:     "name":
// UNFUSED-NEXT:     "offset":
// UNFUSED-NEXT:     "op": "linalg.generic",
// UNFUSED-NEXT:     "size": 256
// UNFUSED:          "kind": "tensor",
// UNFUSED:          "size": 256
// UNFUSED:          "kind": "concat-copy",
// UNFUSED:          "size": 512
// UNFUSED:       "register_buffers": []

// FUSED:      "buffers": [
// FUSED-NOT:      "kind": "padded-copy"
// FUSED-NOT:      "kind": "accumulator"
// FUSED:          "kind": "tensor",
// FUSED:          "kind": "concat-copy",
// FUSED:      "register_buffers": [
// FUSED-NEXT:   {
// FUSED-NEXT:     "kind": "accumulator",
// FUSED-NEXT:     "loc": "{{.*}}serenity-static-alloc-origins.mlir:[[#FCONV:]]:
// FUSED-NEXT:     "op": "linalg.conv_2d_nhwc_fhwc_q",
// FUSED-NEXT:     "size": 4

// After loop lowering mem2reg leaves no stack slot for the accumulator.
// LLVM-LABEL: llvm.func @net
// LLVM-NOT:   llvm.alloca
// LLVM:       llvm.return
func.func @net(%input: tensor<1x8x8x3xi8>) -> tensor<1x8x8x8xi8> {
  %w = "tosa.const"() <{values = dense<3> : tensor<4x3x3x3xi8>}> : () -> tensor<4x3x3x3xi8>
  %b = "tosa.const"() <{values = dense<[7, -7, 100, 0]> : tensor<4xi32>}> : () -> tensor<4xi32>
  %izp = "tosa.const"() <{values = dense<-5> : tensor<1xi8>}> : () -> tensor<1xi8>
  %zp = "tosa.const"() <{values = dense<0> : tensor<1xi8>}> : () -> tensor<1xi8>
  %zp32 = "tosa.const"() <{values = dense<0> : tensor<1xi32>}> : () -> tensor<1xi32>
  %m = "tosa.const"() <{values = dense<1073741824> : tensor<1xi32>}> : () -> tensor<1xi32>
  %s = "tosa.const"() <{values = dense<38> : tensor<1xi8>}> : () -> tensor<1xi8>
  %c = tosa.conv2d %input, %w, %b, %izp, %zp {acc_type = i32, pad = array<i64: 1, 1, 1, 1>, stride = array<i64: 1, 1>, dilation = array<i64: 1, 1>} : (tensor<1x8x8x3xi8>, tensor<4x3x3x3xi8>, tensor<4xi32>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x8x8x4xi32>
  %r = tosa.rescale %c, %m, %s, %zp32, %zp {scale32 = true, rounding_mode = SINGLE_ROUND, per_channel = false, input_unsigned = false, output_unsigned = false} : (tensor<1x8x8x4xi32>, tensor<1xi32>, tensor<1xi8>, tensor<1xi32>, tensor<1xi8>) -> tensor<1x8x8x4xi8>
  %k = tosa.clamp %r {min_val = -100 : i8, max_val = 100 : i8} : (tensor<1x8x8x4xi8>) -> tensor<1x8x8x4xi8>
  %n = tosa.negate %k, %zp, %zp : (tensor<1x8x8x4xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x8x8x4xi8>
  %cat = tosa.concat %k, %n {axis = 3 : i32} : (tensor<1x8x8x4xi8>, tensor<1x8x8x4xi8>) -> tensor<1x8x8x8xi8>
  %out = tosa.negate %cat, %zp, %zp : (tensor<1x8x8x8xi8>, tensor<1xi8>, tensor<1xi8>) -> tensor<1x8x8x8xi8>
  return %out : tensor<1x8x8x8xi8>
}
