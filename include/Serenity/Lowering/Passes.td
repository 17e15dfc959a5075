//===- Passes.td - Serenity lowering passes ------------------*- tablegen -*-===//
//
// The lowering of the pipeline (docs/Architecture.md): from the scheduled,
// tiled TOSA graph to linalg, memrefs in one static arena and the kernels
// (requantization fusion, int8 convolution kernels, primitives, concat
// copies, allocation, outlining) ahead of upstream's LLVM conversion.
//
//===----------------------------------------------------------------------===//

#ifndef SERENITY_LOWERING_PASSES_TD
#define SERENITY_LOWERING_PASSES_TD

include "mlir/Pass/PassBase.td"

def SerenityAccumulatePartialSumsPass
    : Pass<"serenity-accumulate-partial-sums", "func::FuncOp"> {
  let summary = "Let a conv accumulate into the partial sum it is added to";
  let description = [{
    On linalg on tensors (after tosa-to-linalg): an elementwise add
    `linalg.generic` of a value `%acc` and the result of a convolution whose
    init is all zeros (the lowering of a `tosa.conv2d` with a zero bias, as
    serenity-rewrite's channel-wise partitioning produces) becomes the
    convolution with `%acc` as its init: `conv(x, w) outs(%acc)` computes
    `%acc + conv(x, w)`. Bufferization then writes the conv into `%acc`'s
    buffer instead of allocating the partial result and the sum, which is
    what the memory model counts with `accumulate-in-place`.

    ```mlir
    %z = linalg.generic ... ins(%zero_bias) outs(%empty)   // broadcast 0
    %p = linalg.conv_2d_nhwc_fhwc ins(%x, %w) outs(%z)
    %s = linalg.generic {addf} ins(%acc, %p) outs(%empty2)
    // becomes
    %s = linalg.conv_2d_nhwc_fhwc ins(%x, %w) outs(%acc)
    ```

    Applies only when `%acc` and the conv result have no other user and
    `%acc` is defined before the conv in the same block. Float results are
    equal up to summation order; integer (i32) results are exact.
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect"];
}

def SerenityFuseRequantizationPass
    : Pass<"serenity-fuse-requantization", "func::FuncOp"> {
  let summary = "Compute each conv's accumulator one row tile at a time";
  let description = [{
    On linalg on tensors (right after tosa-to-linalg(-named)/tosa-to-arith,
    before bufferization). A quantized `tosa.conv2d` lowers to a convolution
    producing a full i32 accumulator (4 bytes per element) that the
    elementwise `tosa.rescale` (i32 -> i8) and `tosa.clamp` then read; TFLite
    Micro requantizes in registers instead. This pass

    1. fuses the elementwise `linalg.generic` chain that consumes a
       convolution into one generic (upstream elementwise fusion, and for
       depthwise convolutions reshape propagation through the
       `tensor.collapse_shape` of their [N, H, W, C, M] result), fusing only
       single-use producers of such chains;
    2. tiles that generic along the output rows (H of NHWC, `tile-rows`
       rows per tile) with upstream `scf::tileConsumerAndFuseProducersUsingSCF`,
       fusing into the loop every convolution whose only user is the generic
       (named conv / depthwise ops, quantized or not) and the
       `linalg.fill`/`linalg.generic` that initializes its accumulator.

    Between 1 and 2 it also fuses the element-wise DAGs the conv chains leave
    (a float QUANTIZE's exact division and rounding, an int8 MUL or MAXIMUM,
    an LSTM gate's int16 sigmoid around its table gathers) into ONE generic
    each: a generic that reads no convolution result joins its users' loop
    when all its users (any number) are in one loop and read it once per
    element, and nothing else does. The DAG's body holds each member's scalar
    ops once, in program order (every internal value computed once per
    element, bit-exact), CSE'd. A DAG is kept when the bytes it reads (views
    of one tensor counted once) are not more than its largest internal value;
    otherwise only its single-user edges whose producer reads no more than it
    writes are fused. The decision is `groupElementwiseDags`
    (Serenity/Analysis/ElementwiseDags.h), which the memory model's fused
    groups (`fuse-requantization` of serenity-schedule) use on the TOSA ops,
    so both count the same loops.

    ```mlir
    %acc = linalg.conv_2d_nhwc_fhwc ins(%x, %w) outs(%bias)  // 1x8x8x4xi32
    %q = linalg.generic {rescale, clamp} ins(%acc) outs(%e)  // 1x8x8x4xi8
    // becomes
    %q = scf.for %h = %c0 to %c8 step %c1 iter_args(%o = %e) {
      %b = linalg.generic {broadcast} ... -> tensor<1x1x8x4xi32>
      %a = linalg.conv_2d_nhwc_fhwc ins(%x_rows, %w) outs(%b)
      %t = linalg.generic {rescale, clamp} ins(%a) outs(%o_row)
      %r = tensor.insert_slice %t into %o[0, %h, 0, 0] [1, 1, 8, 4] ...
      scf.yield %r
    }
    ```

    Tiling applies by default only where the accumulator's element type is
    wider than the generic's result (i32 -> i8): with equal widths (an f32
    conv + relu) the padded input then outlives the loop next to the result
    and the peak grows by one row; `all-convs` tiles those too. Elementwise
    fusion applies in both cases.

    The tile is `tile-rows` x `tile-cols` output pixels x `tile-channels`
    output channels (default 1 x 1 x 1: one output element, so the
    accumulator is a one-element buffer that serenity-static-alloc keeps in
    a register). With `fuse-padding` (default) the `tensor.pad` of the conv
    input is fused too: each tile pads the few input rows its window reads;
    where a tile is one output pixel (dilation 1, pad value = the input zero
    point, or 0) the pad is dropped and the conv reads the window clipped to
    the image, with the filter sliced to match, so no padded copy exists at
    all. Padded convs are tiled this way whatever their widths (f32 too),
    and padded convs and max/min/sum pools with no elementwise consumer are
    tiled alone by output pixel for the same reason. Results are exactly
    equal (the same arithmetic per element). A convolution whose
    result has other users, or whose rows `tile-rows` does not divide, or
    that upstream tiling rejects, is left as it is with a remark.
  }];
  let options = [
    Option<"tileRows", "tile-rows", "int64_t", /*default=*/"1",
           "Output rows per tile (must divide the output height)">,
    Option<"tileCols", "tile-cols", "int64_t", /*default=*/"1",
           "Output columns per tile (must divide the output width; 0 = "
           "whole rows)">,
    Option<"tileChannels", "tile-channels", "int64_t", /*default=*/"1",
           "Output channels per tile (0 = all channels; a conv whose "
           "channel count it does not divide gets the largest divisor "
           "below it). 1: one i32 accumulator per tile, which "
           "serenity-static-alloc keeps in a register">,
    Option<"allConvs", "all-convs", "bool", /*default=*/"false",
           "Also tile convolutions whose accumulator is not wider than the "
           "result (f32 conv + relu), where it does not lower the peak">,
    Option<"fusePadding", "fuse-padding", "bool", /*default=*/"true",
           "Fuse the tensor.pad of a tiled conv's input into the loop: each "
           "tile pads only the input rows its window reads, so no padded "
           "copy of the whole input is allocated">,
  ];
  let dependentDialects = ["mlir::linalg::LinalgDialect",
                           "mlir::scf::SCFDialect",
                           "mlir::tensor::TensorDialect",
                           "mlir::affine::AffineDialect",
                           "mlir::arith::ArithDialect"];
}

def SerenityConcatCopiesPass
    : Pass<"serenity-concat-copies", "func::FuncOp"> {
  let summary = "Lower concats as the memory model counts them";
  let description = [{
    Runs in `serenity-pipeline` after scheduling, before tosa-to-tensor.
    A `tosa.concat` the model counts as a copy (every concat with
    `concat=copy`; the ones `serenity-schedule` did not mark
    `serenity.concat_inplace` with `concat=auto`) becomes a `tensor.concat`,
    which bufferizes as one copy per operand into a new buffer, like the
    insert_slice chain of tosa-to-tensor but without its analysis cost
    (one-shot analysis of a k-operand insert_slice chain grows like k^4: a
    400-operand concat took 440 s, now 0.05 s). In an in-place concat
    (every concat with `concat=inplace`, the marked ones with `auto`),
    each operand the model does not count in place (other users, or a
    producer that cannot write into a slice) is copied into a new tensor
    (`tensor.empty` + `linalg.copy`) in front of it, so that
    `eliminate-empty-tensors` moves the copy, not the producer, into the
    slice.

    ```mlir
    %c = tosa.concat %a, %b {axis = 3 : i32} : (...) -> tensor<1x4x4x8xf32>
    // becomes
    %c = tensor.concat dim(3) %a, %b : (...) -> tensor<1x4x4x8xf32>
    ```
  }];
  let options = [
    Option<"concat", "concat", "::mlir::serenity::ConcatMode",
           /*default=*/"::mlir::serenity::ConcatMode::Copy",
           "The memory model's concat mode the lowering realizes: copy, "
           "inplace or auto (in place where marked serenity.concat_inplace)">,
  ];
  let dependentDialects = ["mlir::linalg::LinalgDialect",
                           "mlir::tensor::TensorDialect"];
}

def SerenityConcatBuffersPass
    : Pass<"serenity-concat-buffers", "func::FuncOp"> {
  let summary = "In-place concats as one buffer that each operand is "
                "materialized in (linear-time bufferization)";
  let description = [{
    Runs in `serenity-pipeline` right before `eliminate-empty-tensors`. An
    in-place concat (or the tiles of a fused-tiling region) reaches it as
    tosa-to-tensor's chain of `tensor.insert_slice` ops into one
    `tensor.empty`. One-shot bufferization analyses such a chain as one
    alias set holding every slice, every producer writing into one and
    every link of the chain, and checks each in-place decision against all
    of its reads and writes: the time grows like k^3-k^4 in the operand
    count k (a 200-operand concat: 51 s in empty-tensor elimination and
    217 s in one-shot bufferization; the 211-operand output concat of the
    1k-op random DAG under `concat=inplace`: 58 s + 386 s).

    This pass gives the chain's buffer to the IR directly: a `memref.alloc`
    (the alignment one-shot bufferization would give it) before the first
    operand's producer, a `memref.subview` per operand, and each operand
    written by `bufferization.materialize_in_destination ... restrict
    writable` into its subview; the concat's result is a `to_tensor` of the
    whole buffer. `eliminate-empty-tensors` then makes each producer write
    into its subview (the upstream idiom for a computation done in a given
    buffer), and every alias set holds one operand: linear time.

    ```mlir
    %e = tensor.empty() : tensor<1x4x4x8xf32>
    %0 = tensor.insert_slice %a into %e[0, 0, 0, 0] [1, 4, 4, 4] [1, 1, 1, 1]
    %1 = tensor.insert_slice %b into %0[0, 0, 0, 4] [1, 4, 4, 4] [1, 1, 1, 1]
    // becomes
    %m = memref.alloc() {alignment = 64 : i64} : memref<1x4x4x8xf32>
    %sa = memref.subview %m[0, 0, 0, 0] [1, 4, 4, 4] [1, 1, 1, 1]
    bufferization.materialize_in_destination %a in restrict writable %sa
    %sb = memref.subview %m[0, 0, 0, 4] [1, 4, 4, 4] [1, 1, 1, 1]
    bufferization.materialize_in_destination %b in restrict writable %sb
    %1 = bufferization.to_tensor %m restrict writable
    ```

    The subview of an operand whose producer writes into a `tensor.empty`
    (through destination operands and loop-carried values) is placed right
    before that `tensor.empty`, where empty-tensor elimination puts the
    slice it replaces it with.
  }];
  let options = [
    Option<"alignment", "alignment", "int64_t", /*default=*/"64",
           "Alignment of the concat buffers (one-shot bufferization's "
           "buffer-alignment)">,
    Option<"minOperands", "min-operands", "int64_t", /*default=*/"2",
           "Chains of fewer insert_slice ops are left to bufferization">,
  ];
  let dependentDialects = ["mlir::bufferization::BufferizationDialect",
                           "mlir::memref::MemRefDialect"];
}

def SerenityInPlaceConvsPass
    : Pass<"serenity-in-place-convs", "func::FuncOp"> {
  let summary = "Write a depthwise or 1x1 conv's result over its input";
  let description = [{
    On buffers, after serenity-fuse-requantization: a loop nest over output
    rows, columns and channel blocks (outermost first) computing one
    `linalg.depthwise_conv_2d_nhwc_hwc(m)(_q)` (stride and dilation 1) or a
    1x1 `linalg.conv_2d_nhwc_fhwc(_q)` (stride 1) per iteration into a
    buffer `OUT`, reading a buffer `IN` of the same element type and
    logical shape that nothing reads after the nest. `OUT` becomes a view of
    `IN`, so the result takes the input's bytes (TinyEngine's in-place
    depthwise convolution):

    - depthwise (rows from 0 in order, whole rows): output row h is
      written to slot h % R of a ring of R rows, R - 1 being the most rows
      any window reads above its output row (the top padding); after row h
      the held row h - R + 1, which no later window reads as input, is
      copied over its input row, and the last R - 1 rows after the loop.
      The loop order and the kernels stay as they were;
    - 1x1: each input pixel is copied to a scratch buffer of C elements at
      the start of its iteration, before the pixel's results overwrite it.

    Only the nests that lower the peak are rewritten: with the bytes live
    at each top-level op (allocs, and the memref arguments with io=arena),
    a nest whose plain form does not raise the most bytes live at once
    stays as it is (no copies, no ring, no extra code). Copies of int8 rows
    and pixels whose channel count is a multiple of 4 move 32-bit words.
    The memory model counts the same groups
    (`findInPlaceConv`, Analysis/MemoryModel.h, option `in-place-convs`),
    with the ring or the pixel as the step's workspace. Nests that do not
    match stay as they are (serenity-pipeline turns the option off on both
    sides unless tile-cols=1 and tile-channels >= 1, the nests matched here).
  }];
  let options = [
    Option<"io", "io", "::mlir::serenity::IOPlacement",
           /*default=*/"::mlir::serenity::IOPlacement::Caller",
           "Where the memref arguments live (as serenity-static-alloc's io): "
           "with arena they count in the live bytes that decide which nests "
           "are worth computing in place">,
  ];
  let dependentDialects = ["mlir::arith::ArithDialect",
                           "mlir::memref::MemRefDialect",
                           "mlir::scf::SCFDialect"];
}

def SerenityCopyToLinalgPass
    : Pass<"serenity-copy-to-linalg", "func::FuncOp"> {
  let summary = "Rewrite memref.copy as linalg.copy so copies lower to loops";
  let description = [{
    `finalize-memref-to-llvm` lowers a `memref.copy` between non-contiguous
    memrefs (the subviews that bufferized `tensor.pad`/`tensor.concat`
    produce) to a call of `memrefCopy` from the MLIR C runner utils, a
    library a microcontroller image does not have. This pass rewrites every
    `memref.copy` whose operands are ranked into the equivalent
    `linalg.copy`, which `convert-linalg-to-loops` turns into plain loads and
    stores, so the lowered code needs no runtime library.

    ```mlir
    memref.copy %a, %sub : memref<4xf32> to memref<4xf32, strided<[1], offset: 2>>
    // becomes
    linalg.copy ins(%a : memref<4xf32>) outs(%sub : memref<4xf32, strided<[1], offset: 2>>)
    ```
  }];
  let dependentDialects = ["mlir::linalg::LinalgDialect"];
}

def SerenityApplyScale32Pass
    : Pass<"serenity-apply-scale-32", "func::FuncOp"> {
  let summary = "Lower tosa.apply_scale with 32-bit shifts where the shift "
                "allows (Cortex-M)";
  let description = [{
    Replaces each `tosa.apply_scale` on int32 values by arith operations
    that compute the same value, `(v * m + 2^(s-1) + d) >> s` in 64 bits
    (`d` the double-rounding term), with 32-bit shifts when `s >= 33`: the
    result is then `((hi(v * m + d) >> (s - 33)) + 1) >> 1`. Smaller shifts
    take the 64-bit formula in the other branch of an `scf.if`; when the
    shift is a constant, or a generic's input read from a constant table,
    whose values are all on one side of 33, only that formula is emitted. On a 32-bit
    core this replaces two 64-bit shifts by a variable amount (each a
    sequence of shifts, compares and conditional moves) by two 32-bit
    shifts; the derivation is in lib/Transforms/ApplyScale.cpp. Runs before
    `tosa-to-arith`, which lowers the remaining `tosa.apply_scale` ops.

    With `split-multiply`, the fast path's `hi(v * m + d)` is four 16x16-bit
    products in 32-bit arithmetic (Hacker's Delight's mulhs, `d` folded into
    the middle term): for cores without a 32x32->64 multiply (ARMv6-M, where
    the 64-bit product is a call of libgcc's `__aeabi_lmul`).
  }];
  let options = [
    Option<"splitMultiply", "split-multiply", "bool", /*default=*/"false",
           "Compute the high word of the 64-bit product from four 16-bit "
           "products in 32-bit arithmetic (no 64-bit multiply)">
  ];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::scf::SCFDialect"
  ];
}

def SerenityPrimitivesToLinalgPass
    : Pass<"serenity-primitives-to-linalg", "func::FuncOp"> {
  let summary = "Lower the convolutions tagged with a primitive to linalg, "
                "keeping the tag";
  let description = [{
    Lowers each `tosa.conv2d` / `tosa.depthwise_conv2d` that carries
    `serenity.primitive` (a `#serenity.primitive<...>`) with the upstream
    `tosa-to-linalg-named` patterns, and moves the attribute to the
    `linalg` convolution they create (the upstream conversion drops
    discardable attributes). A primitive that cannot compute the
    convolution (see `isApplicable` in include/Serenity/Analysis/
    Primitives.h: dot on a float convolution, winograd on a 5x5 filter,
    ...) is an error at the convolution. Runs before `tosa-to-linalg-named`,
    which lowers the untagged convolutions.
  }];
  let options = [
    Option<"vectorUnit", "vector-unit", "bool", /*default=*/"true",
           "The target has a vector unit: a conv tagged vector is allowed "
           "(serenity-pipeline sets false for target=cortex-m)">,
  ];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::linalg::LinalgDialect",
    "mlir::tensor::TensorDialect", "mlir::math::MathDialect"
  ];
}

def SerenityLowerPrimitivesPass
    : Pass<"serenity-lower-primitives", "func::FuncOp"> {
  let summary = "Rewrite linalg convolutions tagged im2col or winograd";
  let description = [{
    On tensors, before bufferization (after
    `serenity-fuse-requantization`): a `linalg.conv_2d_nhwc_fhwc(_q)` tagged
    `#serenity.primitive<im2col>` is computed one output row at a time
    (tiled to one row unless it already is one): the row's input windows are
    copied into a workspace `[1, 1, OW, KH, KW, C]` (a `linalg.generic`), and
    a second generic multiplies the workspace by the filter, a matrix
    product with the reduction over `KH x KW x C`, both operands read
    contiguously, with the convolution's own body (zero points and
    extensions included), so the result is the convolution's exactly (int8
    bit-exact). `#serenity.primitive<winograd2>` / `<winograd4>` on an f32
    `linalg.conv_2d_nhwc_fhwc` apply upstream
    `linalg::winogradConv2D` (F(2x2,3x3) / F(4x4,3x3)) and decompose the
    `linalg.winograd_*` ops; the results agree with the direct convolution
    up to float rounding. `#serenity.primitive<vector>` on an f32
    `linalg.conv_2d_nhwc_fhwc` or `linalg.depthwise_conv_2d_nhwc_hwcm`
    (M = 1) with a constant filter: the filter is transposed (HWCF) or
    reshaped (HWC) at compile time, the convolution tiled into blocks of up
    to 4 output pixels x 8 output channels (depthwise: 16), accumulated per
    window position over up to 16 input channels (static sizes: output
    widths 4 does not divide are split into whole blocks and the rest), and
    each block, a 1-D convolution, vectorized by the upstream linalg
    vectorizer; the blocks live in vector registers, the padded input (and
    a depthwise conv's unbiased result) is the workspace.
    Workspaces are `tensor.empty` results: after
    bufferization, buffers the static allocator places in the arena.
    Convolutions tagged `direct` or `dot` are left alone.
  }];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::linalg::LinalgDialect",
    "mlir::tensor::TensorDialect", "mlir::scf::SCFDialect",
    "mlir::affine::AffineDialect", "mlir::vector::VectorDialect"
  ];
}

def SerenityInt8ConvKernelsPass
    : Pass<"serenity-int8-conv-kernels", "ModuleOp"> {
  let summary = "Lower int8 convolutions to dot-product kernels (SMLAD on "
                "Cortex-M)";
  let description = [{
    Replaces each `linalg.conv_2d_nhwc_fhwc(_q)` and
    `linalg.depthwise_conv_2d_nhwc_hwcm(_q)` (one channel per group) on
    buffers, with int8 operands, an int32 accumulator and a filter zero point
    of 0 (the ops without `_q`: both zero points 0), by loops that read four int8 values per 32-bit load. With
    `target=cortex-m` the arithmetic is the DSP extension's: `SXTB16` widens
    bytes 0/2 and 1/3 into int16 lanes, `SSUB16` subtracts the input zero
    point, `SMLAD` (convolution: the reduction runs along the input
    channels, and along the window's columns when a row of the window is
    contiguous) or `SMLABB`/`SMLATT` (depthwise: four channels per word)
    accumulate. A filter that is a view of a constant global gets two
    copies of the window loops: constant bounds, with the input zero point
    folded into the start values (bias - z * the channel's weight sum, a new
    table), for pixels whose window is whole, and the clipped bounds for the
    others. Up to four output channels are computed together, their
    accumulators in registers, so each input word is loaded and widened once
    for all of them. A convolution whose filter is a view of a constant
    global, with a multiple of four input channels, reads a copy of the
    filter widened to int16 at compile time (a new global, twice the
    filter's bytes, in the order SMLAD pairs them, marked
    `serenity.widened_from = @the_int8_global`; the int8 global is erased
    when nothing else reads it): two word loads and two SMLADs per four
    weights instead of a load, two SXTB16 and two SMLADs. Which filters are
    widened: those within `widen-budget` read by the most
    multiply-accumulates, or exactly the `widen-filters` named (a per-layer
    decision from measured profiles). Where the
    convolution's output is a one-pixel tile buffer (one block of channels)
    written by an init op (`linalg.fill` or a pointwise generic such as the
    bias broadcast) and read by one pointwise generic (the requantization),
    with nothing touching memory in between, the kernel takes its start
    values from the init op and applies the consumer itself, at the
    consumer's place: the accumulators stay in registers and the buffer is
    erased (run before static allocation, it is never allocated). `target=generic` emits the same loops with the byte
    arithmetic spelled out (any target; it tests the loop structure on the
    host).

    With `target=helium` (Cortex-M55, M85) a convolution's runs are read 16
    bytes at a time: one vector load of the input for the block of output
    channels, and per channel a vector load of the int8 filter and a
    reduce-add of the sign-extended products, which the ARM backend selects
    as `VMLAVA.S8` (16 multiply-accumulates); a run's last partial vector is
    a masked load (`VCTP` + `VLDRBT`, inactive lanes 0), not a scalar loop.
    The input zero point is folded into the start values for whole windows,
    and in clipped ones subtracted as z times the sum of the weights read
    (`VADDVA.S8`). The filters stay int8 (no widened copies). Depthwise
    convolutions use the DSP kernels. `target=generic-vector` emits the same
    loops for any target (64-bit addresses): the host tests them.

    The loop nests of serenity-fuse-requantization (output rows, columns,
    then blocks of channels, the kernel innermost) are reordered to blocks,
    rows, columns (`channel-blocks-first`) when the nest is perfect, its
    bounds constant and its iterations independent (every buffer the body
    writes but did not allocate is not read in it, and is written through
    views indexed by all three loops; nests computed over their input by
    serenity-in-place-convs never qualify): a block's tables are then read
    once per layer instead of once per pixel.

    Every product and sum is the reference lowering's, in int32
    wrap-around arithmetic and another order, so the result is bit-exact.
    The loads use the buffers' addresses at any byte offset (ARMv7E-M `LDR`
    accepts unaligned addresses). Convolutions that do not match are left to
    `convert-linalg-to-loops`.
  }];
  let options = [
    Option<"target", "target", "::mlir::serenity::KernelTarget",
           /*default=*/"::mlir::serenity::KernelTarget::CortexM",
           "Instructions to emit: cortex-m (DSP extension: Cortex-M4, M7, "
           "M33), helium (MVE: Cortex-M55, M85), cortex-m-baseline (the "
           "cortex-m loops in plain 32-bit integer arithmetic: ARMv6-M, "
           "Cortex-M0/M0+), riscv32 (the same for rv32imc/rv32imac), "
           "generic (the cortex-m loops in plain integer "
           "arithmetic, 64-bit addresses) or generic-vector (the helium "
           "loops in generic vector arithmetic, 64-bit addresses)">,
    Option<"widenBudget", "widen-budget", "int64_t", /*default=*/"-2",
           "Most bytes of flash the widened filter copies may add (each adds "
           "its filter's size): the filters widened are those reading the "
           "most multiply-accumulates within it (an exact 0/1 knapsack); -2 "
           "(auto): a quarter of the module's constant bytes, at most 32 "
           "KiB; -1: every eligible filter; 0: none (int8 weights only)">,
    ListOption<"widenFilters", "widen-filters", "std::string",
               "Widen exactly these filter globals (symbol names, e.g. from "
               "a per-layer decision of `python3 -m serenity frontier`), "
               "instead of choosing them within widen-budget; a name that "
               "is not a widenable filter is an error">,
    Option<"taggedOnly", "tagged-only", "bool", /*default=*/"false",
           "Lower only the convolutions tagged serenity.primitive = "
           "#serenity.primitive<dot> (by default every matching convolution "
           "not tagged with another primitive)">,
    Option<"channelBlocksFirst", "channel-blocks-first", "bool",
           /*default=*/"true",
           "Loop over a fused convolution's channel blocks outside its "
           "pixels (rows, columns, blocks -> blocks, rows, columns) where "
           "the iterations are independent: each block's bias, multipliers, "
           "shifts and weight sums are then read once per layer, not once "
           "per pixel">,
  ];
  let dependentDialects = [
    "mlir::arith::ArithDialect", "mlir::LLVM::LLVMDialect",
    "mlir::memref::MemRefDialect", "mlir::scf::SCFDialect",
    "mlir::func::FuncDialect"
  ];
}

def SerenityElideOutputCopiesPass
    : Pass<"serenity-elide-output-copies", "func::FuncOp"> {
  let summary = "Compute a result directly in its out-parameter instead of "
                "copying it there";
  let description = [{
    `buffer-results-to-out-params` returns a result by copying its buffer
    into the caller's out-parameter at the end of the function, so both
    exist at once (in ad01, a 640-byte activation next to the 640-byte
    output). Where the copied value is a buffer allocated in the function,
    possibly seen through `memref.collapse_shape`/`expand_shape` (a TOSA
    reshape), and neither the buffer nor the out-parameter is used after the
    copy, the buffer is replaced by the out-parameter viewed through the
    inverse reshapes and the copy is erased: the producer writes the output
    in place.

    ```mlir
    %a = memref.alloc() : memref<1x1x1x640xi8>
    ... writes %a ...
    %c = memref.collapse_shape %a [[0, 1, 2], [3]] : ... into memref<1x640xi8>
    memref.copy %c, %out : memref<1x640xi8> to memref<1x640xi8>
    // becomes
    %a = memref.expand_shape %out [[0, 1, 2], [3]] output_shape [1, 1, 1, 640]
    ... writes %a ...
    ```
  }];
}

def SerenityPersistentStatePass
    : Pass<"serenity-persistent-state", "mlir::ModuleOp"> {
  let summary = "Pack the state kept between invocations into one region "
                "with a reset function";
  let description = [{
    A model's state (TOSA variables: SVDF's activation state, an LSTM's
    output and cell state; after `tosa-to-mlprogram` and bufferization the
    mutable `memref.global`s of the module) must survive from one call to
    the next, so it cannot share the arena with anything. This pass packs
    every mutable, statically shaped global that a function reads or writes
    into ONE public `memref<Nxi8>` global `@F_state` (F: the first function
    using them), each variable at an offset aligned to `alignment`, and
    rewrites each `memref.get_global` into a `memref.view` of it. It adds
    `func.func @F_reset()`, which writes every variable's initial value back
    (TFLite Micro's ResetVariableTensors: a `linalg.fill` for a splat
    initial value, a copy from a constant otherwise). The packed global keeps
    the initial values, so the first call needs no reset (zero state goes to
    .bss, other values to .data).

    A shift-register update (the state's old values copied, moved, into a
    new buffer, new values copied after them, the buffer written back: SVDF's
    state) is done in the state itself when every access to the buffer is a
    copy into it, the state is read meanwhile only by those copies, no copy
    reads what an earlier one wrote, and a copy that overlaps itself reads at
    or after where it writes (ascending loops): no buffer in the arena.

    Each function using state gets `serenity.persistent_bytes = N` and
    `serenity.persistent = [{name, offset, size}, ...]`;
    serenity-static-alloc's report adds them (`ram_bytes` counts them) and
    serenity-compile's header declares `F_state` and `F_reset`.
  }];
  let options = [
    Option<"alignment", "alignment", "int64_t", /*default=*/"16",
           "Alignment of the region and of each variable in it (bytes, a "
           "power of two)">,
  ];
  let dependentDialects = ["mlir::memref::MemRefDialect",
                           "mlir::arith::ArithDialect",
                           "mlir::linalg::LinalgDialect",
                           "mlir::func::FuncDialect"];
}

def SerenityStaticAllocPass
    : Pass<"serenity-static-alloc", "mlir::ModuleOp"> {
  let summary = "Place every static memref.alloc of a function in one arena";
  let description = [{
    For each function with a body, every `memref.alloc` with a static shape
    and identity layout (also inside loops and other regions) becomes a
    `memref.view` into one `i8` arena at an offset planned by the
    SerenityAllocation library; `memref.dealloc`s of planned buffers are
    erased. A buffer is live from its alloc to the last use of it or of any
    memref derived from it (subview, expand/collapse_shape, cast,
    reinterpret_cast, view, ...), in pre-order op numbering of the function;
    a use inside a region keeps the buffer live until the end of the
    enclosing op in the alloc's block (every iteration of a loop).

    ```mlir
    %a = memref.alloc() {alignment = 64 : i64} : memref<100xi8>
    // becomes, with arena=global
    memref.global "private" @__serenity_arena_f : memref<192xi8> = uninitialized {alignment = 64 : i64}
    %arena = memref.get_global @__serenity_arena_f : memref<192xi8>
    %c128 = arith.constant 128 : index
    %a = memref.view %arena[%c128][] : memref<192xi8> to memref<100xi8>
    ```

    `arena=global` uses a private `memref.global` per function;
    `arena=argument` prepends a `memref<Nxi8>` argument instead, so the
    caller owns the arena (TFLM style; it must be `alignment`-aligned).
    Dynamically sized allocs, allocs with a layout or memory space, and
    buffers that escape (returned, yielded out of a region, freed by
    `bufferization.dealloc`) stay as they are, with a remark. Sets
    `serenity.arena_bytes` and `serenity.arena_lower_bound` (max live bytes)
    on the function; `report=FILE` writes
    `{"function", "arena_bytes", "lower_bound", "proven_optimal",
    "stopped_by" (none, work-limit, state-limit or time-limit), "buffers":
    [ {"name", "offset", "size", "first", "last"} ] }` (inclusive steps in
    the rewritten function; with state from serenity-persistent-state also
    `"persistent_bytes"` and `"persistent_buffers"`, counted in
    `"ram_bytes"`), or `{"functions": [ ... ] }` of those when
    several functions have buffers. Functions without placeable allocs are
    left unchanged (no arena), and so are functions with a multi-block
    region (with a remark), where program order is not a timeline.
  }];
  let options = [
    Option<"algorithm", "algorithm", "::serenity::AllocAlgorithm",
           /*default=*/"::serenity::AllocAlgorithm::Exact",
           "Offset algorithm: exact, best-fit or greedy-size">,
    Option<"alignment", "alignment", "int64_t", /*default=*/"64",
           "Minimum alignment of every buffer in bytes (a power of two)">,
    Option<"arena", "arena", "::mlir::serenity::ArenaStorage",
           /*default=*/"::mlir::serenity::ArenaStorage::Global",
           "Arena storage: global (private memref.global) or argument">,
    Option<"io", "io", "::mlir::serenity::IOPlacement",
           /*default=*/"::mlir::serenity::IOPlacement::Caller",
           "Where the function's memref arguments (inputs, and outputs as "
           "out-parameters) live: caller (outside the arena, held by the "
           "caller) or arena (planned in the arena like intermediates: an "
           "input's bytes are reused once it is dead, an output's before it "
           "is written; the caller passes views of the arena at the offsets "
           "in serenity.io_offsets)">,
    Option<"registers", "registers", "bool", /*default=*/"true",
           "One-element buffers used only by linalg ops, loads and stores "
           "(e.g. a per-output accumulator) become a memref.alloca at the "
           "function entry instead of arena bytes; mem2reg after loop "
           "lowering keeps them in registers">,
    Option<"report", "report", "std::string", /*default=*/"\"\"",
           "File to write the JSON allocation report to">,
    Option<"workLimit", "work-limit", "int64_t",
           /*default=*/"::serenity::AllocOptions::kDefaultWorkLimit",
           "Work budget of the exact search per function, in solver steps "
           "(the default ends in about 10 s on the reference machine of "
           "docs/Allocation.md); on expiry the best arena found is used, "
           "reported not proven (stopped_by: work-limit)">,
    Option<"timeLimit", "time-limit", "double", /*default=*/"0.0",
           "Wall-clock safety net of the exact search per function, in "
           "seconds (0: off); a result it cuts short depends on the "
           "machine (stopped_by: time-limit)">,
  ];
  let dependentDialects = ["mlir::memref::MemRefDialect",
                           "mlir::arith::ArithDialect"];
}

def SerenityProfileMarksPass
    : Pass<"serenity-profile-marks", "ModuleOp"> {
  let summary = "Call a timer hook between the kernels of each function, "
                "for per-layer instruction counts";
  let description = [{
    Inserts `func.call @serenity_profile_mark(%id) : (i32) -> ()` before
    each top-level kernel (a linalg op, a loop nest, a copy: what
    serenity-outline-kernels moves) of every public function with one block,
    and before its return; ids count from 0 over the module, so kernel k of
    a function runs between its mark k and mark k + 1. The program defines
    `void serenity_profile_mark(int32_t id)` (for instance: read a timer,
    keep the time per id); `serenity.deploy.profile_layers` does, on QEMU
    (for `examples/deploy/measure.py --per-layer` and the per-layer cost
    model of `python3 -m serenity frontier`). `labels=FILE` writes a JSON
    object: "marks" (N) and "kernels", a list of objects with "function",
    "begin", "end" (the kernel's marks), "op" (its op name), "location" (the
    TOSA op it was lowered from, file:line:col), "sources" (the distinct
    locations of the ops inside it: a fused kernel lists each source op),
    "operators" (the distinct names of the named locations inside it: a
    .tflite model's operators, "operator N BUILTIN 'tensor'") and
    "widened": the filters the kernel reads through a copy widened by
    serenity-int8-conv-kernels ("filter": the int8 global the copy stands
    for, its `serenity.widened_from`; "copy"; "bytes": the filter's).
    Run after static allocation: the calls have side effects, so they also
    keep serenity-outline-kernels from grouping kernels.
  }];
  let options = [
    Option<"labels", "labels", "std::string", /*default=*/"\"\"",
           "File to write the JSON list of kernels and their marks to">,
  ];
  let dependentDialects = ["mlir::func::FuncDialect",
                           "mlir::arith::ArithDialect"];
}

def SerenityShareKernelsPass
    : Pass<"serenity-share-kernels", "mlir::ModuleOp"> {
  let summary = "One function for the identical kernels of a function";
  let description = [{
    A recurrent model unrolled over time (an LSTM over 28 steps) repeats the
    same kernels, with the same weights, on buffers at different offsets:
    unrolled, its code is that of one step times the number of steps. This
    pass turns each kernel (a top-level linalg op, loop nest or copy of a
    lowered function) into a candidate function whose arguments are the
    buffers and values it reads from the function (memrefs with their offset
    made dynamic, strides kept), and rebuilds inside it what is the same in
    every copy (constants, constant globals such as weights and tables, pure
    ops on them). Kernels whose candidates are identical (the same ops on
    arguments of the same types), at least `min-copies` of them, all become
    calls of one private function `@<function>_shared<i>` (LLVM `noinline`,
    internal linkage); the
    others stay as they are.

    ```mlir
    linalg.generic ... ins(%step3 : memref<1x20xi16, strided<[20, 1], offset: 60>>) ...
    // becomes
    %a = memref.cast %step3 : ... to memref<1x20xi16, strided<[20, 1], offset: ?>>
    func.call @main_shared0(%a, ...)
    ```
  }];
  let options = [
    Option<"minCopies", "min-copies", "int64_t", /*default=*/"4",
           "Share kernels that occur at least this many times (0: off)">,
    Option<"onlyStateful", "only-stateful", "bool", /*default=*/"false",
           "Only in functions that keep state between runs "
           "(serenity.persistent_bytes: a recurrent model, whose time loop "
           "is unrolled)">,
    Option<"onlyTiled", "only-tiled", "bool", /*default=*/"false",
           "Only in functions that serenity-tile tiled (serenity.tiled): "
           "its tiles repeat a region's kernels with the same weights on "
           "other offsets, one kernel per tile shape">,
  ];
  let dependentDialects = ["mlir::func::FuncDialect",
                           "mlir::LLVM::LLVMDialect",
                           "mlir::memref::MemRefDialect"];
}

def SerenityOutlineKernelsPass
    : Pass<"serenity-outline-kernels", "ModuleOp"> {
  let summary = "Move each top-level kernel of a large function into a "
                "private function of its own";
  let description = [{
    After static allocation a network is one function whose every op is a
    kernel (a linalg op, a loop nest, a copy) on views of the arena. The
    loop lowering that follows (`convert-scf-to-cf`, `mem2reg`) grows much
    faster than linearly with the size of one function: on 1645 TOSA ops
    `mem2reg` alone takes 17 s. This pass moves each kernel of a function
    with at least `min-ops` of them, `group-size` consecutive kernels at a
    time, into a private function `@<function>_kernel<i>` and calls it in
    their place, so those passes run on many small functions (in parallel,
    and linear in total); LLVM's inliner may put them back. (On a
    10000-op random DAG the whole LLVM lowering takes 42 s with one kernel
    per function, 30 s with 32, 46 s with 512.)

    What a kernel reads from its function is rebuilt inside the new
    function where that is free of side effects: constants, the arena
    global and the views of it (so addresses stay constants); a
    `memref.alloca` only the kernel uses (a `registers=true` accumulator)
    moves into it, so `mem2reg` still promotes it; anything else (function
    arguments, views of them) is passed as an argument. A kernel is an op
    without results with a region, a linalg op or a `memref.copy`;
    functions with several blocks, external functions and those marked
    `serenity.unoptimized` are left alone.

    ```mlir
    linalg.generic ... ins(%v1 : memref<4xf32>) outs(%v2 : memref<4xf32>)
    // becomes
    func.call @main_kernel0() : () -> ()
    func.func private @main_kernel0() {
      %arena = memref.get_global @__serenity_arena_main : memref<64xi8>
      ... the views %v1, %v2 rebuilt ...
      linalg.generic ... ins(%v1 : memref<4xf32>) outs(%v2 : memref<4xf32>)
      return
    }
    ```
  }];
  let options = [
    Option<"minOps", "min-ops", "int64_t", /*default=*/"256",
           "Outline the kernels of functions that have at least this many "
           "(0: every function with kernels)">,
    Option<"groupSize", "group-size", "int64_t", /*default=*/"32",
           "Consecutive kernels per outlined function (an op with side "
           "effects other than an alloca between kernels ends a group)">,
  ];
  let dependentDialects = ["mlir::func::FuncDialect"];
}

#endif // SERENITY_LOWERING_PASSES_TD
