//===- ElideOutputCopies.cpp - results computed in their out-params -*- C++
//-*-===//
//
// See SerenityElideOutputCopiesPass in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "Serenity/Lowering/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir {
namespace serenity {
#define GEN_PASS_DEF_SERENITYELIDEOUTPUTCOPIESPASS
#include "Serenity/Lowering/Passes.h.inc"
} // namespace serenity
} // namespace mlir

using namespace mlir;

namespace {

/// True when `value` has no use after `op` in `op`'s block (uses nested in
/// later ops count as after).
bool unusedAfter(Value value, Operation *op) {
  Block *block = op->getBlock();
  for (Operation *user : value.getUsers()) {
    Operation *ancestor = block->findAncestorOpInBlock(*user);
    if (!ancestor || (ancestor != op && op->isBeforeInBlock(ancestor)))
      return false;
  }
  return true;
}

/// Replaces the buffer copied into an out-parameter by a view of it; returns
/// whether `copy` was elided.
bool elide(RewriterBase &rewriter, memref::CopyOp copy) {
  auto out = dyn_cast<BlockArgument>(copy.getTarget());
  if (!out || !isa<func::FuncOp>(out.getOwner()->getParentOp()) ||
      copy->getBlock() != out.getOwner())
    return false;
  // The out-parameter is only written by this copy.
  if (!out.hasOneUse())
    return false;
  // Source: an alloc of this block seen through single-use reshapes.
  SmallVector<Operation *> reshapes;
  Value source = copy.getSource();
  while (Operation *def = source.getDefiningOp()) {
    if (!isa<memref::CollapseShapeOp, memref::ExpandShapeOp>(def) ||
        !source.hasOneUse())
      break;
    reshapes.push_back(def);
    source = def->getOperand(0);
  }
  auto alloc = source.getDefiningOp<memref::AllocOp>();
  if (!alloc || alloc->getBlock() != copy->getBlock() ||
      !alloc.getType().getLayout().isIdentity() ||
      !alloc.getType().hasStaticShape() ||
      !cast<MemRefType>(out.getType()).getLayout().isIdentity())
    return false;
  if (!unusedAfter(alloc.getResult(), copy))
    return false;
  for (Operation *user : alloc->getUsers())
    if (isa<memref::DeallocOp>(user))
      return false;

  // The out-parameter seen as the alloc: the inverse reshapes, outermost
  // (nearest the copy) first.
  rewriter.setInsertionPoint(alloc);
  Value view = out;
  for (Operation *reshape : reshapes) {
    auto sourceType = cast<MemRefType>(reshape->getOperand(0).getType());
    if (auto collapse = dyn_cast<memref::CollapseShapeOp>(reshape))
      view = memref::ExpandShapeOp::create(rewriter, reshape->getLoc(),
                                           sourceType.getShape(), view,
                                           collapse.getReassociationIndices());
    else
      view = memref::CollapseShapeOp::create(
          rewriter, reshape->getLoc(), view,
          cast<memref::ExpandShapeOp>(reshape).getReassociationIndices());
    if (view.getType() != sourceType)
      return false; // (left over ops are dead and folded by canonicalize)
  }
  rewriter.eraseOp(copy);
  for (Operation *reshape : reshapes)
    rewriter.eraseOp(reshape);
  rewriter.replaceOp(alloc, view);
  return true;
}

struct SerenityElideOutputCopiesPass
    : public mlir::serenity::impl::SerenityElideOutputCopiesPassBase<
          SerenityElideOutputCopiesPass> {
  void runOnOperation() override {
    // serenity-pipeline leaves this function to the upstream lowering.
    if (mlir::serenity::isUnoptimized(getOperation()))
      return;
    SmallVector<memref::CopyOp> copies;
    getOperation().walk([&](memref::CopyOp copy) { copies.push_back(copy); });
    IRRewriter rewriter(&getContext());
    for (memref::CopyOp copy : copies)
      elide(rewriter, copy);
  }
};

} // namespace
