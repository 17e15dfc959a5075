//===- SpatialTiling.cpp - Fused feature-map tiling of TOSA ----*- C++ -*-===//
//
// The IR side of fused feature-map tiling: region checks, the per-tile
// rectangles every value of a region is needed on (WindowGeometry.h, from the
// output back to the input), and the rewrite that computes the region tile
// by tile. The search that picks regions and grids is serenity-tile
// (Tile.cpp).
//
//===----------------------------------------------------------------------===//

#include "Serenity/Analysis/MemoryModel.h"
#include "Serenity/Tiling/WindowGeometry.h"

#include "TilingHelpers.h"
#include "Serenity/Tiling/Tiling.h"

#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/DenseSet.h"

#include <array>

using namespace mlir;
using namespace mlir::serenity;
using ::serenity::Interval;
using ::serenity::WindowDim;
using ::serenity::WindowTile;

namespace {

/// The spatial part of a value a tile needs: rows x columns of an NHWC tensor.
struct Rect {
  Interval rows, cols;
  bool operator==(const Rect &other) const {
    return rows == other.rows && cols == other.cols;
  }
  bool operator!=(const Rect &other) const { return !(*this == other); }
  Rect hull(const Rect &other) const {
    return {rows.hull(other.rows), cols.hull(other.cols)};
  }
};

bool isWindowOp(Operation *op) {
  return isa<tosa::Conv2DOp, tosa::DepthwiseConv2DOp, tosa::MaxPool2dOp,
             tosa::AvgPool2dOp>(op);
}

/// Statically shaped rank-4 tensor (NHWC).
RankedTensorType getStaticNHWC(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  return type && type.getRank() == 4 && type.hasStaticShape() ? type : nullptr;
}

/// The H and W window geometry of a window op (kernel from the weights of
/// convs, from the attribute of pools).
std::optional<std::array<WindowDim, 2>> getWindowDims(Operation *op) {
  RankedTensorType input = getStaticNHWC(op->getOperand(0));
  if (!input)
    return std::nullopt;
  ArrayRef<int64_t> pad, stride;
  SmallVector<int64_t, 2> kernel, dilation = {1, 1};
  auto kernelOf = [&](Value weight, unsigned first) -> bool {
    auto type = dyn_cast<RankedTensorType>(weight.getType());
    if (!type || type.getRank() != 4 || !type.hasStaticShape())
      return false;
    kernel = {type.getDimSize(first), type.getDimSize(first + 1)};
    return true;
  };
  // Weights [OC, KH, KW, IC] (conv2d) or [KH, KW, C, M] (depthwise).
  auto fromConv = [&](auto conv, unsigned firstKernelDim) {
    pad = conv.getPad();
    stride = conv.getStride();
    dilation.assign(conv.getDilation().begin(), conv.getDilation().end());
    return kernelOf(conv.getWeight(), firstKernelDim);
  };
  if (auto conv = dyn_cast<tosa::Conv2DOp>(op)) {
    if (!fromConv(conv, 1))
      return std::nullopt;
  } else if (auto conv = dyn_cast<tosa::DepthwiseConv2DOp>(op)) {
    if (!fromConv(conv, 0))
      return std::nullopt;
  } else if (auto pool = dyn_cast<tosa::MaxPool2dOp>(op)) {
    kernel.assign(pool.getKernel().begin(), pool.getKernel().end());
    pad = pool.getPad();
    stride = pool.getStride();
  } else if (auto pool = dyn_cast<tosa::AvgPool2dOp>(op)) {
    kernel.assign(pool.getKernel().begin(), pool.getKernel().end());
    pad = pool.getPad();
    stride = pool.getStride();
  } else {
    return std::nullopt;
  }
  if (pad.size() != 4 || stride.size() != 2 || kernel.size() != 2 ||
      dilation.size() != 2)
    return std::nullopt;
  std::array<WindowDim, 2> dims;
  for (int d = 0; d < 2; ++d) {
    dims[d] = {
        input.getDimSize(1 + d), kernel[d], stride[d], dilation[d], pad[2 * d],
        pad[2 * d + 1]};
    if (dims[d].kernel < 1 || dims[d].stride < 1 || dims[d].dilation < 1 ||
        dims[d].padBefore < 0 || dims[d].padAfter < 0)
      return std::nullopt;
  }
  return dims;
}

/// The row and column offsets of a tosa.slice that cuts only the spatial
/// dimensions of an NHWC tensor (constant start and size, whole batch and
/// channels).
std::optional<std::array<int64_t, 2>> getSpatialSliceOffsets(Operation *op) {
  auto slice = dyn_cast<tosa::SliceOp>(op);
  if (!slice)
    return std::nullopt;
  RankedTensorType input = getStaticNHWC(slice.getInput1());
  RankedTensorType result = getStaticNHWC(slice.getResult());
  DenseIntElementsAttr start, size;
  if (!input || !result || !matchPattern(slice.getStart(), m_Constant(&start)) ||
      !matchPattern(slice.getSize(), m_Constant(&size)) ||
      start.getNumElements() != 4 || size.getNumElements() != 4)
    return std::nullopt;
  SmallVector<int64_t> begin(start.getValues<int64_t>()),
      extent(size.getValues<int64_t>());
  if (begin[0] != 0 || begin[3] != 0 || extent[0] != input.getDimSize(0) ||
      extent[3] != input.getDimSize(3) || begin[1] < 0 || begin[2] < 0 ||
      begin[1] + result.getDimSize(1) > input.getDimSize(1) ||
      begin[2] + result.getDimSize(2) > input.getDimSize(2))
    return std::nullopt;
  return std::array<int64_t, 2>{begin[1], begin[2]};
}

/// True when a pointwise op can read `operand` (NHWC) for a tile of its
/// result: each spatial extent equals the result's or is broadcast (1).
bool isTileableOperandOf(RankedTensorType operand, RankedTensorType result) {
  for (int d = 1; d <= 2; ++d)
    if (operand.getDimSize(d) != result.getDimSize(d) &&
        operand.getDimSize(d) != 1)
      return false;
  return true;
}

/// The rectangle of every region value one tile needs, and the padding of
/// the tile's window ops.
struct TilePlan {
  Rect outputRect;
  DenseMap<Value, Rect> needed;
  DenseMap<OpOperand *, Rect> operandRects;
  DenseMap<Operation *, std::array<int64_t, 4>> pads;
};

/// Back-propagates `outputRect` through the region; fails when a window op
/// of the tile would read no input at all.
FailureOr<TilePlan> planTile(const SpatialRegion &region, Rect outputRect) {
  TilePlan plan;
  plan.outputRect = outputRect;
  plan.needed[region.output] = outputRect;
  for (Operation *op : llvm::reverse(region.ops)) {
    Value result = op->getResult(0);
    auto found = plan.needed.find(result);
    if (found == plan.needed.end())
      continue; // Dead inside the region: not computed per tile.
    Rect rect = found->second;
    auto need = [&](OpOperand &operand, Rect operandRect) {
      plan.operandRects[&operand] = operandRect;
      auto [it, inserted] = plan.needed.try_emplace(operand.get(), operandRect);
      if (!inserted)
        it->second = it->second.hull(operandRect);
    };
    if (std::optional<std::array<int64_t, 2>> offsets =
            getSpatialSliceOffsets(op)) {
      need(op->getOpOperand(0),
           {{rect.rows.begin + (*offsets)[0], rect.rows.end + (*offsets)[0]},
            {rect.cols.begin + (*offsets)[1], rect.cols.end + (*offsets)[1]}});
      continue;
    }
    if (isWindowOp(op)) {
      std::array<WindowDim, 2> dims = *getWindowDims(op);
      WindowTile rows = ::serenity::windowTile(dims[0], rect.rows);
      WindowTile cols = ::serenity::windowTile(dims[1], rect.cols);
      if (rows.input.size() <= 0 || cols.input.size() <= 0)
        return failure();
      plan.pads[op] = {rows.padBefore, rows.padAfter, cols.padBefore,
                       cols.padAfter};
      need(op->getOpOperand(0), {rows.input, cols.input});
      continue;
    }
    RankedTensorType resultType = getStaticNHWC(result);
    for (OpOperand &operand : op->getOpOperands()) {
      Value value = operand.get();
      if (value != region.input &&
          !llvm::is_contained(region.ops, value.getDefiningOp()))
        continue; // A constant.
      RankedTensorType type = getStaticNHWC(value);
      Rect operandRect = rect;
      if (type.getDimSize(1) != resultType.getDimSize(1))
        operandRect.rows = {0, 1};
      if (type.getDimSize(2) != resultType.getDimSize(2))
        operandRect.cols = {0, 1};
      need(operand, operandRect);
    }
  }
  return plan;
}

/// `value` (holding rectangle `have` of its full tensor) cut to `want`.
Value sliceTo(OpBuilder &builder, Location loc, Value value, Rect have,
              Rect want) {
  if (have == want)
    return value;
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<int64_t> start = {0, want.rows.begin - have.rows.begin,
                                want.cols.begin - have.cols.begin, 0};
  SmallVector<int64_t> size = {type.getDimSize(0), want.rows.size(),
                               want.cols.size(), type.getDimSize(3)};
  return createSlice(builder, loc, value, start, size);
}

} // namespace

FailureOr<SpatialRegion>
mlir::serenity::getSpatialRegion(ArrayRef<Operation *> ops,
                                 std::string &reason) {
  if (ops.empty()) {
    reason = "the region is empty";
    return failure();
  }
  llvm::SmallPtrSet<Operation *, 16> inRegion(ops.begin(), ops.end());
  SpatialRegion region;
  region.ops.assign(ops.begin(), ops.end());
  Block *block = ops.front()->getBlock();
  auto fail = [&](Operation *op, const Twine &why) {
    reason = ("'" + op->getName().getStringRef() + "' " + why).str();
    return failure();
  };
  for (Operation *op : ops) {
    if (op->getBlock() != block)
      return fail(op, "is in another block");
    bool slice = isa<tosa::SliceOp>(op);
    if (slice && !getSpatialSliceOffsets(op))
      return fail(op, "slices more than the rows and columns");
    // Ops whose first operand is the feature map and the others are
    // parameters.
    bool window = isWindowOp(op) || slice;
    if (!window && !isPointwise(op))
      return fail(op, "cannot be tiled spatially");
    if (op->getNumResults() != 1 || !getStaticNHWC(op->getResult(0)))
      return fail(op, "has no static NHWC result");
    RankedTensorType resultType = getStaticNHWC(op->getResult(0));
    if (window && !slice) {
      std::optional<std::array<WindowDim, 2>> dims = getWindowDims(op);
      if (!dims || (*dims)[0].outputSize() != resultType.getDimSize(1) ||
          (*dims)[1].outputSize() != resultType.getDimSize(2))
        return fail(op, "has a window geometry that does not match its shapes");
    }
    for (OpOperand &operand : op->getOpOperands()) {
      Value value = operand.get();
      Operation *def = value.getDefiningOp();
      bool data = !window || operand.getOperandNumber() == 0;
      bool inside = def && inRegion.contains(def);
      if (!inside && def && isConstantLike(def)) {
        if (window && data)
          return fail(op, "reads a constant feature map");
        RankedTensorType type = getStaticNHWC(value);
        if (!window && type &&
            (type.getDimSize(1) > 1 || type.getDimSize(2) > 1))
          return fail(op, "reads a constant with a spatial extent");
        continue;
      }
      if (!data)
        return fail(op, "has weights computed at run time");
      RankedTensorType type = getStaticNHWC(value);
      if (!type)
        return fail(op, "reads a value that is not a static NHWC tensor");
      if (!window && !isTileableOperandOf(type, resultType))
        return fail(op, "broadcasts an operand in a way tiles cannot follow");
      if (inside)
        continue;
      if (!region.input)
        region.input = value;
      else if (region.input != value)
        return fail(op, "reads a second activation from outside the region");
    }
  }
  for (Operation *op : ArrayRef(ops).drop_back())
    for (Operation *user : op->getResult(0).getUsers())
      if (!inRegion.contains(user))
        return fail(op, "has a result used outside the region");
  if (!region.input)
    return fail(ops.front(), "starts a region that reads no activation");
  region.output = ops.back()->getResult(0);
  return region;
}

FailureOr<Operation *>
mlir::serenity::tileSpatialRegion(RewriterBase &rewriter,
                                  const SpatialRegion &region, TileGrid grid,
                                  StringRef concatAttr, StringRef tileAttr) {
  RankedTensorType outputType = getStaticNHWC(region.output);
  if (grid.rows < 1 || grid.cols < 1 || grid.rows * grid.cols < 2 ||
      grid.rows > outputType.getDimSize(1) ||
      grid.cols > outputType.getDimSize(2))
    return failure();
  std::vector<Interval> rowParts =
      ::serenity::splitEvenly(outputType.getDimSize(1), grid.rows);
  std::vector<Interval> colParts =
      ::serenity::splitEvenly(outputType.getDimSize(2), grid.cols);
  // Plan every tile first so that a failure leaves the IR unchanged.
  SmallVector<TilePlan> plans;
  for (const Interval &rows : rowParts)
    for (const Interval &cols : colParts) {
      FailureOr<TilePlan> plan = planTile(region, {rows, cols});
      if (failed(plan))
        return failure();
      plans.push_back(std::move(*plan));
    }

  Operation *last = region.ops.back();
  Location loc = last->getLoc();
  OpBuilder::InsertionGuard guard(rewriter);
  rewriter.setInsertionPoint(last);
  RankedTensorType inputType = getStaticNHWC(region.input);
  Rect wholeInput = {{0, inputType.getDimSize(1)},
                     {0, inputType.getDimSize(2)}};
  SmallVector<Value> tiles;
  for (TilePlan &plan : plans) {
    // Tile value of every region value, with the rectangle it holds.
    DenseMap<Value, std::pair<Value, Rect>> tileOf;
    Rect inputRect = plan.needed.lookup(region.input);
    tileOf[region.input] = {
        sliceTo(rewriter, loc, region.input, wholeInput, inputRect), inputRect};
    for (Operation *op : region.ops) {
      Value result = op->getResult(0);
      auto needed = plan.needed.find(result);
      if (needed == plan.needed.end())
        continue;
      Rect rect = needed->second;
      if (isa<tosa::SliceOp>(op)) {
        // The tile of a slice is a slice of its operand's tile.
        OpOperand &operand = op->getOpOperand(0);
        auto [value, have] = tileOf.lookup(operand.get());
        tileOf[result] = {sliceTo(rewriter, op->getLoc(), value, have,
                                  plan.operandRects[&operand]),
                          rect};
        continue;
      }
      IRMapping mapping;
      for (OpOperand &operand : op->getOpOperands()) {
        auto rect = plan.operandRects.find(&operand);
        if (rect == plan.operandRects.end())
          continue; // A constant: shared by every tile.
        auto [value, have] = tileOf.lookup(operand.get());
        mapping.map(operand.get(),
                    sliceTo(rewriter, op->getLoc(), value, have, rect->second));
      }
      // A value read by several ops of the region: each op maps it on its
      // own, so clone one op at a time.
      Operation *clone = rewriter.clone(*op, mapping);
      markTileClone(rewriter, clone, tileAttr);
      RankedTensorType type = getStaticNHWC(result);
      clone->getResult(0).setType(
          RankedTensorType::get({type.getDimSize(0), rect.rows.size(),
                                 rect.cols.size(), type.getDimSize(3)},
                                type.getElementType()));
      if (isWindowOp(op))
        clone->setAttr("pad", rewriter.getDenseI64ArrayAttr(plan.pads[op]));
      tileOf[result] = {clone->getResult(0), rect};
    }
    tiles.push_back(tileOf.lookup(region.output).first);
  }

  auto concat = [&](ArrayRef<Value> parts, int64_t axis) -> Value {
    if (parts.size() == 1)
      return parts.front();
    SmallVector<int64_t> shape(
        cast<RankedTensorType>(parts.front().getType()).getShape());
    shape[axis] = 0;
    for (Value part : parts)
      shape[axis] += cast<RankedTensorType>(part.getType()).getDimSize(axis);
    auto op = tosa::ConcatOp::create(
        rewriter, loc,
        RankedTensorType::get(shape, outputType.getElementType()), parts,
        static_cast<uint32_t>(axis));
    if (!concatAttr.empty())
      op->setAttr(concatAttr, rewriter.getUnitAttr());
    return op.getResult();
  };
  SmallVector<Value> rowValues;
  for (size_t row = 0; row < rowParts.size(); ++row)
    rowValues.push_back(concat(
        ArrayRef(tiles).slice(row * colParts.size(), colParts.size()), 2));
  Value result = concat(rowValues, 1);
  rewriter.replaceAllUsesWith(region.output, result);
  for (Operation *op : llvm::reverse(region.ops))
    rewriter.eraseOp(op);
  return result.getDefiningOp();
}

int64_t mlir::serenity::countMacs(Operation *op) {
  auto elements = [](Value value) -> int64_t {
    auto type = dyn_cast<RankedTensorType>(value.getType());
    return type && type.hasStaticShape() ? type.getNumElements() : 0;
  };
  auto dim = [](Value value, unsigned index) -> int64_t {
    auto type = dyn_cast<RankedTensorType>(value.getType());
    return type && type.hasStaticShape() && index < type.getRank()
               ? type.getDimSize(index)
               : 0;
  };
  if (auto conv = dyn_cast<tosa::Conv2DOp>(op)) // weight [OC, KH, KW, IC]
    return elements(conv.getOutput()) * dim(conv.getWeight(), 1) *
           dim(conv.getWeight(), 2) * dim(conv.getWeight(), 3);
  if (auto conv = dyn_cast<tosa::DepthwiseConv2DOp>(op)) // [KH, KW, C, M]
    return elements(conv.getOutput()) * dim(conv.getWeight(), 0) *
           dim(conv.getWeight(), 1);
  if (auto conv = dyn_cast<tosa::TransposeConv2DOp>(op)) // [OC, KH, KW, IC]
    return elements(conv.getInput()) * elements(conv.getWeight());
  if (auto matmul = dyn_cast<tosa::MatMulOp>(op)) // [N, H, C] x [N, C, W]
    return elements(matmul.getOutput()) * dim(matmul.getA(), 2);
  return 0;
}
