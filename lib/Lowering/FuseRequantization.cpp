//===- FuseRequantization.cpp - Row-tile convs with their rescale -*- C++ -*-===//
//
// After tosa-to-linalg an int8 convolution materializes its whole i32
// accumulator before the elementwise rescale/clamp turn it into int8: four
// bytes per output element where TFLite Micro needs none. Tiling the
// elementwise consumer along the output rows and fusing the convolution into
// that loop leaves only one row tile of the accumulator alive at a time.
// Everything here is composed from upstream transformations (elementwise
// fusion, reshape propagation, tile-and-fuse); this file decides where they
// apply.
//
//===----------------------------------------------------------------------===//

#include "Serenity/Analysis/ElementwiseDags.h"
#include "Serenity/Analysis/Primitives.h"
#include "Serenity/Lowering/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/TileUsingInterface.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/IR/Dominance.h"
#include "mlir/Transforms/CSE.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace serenity {
#define GEN_PASS_DEF_SERENITYFUSEREQUANTIZATIONPASS
#include "Serenity/Lowering/Passes.h.inc"
} // namespace serenity
} // namespace mlir

using namespace mlir;

namespace {

/// The named 2-D convolutions tosa-to-linalg-named produces (and their
/// layout variants): NHWC output, so dimension 1 is the output row.
/// A convolution tagged winograd or vector is left whole: its tiles are
/// m x m output pixels or register blocks, not rows
/// (serenity-lower-primitives).
bool isRowTileableConv(Operation *op) {
  if (mlir::serenity::computesConvWhole(mlir::serenity::getChosenPrimitive(op)))
    return false;
  return isa<linalg::Conv2DNhwcFhwcOp, linalg::Conv2DNhwcFhwcQOp,
             linalg::Conv2DNhwcHwcfOp, linalg::Conv2DNhwcHwcfQOp,
             linalg::DepthwiseConv2DNhwcHwcOp,
             linalg::DepthwiseConv2DNhwcHwcQOp,
             linalg::DepthwiseConv2DNhwcHwcmOp,
             linalg::DepthwiseConv2DNhwcHwcmQOp>(op);
}

/// The named 2-D NHWC pooling ops: their window is read like a conv's (the
/// "filter" operand is only the window's [KH, KW] shape).
bool isPooling(Operation *op) {
  return isa<linalg::PoolingNhwcMaxOp, linalg::PoolingNhwcMaxUnsignedOp,
             linalg::PoolingNhwcMinOp, linalg::PoolingNhwcMinUnsignedOp,
             linalg::PoolingNhwcSumOp>(op);
}

/// Bit width of `value`'s element type, 0 unless it is an integer or float
/// (such values never take part in fusion or tiling decisions).
unsigned elementBits(Value value) {
  Type element = getElementTypeOrSelf(value.getType());
  return element.isIntOrFloat() ? element.getIntOrFloatBitWidth() : 0;
}

/// A linalg.generic with only parallel loops: a pointwise map of its inputs
/// (possibly broadcasting some of them), such as a rescale, clamp or bias add.
bool isParallelGeneric(Operation *op) {
  auto generic = dyn_cast_or_null<linalg::GenericOp>(op);
  return generic && generic.getNumLoops() == generic.getNumParallelLoops();
}

/// True when `value` is computed from a convolution's accumulator by
/// pointwise ops only (the conv itself, the generics after it, and the
/// collapse of a depthwise conv's channel multiplier). Elementwise fusion is
/// restricted to such chains so that it does not reshape unrelated parts of
/// the program.
bool isConvChained(Value value, unsigned depth = 0) {
  if (depth > 16)
    return false;
  Operation *def = value.getDefiningOp();
  if (!def)
    return false;
  if (isRowTileableConv(def))
    return true;
  if (auto collapse = dyn_cast<tensor::CollapseShapeOp>(def))
    return isConvChained(collapse.getSrc(), depth + 1);
  if (!isParallelGeneric(def))
    return false;
  return llvm::any_of(cast<linalg::GenericOp>(def).getDpsInputs(),
                      [&](Value input) {
                        return isConvChained(input, depth + 1);
                      });
}

/// True when the single-use pointwise chain starting at `value` (generics and
/// reshapes) produces an element type narrower than `bits`: the chain
/// requantizes an accumulator, so row tiling will apply to it.
bool reachesNarrowerResult(Value value, unsigned bits, unsigned depth = 0) {
  if (depth > 16 || !value.hasOneUse())
    return false;
  Operation *user = *value.user_begin();
  if (!isParallelGeneric(user) &&
      !isa<tensor::CollapseShapeOp, tensor::ExpandShapeOp>(user))
    return false;
  Value result = user->getResult(0);
  unsigned resultBits = elementBits(result);
  if (resultBits != 0 && resultBits < bits)
    return true;
  return reachesNarrowerResult(result, bits, depth + 1);
}

/// The convolution at the root of a conv-chained value (see isConvChained).
Operation *chainRoot(Value value, unsigned depth = 0) {
  Operation *def = value.getDefiningOp();
  if (!def || depth > 16)
    return nullptr;
  if (isRowTileableConv(def))
    return def;
  if (auto collapse = dyn_cast<tensor::CollapseShapeOp>(def))
    return chainRoot(collapse.getSrc(), depth + 1);
  if (!isParallelGeneric(def))
    return nullptr;
  for (Value input : cast<linalg::GenericOp>(def).getDpsInputs())
    if (Operation *root = chainRoot(input, depth + 1))
      return root;
  return nullptr;
}

/// The convolutions a row-tiled `generic` can absorb: operands defined by a
/// row-tileable conv whose only user is `generic`, read with the identity map
/// (the generic's output rows are the conv's output rows).
SmallVector<Operation *> fusableConvOperands(linalg::GenericOp generic) {
  SmallVector<Operation *> convs;
  for (OpOperand *input : generic.getDpsInputOperands()) {
    Operation *def = input->get().getDefiningOp();
    if (def && isRowTileableConv(def) && input->get().hasOneUse() &&
        generic.getMatchingIndexingMap(input).isIdentity())
      convs.push_back(def);
  }
  return convs;
}

/// Bytes of a statically shaped tensor value, or nullopt.
/// The tensor `value` is a view of (through slices and reshapes): views of
/// one tensor hold its buffer once.
Value viewRoot(Value value) {
  while (Operation *view = value.getDefiningOp()) {
    if (!isa<tensor::ExtractSliceOp, tensor::CollapseShapeOp,
             tensor::ExpandShapeOp>(view))
      break;
    value = view->getOperand(0);
  }
  return value;
}

std::optional<int64_t> staticBytes(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type || !type.hasStaticShape() || !type.getElementType().isIntOrFloat())
    return std::nullopt;
  return type.getNumElements() *
         llvm::divideCeil(type.getElementTypeBitWidth(), 8);
}

/// True when fusing the elementwise `producer` into its consumer cannot grow
/// the peak: the fused op keeps the producer's inputs live next to the
/// consumer's result, which costs nothing only if those inputs are not larger
/// than the producer's result they replace. Constants (ROM) do not count, and
/// neither does a convolution accumulator wider than the chain's final result,
/// which row tiling shrinks to one row afterwards. This keeps e.g. a sum of two
/// f32 convs unfused (both would have to stay live until the sum's consumer).
bool fusionKeepsPeak(linalg::GenericOp producer, Value result) {
  std::optional<int64_t> resultBytes = staticBytes(result);
  if (!resultBytes)
    return false;
  unsigned resultBits = elementBits(result);
  // Inputs that are views of one tensor (slices, reshapes) hold its buffer
  // once.
  DenseMap<Value, int64_t> viewedBytes;
  for (Value input : producer.getDpsInputs()) {
    if (matchPattern(input, m_Constant()))
      continue;
    Value source = input;
    if (auto collapse = input.getDefiningOp<tensor::CollapseShapeOp>())
      source = collapse.getSrc();
    Operation *def = source.getDefiningOp();
    // The accumulator is tiled away when the chain requantizes it: the
    // producer's result is narrower, or a later single-use pointwise step is
    // (e.g. an int8 ADD of two convs: the i32 sum, then its rescale to i8).
    if (def && isRowTileableConv(def) &&
        (elementBits(source) > resultBits ||
         reachesNarrowerResult(result, elementBits(source))))
      continue;
    if (!isa<RankedTensorType>(input.getType()))
      continue;
    std::optional<int64_t> bytes = staticBytes(input);
    if (!bytes)
      return false;
    int64_t &viewed = viewedBytes[viewRoot(input)];
    viewed = std::max(viewed, *bytes);
  }
  int64_t inputBytes = 0;
  for (auto &entry : viewedBytes)
    inputBytes += entry.second;
  return inputBytes <= *resultBytes;
}

struct SerenityFuseRequantizationPass
    : public mlir::serenity::impl::SerenityFuseRequantizationPassBase<
          SerenityFuseRequantizationPass> {
  using SerenityFuseRequantizationPassBase::SerenityFuseRequantizationPassBase;

  void runOnOperation() override {
    // serenity-pipeline leaves this function to the upstream lowering.
    if (mlir::serenity::isUnoptimized(getOperation()))
      return;
    func::FuncOp func = getOperation();
    MLIRContext *context = &getContext();
    if (tileRows < 1) {
      func.emitError("serenity-fuse-requantization: tile-rows must be >= 1");
      return signalPassFailure();
    }
    if (tileCols < 0) {
      func.emitError("serenity-fuse-requantization: tile-cols must be >= 0 "
                     "(0 = whole rows)");
      return signalPassFailure();
    }
    if (tileChannels < 0) {
      func.emitError("serenity-fuse-requantization: tile-channels must be "
                     ">= 0 (0 = all channels)");
      return signalPassFailure();
    }

    if (failed(fuseElementwiseChains(func)) ||
        failed(fusePointwiseDags(func)))
      return signalPassFailure();

    SmallVector<linalg::GenericOp> consumers;
    func.walk([&](linalg::GenericOp generic) {
      if (isParallelGeneric(generic) && !fusableConvOperands(generic).empty())
        consumers.push_back(generic);
    });

    IRRewriter rewriter(context);
    for (linalg::GenericOp consumer : consumers)
      tileAndFuse(rewriter, consumer);

    // The padded convs left untiled (no elementwise consumer to fuse with,
    // e.g. an f32 conv feeding an add or a concat): one-pixel tiles of the
    // conv alone, reading the window in place, so no padded copy exists.
    if (fusePadding) {
      SmallVector<linalg::LinalgOp> padded;
      func.walk([&](linalg::LinalgOp op) {
        if ((isRowTileableConv(op) || isPooling(op)) &&
            isa<func::FuncOp>(op->getParentOp()) && hasClippablePadding(op))
          padded.push_back(op);
      });
      for (linalg::LinalgOp conv : padded)
        tilePaddedConv(rewriter, conv);
    }

    // Per-tile accumulators: extract_slice(tensor.empty) -> a tile-sized
    // tensor.empty, which bufferization allocates inside the loop.
    RewritePatternSet cleanup(context);
    tensor::populateFoldTensorEmptyPatterns(cleanup);
    if (failed(applyPatternsGreedily(func, std::move(cleanup))))
      return signalPassFailure();

    // Only the integer convolutions (an i32 accumulator the pass exists to
    // shrink) are worth a remark when left whole; an f32 conv with no
    // elementwise consumer is not a candidate.
    func.walk([](Operation *op) {
      if (!isRowTileableConv(op))
        return;
      Type element = getElementTypeOrSelf(op->getResult(0).getType());
      if (!op->getResult(0).use_empty() && element.isInteger() &&
          element.getIntOrFloatBitWidth() > 8) {
        unsigned users = std::distance(op->getResult(0).getUsers().begin(),
                                       op->getResult(0).getUsers().end());
        if (users != 1 || !isParallelGeneric(*op->getResult(0).user_begin()))
          mlir::emitRemark(op->getLoc(),
                           "serenity-fuse-requantization: not fused: the "
                           "convolution result has ")
              << users << " user(s), not one elementwise linalg.generic";
      }
    });
  }

  /// Fuses the pointwise generics after each convolution into one, so that
  /// the conv's result has a single elementwise user.
  LogicalResult fuseElementwiseChains(func::FuncOp func) {
    MLIRContext *context = &getContext();
    RewritePatternSet patterns(context);
    // A depthwise conv's [N, H, W, C, M] result is collapsed to
    // [N, H, W, C*M] before the bias add: expanding the consumer generic to
    // five dimensions instead makes it read the conv result directly.
    // Only a collapse of the conv result itself (further down the chain the
    // conv is read directly already, and moving a collapse would reshape the
    // rest of the program: an LSTM gate's table gathers), and only where the
    // chain will be tiled: elsewhere the moved collapse would just stand
    // between the result and its user (e.g. an in-place concat).
    bool all = allConvs, fusePadding = this->fusePadding;
    linalg::populateFoldReshapeOpsByExpansionPatterns(
        patterns, [all, fusePadding](OpOperand *fused) {
          auto collapse = fused->get().getDefiningOp<tensor::CollapseShapeOp>();
          if (!collapse || !isParallelGeneric(fused->getOwner()) ||
              !collapse->hasOneUse())
            return false;
          Operation *source = collapse.getSrc().getDefiningOp();
          if (!source || !isRowTileableConv(source))
            return false;
          if (all)
            return true;
          Operation *conv = chainRoot(collapse.getSrc());
          Value accumulator = conv->getResult(0);
          return reachesNarrowerResult(accumulator, elementBits(accumulator)) ||
                 (fusePadding &&
                  hasClippablePadding(cast<linalg::LinalgOp>(conv)));
        });
    linalg::populateElementwiseOpsFusionPatterns(
        patterns, [](OpOperand *fused) {
          Operation *producer = fused->get().getDefiningOp();
          Operation *consumer = fused->getOwner();
          if (!isParallelGeneric(producer) || !isParallelGeneric(consumer) ||
              !producer->hasOneUse() ||
              !fusionKeepsPeak(cast<linalg::GenericOp>(producer),
                               fused->get()))
            return false;
          if (!isConvChained(fused->get()) &&
              !isConvChained(consumer->getResult(0)))
            return false;
          // Not past a requantization to int16 into a consumer that widens
          // its result again for good (an LSTM gate: i32 -> i16, then back
          // to i32 for the next additions): the chain would no longer
          // narrow, so the conv would not be tiled with its requantization
          // (the memory model's fused group ends at the narrowing op too).
          // int8 requantizations keep their fusions (measured: the rule on
          // them changes the MLPerf Tiny kernels, ResNet-8 +0.5 % on the
          // Cortex-M55).
          unsigned producerBits = elementBits(producer->getResult(0));
          unsigned consumerBits = elementBits(consumer->getResult(0));
          unsigned widestInput = 0;
          for (Value input :
               cast<linalg::GenericOp>(producer).getDpsInputs())
            widestInput = std::max(widestInput, elementBits(input));
          if (producerBits > 8 && producerBits < widestInput &&
              consumerBits > producerBits &&
              !reachesNarrowerResult(consumer->getResult(0), producerBits + 1))
            return false;
          return true;
        });
    return applyPatternsGreedily(func, std::move(patterns));
  }

  /// Fuses the element-wise DAGs the conv chains leave (a float QUANTIZE's
  /// exact division and rounding, an int8 MUL or MAXIMUM, an LSTM gate's
  /// sigmoid around two table gathers) into one generic each: a value read
  /// only inside its DAG, by any number of its generics, is computed once
  /// per element in registers and never stored. Which generics form a DAG
  /// is groupElementwiseDags' decision, the one the memory model makes on
  /// the TOSA ops. A generic that reads a convolution's accumulator stays
  /// alone (the conv must keep its single user to be row-tiled).
  LogicalResult fusePointwiseDags(func::FuncOp func) {
    if (!func.getBody().hasOneBlock())
      return success();
    Block &block = func.getBody().front();
    SmallVector<linalg::GenericOp> generics;
    DenseMap<Operation *, unsigned> unitIndex;
    for (Operation &op : block)
      if (isParallelGeneric(&op) && op.getNumResults() == 1) {
        unitIndex[&op] = generics.size();
        generics.push_back(cast<linalg::GenericOp>(op));
      }
    SmallVector<mlir::serenity::DagUnit> units(generics.size());
    for (auto [index, generic] : llvm::enumerate(generics)) {
      mlir::serenity::DagUnit &unit = units[index];
      Value result = generic->getResult(0);
      std::optional<int64_t> bytes = staticBytes(result);
      unit.resultBytes = bytes.value_or(0);
      unit.eligible = bytes && isFusableLoop(generic);
      int64_t elements = cast<RankedTensorType>(result.getType()).getNumElements();
      for (OpOperand &use : result.getUses()) {
        auto user = dyn_cast<linalg::GenericOp>(use.getOwner());
        auto it = user ? unitIndex.find(user) : unitIndex.end();
        if (it == unitIndex.end() || !user.isDpsInput(&use) ||
            !user.getMatchingIndexingMap(&use).isProjectedPermutation(
                /*allowZeroInResults=*/true) ||
            iterationCount(user) != elements) {
          unit.otherUsers = true;
          continue;
        }
        if (!llvm::is_contained(unit.users, it->second))
          unit.users.push_back(it->second);
      }
      for (Value input : generic.getDpsInputs()) {
        if (matchPattern(input, m_Constant()))
          continue;
        mlir::serenity::DagUnit::Read read;
        read.buffer = viewRoot(input).getAsOpaquePointer();
        read.bytes = staticBytes(input).value_or(0);
        if (Operation *def = input.getDefiningOp())
          if (auto it = unitIndex.find(def); it != unitIndex.end())
            read.producer = it->second;
        unit.reads.push_back(read);
      }
    }
    SmallVector<unsigned> dagOf = mlir::serenity::groupElementwiseDags(units);
    IRRewriter rewriter(&getContext());
    SmallVector<SmallVector<linalg::GenericOp>> members(generics.size());
    for (auto [index, generic] : llvm::enumerate(generics))
      members[dagOf[index]].push_back(generic);
    for (SmallVector<linalg::GenericOp> &dag : members)
      if (dag.size() > 1)
        fuseDag(rewriter, dag);
    return success();
  }

  /// Loop iterations of `generic` (its static loop ranges' product).
  static int64_t iterationCount(linalg::GenericOp generic) {
    int64_t iterations = 1;
    for (int64_t range : generic.getStaticLoopRanges())
      iterations *= range;
    return iterations;
  }

  /// A generic that can be one step of a fused DAG loop: element-wise over
  /// its statically shaped result (identity output map, the output's values
  /// unused), reading no convolution's accumulator.
  static bool isFusableLoop(linalg::GenericOp generic) {
    if (generic.getNumDpsInits() != 1 ||
        !generic.getMatchingIndexingMap(generic.getDpsInitOperand(0))
             .isIdentity() ||
        generic.payloadUsesValueFromOperand(generic.getDpsInitOperand(0)))
      return false;
    auto type = dyn_cast<RankedTensorType>(generic->getResult(0).getType());
    if (!type || !type.hasStaticShape() ||
        iterationCount(generic) != type.getNumElements())
      return false;
    for (Value input : generic.getDpsInputs()) {
      Value source = input;
      if (auto collapse = input.getDefiningOp<tensor::CollapseShapeOp>())
        source = collapse.getSrc();
      if (Operation *def = source.getDefiningOp();
          def && isRowTileableConv(def))
        return false;
    }
    return true;
  }

  /// Replaces the DAG `members` (in program order, the last one computing
  /// the result the others feed) by one generic over the last one's
  /// iteration space. Each member's body is cloned once, in program order,
  /// so every element sees the same operations in the same order as before
  /// (bit-exact, floats included) and every internal value is computed once.
  void fuseDag(RewriterBase &rewriter, ArrayRef<linalg::GenericOp> members) {
    linalg::GenericOp root = members.back();
    unsigned rank = root.getNumLoops();
    MLIRContext *context = root.getContext();
    // Where each member's loop indices are in the root's iterations: the
    // identity for the root, then, from the last member back, the map a
    // reader reads the member's result with composed with that reader's.
    DenseMap<Operation *, AffineMap> placement;
    DenseMap<Operation *, unsigned> position;
    for (auto [index, member] : llvm::enumerate(members))
      position[member] = index;
    placement[root] = AffineMap::getMultiDimIdentityMap(rank, context);
    for (linalg::GenericOp member : llvm::reverse(members.drop_back())) {
      AffineMap where;
      for (OpOperand &use : member->getResult(0).getUses()) {
        auto reader = cast<linalg::GenericOp>(use.getOwner());
        AffineMap map =
            reader.getMatchingIndexingMap(&use).compose(placement.at(reader));
        if (where && where != map) {
          mlir::emitRemark(member.getLoc(),
                           "serenity-fuse-requantization: not fused: the "
                           "element-wise DAG reads this value at different "
                           "elements");
          return;
        }
        where = map;
      }
      placement[member] = where;
    }

    // The fused loop's inputs: every member input computed outside the DAG,
    // with its map in the root's iterations (each value and map once).
    SmallVector<Value> inputs;
    SmallVector<AffineMap> maps;
    auto inputIndex = [&](Value value, AffineMap map) -> unsigned {
      for (unsigned i = 0; i < inputs.size(); ++i)
        if (inputs[i] == value && maps[i] == map)
          return i;
      inputs.push_back(value);
      maps.push_back(map);
      return inputs.size() - 1;
    };
    auto isMember = [&](Value value) {
      Operation *def = value.getDefiningOp();
      return def && position.count(def);
    };
    for (linalg::GenericOp member : members)
      for (OpOperand *input : member.getDpsInputOperands())
        if (!isMember(input->get()))
          inputIndex(input->get(), member.getMatchingIndexingMap(input)
                                       .compose(placement.at(member)));
    maps.push_back(root.getMatchingIndexingMap(root.getDpsInitOperand(0)));

    rewriter.setInsertionPoint(root);
    auto fused = linalg::GenericOp::create(
        rewriter, root.getLoc(), root->getResultTypes(), inputs,
        root.getDpsInits(), maps, root.getIteratorTypesArray());
    Block *body = rewriter.createBlock(&fused.getRegion());
    for (Value input : inputs)
      body->addArgument(getElementTypeOrSelf(input.getType()), root.getLoc());
    body->addArgument(getElementTypeOrSelf(root->getResult(0).getType()),
                      root.getLoc());
    rewriter.setInsertionPointToStart(body);

    DenseMap<Operation *, Value> computed;
    for (linalg::GenericOp member : members) {
      IRMapping mapping;
      Block &memberBody = member.getRegion().front();
      for (OpOperand *input : member.getDpsInputOperands()) {
        Value arg = memberBody.getArgument(input->getOperandNumber());
        Value value = input->get();
        if (isMember(value))
          mapping.map(arg, computed.at(value.getDefiningOp()));
        else
          mapping.map(arg, body->getArgument(inputIndex(
                               value, member.getMatchingIndexingMap(input)
                                          .compose(placement.at(member)))));
      }
      AffineMap where = placement.at(member);
      for (Operation &op : memberBody.without_terminator()) {
        // A member's loop index is a root loop index (or 0 on a unit
        // dimension the root does not have).
        if (auto index = dyn_cast<linalg::IndexOp>(op)) {
          AffineExpr expr = where.getResult(index.getDim());
          Value replacement;
          if (auto dim = dyn_cast<AffineDimExpr>(expr))
            replacement = linalg::IndexOp::create(rewriter, index.getLoc(),
                                                  dim.getPosition());
          else
            replacement = arith::ConstantIndexOp::create(
                rewriter, index.getLoc(),
                cast<AffineConstantExpr>(expr).getValue());
          mapping.map(index.getResult(), replacement);
          continue;
        }
        rewriter.clone(op, mapping);
      }
      auto yield = cast<linalg::YieldOp>(memberBody.getTerminator());
      computed[member] = mapping.lookupOrDefault(yield.getOperand(0));
    }
    linalg::YieldOp::create(rewriter, root.getLoc(), computed.at(root));

    rewriter.replaceOp(root, fused->getResults());
    for (linalg::GenericOp member : llvm::reverse(members.drop_back()))
      rewriter.eraseOp(member);
    // Different TOSA ops of the DAG may compute the same scalar (the int8
    // input widened for a MUL and for a rescale): once is enough.
    DominanceInfo dominance;
    eliminateCommonSubExpressions(rewriter, dominance, fused);
  }

  /// Tiling a tensor.pad guards the tile that lies entirely in the padding:
  /// `scf.if (rows read == 0) {tensor.generate} else {pad(extract_slice)}`.
  /// The else branch is correct for an empty slice too (its offsets and
  /// sizes are clamped to the source), so keep just that branch: one padded
  /// tile buffer per iteration that the static allocator can plan, instead
  /// of a buffer yielded out of a conditional.
  static void dropEmptyPadGuards(RewriterBase &rewriter,
                                 LoopLikeOpInterface loop) {
    SmallVector<scf::IfOp> guards;
    loop->walk([&](scf::IfOp ifOp) {
      if (ifOp.getNumResults() != 1 || ifOp.getElseRegion().empty())
        return;
      // (A tensor.cast to the static tile type may sit on either value.)
      auto source = [](Value v) -> Value {
        if (auto cast = v.getDefiningOp<tensor::CastOp>())
          return cast.getSource();
        return v;
      };
      Value thenValue = source(ifOp.thenYield().getOperand(0));
      Value elseValue = source(ifOp.elseYield().getOperand(0));
      if (thenValue.getDefiningOp<tensor::GenerateOp>() &&
          elseValue.getDefiningOp<tensor::PadOp>())
        guards.push_back(ifOp);
    });
    for (scf::IfOp ifOp : guards) {
      Block *elseBlock = ifOp.elseBlock();
      Value padded = ifOp.elseYield().getOperand(0);
      rewriter.eraseOp(ifOp.elseYield());
      rewriter.inlineBlockBefore(elseBlock, ifOp);
      rewriter.replaceOp(ifOp, padded);
    }
  }

  /// Where a tile computes one output pixel, a fused `tensor.pad` of its
  /// input window is not needed: the border positions it adds contribute
  /// nothing to the sum (the pad value is the input zero point, or 0), so the
  /// conv can read the unpadded rows and columns of the window directly with
  /// the matching part of the filter (offset by the low padding). This is
  /// TFLite Micro's bounds check on every window read, done once per tile:
  /// no padded window is copied or allocated. Needs dilation 1.
  static void clipPaddedWindows(RewriterBase &rewriter,
                                LoopLikeOpInterface loop) {
    SmallVector<linalg::LinalgOp> convs;
    loop->walk([&](linalg::LinalgOp op) {
      if (isRowTileableConv(op) || isPooling(op))
        convs.push_back(op);
    });
    for (linalg::LinalgOp conv : convs)
      clipPaddedWindow(rewriter, conv);
  }

  /// True when padding `conv`'s input with `value` adds 0 to every sum: the
  /// input zero point of a quantized conv, 0 otherwise.
  static bool isNeutralPadValue(linalg::LinalgOp conv, Value value) {
    Attribute padAttr;
    if (!matchPattern(value, m_Constant(&padAttr)))
      return false;
    if (isPooling(conv)) {
      // A max pool's padding never wins if it is the least value (a min
      // pool's: the greatest); a sum pool's adds 0.
      bool max = isa<linalg::PoolingNhwcMaxOp>(conv.getOperation());
      bool min = isa<linalg::PoolingNhwcMinOp>(conv.getOperation());
      if (auto padInt = dyn_cast<IntegerAttr>(padAttr)) {
        const APInt &v = padInt.getValue();
        if (max)
          return v.isMinSignedValue();
        if (min)
          return v.isMaxSignedValue();
        return isa<linalg::PoolingNhwcSumOp>(conv.getOperation()) && v.isZero();
      }
      if (auto padFloat = dyn_cast<FloatAttr>(padAttr)) {
        const APFloat &v = padFloat.getValue();
        if (max)
          return (v.isInfinity() && v.isNegative()) ||
                 v == APFloat::getLargest(v.getSemantics(), /*Negative=*/true);
        if (min)
          return (v.isInfinity() && !v.isNegative()) ||
                 v == APFloat::getLargest(v.getSemantics());
        return isa<linalg::PoolingNhwcSumOp>(conv.getOperation()) &&
               v.isPosZero();
      }
      return false;
    }
    bool quantized =
        isa<linalg::Conv2DNhwcFhwcQOp, linalg::Conv2DNhwcHwcfQOp,
            linalg::DepthwiseConv2DNhwcHwcQOp,
            linalg::DepthwiseConv2DNhwcHwcmQOp>(conv.getOperation());
    if (auto padInt = dyn_cast<IntegerAttr>(padAttr)) {
      if (!quantized)
        return padInt.getValue().isZero();
      APInt zeroPoint;
      if (!matchPattern(conv.getDpsInputs()[2], m_ConstantInt(&zeroPoint)))
        return false;
      return padInt.getValue().getSExtValue() == zeroPoint.getSExtValue();
    }
    if (auto padFloat = dyn_cast<FloatAttr>(padAttr))
      return !quantized && padFloat.getValue().isPosZero();
    return false;
  }

  /// The `tensor.pad` of `conv`'s input when one-pixel tiles of `conv` can
  /// read their window unpadded: dilation 1, only the spatial dimensions
  /// padded, with a value that adds nothing to the sum.
  static tensor::PadOp getClippablePadding(linalg::LinalgOp conv) {
    auto dilations = conv->getAttrOfType<DenseIntElementsAttr>("dilations");
    if (!dilations || llvm::any_of(dilations.getValues<int64_t>(),
                                   [](int64_t d) { return d != 1; }))
      return {};
    Value window = conv.getDpsInputs()[0];
    if (auto cast = window.getDefiningOp<tensor::CastOp>())
      window = cast.getSource();
    auto pad = window.getDefiningOp<tensor::PadOp>();
    if (!pad || pad.getSourceType().getRank() != 4)
      return {};
    SmallVector<OpFoldResult> low = pad.getMixedLowPad();
    SmallVector<OpFoldResult> high = pad.getMixedHighPad();
    for (unsigned d : {0u, 3u})
      if (!isConstantIntValue(low[d], 0) || !isConstantIntValue(high[d], 0))
        return {};
    Value padValue = pad.getConstantPaddingValue();
    if (!padValue || !isNeutralPadValue(conv, padValue))
      return {};
    return pad;
  }

  static bool hasClippablePadding(linalg::LinalgOp conv) {
    return static_cast<bool>(getClippablePadding(conv));
  }

  static void clipPaddedWindow(RewriterBase &rewriter, linalg::LinalgOp conv) {
    auto outputType =
        dyn_cast<RankedTensorType>(conv.getDpsInits()[0].getType());
    if (!outputType || outputType.isDynamicDim(1) ||
        outputType.isDynamicDim(2) || outputType.getDimSize(1) != 1 ||
        outputType.getDimSize(2) != 1)
      return;
    tensor::PadOp pad = getClippablePadding(conv);
    if (!pad)
      return;
    SmallVector<OpFoldResult> low = pad.getMixedLowPad();

    // The filter's spatial dimensions: [F, KH, KW, C] for FHWC, leading for
    // HWCF and the depthwise layouts.
    Value filter = conv.getDpsInputs()[1];
    auto filterType = cast<RankedTensorType>(filter.getType());
    rewriter.setInsertionPoint(conv);
    // A pool's window operand only gives the window's shape (its values are
    // never read). A dynamic slice of a tensor.empty would bufferize to a
    // dynamically sized alloc: slice a zero constant (read-only data)
    // instead.
    if (isPooling(conv) && filterType.hasStaticShape()) {
      Type element = filterType.getElementType();
      filter = arith::ConstantOp::create(
          rewriter, conv.getLoc(),
          DenseElementsAttr::get(filterType, rewriter.getZeroAttr(element)));
    }
    unsigned spatial = isa<linalg::Conv2DNhwcFhwcOp, linalg::Conv2DNhwcFhwcQOp>(
                           conv.getOperation())
                           ? 1
                           : 0;
    Location loc = conv.getLoc();
    Value source = pad.getSource();
    SmallVector<OpFoldResult> sourceSizes =
        tensor::getMixedSizes(rewriter, loc, source);
    SmallVector<OpFoldResult> offsets(filterType.getRank(),
                                      rewriter.getIndexAttr(0));
    SmallVector<OpFoldResult> sizes =
        tensor::getMixedSizes(rewriter, loc, filter);
    SmallVector<OpFoldResult> strides(filterType.getRank(),
                                      rewriter.getIndexAttr(1));
    offsets[spatial] = low[1];
    offsets[spatial + 1] = low[2];
    sizes[spatial] = sourceSizes[1];
    sizes[spatial + 1] = sourceSizes[2];
    Value clippedFilter = tensor::ExtractSliceOp::create(
        rewriter, loc, filter, offsets, sizes, strides);
    rewriter.modifyOpInPlace(conv, [&] {
      conv->setOperand(0, source);
      conv->setOperand(1, clippedFilter);
    });
  }

  /// Tiles `conv` by output pixel with its input's tensor.pad fused, then
  /// clips each pixel's window (see clipPaddedWindows).
  void tilePaddedConv(RewriterBase &rewriter, linalg::LinalgOp conv) {
    auto resultType = dyn_cast<RankedTensorType>(conv->getResult(0).getType());
    if (!resultType || !resultType.hasStaticShape())
      return;
    SmallVector<OpFoldResult> tileSizes(conv.getNumLoops(),
                                        rewriter.getIndexAttr(0));
    tileSizes[1] = rewriter.getIndexAttr(1);
    tileSizes[2] = rewriter.getIndexAttr(1);
    scf::SCFTilingOptions tilingOptions;
    tilingOptions.setTileSizes(tileSizes);
    scf::SCFTileAndFuseOptions options;
    options.setTilingOptions(tilingOptions);
    options.setFusionControlFn(
        [](tensor::ExtractSliceOp slice, OpResult producer,
           bool) -> std::optional<scf::SCFTileAndFuseOptions::ControlFnResult> {
          // (The untiled conv still reads the pad while it is fused.)
          if (isa<tensor::PadOp>(producer.getOwner()) &&
              std::distance(producer.use_begin(), producer.use_end()) <= 2)
            return scf::SCFTileAndFuseOptions::ControlFnResult{};
          return std::nullopt;
        });
    rewriter.setInsertionPoint(conv);
    FailureOr<scf::SCFTileAndFuseResult> result =
        scf::tileConsumerAndFuseProducersUsingSCF(
            rewriter, cast<TilingInterface>(conv.getOperation()), options);
    if (failed(result) || result->loops.empty())
      return;
    replaceByTiles(rewriter, conv, *result);
  }

  /// Finishes a tile-and-fuse of `tiled`: drops the empty-tile pad guards,
  /// clips one-pixel windows, replaces `tiled` by the loop's result and
  /// erases it and its fused producers, now dead (each had the tiled op as
  /// only user), from the last to the first.
  static void replaceByTiles(RewriterBase &rewriter, Operation *tiled,
                             const scf::SCFTileAndFuseResult &result) {
    for (LoopLikeOpInterface loop : result.loops)
      dropEmptyPadGuards(rewriter, loop);
    if (!result.loops.empty())
      clipPaddedWindows(rewriter, result.loops.front());
    rewriter.replaceAllUsesWith(
        tiled->getResult(0), result.replacements.lookup(tiled->getResult(0)));
    rewriter.eraseOp(tiled);
    SmallVector<Operation *> producers(result.fusedProducers.begin(),
                                       result.fusedProducers.end());
    bool erased = true;
    while (erased) {
      erased = false;
      for (Operation *&op : producers)
        if (op && op->use_empty()) {
          rewriter.eraseOp(op);
          op = nullptr;
          erased = true;
        }
    }
  }

  /// Tiles `consumer` along its output rows and fuses its single-use
  /// convolutions (and their accumulator initializations) into the loop.
  void tileAndFuse(RewriterBase &rewriter, linalg::GenericOp consumer) {
    if (consumer.getNumDpsInits() != 1 ||
        !consumer.getMatchingIndexingMap(consumer.getDpsInitOperand(0))
             .isIdentity() ||
        consumer.getNumLoops() < 4)
      return;
    auto resultType =
        dyn_cast<RankedTensorType>(consumer->getResult(0).getType());
    if (!resultType || !resultType.hasStaticShape())
      return;
    // Tile = tile-rows x tile-cols output pixels x tile-channels output
    // channels (default 1 x 1 x 1: the accumulator is one element, as in
    // TFLite Micro's kernels, and serenity-static-alloc keeps it in a
    // register). A single-pixel output (a fully connected layer as a 1x1
    // conv) is always tiled by output channel.
    int64_t rows = resultType.getDimSize(1), cols = resultType.getDimSize(2),
            channels = resultType.getDimSize(3);
    int64_t tr = std::min<int64_t>(tileRows, rows);
    int64_t tc = tileCols == 0 ? cols : std::min<int64_t>(tileCols, cols);
    int64_t tf = tileChannels == 0 ? channels
                                   : std::min<int64_t>(tileChannels, channels);
    // A conv computed by im2col gathers each window once for all channels
    // of a whole output row (serenity-lower-primitives): row tiles.
    for (Value input : consumer.getDpsInputs())
      if (isConvChained(input) &&
          mlir::serenity::getChosenPrimitive(chainRoot(input)) ==
              mlir::serenity::ConvPrimitive::Im2col) {
        tc = cols;
        tf = channels;
      }
    // At most tile-channels channels: the largest divisor of the count.
    while (channels % tf != 0)
      --tf;
    bool singlePixel = rows == 1 && cols == 1;
    if (singlePixel && tf == channels)
      tf = 1;
    if (rows % tr != 0 || cols % tc != 0 || channels % tf != 0) {
      mlir::emitRemark(consumer.getLoc(),
                       "serenity-fuse-requantization: not fused: tile-rows=")
          << static_cast<int64_t>(tileRows)
          << " tile-cols=" << static_cast<int64_t>(tileCols)
          << " tile-channels=" << static_cast<int64_t>(tileChannels)
          << " does not divide the " << rows << "x" << cols << "x" << channels
          << " output";
      return;
    }
    // One tile would be the whole accumulator: nothing to gain.
    if (tr == rows && tc == cols && tf == channels)
      return;

    // Row tiles pay off when the accumulator is wider than the result (i32
    // -> i8): before, the input and the accumulator, then the accumulator and
    // the result are live; after, the input, the result and one row. With
    // equal widths (f32 conv + relu) that is one row more, since the padded
    // input must now outlive the whole loop (measured in docs/TFLiteImport.md).
    SmallVector<Operation *> convs = fusableConvOperands(consumer);
    unsigned resultBits = elementBits(consumer->getResult(0));
    auto isWidening = [&](Operation *conv) {
      return resultBits != 0 && elementBits(conv->getResult(0)) > resultBits;
    };
    // A padded conv tiled by single pixels reads its window in place
    // (clipPaddedWindows): tiling then removes the padded copy of its input,
    // whatever the widths.
    bool pixelTiles = tr == 1 && tc == 1;
    auto readsClippablePadding = [&](Operation *conv) {
      return fusePadding && pixelTiles &&
             hasClippablePadding(cast<linalg::LinalgOp>(conv));
    };
    // An unpadded conv whose input is smaller than its result (a 1x1
    // expansion, f32 conv + relu): the input lives through the loop anyway,
    // and tiled, the whole result no longer exists next to the consumer's.
    auto expandsItsInput = [&](Operation *conv) {
      Value input = cast<linalg::LinalgOp>(conv).getDpsInputs()[0];
      if (!pixelTiles || input.getDefiningOp<tensor::PadOp>())
        return false;
      std::optional<int64_t> in = staticBytes(input);
      std::optional<int64_t> out = staticBytes(conv->getResult(0));
      return in && out && *in < *out;
    };
    if (!allConvs && !llvm::any_of(convs, isWidening) &&
        !llvm::any_of(convs, readsClippablePadding) &&
        !llvm::any_of(convs, expandsItsInput))
      return;

    SmallVector<OpFoldResult> tileSizes(consumer.getNumLoops(),
                                        rewriter.getIndexAttr(0));
    tileSizes[1] = rewriter.getIndexAttr(tr == rows ? 0 : tr);
    tileSizes[2] = rewriter.getIndexAttr(tc == cols ? 0 : tc);
    tileSizes[3] = rewriter.getIndexAttr(tf == channels ? 0 : tf);
    scf::SCFTilingOptions tilingOptions;
    tilingOptions.setTileSizes(tileSizes);
    scf::SCFTileAndFuseOptions options;
    options.setTilingOptions(tilingOptions);
    // Fuse only what belongs to the accumulator: the consumer's single-use
    // convolutions, convolutions accumulating into them (their init), the
    // fill/broadcast that initializes an accumulator and (fuse-padding) the
    // tensor.pad of a conv input. Never the previous layers: fusing those
    // would recompute halos.
    options.setFusionControlFn(
        [fusePadding = bool(fusePadding)](tensor::ExtractSliceOp slice,
                                          OpResult producer, bool)
            -> std::optional<scf::SCFTileAndFuseOptions::ControlFnResult> {
          Operation *def = producer.getOwner();
          // During fusion the untiled user still reads `producer` next to
          // `slice`: that one user must be its only other one.
          llvm::SmallPtrSet<Operation *, 2> otherUsers;
          for (Operation *user : producer.getUsers())
            if (user != slice.getOperation())
              otherUsers.insert(user);
          if (otherUsers.size() > 1 || !slice->hasOneUse())
            return std::nullopt;
          OpOperand &use = *slice->use_begin();
          auto user = dyn_cast<DestinationStyleOpInterface>(use.getOwner());
          if (!user)
            return std::nullopt;
          bool intoConvInit =
              isRowTileableConv(user) && user.isDpsInit(&use);
          bool intoGenericInput =
              isParallelGeneric(user) && user.isDpsInput(&use);
          if (isRowTileableConv(def) && (intoConvInit || intoGenericInput))
            return scf::SCFTileAndFuseOptions::ControlFnResult{};
          if (intoConvInit &&
              (isa<linalg::FillOp>(def) || isParallelGeneric(def)))
            return scf::SCFTileAndFuseOptions::ControlFnResult{};
          // The zero-point padding of the conv input: each tile pads just
          // the input rows its window reads, so no padded copy of the whole
          // input exists (the rows under a window are copied once per tile;
          // nothing is recomputed).
          if (fusePadding && isa<tensor::PadOp>(def) &&
              isRowTileableConv(user) && user.isDpsInput(&use))
            return scf::SCFTileAndFuseOptions::ControlFnResult{};
          return std::nullopt;
        });

    rewriter.setInsertionPoint(consumer);
    FailureOr<scf::SCFTileAndFuseResult> result =
        scf::tileConsumerAndFuseProducersUsingSCF(
            rewriter, cast<TilingInterface>(consumer.getOperation()), options);
    if (failed(result)) {
      mlir::emitRemark(consumer.getLoc(),
                       "serenity-fuse-requantization: not fused: upstream "
                       "tile-and-fuse failed");
      return;
    }
    for (Operation *conv : convs)
      if (!result->fusedProducers.contains(conv))
        mlir::emitRemark(conv->getLoc(),
                         "serenity-fuse-requantization: tiled consumer did "
                         "not fuse this convolution");

    replaceByTiles(rewriter, consumer, *result);
  }
};

} // namespace
