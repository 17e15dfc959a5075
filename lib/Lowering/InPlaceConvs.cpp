//===- InPlaceConvs.cpp - Depthwise and 1x1 convs over their input -*- C++ -*-//
//
// See SerenityInPlaceConvsPass in Passes.td. The graph passes count the same
// convs in place (findInPlaceConv, Analysis/MemoryModel.h).
//
//===----------------------------------------------------------------------===//

#include "Serenity/Analysis/MemoryModel.h"
#include "Serenity/Lowering/Passes.h"
#include "Serenity/Support/Unoptimized.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
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
  /// The result's subview written per iteration.
  memref::SubViewOp outView;
  /// C and the channel block of the loop.
  int64_t numChannels = 0, step = 0;
  /// Depthwise: output rows held before they are written over the input
  /// (the window's rows above the output row, plus one).
  int64_t ringRows = 0;
};

/// The value of `value` (an index computed by affine.min/max/apply and
/// constants from `iv`) at `iv` = `at`, or std::nullopt.
std::optional<int64_t> evaluateAt(Value value, Value iv, int64_t at,
                                  int depth = 0) {
  if (value == iv)
    return at;
  if (std::optional<int64_t> constant = getConstantIntValue(value))
    return constant;
  Operation *def = value.getDefiningOp();
  if (!def || depth > 16)
    return std::nullopt;
  AffineMap map;
  if (auto min = dyn_cast<affine::AffineMinOp>(def))
    map = min.getMap();
  else if (auto max = dyn_cast<affine::AffineMaxOp>(def))
    map = max.getMap();
  else if (auto apply = dyn_cast<affine::AffineApplyOp>(def))
    map = apply.getMap();
  else
    return std::nullopt;
  SmallVector<Attribute> operands;
  Builder b(value.getContext());
  for (Value operand : def->getOperands()) {
    std::optional<int64_t> v = evaluateAt(operand, iv, at, depth + 1);
    if (!v)
      return std::nullopt;
    operands.push_back(b.getIndexAttr(*v));
  }
  SmallVector<Attribute> results;
  if (failed(map.constantFold(operands, results)) || results.empty())
    return std::nullopt;
  SmallVector<int64_t> values;
  for (Attribute result : results)
    values.push_back(cast<IntegerAttr>(result).getInt());
  if (isa<affine::AffineMinOp>(def))
    return *llvm::min_element(values);
  if (isa<affine::AffineMaxOp>(def))
    return *llvm::max_element(values);
  return values.size() == 1 ? std::optional<int64_t>(values.front())
                            : std::nullopt;
}

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
      nest.outView = view;
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
    // Rows in order from 0, whole rows: output row h is held until no later
    // window reads input row h, the first row output row h + ringRows - 1
    // does not read.
    const int64_t h = inShape[1], w = inShape[2];
    auto wholeRange = [](scf::ForOp loop, int64_t n) {
      return isConstantIndex(loop.getLowerBound(), 0) &&
             isConstantIndex(loop.getStep(), 1) &&
             isConstantIndex(loop.getUpperBound(), n);
    };
    if (!wholeRange(rows, h) || !wholeRange(nest.cols, w))
      return std::nullopt;
    Value firstRow = dyn_cast_if_present<Value>(inOffsets[1]);
    if (std::optional<int64_t> c = getConstantIntValue(inOffsets[1]))
      firstRow = nullptr, nest.ringRows = 1 + (h - 1 - *c);
    for (int64_t row = 0; firstRow && row < h; ++row) {
      std::optional<int64_t> first =
          evaluateAt(firstRow, rows.getInductionVar(), row);
      if (!first)
        return std::nullopt;
      nest.ringRows = std::max(nest.ringRows, row - *first + 1);
    }
    if (nest.ringRows < 1 || nest.ringRows > h)
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

/// `buffer` (an identity-layout [1, H, W, C] int8 memref, C a multiple of 4)
/// seen as [1, H, W, C / 4] int32 words, so that copies move 4 bytes per
/// access (the buffers are at least 4-byte aligned: the arena's alignment).
Value wordView(OpBuilder &b, Location loc, Value buffer) {
  auto type = cast<MemRefType>(buffer.getType());
  ReassociationIndices all = {0, 1, 2, 3};
  Value flat = memref::CollapseShapeOp::create(b, loc, buffer, {all});
  auto words = MemRefType::get({1, type.getDimSize(1), type.getDimSize(2),
                                type.getDimSize(3) / 4},
                               b.getI32Type());
  return memref::ViewOp::create(b, loc, words, flat,
                                arith::ConstantIndexOp::create(b, loc, 0),
                                ValueRange());
}

/// Copies the [1, h, w, c] window at (0, row, col, channel) of `source` to
/// `target` (an identity [1, h, w, c] buffer): by 32-bit words when the
/// channels are int8 in multiples of 4 (`channel` then a multiple of 4).
void copyWindow(OpBuilder &b, Location loc, Value source, OpFoldResult row,
                OpFoldResult col, OpFoldResult channel, Value target) {
  auto sourceType = cast<MemRefType>(source.getType());
  auto targetType = cast<MemRefType>(target.getType());
  ArrayRef<int64_t> size = targetType.getShape();
  SmallVector<OpFoldResult> strides(4, b.getIndexAttr(1));
  auto window = [&](Value from, int64_t perWord) {
    OpFoldResult first = channel;
    if (perWord != 1) {
      if (std::optional<int64_t> c = getConstantIntValue(channel))
        first = b.getIndexAttr(*c / perWord);
      else
        first = arith::ShRUIOp::create(
                    b, loc, cast<Value>(channel),
                    arith::ConstantIndexOp::create(b, loc, 2))
                    .getResult();
    }
    return memref::SubViewOp::create(
        b, loc, from, SmallVector<OpFoldResult>{b.getIndexAttr(0), row, col, first},
        SmallVector<OpFoldResult>{b.getIndexAttr(1), b.getIndexAttr(size[1]),
                                  b.getIndexAttr(size[2]),
                                  b.getIndexAttr(size[3] / perWord)},
        strides);
  };
  if (sourceType.getElementType().isInteger(8) && size[3] % 4 == 0 &&
      sourceType.getDimSize(3) % 4 == 0) {
    memref::CopyOp::create(b, loc, window(wordView(b, loc, source), 4),
                           wordView(b, loc, target));
    return;
  }
  memref::CopyOp::create(b, loc, window(source, 1), target);
}

/// Copies `source` to `target`, two [1, 1, W, C] rows of identity-layout
/// [1, R, W, C] buffers: by 32-bit words when the rows are int8 and C is a
/// multiple of 4.
void copyRows(OpBuilder &b, Location loc, Value source, Value target) {
  auto words = [&](Value row) -> Value {
    auto view = row.getDefiningOp<memref::SubViewOp>();
    Value whole = wordView(b, loc, view.getSource());
    SmallVector<OpFoldResult> sizes = view.getMixedSizes();
    sizes[3] = b.getIndexAttr(*getConstantIntValue(sizes[3]) / 4);
    return memref::SubViewOp::create(b, loc, whole, view.getMixedOffsets(),
                                     sizes, view.getMixedStrides());
  };
  auto type = cast<MemRefType>(source.getType());
  if (type.getElementType().isInteger(8) && type.getDimSize(3) % 4 == 0) {
    memref::CopyOp::create(b, loc, words(source), words(target));
    source.getDefiningOp()->erase();
    target.getDefiningOp()->erase();
    return;
  }
  memref::CopyOp::create(b, loc, source, target);
}

/// 1x1: each input pixel copied at the start of its iteration.
void rewritePointwise(OpBuilder &b, InPlaceNest nest) {
  Location loc = nest.conv.getLoc();
  int64_t c = nest.numChannels;
  Value pixel = scratch(b, nest, {1, 1, 1, c});
  b.setInsertionPointToStart(nest.cols.getBody());
  copyWindow(b, loc, nest.inView.getSource(), nest.rows.getInductionVar(),
             nest.cols.getInductionVar(), b.getIndexAttr(0), pixel);
  nest.conv->setOperand(0, pixel);
  nest.inView->erase();
}

/// Depthwise: output row h goes to slot h % R of a ring of R rows; once no
/// later window reads input row h - R + 1, the row held for it is copied
/// over it (and the last R - 1 rows after the loop).
void rewriteDepthwise(OpBuilder &b, InPlaceNest nest) {
  Location loc = nest.conv.getLoc();
  Value in = nest.inView.getSource();
  auto inType = cast<MemRefType>(in.getType());
  const int64_t h = inType.getDimSize(1), w = inType.getDimSize(2),
                c = inType.getDimSize(3), ring = nest.ringRows;
  Value rows = scratch(b, nest, {1, ring, w, c});
  // The ring seen with the result's shape (its trailing unit dimensions).
  MemRefType outType = nest.out.getType();
  SmallVector<int64_t> ringShape(outType.getShape());
  ringShape[1] = ring;
  Value ringView = rows;
  if (outType.getRank() != 4) {
    ReassociationIndices all = {0, 1, 2, 3};
    Value flat = memref::CollapseShapeOp::create(b, loc, rows, {all});
    ReassociationIndices allOut;
    for (int64_t d = 0; d < outType.getRank(); ++d)
      allOut.push_back(d);
    ringView =
        memref::ExpandShapeOp::create(b, loc, ringShape, flat, {allOut});
  }
  auto index = [&](int64_t v) {
    return arith::ConstantIndexOp::create(b, loc, v).getResult();
  };
  Value row = nest.rows.getInductionVar();
  // The slot of this row, at the top of the row's iteration.
  b.setInsertionPointToStart(nest.rows.getBody());
  Value slot = ring == 1 ? index(0)
                         : arith::RemUIOp::create(b, loc, row, index(ring))
                               .getResult();
  // The result written to the ring.
  b.setInsertionPoint(nest.outView);
  SmallVector<OpFoldResult> offsets = nest.outView.getMixedOffsets();
  offsets[1] = slot;
  auto written = memref::SubViewOp::create(
      b, loc, ringView, offsets, nest.outView.getMixedSizes(),
      nest.outView.getMixedStrides());
  nest.outView.getResult().replaceAllUsesWith(written.getResult());
  nest.outView->erase();
  // After the row: the row R - 1 above it is written over the input.
  b.setInsertionPoint(nest.rows.getBody()->getTerminator());
  auto copyRow = [&](OpFoldResult from, OpFoldResult to) {
    Value held = memref::SubViewOp::create(
        b, loc, rows,
        SmallVector<OpFoldResult>{b.getIndexAttr(0), from, b.getIndexAttr(0),
                                  b.getIndexAttr(0)},
        SmallVector<OpFoldResult>{b.getIndexAttr(1), b.getIndexAttr(1),
                                  b.getIndexAttr(w), b.getIndexAttr(c)},
        SmallVector<OpFoldResult>(4, b.getIndexAttr(1)));
    Value target = memref::SubViewOp::create(
        b, loc, in,
        SmallVector<OpFoldResult>{b.getIndexAttr(0), to, b.getIndexAttr(0),
                                  b.getIndexAttr(0)},
        SmallVector<OpFoldResult>{b.getIndexAttr(1), b.getIndexAttr(1),
                                  b.getIndexAttr(w), b.getIndexAttr(c)},
        SmallVector<OpFoldResult>(4, b.getIndexAttr(1)));
    copyRows(b, loc, held, target);
  };
  if (ring == 1) {
    copyRow(b.getIndexAttr(0), row);
  } else {
    Value done = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge, row,
                                       index(ring - 1));
    auto ifOp = scf::IfOp::create(b, loc, done, /*withElseRegion=*/false);
    b.setInsertionPointToStart(ifOp.thenBlock());
    Value target =
        arith::SubIOp::create(b, loc, row, index(ring - 1)).getResult();
    Value from =
        arith::RemUIOp::create(b, loc, target, index(ring)).getResult();
    copyRow(from, target);
  }
  b.setInsertionPointAfter(nest.rows);
  for (int64_t r = h - ring + 1; r < h; ++r)
    copyRow(b.getIndexAttr(r % ring), b.getIndexAttr(r));
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
