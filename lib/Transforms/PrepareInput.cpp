//===- PrepareInput.cpp - Check and normalize serenity-pipeline input -*- C++ -*-===//
//
// serenity-pipeline's first step: every function body must fit the memory
// model (static shapes, one block), checked here with our own located
// diagnostics before any upstream conversion sees the IR (upstream passes
// assert or crash on some of it, e.g. unranked conv operands). A value
// returned more than once gets a copy per extra result, so that
// bufferization gives every result its own buffer (upstream
// buffer-results-to-out-params crashes on one buffer returned twice).
//
//===----------------------------------------------------------------------===//

#include "Serenity/Analysis/MemoryModel.h"
#include "Serenity/Transforms/Passes.h"

#include "TensorCopy.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir {
namespace serenity {
#define GEN_PASS_DEF_SERENITYPREPAREINPUTPASS
#include "Serenity/Transforms/Passes.h.inc"
} // namespace serenity
} // namespace mlir

using namespace mlir;

namespace {

struct SerenityPrepareInputPass
    : public mlir::serenity::impl::SerenityPrepareInputPassBase<
          SerenityPrepareInputPass> {
  void runOnOperation() override {
    func::FuncOp function = getOperation();
    if (function.isExternal())
      return;
    if (failed(mlir::serenity::FunctionMemoryModel::build(function)))
      return signalPassFailure();

    auto returnOp =
        dyn_cast<func::ReturnOp>(function.getBody().front().getTerminator());
    if (!returnOp)
      return;
    OpBuilder builder(returnOp);
    DenseSet<Value> returned;
    for (OpOperand &operand : returnOp->getOpOperands())
      if (!returned.insert(operand.get()).second)
        operand.set(mlir::serenity::copyToNewTensor(
            builder, returnOp.getLoc(), operand.get(), /*ownBuffer=*/true));
  }
};

} // namespace
