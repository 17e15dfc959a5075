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
#include "Serenity/Graph/Passes.h"

#include "Serenity/Support/TensorCopy.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir {
namespace serenity {
#define GEN_PASS_DEF_SERENITYPREPAREINPUTPASS
#include "Serenity/Graph/Passes.h.inc"
} // namespace serenity
} // namespace mlir

using namespace mlir;

namespace {

struct SerenityPrepareInputPass
    : public mlir::serenity::impl::SerenityPrepareInputPassBase<
          SerenityPrepareInputPass> {
  using SerenityPrepareInputPassBase::SerenityPrepareInputPassBase;

  // A module pass, so that capturing the model's diagnostics (a handler on
  // the context) cannot catch another thread's.
  void runOnOperation() override {
    // A name in functions= that matches nothing is a typo, not a request to
    // optimize nothing.
    for (const std::string &name : functions) {
      auto function = getOperation().lookupSymbol<func::FuncOp>(name);
      if (!function || function.isExternal()) {
        std::string known;
        for (func::FuncOp f : getOperation().getOps<func::FuncOp>())
          if (!f.isExternal())
            known += (known.empty() ? "@" : ", @") + f.getSymName().str();
        getOperation().emitError()
            << "serenity-pipeline: functions= names @" << name
            << ", which is not a function defined in this module (defined: "
            << (known.empty() ? std::string("none") : known) << ")";
        return signalPassFailure();
      }
    }
    for (func::FuncOp function : getOperation().getOps<func::FuncOp>())
      if (failed(prepare(function)))
        return signalPassFailure();
  }

private:
  LogicalResult prepare(func::FuncOp function) {
    if (function.isExternal())
      return success();
    if (!functions.empty() &&
        !llvm::is_contained(functions, function.getSymName().str())) {
      // Left out by the user, but the upstream TOSA lowering still must be
      // able to take it.
      if (Operation *tosa = findTosaOp(function, /*unshapedOnly=*/true)) {
        tosa->emitError()
            << "serenity-pipeline: this TOSA op has a dynamic or unranked "
               "shape, which the upstream TOSA lowering cannot take (@"
            << function.getSymName() << " is not selected by functions=)";
        return failure();
      }
      return leaveUnoptimized(function, "not selected by functions=");
    }
    // The model's diagnostic: emitted as is when strict, else kept for the
    // remark.
    std::string reason;
    std::optional<Location> where;
    bool fits;
    {
      std::optional<ScopedDiagnosticHandler> capture;
      if (!strict)
        capture.emplace(&getContext(), [&](Diagnostic &diagnostic) {
          if (reason.empty() &&
              diagnostic.getSeverity() == DiagnosticSeverity::Error) {
            reason = diagnostic.str();
            where = diagnostic.getLocation();
          }
          return success();
        });
      fits = succeeded(mlir::serenity::FunctionMemoryModel::build(function));
    }
    if (!fits) {
      if (strict)
        return failure();
      // A network (TOSA ops) must fit; other functions (drivers) are left
      // to the upstream lowering.
      if (Operation *tosa = findTosaOp(function, /*unshapedOnly=*/false)) {
        InFlightDiagnostic diagnostic =
            emitError(where.value_or(function.getLoc()))
            << reason << " (@" << function.getSymName()
            << " has TOSA ops, so serenity-pipeline needs it inside the "
               "memory model; only functions without TOSA ops are left to "
               "the upstream lowering)";
        diagnostic.attachNote(tosa->getLoc())
            << "a TOSA op of @" << function.getSymName();
        return failure();
      }
      return leaveUnoptimized(function, reason);
    }

    // Ops whose results nothing reads (an importer's reshape that a later
    // one superseded) would count as readers of their operands: a tile
    // region's inner value read by one must exist whole. Reverse order
    // erases a dead chain in one pass.
    for (Operation &op : llvm::make_early_inc_range(
             llvm::reverse(function.getBody().front())))
      if (isOpTriviallyDead(&op))
        op.erase();

    auto returnOp =
        dyn_cast<func::ReturnOp>(function.getBody().front().getTerminator());
    if (!returnOp)
      return success();
    OpBuilder builder(returnOp);
    DenseSet<Value> returned;
    for (OpOperand &operand : returnOp->getOpOperands())
      if (!returned.insert(operand.get()).second)
        operand.set(mlir::serenity::copyToNewTensor(
            builder, returnOp.getLoc(), operand.get(), /*ownBuffer=*/true));
    return success();
  }

  LogicalResult leaveUnoptimized(func::FuncOp function, StringRef reason) {
    function->setAttr(mlir::serenity::kUnoptimizedAttrName,
                      StringAttr::get(&getContext(), reason));
    function.emitRemark() << "serenity-pipeline: @" << function.getSymName()
                          << " is not optimized (" << reason
                          << "); it gets the ordinary upstream lowering";
    return success();
  }

  /// A TOSA op of `function` (with `unshapedOnly`, one with an operand or
  /// result that is not a statically shaped ranked tensor), or null.
  static Operation *findTosaOp(func::FuncOp function, bool unshapedOnly) {
    Operation *found = nullptr;
    function.walk([&](Operation *op) {
      if (op->getDialect() == nullptr ||
          op->getDialect()->getNamespace() != "tosa")
        return WalkResult::advance();
      auto unshaped = [](Type type) {
        auto shaped = dyn_cast<ShapedType>(type);
        return shaped && !shaped.hasStaticShape();
      };
      if (!unshapedOnly || llvm::any_of(op->getOperandTypes(), unshaped) ||
          llvm::any_of(op->getResultTypes(), unshaped)) {
        found = op;
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    return found;
  }
};

} // namespace
