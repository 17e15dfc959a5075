//===- ChannelTiling.cpp - Fused depthwise (channel) tiling ----*- C++ -*-===//
//
// The IR side of fused depthwise tiling (FDT): region checks and the rewrite
// that carries channel partitions through a chain (conv split by output
// channels, channel-independent ops, a concat or a conv split by input
// channels). The search is serenity-tile (Tile.cpp).
//
//===----------------------------------------------------------------------===//

#include "Serenity/Tiling/Tiling.h"
#include "Serenity/Analysis/MemoryModel.h"
#include "Serenity/Tiling/WindowGeometry.h"

#include "Serenity/Tiling/ConstantSlices.h"
#include "TilingHelpers.h"

#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace mlir::serenity;

namespace {

constexpr unsigned kChannelAxis = 3;

/// How a partition uses a constant operand of a channel-independent op.
enum class ConstantUse { Shared, SliceChannels, SliceVector, Invalid };

/// A constant operand of a middle op with `channels` channels: per-channel
/// ones are sliced (NHWC constants along C, rescale multipliers and shifts
/// along their only axis), broadcast ones (one channel, one element) are
/// shared.
ConstantUse classifyConstant(Operation *op, OpOperand &operand,
                             int64_t channels) {
  auto type = dyn_cast<RankedTensorType>(operand.get().getType());
  if (!type || !type.hasStaticShape())
    return isa<tosa::shapeType>(operand.get().getType()) ? ConstantUse::Shared
                                                         : ConstantUse::Invalid;
  if (auto rescale = dyn_cast<tosa::RescaleOp>(op)) {
    bool parameter = operand.get() == rescale.getMultiplier() ||
                     operand.get() == rescale.getShift();
    if (parameter && rescale.getPerChannel())
      return type.getNumElements() == channels ? ConstantUse::SliceVector
                                               : ConstantUse::Invalid;
  }
  if (auto conv = dyn_cast<tosa::DepthwiseConv2DOp>(op)) {
    if (operand.get() == conv.getWeight())
      return type.getDimSize(2) == channels && type.getDimSize(3) == 1
                 ? ConstantUse::SliceChannels
                 : ConstantUse::Invalid;
    if (operand.get() == conv.getBias())
      return type.getNumElements() == channels ? ConstantUse::SliceVector
             : type.getNumElements() == 1      ? ConstantUse::Shared
                                               : ConstantUse::Invalid;
  }
  if (type.getNumElements() == 1)
    return ConstantUse::Shared;
  if (type.getRank() == 4 && type.getDimSize(kChannelAxis) == channels)
    return ConstantUse::SliceChannels;
  if (type.getRank() == 4 && type.getDimSize(kChannelAxis) == 1)
    return ConstantUse::Shared;
  return ConstantUse::Invalid;
}

/// Sums of partial convs equal the conv: float convs accumulating in their
/// result type (up to summation order), integer convs with i32 results
/// (exactly).
bool isSummable(tosa::Conv2DOp conv) {
  Type element = getElementTypeOrSelf(conv.getType());
  Type input = getElementTypeOrSelf(conv.getInput().getType());
  if (isa<FloatType>(element) && isa<FloatType>(input))
    return conv.getAccType() == element;
  return isa<IntegerType>(input) && element.isInteger(32) &&
         conv.getAccType().isInteger(32);
}

DenseElementsAttr getDense(Value value) {
  DenseElementsAttr attr;
  return matchPattern(value, m_Constant(&attr)) ? attr : DenseElementsAttr();
}

} // namespace

FailureOr<ChannelRegion>
mlir::serenity::getChannelRegion(ArrayRef<Operation *> ops,
                                 std::string &reason) {
  auto fail = [&](Operation *op, const Twine &why) {
    reason = ("'" + op->getName().getStringRef() + "' " + why).str();
    return failure();
  };
  if (ops.size() < 2) {
    reason = "a channel region needs a conv and at least one more op";
    return failure();
  }
  ChannelRegion region;
  region.ops.assign(ops.begin(), ops.end());
  int64_t channels = 0;
  size_t firstMiddle = 1;
  if (auto first = dyn_cast<tosa::Conv2DOp>(ops.front())) {
    // Implicit fan-out: the conv is split by output channels.
    RankedTensorType firstType = getStaticNHWC(first.getOutput());
    if (!firstType || !getStaticNHWC(first.getInput()))
      return fail(first, "has no static NHWC input and result");
    channels = firstType.getDimSize(kChannelAxis);
    DenseElementsAttr bias = getDense(first.getBias());
    if (!getDense(first.getWeight()) || !bias ||
        (bias.getNumElements() != channels && bias.getNumElements() != 1))
      return fail(first, "has weights or a bias that are not dense constants");
    region.input = first.getInput();
  } else {
    // Explicit SPLIT: the region's input is sliced by channels and the
    // first op is already channel-independent.
    region.explicitSplit = true;
    firstMiddle = 0;
    region.input = ops.front()->getNumOperands() ? ops.front()->getOperand(0)
                                                 : Value();
    RankedTensorType inputType =
        region.input ? getStaticNHWC(region.input) : RankedTensorType();
    if (!inputType || (region.input.getDefiningOp() &&
                       isConstantLike(region.input.getDefiningOp())))
      return fail(ops.front(), "reads no NHWC activation to split by channels");
    channels = inputType.getDimSize(kChannelAxis);
  }
  for (size_t i = firstMiddle; i < ops.size(); ++i) {
    Operation *op = ops[i];
    Value previous = i ? ops[i - 1]->getResult(0) : region.input;
    if (i && (!previous.hasOneUse() || *previous.user_begin() != op))
      return fail(ops[i - 1], "has a result not used by the next op alone");
    if (op->getNumResults() != 1)
      return fail(op, "has several results");
    bool last = i + 1 == ops.size();
    if (auto conv = dyn_cast<tosa::Conv2DOp>(op)) {
      if (!last)
        return fail(op, "splits by input channels only at the end of a region");
      if (conv.getInput() != previous || !getDense(conv.getWeight()) ||
          !getStaticNHWC(conv.getOutput()) || !isSummable(conv))
        return fail(op, "cannot sum partial convs over input-channel slices "
                        "exactly (weights, types or accumulator)");
      region.fanIn = true;
      continue;
    }
    RankedTensorType type = getStaticNHWC(op->getResult(0));
    if (!type || type.getDimSize(kChannelAxis) != channels)
      return fail(op, "changes the channel count");
    bool window = isa<tosa::DepthwiseConv2DOp, tosa::MaxPool2dOp,
                      tosa::AvgPool2dOp>(op);
    if (!window && !isPointwise(op))
      return fail(op, "is not channel-independent");
    for (OpOperand &operand : op->getOpOperands()) {
      if (operand.get() == previous) {
        if (window && operand.getOperandNumber() != 0)
          return fail(op, "reads the partitioned value as a parameter");
        RankedTensorType operandType = getStaticNHWC(previous);
        if (!operandType ||
            operandType.getDimSize(kChannelAxis) != channels)
          return fail(op, "broadcasts the partitioned value");
        continue;
      }
      Operation *def = operand.get().getDefiningOp();
      if (!def || !isConstantLike(def))
        return fail(op, "reads a second activation");
      if (classifyConstant(op, operand, channels) == ConstantUse::Invalid)
        return fail(op, "has a constant that is neither per channel nor "
                        "broadcast");
    }
  }
  region.output = ops.back()->getResult(0);
  return region;
}

FailureOr<Operation *>
mlir::serenity::tileChannelRegion(RewriterBase &rewriter,
                                  const ChannelRegion &region, int64_t parts,
                                  StringRef concatAttr, StringRef tileAttr) {
  auto first = region.explicitSplit
                   ? tosa::Conv2DOp()
                   : cast<tosa::Conv2DOp>(region.ops.front());
  int64_t channels =
      getStaticNHWC(first ? first.getOutput() : region.input)
          .getDimSize(kChannelAxis);
  if (parts < 2 || parts > channels)
    return failure();
  // Slices of the first conv's and the fan-in conv's constants; checked
  // before anything is created so that a failure leaves the IR unchanged.
  DenseElementsAttr weight = first ? getDense(first.getWeight())
                                   : DenseElementsAttr();
  DenseElementsAttr bias = first ? getDense(first.getBias())
                                 : DenseElementsAttr();
  auto fanIn = region.fanIn ? cast<tosa::Conv2DOp>(region.ops.back())
                            : tosa::Conv2DOp();
  DenseElementsAttr fanInWeight =
      fanIn ? getDense(fanIn.getWeight()) : DenseElementsAttr();
  if ((first && !sliceAlong(weight, 0, 0, 1)) ||
      (first && bias.getNumElements() == channels &&
       !sliceAlong(bias, 0, 0, 1)) ||
      (fanIn && !sliceAlong(fanInWeight, kChannelAxis, 0, 1)))
    return failure();
  ArrayRef<Operation *> middle = ArrayRef(region.ops)
                                     .drop_front(first ? 1 : 0)
                                     .drop_back(region.fanIn ? 1 : 0);
  for (Operation *op : middle)
    for (OpOperand &operand : op->getOpOperands()) {
      Operation *def = operand.get().getDefiningOp();
      if (!def || !isConstantLike(def))
        continue; // The partitioned value.
      ConstantUse use = classifyConstant(op, operand, channels);
      if (use != ConstantUse::SliceChannels && use != ConstantUse::SliceVector)
        continue;
      DenseElementsAttr attr = getDense(operand.get());
      unsigned axis = use == ConstantUse::SliceVector
                          ? 0
                          : (isa<tosa::DepthwiseConv2DOp>(op) ? 2
                                                              : kChannelAxis);
      if (!attr || !sliceAlong(attr, axis, 0, 1))
        return failure();
    }

  Operation *last = region.ops.back();
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(last);
  auto mark = [&](Operation *op) { markTileClone(rewriter, op, tileAttr); };
  SmallVector<Value> partResults;
  Value sum;
  for (const ::serenity::Interval &range :
       ::serenity::splitEvenly(channels, parts)) {
    int64_t begin = range.begin, size = range.size();
    auto sliced = [&](Value constant, unsigned axis) {
      return createConst(rewriter, constant.getLoc(),
                         sliceAlong(getDense(constant), axis, begin, size));
    };
    Value value;
    if (first) {
      // The implicit fan-out: the first conv restricted to the partition's
      // output channels.
      IRMapping firstMapping;
      firstMapping.map(first.getWeight(), sliced(first.getWeight(), 0));
      if (bias.getNumElements() == channels)
        firstMapping.map(first.getBias(), sliced(first.getBias(), 0));
      Operation *clone = rewriter.clone(*first, firstMapping);
      mark(clone);
      clone->getResult(0).setType(
          withDim(first.getType(), kChannelAxis, size));
      value = clone->getResult(0);
    } else {
      // Explicit SPLIT: the partition's channels of the region's input.
      auto type = cast<RankedTensorType>(region.input.getType());
      SmallVector<int64_t> start = {0, 0, 0, begin};
      SmallVector<int64_t> extent(type.getShape());
      extent[kChannelAxis] = size;
      value = createSlice(rewriter, last->getLoc(), region.input, start,
                          extent);
    }
    for (Operation *op : ArrayRef(region.ops).drop_front(first ? 1 : 0)) {
      if (op == fanIn.getOperation()) {
        // The fan-in: this partition's input channels of the last conv; the
        // bias is added once.
        IRMapping mapping;
        mapping.map(fanIn.getInput(), value);
        mapping.map(fanIn.getWeight(),
                    sliced(fanIn.getWeight(), kChannelAxis));
        if (sum) {
          auto biasType = cast<RankedTensorType>(fanIn.getBias().getType());
          Type element = biasType.getElementType();
          mapping.map(fanIn.getBias(),
                      createConst(rewriter, fanIn.getLoc(),
                                  DenseElementsAttr::get(
                                      biasType, rewriter.getZeroAttr(element))));
        }
        Operation *partial = rewriter.clone(*fanIn, mapping);
        mark(partial);
        Value part = partial->getResult(0);
        sum = sum ? tosa::AddOp::create(rewriter, fanIn.getLoc(),
                                        fanIn.getType(), sum, part)
                        .getResult()
                  : part;
        if (Operation *add = sum.getDefiningOp(); add != partial)
          mark(add);
        break;
      }
      IRMapping mapping;
      for (OpOperand &operand : op->getOpOperands()) {
        // The only activation a middle op reads is the previous value.
        if (!operand.get().getDefiningOp() ||
            !isConstantLike(operand.get().getDefiningOp())) {
          mapping.map(operand.get(), value);
          continue;
        }
        switch (classifyConstant(op, operand, channels)) {
        case ConstantUse::SliceVector:
          mapping.map(operand.get(), sliced(operand.get(), 0));
          break;
        case ConstantUse::SliceChannels:
          mapping.map(operand.get(),
                      sliced(operand.get(),
                             isa<tosa::DepthwiseConv2DOp>(op) ? 2
                                                              : kChannelAxis));
          break;
        default:
          break;
        }
      }
      Operation *partOp = rewriter.clone(*op, mapping);
      mark(partOp);
      partOp->getResult(0).setType(
          withDim(op->getResult(0).getType(), kChannelAxis, size));
      value = partOp->getResult(0);
    }
    partResults.push_back(value);
  }
  Value result = sum;
  if (!region.fanIn) {
    auto concat = tosa::ConcatOp::create(rewriter, last->getLoc(),
                                         region.output.getType(), partResults,
                                         kChannelAxis);
    if (!concatAttr.empty())
      concat->setAttr(concatAttr, rewriter.getUnitAttr());
    result = concat.getResult();
  }
  llvm::SetVector<Operation *> constants;
  for (Operation *op : region.ops)
    for (Value operand : op->getOperands())
      if (Operation *def = operand.getDefiningOp();
          def && isa<tosa::ConstOp>(def))
        constants.insert(def);
  rewriter.replaceAllUsesWith(region.output, result);
  for (Operation *op : llvm::reverse(region.ops))
    rewriter.eraseOp(op);
  // Weights are the largest constants: drop the ones only the region read.
  for (Operation *def : constants)
    if (def->use_empty())
      rewriter.eraseOp(def);
  return result.getDefiningOp();
}
