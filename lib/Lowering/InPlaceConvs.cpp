//===- InPlaceConvs.cpp - Depthwise and 1x1 convs over their input -*- C++ -*-//
//
// See SerenityInPlaceConvsPass in Passes.td. The graph passes count the same
// convs in place (findInPlaceConv, Analysis/MemoryModel.h).
//
//===----------------------------------------------------------------------===//

#include "Serenity/Analysis/MemoryModel.h"
#include "Serenity/Lowering/Passes.h"
#include "Serenity/Support/Unoptimized.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"

namespace mlir {
namespace serenity {
#define GEN_PASS_DEF_SERENITYINPLACECONVSPASS
#include "Serenity/Lowering/Passes.h.inc"
} // namespace serenity
} // namespace mlir

using namespace mlir;

namespace {

bool isView(Operation *op) {
  return isa<memref::SubViewOp, memref::CollapseShapeOp,
             memref::ExpandShapeOp, memref::CastOp,
             memref::ReinterpretCastOp, memref::ViewOp>(op);
}

/// The buffer `value` views (through subviews, reshapes and casts).
Value viewRoot(Value value) {
  while (Operation *def = value.getDefiningOp()) {
    if (!isView(def))
      break;
    value = def->getOperand(0);
  }
  return value;
}

/// The ops that use `root` or a view of it, other than the views.
void collectUsers(Value root, SmallVectorImpl<Operation *> &users) {
  for (Operation *user : root.getUsers()) {
    if (isView(user)) {
      for (Value result : user->getResults())
        collectUsers(result, users);
      continue;
    }
    users.push_back(user);
  }
}

/// `type`'s shape as [1, H, W, C]: trailing unit dimensions past the fourth
/// dropped; empty if it is not such a shape.
SmallVector<int64_t> nhwcShape(MemRefType type) {
  if (!type.hasStaticShape() || !type.getLayout().isIdentity() ||
      type.getRank() < 4 || type.getDimSize(0) != 1)
    return {};
  for (int64_t d = 4; d < type.getRank(); ++d)
    if (type.getDimSize(d) != 1)
      return {};
  return SmallVector<int64_t>(type.getShape().take_front(4));
}

bool isConstantIndex(OpFoldResult value, int64_t expected) {
  std::optional<int64_t> constant = getConstantIntValue(value);
  return constant && *constant == expected;
}

bool isValue(OpFoldResult value, Value expected) {
  return dyn_cast_if_present<Value>(value) == expected;
}

bool allOnes(Operation *op, StringRef name) {
  auto attr = op->getAttrOfType<DenseIntElementsAttr>(name);
  return attr && llvm::all_of(attr.getValues<int64_t>(),
                              [](int64_t v) { return v == 1; });
}

/// The only op of `loop`'s body besides its terminator, if it is a loop.
scf::ForOp onlyNestedLoop(scf::ForOp loop) {
  Block *body = loop.getBody();
  if (body->getOperations().size() != 2)
    return nullptr;
  return dyn_cast<scf::ForOp>(body->front());
}

/// A conv loop nest serenity-fuse-requantization made, computed in place.
struct InPlaceNest {
  scf::ForOp rows, cols, channels;
  linalg::LinalgOp conv;
  bool depthwise = false;
  /// The conv's input window and the buffer it views.
  memref::SubViewOp inView;
  memref::AllocOp in;
  /// The result's buffer, written through one subview per iteration.
  memref::AllocOp out;
  /// C and the channel block of the loop.
  int64_t numChannels = 0, step = 0;
};

std::optional<InPlaceNest> matchNest(scf::ForOp rows) {
  InPlaceNest nest;
  nest.rows = rows;
  nest.cols = onlyNestedLoop(rows);
  if (!nest.cols)
    return std::nullopt;
  nest.channels = onlyNestedLoop(nest.cols);
  if (!nest.channels)
    return std::nullopt;
  scf::ForOp channels = nest.channels;
  std::optional<int64_t> lb = getConstantIntValue(channels.getLowerBound()),
                         ub = getConstantIntValue(channels.getUpperBound()),
                         step = getConstantIntValue(channels.getStep());
  if (!lb || !ub || !step || *lb != 0 || *step <= 0 || *ub % *step != 0 ||
      !rows.getInitArgs().empty() || !nest.cols.getInitArgs().empty() ||
      !channels.getInitArgs().empty())
    return std::nullopt;
  nest.numChannels = *ub;
  nest.step = *step;

  // One conv in the nest, reading a window of a buffer.
  SmallVector<linalg::LinalgOp> convs;
  rows.walk([&](linalg::LinalgOp op) {
    if (isa<linalg::DepthwiseConv2DNhwcHwcmQOp,
            linalg::DepthwiseConv2DNhwcHwcmOp, linalg::DepthwiseConv2DNhwcHwcQOp,
            linalg::DepthwiseConv2DNhwcHwcOp, linalg::Conv2DNhwcFhwcQOp,
            linalg::Conv2DNhwcFhwcOp>(op))
      convs.push_back(op);
  });
  if (convs.size() != 1)
    return std::nullopt;
  nest.conv = convs.front();
  nest.depthwise = !isa<linalg::Conv2DNhwcFhwcQOp, linalg::Conv2DNhwcFhwcOp>(
      nest.conv.getOperation());
  if (nest.conv->getParentOp() != channels || !allOnes(nest.conv, "strides") ||
      !allOnes(nest.conv, "dilations"))
    return std::nullopt;
  nest.inView =
      nest.conv.getDpsInputs()[0].getDefiningOp<memref::SubViewOp>();
  if (!nest.inView || !nest.inView->hasOneUse() ||
      nest.inView->getParentOp() != channels)
    return std::nullopt;
  nest.in = viewRoot(nest.inView.getSource()).getDefiningOp<memref::AllocOp>();
  Block *block = rows->getBlock();
  Operation *source = nest.inView.getSource().getDefiningOp();
  if (!nest.in || nest.in->getBlock() != block || !source ||
      source->getBlock() != block || !source->isBeforeInBlock(rows))
    return std::nullopt;

  // The result: one subview of an alloc of the block written per iteration
  // at (row, column, channel block).
  memref::SubViewOp outView;
  for (Operation &op : channels.getBody()->without_terminator()) {
    auto writer = dyn_cast<linalg::LinalgOp>(&op);
    if (!writer || writer == nest.conv)
      continue;
    for (Value init : writer.getDpsInits()) {
      auto view = init.getDefiningOp<memref::SubViewOp>();
      auto alloc = view ? viewRoot(view.getSource())
                              .getDefiningOp<memref::AllocOp>()
                        : memref::AllocOp();
      if (!alloc || alloc->getBlock() != block)
        continue;
      if (outView)
        return std::nullopt;
      outView = view;
      nest.out = alloc;
    }
  }
  if (!outView || nest.out == nest.in ||
      !nest.in->isBeforeInBlock(nest.out) || !nest.out->isBeforeInBlock(rows))
    return std::nullopt;
  SmallVector<int64_t> inShape = nhwcShape(nest.in.getType());
  if (inShape.empty() || inShape != nhwcShape(nest.out.getType()) ||
      nest.in.getType().getElementType() !=
          nest.out.getType().getElementType() ||
      inShape[3] != nest.numChannels)
    return std::nullopt;
  // Written at (row, column, channel block) of a [1, H, W, C(, 1...)] view.
  auto outSource = cast<MemRefType>(outView.getSource().getType());
  if (nhwcShape(outSource) != inShape)
    return std::nullopt;
  SmallVector<OpFoldResult> offsets = outView.getMixedOffsets(),
                            sizes = outView.getMixedSizes();
  if (!isConstantIndex(offsets[0], 0) ||
      !isValue(offsets[1], rows.getInductionVar()) ||
      !isValue(offsets[2], nest.cols.getInductionVar()) ||
      !isValue(offsets[3], channels.getInductionVar()) ||
      !isConstantIndex(sizes[0], 1) || !isConstantIndex(sizes[1], 1) ||
      !isConstantIndex(sizes[2], 1) || !isConstantIndex(sizes[3], nest.step))
    return std::nullopt;
  for (unsigned d = 4; d < offsets.size(); ++d)
    if (!isConstantIndex(offsets[d], 0))
      return std::nullopt;

  // The input window: the channel block's channels (depthwise) or the
  // output pixel's input pixel (1x1).
  auto inSource = cast<MemRefType>(nest.inView.getSource().getType());
  if (inSource.getRank() != 4 || nhwcShape(inSource) != inShape ||
      !llvm::all_of(nest.inView.getMixedStrides(),
                    [](OpFoldResult s) { return isConstantIndex(s, 1); }))
    return std::nullopt;
  SmallVector<OpFoldResult> inOffsets = nest.inView.getMixedOffsets(),
                            inSizes = nest.inView.getMixedSizes();
  if (!isConstantIndex(inOffsets[0], 0))
    return std::nullopt;
  if (nest.depthwise) {
    if (!isValue(inOffsets[3], channels.getInductionVar()) ||
        !isConstantIndex(inSizes[3], nest.step) ||
        mlir::serenity::inPlaceChannelBlock(nest.numChannels) % nest.step != 0)
      return std::nullopt;
  } else {
    auto filter = cast<MemRefType>(nest.conv.getDpsInputs()[1].getType());
    if (filter.getDimSize(1) != 1 || filter.getDimSize(2) != 1 ||
        !isValue(inOffsets[1], rows.getInductionVar()) ||
        !isValue(inOffsets[2], nest.cols.getInductionVar()) ||
        !isConstantIndex(inOffsets[3], 0) || !isConstantIndex(inSizes[1], 1) ||
        !isConstantIndex(inSizes[2], 1) ||
        !isConstantIndex(inSizes[3], nest.numChannels))
      return std::nullopt;
  }

  // Nothing reads the input after the nest or anything but the conv inside
  // it; nothing touches the result before the nest or but its writer inside.
  SmallVector<Operation *> users;
  collectUsers(nest.in, users);
  for (Operation *user : users) {
    Operation *ancestor = block->findAncestorOpInBlock(*user);
    if (!ancestor || rows->isBeforeInBlock(ancestor) ||
        (ancestor == rows && user != nest.conv))
      return std::nullopt;
  }
  users.clear();
  collectUsers(nest.out, users);
  for (Operation *user : users) {
    Operation *ancestor = block->findAncestorOpInBlock(*user);
    if (!ancestor || ancestor->isBeforeInBlock(rows) ||
        (ancestor == rows && user->getParentOp() != channels))
      return std::nullopt;
  }
  return nest;
}

/// A scratch buffer of `shape` for `nest`'s input, before the nest.
Value scratch(OpBuilder &b, InPlaceNest nest, ArrayRef<int64_t> shape) {
  b.setInsertionPoint(nest.rows);
  auto type = MemRefType::get(shape, nest.in.getType().getElementType());
  auto alloc = memref::AllocOp::create(b, nest.in.getLoc(), type);
  if (auto alignment = nest.in.getAlignmentAttr())
    alloc.setAlignmentAttr(alignment);
  return alloc;
}

/// 1x1: each input pixel copied at the start of its iteration.
void rewritePointwise(OpBuilder &b, InPlaceNest nest) {
  Location loc = nest.conv.getLoc();
  int64_t c = nest.numChannels;
  Value pixel = scratch(b, nest, {1, 1, 1, c});
  b.setInsertionPointToStart(nest.cols.getBody());
  SmallVector<OpFoldResult> offsets = {
      b.getIndexAttr(0), nest.rows.getInductionVar(),
      nest.cols.getInductionVar(), b.getIndexAttr(0)};
  SmallVector<OpFoldResult> sizes = {b.getIndexAttr(1), b.getIndexAttr(1),
                                     b.getIndexAttr(1), b.getIndexAttr(c)};
  SmallVector<OpFoldResult> strides(4, b.getIndexAttr(1));
  Value window = memref::SubViewOp::create(b, loc, nest.inView.getSource(),
                                           offsets, sizes, strides);
  memref::CopyOp::create(b, loc, window, pixel);
  nest.conv->setOperand(0, pixel);
  nest.inView->erase();
}

/// Depthwise: the channel blocks outermost, each copied before its
/// windows are read.
void rewriteDepthwise(OpBuilder &b, InPlaceNest nest) {
  Location loc = nest.conv.getLoc();
  auto inType = cast<MemRefType>(nest.inView.getSource().getType());
  const int64_t h = inType.getDimSize(1), w = inType.getDimSize(2);
  const int64_t block = mlir::serenity::inPlaceChannelBlock(nest.numChannels);
  Value plane = scratch(b, nest, {1, h, w, block});
  b.setInsertionPoint(nest.rows);
  auto index = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  auto blocks = scf::ForOp::create(b, loc, index(0), index(nest.numChannels),
                                   index(block));
  Value first = blocks.getInductionVar();
  b.setInsertionPointToStart(blocks.getBody());
  Value channels = memref::SubViewOp::create(
      b, loc, nest.inView.getSource(),
      SmallVector<OpFoldResult>{b.getIndexAttr(0), b.getIndexAttr(0),
                                b.getIndexAttr(0), first},
      SmallVector<OpFoldResult>{b.getIndexAttr(1), b.getIndexAttr(h),
                                b.getIndexAttr(w), b.getIndexAttr(block)},
      SmallVector<OpFoldResult>(4, b.getIndexAttr(1)));
  memref::CopyOp::create(b, loc, channels, plane);

  IRMapping mapping;
  auto rows = scf::ForOp::create(b, loc, nest.rows.getLowerBound(),
                                 nest.rows.getUpperBound(),
                                 nest.rows.getStep());
  mapping.map(nest.rows.getInductionVar(), rows.getInductionVar());
  b.setInsertionPointToStart(rows.getBody());
  auto cols = scf::ForOp::create(b, loc, nest.cols.getLowerBound(),
                                 nest.cols.getUpperBound(),
                                 nest.cols.getStep());
  mapping.map(nest.cols.getInductionVar(), cols.getInductionVar());
  b.setInsertionPointToStart(cols.getBody());
  // The channel offset within the block (a loop when the kernel's block is
  // smaller than the copied one).
  OpFoldResult inBlock = b.getIndexAttr(0);
  if (block != nest.step) {
    auto inner = scf::ForOp::create(b, loc, index(0), index(block),
                                    index(nest.step));
    inBlock = inner.getInductionVar();
    b.setInsertionPointToStart(inner.getBody());
    mapping.map(nest.channels.getInductionVar(),
                arith::AddIOp::create(b, loc, first, inner.getInductionVar())
                    .getResult());
  } else {
    mapping.map(nest.channels.getInductionVar(), first);
  }
  for (Operation &op : nest.channels.getBody()->without_terminator()) {
    if (&op != nest.inView.getOperation()) {
      b.clone(op, mapping);
      continue;
    }
    // The window, read from the scratch plane.
    SmallVector<OpFoldResult> offsets, sizes;
    for (OpFoldResult offset : nest.inView.getMixedOffsets())
      offsets.push_back(isa<Value>(offset)
                            ? OpFoldResult(mapping.lookupOrDefault(
                                  cast<Value>(offset)))
                            : offset);
    offsets[3] = inBlock;
    for (OpFoldResult size : nest.inView.getMixedSizes())
      sizes.push_back(isa<Value>(size) ? OpFoldResult(mapping.lookupOrDefault(
                                             cast<Value>(size)))
                                       : size);
    Value window =
        memref::SubViewOp::create(b, loc, plane, offsets, sizes,
                                  nest.inView.getMixedStrides());
    mapping.map(nest.inView.getResult(), window);
  }
  nest.rows->erase();
}

/// The result's buffer becomes the input's, seen with the result's shape.
void shareInput(OpBuilder &b, InPlaceNest nest) {
  b.setInsertionPoint(nest.out);
  Location loc = nest.out.getLoc();
  MemRefType inType = nest.in.getType(), outType = nest.out.getType();
  Value view = nest.in;
  if (inType != outType) {
    ReassociationIndices all;
    for (int64_t d = 0; d < inType.getRank(); ++d)
      all.push_back(d);
    Value flat = memref::CollapseShapeOp::create(b, loc, view, {all});
    ReassociationIndices allOut;
    for (int64_t d = 0; d < outType.getRank(); ++d)
      allOut.push_back(d);
    view = memref::ExpandShapeOp::create(b, loc, outType.getShape(), flat,
                                         {allOut});
  }
  nest.out.getResult().replaceAllUsesWith(view);
  nest.out->erase();
}

struct SerenityInPlaceConvsPass
    : public mlir::serenity::impl::SerenityInPlaceConvsPassBase<
          SerenityInPlaceConvsPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (mlir::serenity::isUnoptimized(func) || !func.getBody().hasOneBlock())
      return;
    OpBuilder b(&getContext());
    for (auto loop :
         llvm::to_vector(func.getBody().front().getOps<scf::ForOp>())) {
      std::optional<InPlaceNest> nest = matchNest(loop);
      if (!nest)
        continue;
      if (nest->depthwise)
        rewriteDepthwise(b, *nest);
      else
        rewritePointwise(b, *nest);
      shareInput(b, *nest);
    }
  }
};

} // namespace
