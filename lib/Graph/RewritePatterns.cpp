//===- RewritePatterns.cpp - Identity rewrites around concats ---*- C++ -*-===//
//
// The patterns are rooted at the concat, not at its users: a concat is only
// worth partitioning when it disappears, which requires rewriting every user
// at once. A concat with a user no pattern can take is kept.
//
//===----------------------------------------------------------------------===//

#include "Serenity/Graph/Rewrite.h"

#include "Serenity/Tiling/ConstantSlices.h"

#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlir::serenity;

namespace {

/// NHWC: channels are the last axis of the 4-D activations.
constexpr unsigned kChannelAxis = 3;

/// True for a concat of static 4-D tensors along the channel axis.
bool isStaticChannelConcat(tosa::ConcatOp concat) {
  auto type = dyn_cast<RankedTensorType>(concat.getType());
  return type && type.hasStaticShape() && type.getRank() == 4 &&
         concat.getAxis() == kChannelAxis &&
         llvm::all_of(concat.getInput1().getTypes(), [](Type t) {
           auto ranked = dyn_cast<RankedTensorType>(t);
           return ranked && ranked.hasStaticShape();
         });
}

/// Size of `value`'s static dimension `axis`.
int64_t dimSize(Value value, unsigned axis) {
  return cast<RankedTensorType>(value.getType()).getDimSize(axis);
}

/// Clones `op` at the insertion point without the annotations of other
/// passes (serenity.lifetime...): they describe the old graph.
Operation *cloneWithoutAnnotations(PatternRewriter &rewriter, Operation *op) {
  Operation *clone = rewriter.clone(*op);
  clone->setDiscardableAttrs(ArrayRef<NamedAttribute>{});
  return clone;
}

/// Erases the constant defining `value` once nothing reads it: the sliced
/// copies replace it, and weights are the largest constants of a network.
void eraseIfDeadConstant(PatternRewriter &rewriter, Value value) {
  Operation *def = value.getDefiningOp();
  if (def && def->use_empty() && isa<tosa::ConstOp>(def))
    rewriter.eraseOp(def);
}

/// Every user of `concat` must read it only as its operand 0.
LogicalResult checkUsersReadAsInput(tosa::ConcatOp concat,
                                    PatternRewriter &rewriter) {
  if (concat->use_empty())
    return rewriter.notifyMatchFailure(concat, "concat has no users");
  for (OpOperand &use : concat->getUses())
    if (use.getOperandNumber() != 0)
      return rewriter.notifyMatchFailure(concat, [&](Diagnostic &diag) {
        diag << "user '" << use.getOwner()->getName()
             << "' reads the concat as operand #" << use.getOperandNumber()
             << ", not as its input";
      });
  return success();
}

/// The common precondition of both partitionings: a static channel concat
/// whose users all read it as their input.
LogicalResult checkPartitionableConcat(tosa::ConcatOp concat,
                                       PatternRewriter &rewriter) {
  if (!isStaticChannelConcat(concat))
    return rewriter.notifyMatchFailure(
        concat, "not a concat of static 4-D tensors on the channel axis (3)");
  return checkUsersReadAsInput(concat, rewriter);
}

/// The users of `concat`, each once, in use-list order.
template <typename OpTy>
SmallVector<OpTy> usersOfType(tosa::ConcatOp concat) {
  SmallVector<OpTy> users;
  for (Operation *user : concat->getUsers())
    if (auto typed = dyn_cast<OpTy>(user))
      if (!llvm::is_contained(users, typed))
        users.push_back(typed);
  return users;
}

//===----------------------------------------------------------------------===//
// Channel-wise partitioning
//===----------------------------------------------------------------------===//

/// concat(x_1..x_n) -> conv2d(W, b)  =>  sum_i conv2d(x_i, W[..., IC_i], b_i)
/// with b_1 = b and b_i = 0 otherwise.
struct ConcatIntoConv2DIsSumOfPartialConvs
    : public OpRewritePattern<tosa::ConcatOp> {
  ConcatIntoConv2DIsSumOfPartialConvs(MLIRContext *context)
      : OpRewritePattern(context) {
    setDebugName("channel-partition");
  }

  LogicalResult matchAndRewrite(tosa::ConcatOp concat,
                                PatternRewriter &rewriter) const override {
    if (failed(checkPartitionableConcat(concat, rewriter)))
      return failure();
    SmallVector<tosa::Conv2DOp> convs = usersOfType<tosa::Conv2DOp>(concat);
    if (convs.empty())
      return rewriter.notifyMatchFailure(concat, "no user is a tosa.conv2d");
    if (!llvm::all_of(concat->getUsers(), [](Operation *user) {
          return isa<tosa::Conv2DOp>(user);
        }))
      return rewriter.notifyMatchFailure(
          concat, "not every user is a tosa.conv2d; partitioning only some "
                  "would keep the concat alive");

    SmallVector<DenseElementsAttr> weights;
    for (tosa::Conv2DOp conv : convs) {
      DenseElementsAttr weight;
      if (failed(checkConv(conv, weight, rewriter)))
        return failure();
      weights.push_back(weight);
    }
    for (auto [conv, weight] : llvm::zip_equal(convs, weights))
      partition(concat, conv, weight, rewriter);
    rewriter.eraseOp(concat);
    return success();
  }

private:
  /// Conditions under which the sum of partial convs equals the conv: up to
  /// float summation order, or exactly for i32 accumulators.
  static LogicalResult checkConv(tosa::Conv2DOp conv, DenseElementsAttr &weight,
                                 PatternRewriter &rewriter) {
    auto resultType = dyn_cast<RankedTensorType>(conv.getType());
    if (!resultType || !resultType.hasStaticShape())
      return rewriter.notifyMatchFailure(conv, "conv2d result is not static");
    Type element = resultType.getElementType();
    Type inputElement = getElementTypeOrSelf(conv.getInput().getType());
    if (isa<FloatType>(element) && isa<FloatType>(inputElement)) {
      if (conv.getAccType() != element)
        return rewriter.notifyMatchFailure(conv, [&](Diagnostic &diag) {
          diag << "acc_type " << conv.getAccType() << " is wider than result "
               << element
               << ": rounding each partial sum would change results";
        });
    } else if (isa<IntegerType>(inputElement) && element.isInteger(32) &&
               conv.getAccType().isInteger(32)) {
      // Integer convs accumulate in i32 two's-complement arithmetic, which is
      // associative: the partial accumulators (each subtracting the same
      // zero points) add up to the full one bit-exactly.
    } else {
      return rewriter.notifyMatchFailure(conv, [&](Diagnostic &diag) {
        diag << "channel-wise partitioning of a conv2d from " << inputElement
             << " to " << element
             << " is not supported: only float convs accumulating in their "
                "result type and integer convs with i32 results add up "
                "exactly with tosa.add";
      });
    }
    if (!matchPattern(conv.getWeight(), m_Constant(&weight)))
      return rewriter.notifyMatchFailure(
          conv, "conv2d weights are not a dense constant");
    return success();
  }

  static void partition(tosa::ConcatOp concat, tosa::Conv2DOp conv,
                        DenseElementsAttr weight, PatternRewriter &rewriter) {
    rewriter.setInsertionPoint(conv);
    Location loc = conv.getLoc();
    auto biasType = cast<RankedTensorType>(conv.getBias().getType());
    Value zeroBias;
    Value sum;
    int64_t offset = 0;
    for (auto [index, input] : llvm::enumerate(concat.getInput1())) {
      int64_t channels = dimSize(input, kChannelAxis);
      // Weights are [OC, KH, KW, IC]: this input's channels are an IC range.
      Value slice = createConst(
          rewriter, loc, sliceAlong(weight, kChannelAxis, offset, channels));
      offset += channels;
      if (index > 0 && !zeroBias)
        zeroBias = createConst(
            rewriter, loc,
            DenseElementsAttr::get(
                biasType, rewriter.getZeroAttr(biasType.getElementType())));
      Operation *partial = cloneWithoutAnnotations(rewriter, conv);
      partial->setOperand(0, input);
      partial->setOperand(1, slice);
      partial->setOperand(2, index == 0 ? conv.getBias() : zeroBias);
      Value value = partial->getResult(0);
      sum = sum ? tosa::AddOp::create(rewriter, loc, conv.getType(), sum, value)
                      .getResult()
                : value;
    }
    Value oldWeight = conv.getWeight();
    rewriter.replaceOp(conv, sum);
    eraseIfDeadConstant(rewriter, oldWeight);
  }
};

//===----------------------------------------------------------------------===//
// Kernel-wise partitioning
//===----------------------------------------------------------------------===//

/// concat(x_1..x_n) -> depthwise_conv2d(W, b)
///   =>  concat_i depthwise_conv2d(x_i, W[:, :, C_i, :], b[C_i * M])
struct ConcatIntoDepthwiseIsConcatOfDepthwise
    : public OpRewritePattern<tosa::ConcatOp> {
  ConcatIntoDepthwiseIsConcatOfDepthwise(MLIRContext *context)
      : OpRewritePattern(context) {
    setDebugName("kernel-partition");
  }

  LogicalResult matchAndRewrite(tosa::ConcatOp concat,
                                PatternRewriter &rewriter) const override {
    if (failed(checkPartitionableConcat(concat, rewriter)))
      return failure();
    SmallVector<tosa::DepthwiseConv2DOp> convs =
        usersOfType<tosa::DepthwiseConv2DOp>(concat);
    if (convs.empty())
      return rewriter.notifyMatchFailure(concat,
                                         "no user is a tosa.depthwise_conv2d");
    if (!llvm::all_of(concat->getUsers(), [](Operation *user) {
          return isa<tosa::DepthwiseConv2DOp>(user);
        }))
      return rewriter.notifyMatchFailure(
          concat, "not every user is a tosa.depthwise_conv2d; partitioning "
                  "only some would keep the concat alive");

    struct Constants {
      DenseElementsAttr weight;
      DenseElementsAttr bias; // Null when the bias is broadcast (size 1).
    };
    SmallVector<Constants> constants;
    for (tosa::DepthwiseConv2DOp conv : convs) {
      Constants c;
      auto resultType = dyn_cast<RankedTensorType>(conv.getType());
      if (!resultType || !resultType.hasStaticShape())
        return rewriter.notifyMatchFailure(conv,
                                           "depthwise result is not static");
      if (!matchPattern(conv.getWeight(), m_Constant(&c.weight)))
        return rewriter.notifyMatchFailure(
            conv, "depthwise weights are not a dense constant");
      if (!sliceAlong(c.weight, 2, 0, 1))
        return rewriter.notifyMatchFailure(
            conv, "cannot slice weights of this element type");
      auto biasType = cast<RankedTensorType>(conv.getBias().getType());
      if (biasType.getDimSize(0) != 1) {
        if (!matchPattern(conv.getBias(), m_Constant(&c.bias)))
          return rewriter.notifyMatchFailure(
              conv, "per-channel depthwise bias is not a dense constant");
        if (!sliceAlong(c.bias, 0, 0, 1))
          return rewriter.notifyMatchFailure(
              conv, "cannot slice bias of this element type");
      }
      constants.push_back(c);
    }

    for (auto [conv, c] : llvm::zip_equal(convs, constants)) {
      rewriter.setInsertionPoint(conv);
      Location loc = conv.getLoc();
      // Weights are [KH, KW, C, M]; output channel c * M + m.
      int64_t multiplier = c.weight.getType().getShape()[3];
      SmallVector<Value> parts;
      int64_t offset = 0;
      for (Value input : concat.getInput1()) {
        int64_t channels = dimSize(input, kChannelAxis);
        Value weight = createConst(rewriter, loc,
                                   sliceAlong(c.weight, 2, offset, channels));
        Value bias = c.bias ? createConst(rewriter, loc,
                                          sliceAlong(c.bias, 0,
                                                     offset * multiplier,
                                                     channels * multiplier))
                            : conv.getBias();
        Operation *part = cloneWithoutAnnotations(rewriter, conv);
        part->setOperand(0, input);
        part->setOperand(1, weight);
        part->setOperand(2, bias);
        part->getResult(0).setType(
            withDim(conv.getType(), kChannelAxis, channels * multiplier));
        parts.push_back(part->getResult(0));
        offset += channels;
      }
      Value oldWeight = conv.getWeight(), oldBias = conv.getBias();
      rewriter.replaceOpWithNewOp<tosa::ConcatOp>(
          conv, conv.getType(), parts,
          rewriter.getI32IntegerAttr(kChannelAxis));
      eraseIfDeadConstant(rewriter, oldWeight);
      eraseIfDeadConstant(rewriter, oldBias);
    }
    rewriter.eraseOp(concat);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Pushing channel-independent ops through a concat
//===----------------------------------------------------------------------===//

/// Elementwise unary ops: each output element depends only on the input
/// element at the same position, so they commute with any concat.
bool isElementwiseUnary(Operation *op) {
  return isa<tosa::ClampOp, tosa::SigmoidOp, tosa::TanhOp, tosa::ErfOp,
             tosa::ExpOp, tosa::LogOp, tosa::AbsOp, tosa::NegateOp,
             tosa::ReciprocalOp, tosa::RsqrtOp, tosa::FloorOp, tosa::CeilOp,
             tosa::CosOp, tosa::SinOp, tosa::CastOp>(op);
}

/// Pooling windows never mix channels, so they commute with a channel concat.
bool isPerChannelPooling(Operation *op) {
  return isa<tosa::MaxPool2dOp, tosa::AvgPool2dOp>(op);
}

/// op(concat(x_1..x_n))  =>  concat(op(x_1), ..., op(x_n)) for every user op.
struct PushChannelIndependentOpsThroughConcat
    : public OpRewritePattern<tosa::ConcatOp> {
  PushChannelIndependentOpsThroughConcat(MLIRContext *context)
      : OpRewritePattern(context) {
    setDebugName("push-through-concat");
  }

  LogicalResult matchAndRewrite(tosa::ConcatOp concat,
                                PatternRewriter &rewriter) const override {
    if (failed(checkUsersReadAsInput(concat, rewriter)))
      return failure();
    auto isStatic = [](Type type) {
      auto ranked = dyn_cast<RankedTensorType>(type);
      return ranked && ranked.hasStaticShape();
    };
    if (!isStatic(concat.getType()) ||
        !llvm::all_of(concat.getInput1().getTypes(), isStatic))
      return rewriter.notifyMatchFailure(concat,
                                         "concat operands are not all static");
    unsigned axis = concat.getAxis();
    bool channelConcat = isStaticChannelConcat(concat);
    SmallVector<Operation *> users;
    for (Operation *user : concat->getUsers()) {
      if (llvm::is_contained(users, user))
        continue;
      if (isPerChannelPooling(user) && !channelConcat)
        return rewriter.notifyMatchFailure(concat, [&](Diagnostic &diag) {
          diag << "user '" << user->getName()
               << "' is a pooling and the concat is not on the channel axis";
        });
      if (!isElementwiseUnary(user) && !isPerChannelPooling(user))
        return rewriter.notifyMatchFailure(concat, [&](Diagnostic &diag) {
          diag << "user '" << user->getName()
               << "' is not a channel-independent op";
        });
      auto resultType =
          dyn_cast<RankedTensorType>(user->getResult(0).getType());
      if (!resultType || !resultType.hasStaticShape())
        return rewriter.notifyMatchFailure(user, "result is not static");
      users.push_back(user);
    }

    for (Operation *user : users) {
      rewriter.setInsertionPoint(user);
      SmallVector<Value> parts;
      for (Value input : concat.getInput1()) {
        Operation *part = cloneWithoutAnnotations(rewriter, user);
        part->setOperand(0, input);
        part->getResult(0).setType(
            withDim(user->getResult(0).getType(), axis, dimSize(input, axis)));
        parts.push_back(part->getResult(0));
      }
      rewriter.replaceOpWithNewOp<tosa::ConcatOp>(
          user, user->getResult(0).getType(), parts, concat.getAxisAttr());
    }
    rewriter.eraseOp(concat);
    return success();
  }
};

} // namespace

bool mlir::serenity::isPartitionableUser(Operation *op) {
  return isa<tosa::Conv2DOp, tosa::DepthwiseConv2DOp>(op) ||
         isElementwiseUnary(op) || isPerChannelPooling(op);
}

void mlir::serenity::populateSerenityChannelPartitionPatterns(
    RewritePatternSet &patterns) {
  patterns.add<ConcatIntoConv2DIsSumOfPartialConvs>(patterns.getContext());
}

void mlir::serenity::populateSerenityKernelPartitionPatterns(
    RewritePatternSet &patterns) {
  patterns.add<ConcatIntoDepthwiseIsConcatOfDepthwise>(patterns.getContext());
}

void mlir::serenity::populateSerenityConcatPushPatterns(
    RewritePatternSet &patterns) {
  patterns.add<PushChannelIndependentOpsThroughConcat>(patterns.getContext());
}

void mlir::serenity::populateSerenityRewritePatterns(
    RewritePatternSet &patterns) {
  populateSerenityChannelPartitionPatterns(patterns);
  populateSerenityKernelPartitionPatterns(patterns);
  populateSerenityConcatPushPatterns(patterns);
}
