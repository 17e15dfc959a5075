//===- AccumulatePartialSums.cpp - Convs accumulate into sums --*- C++ -*-===//
//
// Channel-wise partitioning turns one conv into partial convs summed with
// adds. Computed separately, each add needs the running sum, the new partial
// and the result live at once; accumulating the conv into the running sum
// needs only the sum. This is the lowering half of the memory model's
// `accumulateInPlace` option.
//
//===----------------------------------------------------------------------===//

#include "Serenity/Lowering/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir {
namespace serenity {
#define GEN_PASS_DEF_SERENITYACCUMULATEPARTIALSUMSPASS
#include "Serenity/Lowering/Passes.h.inc"
} // namespace serenity
} // namespace mlir

using namespace mlir;

namespace {

/// True for a splat constant zero (float or integer).
bool isZeroSplat(Value value) {
  DenseElementsAttr attr;
  if (!matchPattern(value, m_Constant(&attr)) || !attr.isSplat())
    return false;
  if (isa<FloatType>(attr.getElementType()))
    return attr.getSplatValue<APFloat>().isZero();
  if (isa<IntegerType>(attr.getElementType()))
    return attr.getSplatValue<APInt>().isZero();
  return false;
}

/// True when `init` is all zeros: a `linalg.fill` of zero, or the bias
/// broadcast of tosa-to-linalg (a generic yielding its only input) of a zero
/// constant.
bool isZeroInit(Value init) {
  if (auto fill = init.getDefiningOp<linalg::FillOp>())
    return matchPattern(fill.getInputs()[0], m_AnyZeroFloat()) ||
           matchPattern(fill.getInputs()[0], m_Zero());
  auto broadcast = init.getDefiningOp<linalg::GenericOp>();
  if (!broadcast || broadcast.getNumDpsInputs() != 1 ||
      broadcast.getNumDpsInits() != 1)
    return false;
  Block &body = broadcast.getRegion().front();
  auto yield = dyn_cast<linalg::YieldOp>(body.getTerminator());
  return &body.front() == yield.getOperation() &&
         yield.getValues().size() == 1 &&
         yield.getValues()[0] == body.getArgument(0) &&
         isZeroSplat(broadcast.getDpsInputs()[0]);
}

/// The two operands of an elementwise add generic, or failure.
FailureOr<std::pair<Value, Value>> matchElementwiseAdd(linalg::GenericOp op) {
  if (op.getNumDpsInputs() != 2 || op.getNumDpsInits() != 1 ||
      op.getNumLoops() != op.getNumParallelLoops() ||
      !llvm::all_of(op.getIndexingMapsArray(),
                    [](AffineMap map) { return map.isIdentity(); }))
    return failure();
  Block &body = op.getRegion().front();
  if (body.getOperations().size() != 2)
    return failure();
  Operation *add = &body.front();
  if (!isa<arith::AddFOp, arith::AddIOp>(add))
    return failure();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  bool argsInOrder = add->getOperand(0) == body.getArgument(0) &&
                     add->getOperand(1) == body.getArgument(1);
  bool argsSwapped = add->getOperand(0) == body.getArgument(1) &&
                     add->getOperand(1) == body.getArgument(0);
  if ((!argsInOrder && !argsSwapped) || yield.getValues().size() != 1 ||
      yield.getValues()[0] != add->getResult(0))
    return failure();
  Type type = op->getResult(0).getType();
  if (op.getDpsInputs()[0].getType() != type ||
      op.getDpsInputs()[1].getType() != type)
    return failure();
  return std::pair(op.getDpsInputs()[0], op.getDpsInputs()[1]);
}

/// add(acc, conv(x, w) outs(zeros))  =>  conv(x, w) outs(acc)
struct AddOfZeroInitConvIsAccumulation
    : public OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;

  LogicalResult matchAndRewrite(linalg::GenericOp add,
                                PatternRewriter &rewriter) const override {
    FailureOr<std::pair<Value, Value>> operands = matchElementwiseAdd(add);
    if (failed(operands))
      return rewriter.notifyMatchFailure(add, "not an elementwise add");
    for (auto [partial, acc] :
         {*operands, std::pair(operands->second, operands->first)}) {
      auto conv = partial.getDefiningOp<linalg::LinalgOp>();
      if (!conv || !isa<linalg::ConvolutionOpInterface>(conv.getOperation()) ||
          conv.getNumDpsInits() != 1 || !partial.hasOneUse() ||
          !isZeroInit(conv.getDpsInits()[0]))
        continue;
      Operation *accDef = acc.getDefiningOp();
      if (!accDef || accDef->getBlock() != conv->getBlock() ||
          !accDef->isBeforeInBlock(conv) || !acc.hasOneUse() || acc == partial)
        continue;
      rewriter.modifyOpInPlace(conv, [&] {
        conv.getDpsInitsMutable()[0].assign(acc);
      });
      rewriter.replaceOp(add, partial);
      return success();
    }
    return rewriter.notifyMatchFailure(
        add, "no operand is a zero-init conv whose other operand can be its "
             "accumulator");
  }
};

struct SerenityAccumulatePartialSumsPass
    : public mlir::serenity::impl::SerenityAccumulatePartialSumsPassBase<
          SerenityAccumulatePartialSumsPass> {
  void runOnOperation() override {
    // serenity-pipeline leaves this function to the upstream lowering.
    if (mlir::serenity::isUnoptimized(getOperation()))
      return;
    RewritePatternSet patterns(&getContext());
    patterns.add<AddOfZeroInitConvIsAccumulation>(&getContext());
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      return signalPassFailure();
  }
};

} // namespace
