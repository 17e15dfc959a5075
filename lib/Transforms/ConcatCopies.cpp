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
    getOperation().walk([&](tosa::ConcatOp concat) {
      bool inPlace =
          allInPlace || concat->hasAttr(mlir::serenity::kConcatInPlaceAttr);
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
  }
};

} // namespace
