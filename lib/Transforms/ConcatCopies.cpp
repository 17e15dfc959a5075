//===- ConcatCopies.cpp - Copies for the concats kept out of place -*- C++
//-*-===//
//
// With concat=auto serenity-schedule marks the concats whose in-place
// lowering lowers the peak; the pipeline then runs eliminate-empty-tensors,
// which would make every concat operand's producer write into its slice.
// This pass keeps the unmarked concats as copies: each operand is copied
// into a fresh tensor first, so the elimination moves the copy (not the
// producer) into the slice, which is exactly the copy the memory model
// counts.
//
//===----------------------------------------------------------------------===//

#include "Serenity/Analysis/MemoryModel.h"
#include "Serenity/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/Builders.h"

namespace mlir {
namespace serenity {
#define GEN_PASS_DEF_SERENITYCONCATCOPIESPASS
#include "Serenity/Transforms/Passes.h.inc"
} // namespace serenity
} // namespace mlir

using namespace mlir;

namespace {

struct SerenityConcatCopiesPass
    : public mlir::serenity::impl::SerenityConcatCopiesPassBase<
          SerenityConcatCopiesPass> {
  using Base::Base;

  void runOnOperation() override {
    OpBuilder builder(&getContext());
    SmallVector<tosa::ConcatOp> copies;
    getOperation().walk([&](tosa::ConcatOp concat) {
      bool inPlace =
          allInPlace || concat->hasAttr(mlir::serenity::kConcatInPlaceAttr);
      if (!inPlace) {
        copies.push_back(concat);
        return;
      }
      builder.setInsertionPoint(concat);
      for (OpOperand &operand : concat->getOpOperands()) {
        // What the memory model counts in place stays; everything else is
        // copied (eliminate-empty-tensors would otherwise also move e.g. a
        // producer whose result has other users into the slice, making the
        // concat's buffer live from that earlier producer on).
        if (inPlace && mlir::serenity::isInPlaceConcatOperand(
                           operand.get(), *concat->getBlock()))
          continue;
        auto type = dyn_cast<RankedTensorType>(operand.get().getType());
        if (!type || !type.hasStaticShape())
          continue;
        Value empty = tensor::EmptyOp::create(
            builder, concat.getLoc(), type.getShape(), type.getElementType());
        auto copy = linalg::CopyOp::create(builder, concat.getLoc(),
                                           operand.get(), empty);
        operand.set(copy->getResult(0));
      }
    });
    // A concat that copies is a tensor.concat: bufferized as one copy per
    // operand into a new buffer, like the insert_slice chain tosa-to-tensor
    // would make, but without the chain's analysis cost (one-shot analysis
    // of a k-operand insert_slice chain grows like k^4: 400 operands took
    // 440 s).
    for (tosa::ConcatOp concat : copies) {
      builder.setInsertionPoint(concat);
      auto replacement = tensor::ConcatOp::create(
          builder, concat.getLoc(), concat.getType(),
          static_cast<int64_t>(concat.getAxis()), concat.getInput1());
      concat.replaceAllUsesWith(replacement.getResult());
      concat.erase();
    }
  }
};

} // namespace
