//===- Primitives.cpp - Convolution primitives (#serenity.primitive) -----===//
//
// serenity-primitives-to-linalg carries a convolution's primitive through
// the TOSA -> linalg conversion; serenity-lower-primitives rewrites the
// linalg convolutions tagged im2col or winograd (dot is
// serenity-int8-conv-kernels', direct the upstream loops).
//
//===----------------------------------------------------------------------===//

#include "Serenity/Analysis/Primitives.h"
#include "Serenity/Lowering/Passes.h"

#include "mlir/Conversion/TosaToLinalg/TosaToLinalg.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/Dialect/Tosa/Transforms/Passes.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/Dialect/Utils/StructuredOpsUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/DialectConversion.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

#include <cstring>

namespace mlir {
namespace serenity {
#define GEN_PASS_DEF_SERENITYPRIMITIVESTOLINALGPASS
#define GEN_PASS_DEF_SERENITYLOWERPRIMITIVESPASS
#include "Serenity/Lowering/Passes.h.inc"
} // namespace serenity
} // namespace mlir

using namespace mlir;
using namespace mlir::serenity;

namespace {

//===----------------------------------------------------------------------===//
// serenity-primitives-to-linalg
//===----------------------------------------------------------------------===//

struct SerenityPrimitivesToLinalgPass
    : public mlir::serenity::impl::SerenityPrimitivesToLinalgPassBase<
          SerenityPrimitivesToLinalgPass> {
  using SerenityPrimitivesToLinalgPassBase::SerenityPrimitivesToLinalgPassBase;

  void runOnOperation() override {
    func::FuncOp function = getOperation();
    if (isUnoptimized(function))
      return;
    SmallVector<Operation *> tagged;
    bool failedCheck = false;
    function.walk([&](Operation *op) {
      std::optional<ConvPrimitive> primitive = getConvPrimitive(op);
      if (!primitive)
        return;
      std::string reason;
      if (!isa<tosa::Conv2DOp, tosa::DepthwiseConv2DOp>(op)) {
        // Already lowered (a linalg convolution keeps its tag).
        if (isa<linalg::ConvolutionOpInterface>(op))
          return;
        op->emitError() << "serenity.primitive belongs on a tosa.conv2d or "
                           "tosa.depthwise_conv2d";
        failedCheck = true;
        return;
      }
      if (!isApplicable(op, *primitive, &reason, vectorUnit)) {
        op->emitError() << "primitive '" << stringifyConvPrimitive(*primitive)
                        << "' cannot compute this convolution: " << reason;
        failedCheck = true;
        return;
      }
      tagged.push_back(op);
    });
    if (failedCheck)
      return signalPassFailure();
    if (tagged.empty())
      return;

    MLIRContext *context = &getContext();
    TypeConverter converter;
    tosa::populateTosaTypeConversion(converter);
    RewritePatternSet patterns(context);
    tosa::populateTosaToLinalgNamedConversionPatterns(converter, &patterns, {});
    FrozenRewritePatternSet frozen(std::move(patterns));
    ConversionTarget target(*context);
    target.addIllegalOp<tosa::Conv2DOp, tosa::DepthwiseConv2DOp>();
    target.markUnknownOpDynamicallyLegal([](Operation *) { return true; });
    for (Operation *conv : tagged) {
      Attribute primitive = conv->getAttr(kPrimitiveAttrName);
      Location loc = conv->getLoc();
      // The conversion replaces the conv by ops at its place: between its
      // neighbours, which stay.
      Block *block = conv->getBlock();
      Operation *prev = conv->getPrevNode(), *next = conv->getNextNode();
      if (failed(applyPartialConversion(conv, target, frozen))) {
        emitError(loc) << "serenity-primitives-to-linalg: the convolution "
                          "could not be lowered to linalg";
        return signalPassFailure();
      }
      for (Operation &op : llvm::make_range(
               prev ? std::next(prev->getIterator()) : block->begin(),
               next ? next->getIterator() : block->end()))
        op.walk([&](linalg::ConvolutionOpInterface replacement) {
          replacement->setAttr(kPrimitiveAttrName, primitive);
        });
    }
  }
};

//===----------------------------------------------------------------------===//
// serenity-lower-primitives
//===----------------------------------------------------------------------===//

/// A static upper bound of dimension `dim` of `value`: its size, or the
/// bound of the source of the tensor.extract_slice (not rank-reducing) it is
/// a tile of.
FailureOr<int64_t> staticBound(Value value, int64_t dim) {
  auto type = cast<RankedTensorType>(value.getType());
  if (!type.isDynamicDim(dim))
    return type.getDimSize(dim);
  auto slice = value.getDefiningOp<tensor::ExtractSliceOp>();
  if (!slice || slice.getSourceType().getRank() != type.getRank())
    return failure();
  return staticBound(slice.getSource(), dim);
}

/// im2col for one output row of a linalg.conv_2d_nhwc_fhwc(_q) on tensors
/// (output [1, 1, OW, F]).
LogicalResult lowerIm2colRow(RewriterBase &rewriter, linalg::LinalgOp conv) {
  MLIRContext *context = rewriter.getContext();
  Location loc = conv.getLoc();
  Value input = conv.getDpsInputs()[0];
  Value filter = conv.getDpsInputs()[1];
  auto inputType = cast<RankedTensorType>(input.getType());
  auto outputType = cast<RankedTensorType>(conv->getResult(0).getType());
  auto strides = conv->getAttrOfType<DenseIntElementsAttr>("strides");
  auto dilations = conv->getAttrOfType<DenseIntElementsAttr>("dilations");
  auto value = [](DenseIntElementsAttr attr, int i) {
    return attr ? attr.getValues<int64_t>()[i] : int64_t(1);
  };
  int64_t sh = value(strides, 0), sw = value(strides, 1);
  int64_t dh = value(dilations, 0), dw = value(dilations, 1);

  rewriter.setInsertionPoint(conv);
  // Gather: workspace[n, oh, ow, kh, kw, c] = input[n, oh*sh + kh*dh,
  // ow*sw + kw*dw, c].
  // Sizes of a tile may be dynamic (clipped windows at the borders): the
  // workspace has their static upper bounds (one static buffer the static
  // allocator places), the gather writes a slice of it.
  SmallVector<std::pair<Value, int64_t>> dims = {
      {conv.getDpsInits()[0], 2}, {filter, 1}, {filter, 2}, {filter, 3}};
  SmallVector<OpFoldResult> sizes = {rewriter.getIndexAttr(1),
                                     rewriter.getIndexAttr(1)};
  SmallVector<int64_t> bounds = {1, 1};
  for (auto [value, dim] : dims) {
    sizes.push_back(tensor::getMixedSize(rewriter, loc, value, dim));
    FailureOr<int64_t> bound = staticBound(value, dim);
    if (failed(bound))
      return conv->emitError("serenity-lower-primitives: no static bound on "
                             "the im2col workspace of this convolution tile");
    bounds.push_back(*bound);
  }
  Value workspace = tensor::EmptyOp::create(rewriter, loc, bounds,
                                            inputType.getElementType());
  SmallVector<OpFoldResult> zeros(6, rewriter.getIndexAttr(0));
  SmallVector<OpFoldResult> ones(6, rewriter.getIndexAttr(1));
  workspace = tensor::ExtractSliceOp::create(rewriter, loc, workspace, zeros,
                                             sizes, ones);
  AffineExpr n, oh, w, fh, fw, ch, f;
  bindDims(context, n, oh, w, fh, fw, ch);
  AffineMap gatherInput = AffineMap::get(
      6, 0, {n, oh * sh + fh * dh, w * sw + fw * dw, ch}, context);
  AffineMap identity6 = AffineMap::getMultiDimIdentityMap(6, context);
  SmallVector<utils::IteratorType> parallel6(6, utils::IteratorType::parallel);
  auto gather = linalg::GenericOp::create(
      rewriter, loc, workspace.getType(), ValueRange{input},
      ValueRange{workspace}, ArrayRef<AffineMap>{gatherInput, identity6},
      parallel6, [](OpBuilder &b, Location l, ValueRange args) {
        linalg::YieldOp::create(b, l, args[0]);
      });

  // Product: out[n, oh, ow, f] (+)= workspace[n, oh, ow, kh, kw, c] *
  // filter[f, kh, kw, c], with the convolution's own body.
  bindDims(context, n, oh, w, f, fh, fw, ch);
  SmallVector<AffineMap> maps = {
      AffineMap::get(7, 0, {n, oh, w, fh, fw, ch}, context),
      AffineMap::get(7, 0, {f, fh, fw, ch}, context)};
  SmallVector<Value> inputs = {gather.getResult(0), filter};
  SmallVector<Value> convInputs = conv.getDpsInputs();
  for (Value zeroPoint : llvm::drop_begin(convInputs, 2)) {
    inputs.push_back(zeroPoint);
    maps.push_back(AffineMap::get(7, 0, {}, context));
  }
  maps.push_back(AffineMap::get(7, 0, {n, oh, w, f}, context));
  SmallVector<utils::IteratorType> iterators(4, utils::IteratorType::parallel);
  iterators.append(3, utils::IteratorType::reduction);
  auto product =
      linalg::GenericOp::create(rewriter, loc, TypeRange{outputType}, inputs,
                                conv.getDpsInits(), maps, iterators);
  rewriter.cloneRegionBefore(conv->getRegion(0), product.getRegion(),
                             product.getRegion().end());
  rewriter.replaceOp(conv, product.getResults());
  return success();
}

/// Tiles `conv` with `sizes` (upstream tileUsingSCF), replacing it; returns
/// the tiled ops, or fails with an error naming `what` the tiles are.
FailureOr<SmallVector<Operation *>> tileConv(RewriterBase &rewriter,
                                             linalg::LinalgOp conv,
                                             ArrayRef<int64_t> sizes,
                                             StringRef what) {
  scf::SCFTilingOptions options;
  options.setTileSizes(getAsIndexOpFoldResult(rewriter.getContext(), sizes));
  rewriter.setInsertionPoint(conv);
  FailureOr<scf::SCFTilingResult> tiled = scf::tileUsingSCF(
      rewriter, cast<TilingInterface>(conv.getOperation()), options);
  if (failed(tiled))
    return conv->emitError("serenity-lower-primitives: cannot tile the "
                           "convolution into ")
           << what;
  rewriter.replaceOp(conv, tiled->replacements);
  return tiled->tiledOps;
}

LogicalResult lowerIm2col(RewriterBase &rewriter, linalg::LinalgOp conv) {
  auto outputType = cast<RankedTensorType>(conv->getResult(0).getType());
  if (outputType.getDimSize(0) == 1 && outputType.getDimSize(1) == 1)
    return lowerIm2colRow(rewriter, conv);
  // One output row (and batch) at a time: the workspace holds one row's
  // windows.
  FailureOr<SmallVector<Operation *>> rows =
      tileConv(rewriter, conv, {1, 1}, "output rows for im2col");
  if (failed(rows))
    return failure();
  for (Operation *op : *rows)
    if (failed(lowerIm2colRow(rewriter, cast<linalg::LinalgOp>(op))))
      return failure();
  return success();
}

LogicalResult lowerWinograd(RewriterBase &rewriter, linalg::LinalgOp conv,
                            ConvPrimitive primitive) {
  auto op = dyn_cast<linalg::Conv2DNhwcFhwcOp>(conv.getOperation());
  if (!op)
    return conv->emitError("serenity-lower-primitives: winograd needs an f32 "
                           "linalg.conv_2d_nhwc_fhwc");
  rewriter.setInsertionPoint(op);
  FailureOr<Operation *> result = linalg::winogradConv2D(
      rewriter, op,
      primitive == ConvPrimitive::Winograd2 ? linalg::WinogradConv2DFmr::F_2_3
                                            : linalg::WinogradConv2DFmr::F_4_3);
  if (failed(result))
    return conv->emitError("serenity-lower-primitives: upstream "
                           "winogradConv2D does not apply to this "
                           "convolution");
  return success();
}

/// A constant of shape `shape` whose element at each index is `source`'s
/// element at `sourceIndex(index)`; the bytes are moved, not converted.
DenseElementsAttr
remapConstant(DenseElementsAttr source, ArrayRef<int64_t> shape,
              function_ref<void(ArrayRef<int64_t>, SmallVectorImpl<int64_t> &)>
                  sourceIndex) {
  auto type = RankedTensorType::get(shape, source.getElementType());
  if (source.isSplat())
    return source.resizeSplat(type);
  ArrayRef<int64_t> sourceShape = source.getType().getShape();
  SmallVector<int64_t> sourceStrides = computeStrides(sourceShape);
  size_t bytes = source.getRawData().size() / source.getNumElements();
  ArrayRef<char> raw = source.getRawData();
  std::vector<char> data(type.getNumElements() * bytes);
  SmallVector<int64_t> strides = computeStrides(shape);
  SmallVector<int64_t> at;
  for (int64_t linear = 0, e = type.getNumElements(); linear < e; ++linear) {
    SmallVector<int64_t> index = delinearize(linear, strides);
    at.clear();
    sourceIndex(index, at);
    int64_t offset = linearize(at, sourceStrides);
    std::memcpy(&data[linear * bytes], &raw[offset * bytes], bytes);
  }
  return DenseElementsAttr::getFromRawBuffer(type, data);
}

/// The value of a constant tensor (an arith.constant of dense elements).
FailureOr<DenseElementsAttr> constantTensor(Value value) {
  DenseElementsAttr attr;
  if (matchPattern(value, m_Constant(&attr)))
    return attr;
  return failure();
}

/// The largest of `candidates` (descending) that divides `size`.
int64_t largestDivisor(int64_t size, ArrayRef<int64_t> candidates) {
  for (int64_t c : candidates)
    if (size % c == 0)
      return c;
  return 1;
}

/// Replaces `block` (a 1-D convolution) by the upstream vectorizer's
/// vector ops.
LogicalResult vectorizeBlock(RewriterBase &rewriter, linalg::LinalgOp block) {
  rewriter.setInsertionPoint(block);
  FailureOr<linalg::VectorizationResult> vectorized =
      linalg::vectorize(rewriter, block);
  if (failed(vectorized))
    return block->emitError("serenity-lower-primitives: the upstream "
                            "vectorizer does not apply to a vector block");
  rewriter.replaceOp(block, vectorized->replacements);
  return success();
}

/// The part of an NHWC convolution `conv` (on tensors: input, filter,
/// init) computing output columns [start, start + width): the same op on
/// the input columns it reads, written into its slice of `into`.
Value convColumns(RewriterBase &rewriter, linalg::LinalgOp conv, Value into,
                  int64_t start, int64_t width, int64_t windowWidth) {
  Location loc = conv.getLoc();
  auto dims = [](DenseIntElementsAttr attr) {
    return attr ? attr.getValues<int64_t>()[1] : int64_t(1);
  };
  int64_t sw = dims(conv->getAttrOfType<DenseIntElementsAttr>("strides"));
  int64_t dw = dims(conv->getAttrOfType<DenseIntElementsAttr>("dilations"));
  Value input = conv.getDpsInputs()[0];
  auto inputType = cast<RankedTensorType>(input.getType());
  auto outputType = cast<RankedTensorType>(into.getType());
  auto slice = [&](Value source, RankedTensorType type, int64_t offset,
                   int64_t size) {
    SmallVector<int64_t> sizes(type.getShape());
    sizes[2] = size;
    SmallVector<int64_t> offsets(type.getRank(), 0);
    offsets[2] = offset;
    return std::make_pair(offsets, sizes);
  };
  auto [inOffsets, inSizes] =
      slice(input, inputType, start * sw,
            (width - 1) * sw + (windowWidth - 1) * dw + 1);
  auto [outOffsets, outSizes] = slice(into, outputType, start, width);
  MLIRContext *context = rewriter.getContext();
  auto folded = [&](ArrayRef<int64_t> values) {
    return getAsIndexOpFoldResult(context, values);
  };
  SmallVector<int64_t> ones(outputType.getRank(), 1);
  Value in = tensor::ExtractSliceOp::create(
      rewriter, loc, input, folded(inOffsets), folded(inSizes), folded(ones));
  // The output slice of `into` (the columns already computed are written
  // there): a slice of the original init would read it after the first
  // part's insert wrote it, and bufferization would copy the output.
  Value out = tensor::ExtractSliceOp::create(
      rewriter, loc, into, folded(outOffsets), folded(outSizes), folded(ones));
  Operation *part = clone(rewriter, conv, TypeRange{out.getType()},
                          ValueRange{in, conv.getDpsInputs()[1], out});
  return tensor::InsertSliceOp::create(rewriter, loc, part->getResult(0), into,
                                       folded(outOffsets), folded(outSizes),
                                       folded(ones));
}

/// Tiles the NHWC convolution `conv` into the static blocks
/// `blockSizes(columns)` gives (one loop per iteration dimension; dimension
/// 2 the output columns) and vectorizes each block after `downscale` made
/// it 1-D. Output widths that 4 does not divide are split into a part of
/// whole 4-column blocks and one of the remaining columns, so every block
/// is static.
LogicalResult tileAndVectorize(
    RewriterBase &rewriter, linalg::LinalgOp conv, int64_t windowWidth,
    function_ref<SmallVector<int64_t>(int64_t)> blockSizes,
    function_ref<FailureOr<linalg::LinalgOp>(PatternRewriter &, Operation *)>
        downscale) {
  auto output = cast<RankedTensorType>(conv->getResult(0).getType());
  int64_t columns = output.getDimSize(2);
  SmallVector<std::pair<linalg::LinalgOp, int64_t>> parts;
  if (columns > 4 && columns % 4 != 0) {
    rewriter.setInsertionPoint(conv);
    int64_t whole = columns - columns % 4;
    Value result = convColumns(rewriter, conv, conv.getDpsInits()[0], 0, whole,
                               windowWidth);
    Operation *first = result.getDefiningOp()->getOperand(0).getDefiningOp();
    result = convColumns(rewriter, conv, result, whole, columns - whole,
                         windowWidth);
    Operation *second = result.getDefiningOp()->getOperand(0).getDefiningOp();
    rewriter.replaceOp(conv, result);
    parts = {{cast<linalg::LinalgOp>(first), 4},
             {cast<linalg::LinalgOp>(second), columns - whole}};
  } else {
    parts = {{conv, largestDivisor(columns, {4, 3, 2})}};
  }
  for (auto [part, width] : parts) {
    FailureOr<SmallVector<Operation *>> blocks =
        tileConv(rewriter, part, blockSizes(width), "vector blocks");
    if (failed(blocks))
      return failure();
    for (Operation *block : *blocks) {
      PatternRewriter patternRewriter(rewriter.getContext());
      patternRewriter.setInsertionPoint(block);
      FailureOr<linalg::LinalgOp> conv1d = downscale(patternRewriter, block);
      if (failed(conv1d))
        return block->emitError("serenity-lower-primitives: a vector block "
                                "is not a 1-D convolution");
      if (failed(vectorizeBlock(rewriter, *conv1d)))
        return failure();
    }
  }
  return success();
}

/// The strides and dilations of a linalg convolution, for the convolution
/// that replaces it.
SmallVector<NamedAttribute> windowAttrs(Operation *conv) {
  SmallVector<NamedAttribute> attrs;
  for (StringRef name : {"strides", "dilations"})
    if (Attribute attr = conv->getAttr(name))
      attrs.emplace_back(StringAttr::get(conv->getContext(), name), attr);
  return attrs;
}

/// The vector primitive: an f32 linalg.conv_2d_nhwc_fhwc becomes a
/// linalg.conv_2d_nhwc_hwcf with the filter transposed at compile time,
/// tiled into blocks of [OWt output pixels x Ft channels] accumulated over
/// each window position and Ct input channels, each block a 1-D convolution
/// that the upstream vectorizer turns into vector contractions (outer
/// products along the output channels, contiguous in HWCF).
LogicalResult lowerVectorConv(RewriterBase &rewriter, linalg::LinalgOp conv) {
  auto op = dyn_cast<linalg::Conv2DNhwcFhwcOp>(conv.getOperation());
  if (!op || !cast<RankedTensorType>(op->getResult(0).getType())
                  .getElementType()
                  .isF32())
    return conv->emitError("serenity-lower-primitives: vector needs an f32 "
                           "linalg.conv_2d_nhwc_fhwc");
  Location loc = op.getLoc();
  Value filter = op.getDpsInputs()[1];
  FailureOr<DenseElementsAttr> fhwc = constantTensor(filter);
  if (failed(fhwc))
    return conv->emitError("serenity-lower-primitives: vector needs a "
                           "constant filter");
  ArrayRef<int64_t> f = fhwc->getType().getShape();
  DenseElementsAttr hwcf =
      remapConstant(*fhwc, {f[1], f[2], f[3], f[0]},
                    [](ArrayRef<int64_t> i, SmallVectorImpl<int64_t> &at) {
                      at.append({i[3], i[0], i[1], i[2]});
                    });
  rewriter.setInsertionPoint(op);
  Value transposed = arith::ConstantOp::create(rewriter, loc, hwcf);
  auto output = cast<RankedTensorType>(op->getResult(0).getType());
  SmallVector<NamedAttribute> attrs = windowAttrs(op);
  auto hwcfConv = linalg::Conv2DNhwcHwcfOp::create(
      rewriter, loc, TypeRange{output},
      ValueRange{op.getDpsInputs()[0], transposed}, op.getDpsInits(), attrs);
  rewriter.replaceOp(op, hwcfConv->getResults());

  // Loops (n, oh, ow, f, kh, kw, c): one output row, OWt pixels, Ft
  // channels, one window position and Ct input channels per block.
  int64_t channels = output.getDimSize(3), inputChannels = f[3];
  return tileAndVectorize(
      rewriter, hwcfConv, f[2],
      [&](int64_t width) -> SmallVector<int64_t> {
        return {1,
                1,
                width,
                largestDivisor(channels, {8, 4, 2}),
                1,
                1,
                largestDivisor(inputChannels, {16, 8, 4, 2})};
      },
      [](PatternRewriter &patternRewriter,
         Operation *block) -> FailureOr<linalg::LinalgOp> {
        FailureOr<linalg::Conv1DNwcWcfOp> conv1d =
            linalg::DownscaleSizeOneWindowed2DConvolution<
                linalg::Conv2DNhwcHwcfOp, linalg::Conv1DNwcWcfOp>(
                patternRewriter.getContext())
                .returningMatchAndRewrite(cast<linalg::Conv2DNhwcHwcfOp>(block),
                                          patternRewriter);
        if (failed(conv1d))
          return failure();
        return cast<linalg::LinalgOp>(conv1d->getOperation());
      });
}

/// The vector primitive of an f32 depthwise convolution with one channel
/// per group: linalg.depthwise_conv_2d_nhwc_hwcm (M = 1) becomes a
/// linalg.depthwise_conv_2d_nhwc_hwc (the filter reshaped at compile time),
/// tiled into blocks of [OWt output pixels x Ct channels] per window
/// position, each block a 1-D depthwise convolution the upstream vectorizer
/// turns into multiply-adds along the channels.
LogicalResult lowerVectorDepthwise(RewriterBase &rewriter,
                                   linalg::DepthwiseConv2DNhwcHwcmOp op) {
  auto output = cast<RankedTensorType>(op->getResult(0).getType());
  if (!output.getElementType().isF32() || output.getDimSize(4) != 1)
    return op->emitError("serenity-lower-primitives: vector needs an f32 "
                         "depthwise convolution with one channel per group");
  FailureOr<DenseElementsAttr> hwcm = constantTensor(op.getDpsInputs()[1]);
  if (failed(hwcm))
    return op->emitError("serenity-lower-primitives: vector needs a "
                         "constant filter");
  ArrayRef<int64_t> f = hwcm->getType().getShape();
  DenseElementsAttr hwc = hwcm->reshape(RankedTensorType::get(
      {f[0], f[1], f[2]}, hwcm->getType().getElementType()));
  Location loc = op.getLoc();
  rewriter.setInsertionPoint(op);
  Value filter = arith::ConstantOp::create(rewriter, loc, hwc);
  SmallVector<ReassociationIndices> lastTwo = {{0}, {1}, {2}, {3, 4}};
  Value init = tensor::CollapseShapeOp::create(rewriter, loc,
                                               op.getDpsInits()[0], lastTwo);
  SmallVector<NamedAttribute> attrs = windowAttrs(op);
  auto hwcConv = linalg::DepthwiseConv2DNhwcHwcOp::create(
      rewriter, loc, TypeRange{init.getType()},
      ValueRange{op.getDpsInputs()[0], filter}, ValueRange{init}, attrs);
  Value expanded = tensor::ExpandShapeOp::create(
      rewriter, loc, output, hwcConv->getResult(0), lastTwo);
  rewriter.replaceOp(op, expanded);

  // Loops (n, oh, ow, c, kh, kw).
  int64_t channels = output.getDimSize(3);
  return tileAndVectorize(
      rewriter, hwcConv, f[1],
      [&](int64_t width) -> SmallVector<int64_t> {
        return {1, 1, width, largestDivisor(channels, {16, 8, 4, 2}), 1, 1};
      },
      [](PatternRewriter &patternRewriter,
         Operation *block) -> FailureOr<linalg::LinalgOp> {
        FailureOr<linalg::DepthwiseConv1DNwcWcOp> conv1d =
            linalg::DownscaleDepthwiseConv2DNhwcHwcOp(
                patternRewriter.getContext())
                .returningMatchAndRewrite(
                    cast<linalg::DepthwiseConv2DNhwcHwcOp>(block),
                    patternRewriter);
        if (failed(conv1d))
          return failure();
        return cast<linalg::LinalgOp>(conv1d->getOperation());
      });
}

LogicalResult lowerVector(RewriterBase &rewriter, linalg::LinalgOp conv) {
  if (auto depthwise =
          dyn_cast<linalg::DepthwiseConv2DNhwcHwcmOp>(conv.getOperation()))
    return lowerVectorDepthwise(rewriter, depthwise);
  return lowerVectorConv(rewriter, conv);
}

struct SerenityLowerPrimitivesPass
    : public mlir::serenity::impl::SerenityLowerPrimitivesPassBase<
          SerenityLowerPrimitivesPass> {
  void runOnOperation() override {
    func::FuncOp function = getOperation();
    if (isUnoptimized(function))
      return;
    SmallVector<std::pair<linalg::LinalgOp, ConvPrimitive>> convs;
    function.walk([&](linalg::LinalgOp op) {
      std::optional<ConvPrimitive> primitive = getConvPrimitive(op);
      if (primitive && *primitive != ConvPrimitive::Direct &&
          *primitive != ConvPrimitive::Dot)
        convs.emplace_back(op, *primitive);
    });
    if (convs.empty())
      return;
    IRRewriter rewriter(&getContext());
    bool winograd = false;
    for (auto [conv, primitive] : convs) {
      bool vectorDepthwise =
          primitive == ConvPrimitive::Vector &&
          isa<linalg::DepthwiseConv2DNhwcHwcmOp>(conv.getOperation());
      if (!conv.hasPureTensorSemantics() ||
          (!vectorDepthwise &&
           !isa<linalg::Conv2DNhwcFhwcOp, linalg::Conv2DNhwcFhwcQOp>(
               conv.getOperation()))) {
        conv->emitError() << "serenity-lower-primitives: primitive '"
                          << stringifyConvPrimitive(primitive)
                          << "' needs a linalg.conv_2d_nhwc_fhwc(_q) on "
                             "tensors";
        return signalPassFailure();
      }
      LogicalResult lowered = primitive == ConvPrimitive::Im2col
                                  ? lowerIm2col(rewriter, conv)
                              : primitive == ConvPrimitive::Vector
                                  ? lowerVector(rewriter, conv)
                                  : lowerWinograd(rewriter, conv, primitive);
      if (failed(lowered))
        return signalPassFailure();
      winograd |= isWinograd(primitive);
    }
    if (!winograd)
      return;
    RewritePatternSet patterns(&getContext());
    linalg::populateDecomposeWinogradOpsPatterns(patterns);
    if (failed(applyPatternsGreedily(function, std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
