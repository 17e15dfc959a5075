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
  // (named in serenity-static-alloc's report)
  alloc->setAttr("serenity.in_place_scratch", b.getUnitAttr());
  return alloc;
}

/// All dimensions 0 .. rank - 1 in one group.
ReassociationIndices allDims(int64_t rank) {
  ReassociationIndices all;
  for (int64_t d = 0; d < rank; ++d)
    all.push_back(d);
  return all;
}

/// `buffer` (identity layout) seen with `shape` (as many elements).
Value reshaped(OpBuilder &b, Location loc, Value buffer,
               ArrayRef<int64_t> shape) {
  auto type = cast<MemRefType>(buffer.getType());
  if (type.getShape() == shape)
    return buffer;
  Value flat = memref::CollapseShapeOp::create(b, loc, buffer,
                                               {allDims(type.getRank())});
  return memref::ExpandShapeOp::create(b, loc, shape, flat,
                                       {allDims(shape.size())});
}

/// `buffer` (an identity-layout [1, H, W, C] int8 memref, C a multiple of 4)
/// seen as [1, H, W, C / 4] int32 words, so that copies move 4 bytes per
/// access (the buffers are at least 4-byte aligned: the arena's alignment).
Value wordView(OpBuilder &b, Location loc, Value buffer) {
  auto type = cast<MemRefType>(buffer.getType());
  Value flat =
      memref::CollapseShapeOp::create(b, loc, buffer, {allDims(4)});
  auto words = MemRefType::get({1, type.getDimSize(1), type.getDimSize(2),
                                type.getDimSize(3) / 4},
                               b.getI32Type());
  return memref::ViewOp::create(b, loc, words, flat,
                                arith::ConstantIndexOp::create(b, loc, 0),
                                ValueRange());
}

/// The [1, 1, w, c] window at (0, row, col, 0) of `buffer` (an
/// identity-layout [1, H, W, C] memref).
Value windowOf(OpBuilder &b, Location loc, Value buffer, OpFoldResult row,
               OpFoldResult col, int64_t w, int64_t c) {
  return memref::SubViewOp::create(
      b, loc, buffer,
      SmallVector<OpFoldResult>{b.getIndexAttr(0), row, col,
                                b.getIndexAttr(0)},
      SmallVector<OpFoldResult>{b.getIndexAttr(1), b.getIndexAttr(1),
                                b.getIndexAttr(w), b.getIndexAttr(c)},
      SmallVector<OpFoldResult>(4, b.getIndexAttr(1)));
}

/// Copies `source` to `target`, each an identity-layout [1, H, W, C] buffer
/// or a window of one holding all C channels (`windowOf`): by 32-bit words
/// when they are int8 and C is a multiple of 4.
void copyWords(OpBuilder &b, Location loc, Value source, Value target) {
  auto type = cast<MemRefType>(source.getType());
  if (!type.getElementType().isInteger(8) || type.getDimSize(3) % 4 != 0) {
    memref::CopyOp::create(b, loc, source, target);
    return;
  }
  auto words = [&](Value value) -> Value {
    auto view = value.getDefiningOp<memref::SubViewOp>();
    if (!view)
      return wordView(b, loc, value);
    SmallVector<OpFoldResult> sizes = view.getMixedSizes();
    sizes[3] = b.getIndexAttr(*getConstantIntValue(sizes[3]) / 4);
    Value window =
        memref::SubViewOp::create(b, loc, wordView(b, loc, view.getSource()),
                                  view.getMixedOffsets(), sizes,
                                  view.getMixedStrides());
    view->erase();
    return window;
  };
  Value from = words(source);
  memref::CopyOp::create(b, loc, from, words(target));
}

/// 1x1: each input pixel copied at the start of its iteration.
void rewritePointwise(OpBuilder &b, InPlaceNest nest) {
  Location loc = nest.conv.getLoc();
  int64_t c = nest.numChannels;
  Value pixel = scratch(b, nest, {1, 1, 1, c});
  b.setInsertionPointToStart(nest.cols.getBody());
  copyWords(b, loc,
            windowOf(b, loc, nest.inView.getSource(),
                     nest.rows.getInductionVar(), nest.cols.getInductionVar(),
                     1, c),
            pixel);
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
  Value ringView = reshaped(b, loc, rows, ringShape);
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
    Value held = windowOf(b, loc, rows, from, b.getIndexAttr(0), w, c);
    copyWords(b, loc, held, windowOf(b, loc, in, to, b.getIndexAttr(0), w, c));
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
  Value view = reshaped(b, loc, nest.in, nest.out.getType().getShape());
  nest.out.getResult().replaceAllUsesWith(view);
  nest.out->erase();
}

/// Bytes of a statically shaped memref as the arena holds it (elements of a
/// power-of-two width, as serenity-static-alloc counts them).
int64_t memrefBytes(MemRefType type) {
  int64_t element = llvm::PowerOf2Ceil(
      std::max<int64_t>(1, (type.getElementTypeBitWidth() + 7) / 8));
  return type.getNumElements() * element;
}

/// The scratch bytes `nest` needs in place.
int64_t scratchBytes(InPlaceNest nest) {
  MemRefType in = nest.in.getType();
  int64_t perPixel = memrefBytes(in) / (in.getDimSize(1) * in.getDimSize(2));
  return nest.depthwise ? nest.ringRows * in.getDimSize(2) * perPixel
                        : perPixel;
}

/// The live bytes of the body's buffers at each of its top-level ops, as
/// serenity-static-alloc sees them: an alloc from its position to the
/// top-level op holding its last use (through any view), a nested alloc
/// during its top-level op; with io=arena the memref arguments too (an
/// input to its last use, an output from its first write to the end).
class Timeline {
public:
  Timeline(func::FuncOp func, bool argumentsInArena)
      : block(&func.getBody().front()) {
    for (Operation &op : *block)
      position[&op] = static_cast<int64_t>(position.size());
    size = static_cast<int64_t>(position.size());
    func.walk([&](memref::AllocOp alloc) {
      auto type = alloc.getType();
      if (!type.hasStaticShape())
        return;
      int64_t first = at(alloc), last = first;
      SmallVector<Operation *> users;
      collectUsers(alloc.getResult(), users);
      for (Operation *user : users)
        last = std::max(last, at(user));
      if (alloc->getBlock() != block)
        first = last = at(alloc);
      intervals[alloc] = {first, last, memrefBytes(type)};
    });
    if (!argumentsInArena)
      return;
    for (BlockArgument arg : func.getArguments()) {
      auto type = dyn_cast<MemRefType>(arg.getType());
      if (!type || !type.hasStaticShape())
        continue;
      SmallVector<Operation *> users;
      collectUsers(arg, users);
      int64_t first = size, last = 0;
      bool written = false;
      for (Operation *user : users) {
        written |= isOutput(arg, user);
        first = std::min(first, at(user));
        last = std::max(last, at(user));
      }
      if (users.empty())
        continue;
      fixed.push_back(written ? Interval{first, size - 1, memrefBytes(type)}
                              : Interval{0, last, memrefBytes(type)});
    }
  }

  /// The most bytes live at once with `inPlace` computed in place.
  int64_t peak(ArrayRef<InPlaceNest> inPlace) const {
    SmallVector<int64_t> live(size + 1, 0);
    auto add = [&](int64_t first, int64_t last, int64_t bytes) {
      live[first] += bytes;
      live[last + 1] -= bytes;
    };
    DenseMap<Operation *, InPlaceNest> byIn, byOut;
    for (InPlaceNest nest : inPlace) {
      byIn[nest.in] = nest;
      byOut[nest.out] = nest;
      int64_t t = at(nest.rows);
      add(t, t, scratchBytes(nest));
    }
    for (const Interval &interval : fixed)
      add(interval.first, interval.last, interval.bytes);
    for (auto &[alloc, interval] : intervals) {
      if (byOut.count(alloc))
        continue; // the input's bytes
      int64_t last = interval.last;
      // An input computed over takes its result's lifetime (chains too).
      for (Operation *current = alloc; byIn.count(current);) {
        InPlaceNest nest = byIn.lookup(current);
        last = std::max(last, intervals.lookup(nest.out).last);
        current = nest.out;
      }
      add(interval.first, last, interval.bytes);
    }
    int64_t peak = 0, running = 0;
    for (int64_t t = 0; t < size; ++t)
      peak = std::max(peak, running += live[t]);
    return peak;
  }

private:
  struct Interval {
    int64_t first = 0, last = 0, bytes = 0;
  };
  static bool isOutput(BlockArgument arg, Operation *user) {
    if (auto copy = dyn_cast<memref::CopyOp>(user))
      return copy.getTarget() == arg ||
             viewRoot(copy.getTarget()) == Value(arg);
    if (auto linalgOp = dyn_cast<linalg::LinalgOp>(user))
      return llvm::any_of(linalgOp.getDpsInits(), [&](Value init) {
        return viewRoot(init) == Value(arg);
      });
    return false;
  }
  int64_t at(Operation *op) const {
    return position.lookup(block->findAncestorOpInBlock(*op));
  }
  Block *block = nullptr;
  DenseMap<Operation *, int64_t> position;
  int64_t size = 0;
  DenseMap<Operation *, Interval> intervals;
  SmallVector<Interval> fixed;
};

struct SerenityInPlaceConvsPass
    : public mlir::serenity::impl::SerenityInPlaceConvsPassBase<
          SerenityInPlaceConvsPass> {
  using SerenityInPlaceConvsPassBase::SerenityInPlaceConvsPassBase;

  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (mlir::serenity::isUnoptimized(func) || !func.getBody().hasOneBlock() ||
        func.getBody().front().empty())
      return;
    SmallVector<InPlaceNest> nests;
    for (auto loop : func.getBody().front().getOps<scf::ForOp>())
      if (std::optional<InPlaceNest> nest = matchNest(loop))
        nests.push_back(*nest);
    // Only where it lowers the peak: a nest whose result may take its own
    // bytes without raising the most bytes live at once keeps them (no
    // copies, no ring).
    Timeline timeline(func, io == mlir::serenity::IOPlacement::Arena);
    int64_t peak = timeline.peak(nests);
    for (size_t k = 0; k < nests.size();) {
      SmallVector<InPlaceNest> without(nests);
      without.erase(without.begin() + k);
      if (timeline.peak(without) <= peak)
        nests = std::move(without);
      else
        ++k;
    }
    // Rewritten in order, each matched again: a rewrite replaces the result
    // buffer the next nest of a chain reads.
    DenseSet<Operation *> chosen;
    for (InPlaceNest &nest : nests)
      chosen.insert(nest.rows);
    OpBuilder b(&getContext());
    for (auto loop :
         llvm::to_vector(func.getBody().front().getOps<scf::ForOp>())) {
      if (!chosen.contains(loop))
        continue;
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
