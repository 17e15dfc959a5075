//===- AnnotateLifetimes.cpp - Record sizes and lifetimes ------*- C++ -*-===//

#include "Serenity/Analysis/MemoryModel.h"
#include "Serenity/Dialect/Serenity/IR/SerenityAttrs.h"
#include "Serenity/Graph/Passes.h"

#include "mlir/IR/Builders.h"

namespace mlir {
namespace serenity {
#define GEN_PASS_DEF_SERENITYANNOTATELIFETIMESPASS
#include "Serenity/Graph/Passes.h.inc"
} // namespace serenity
} // namespace mlir

using namespace mlir;
using namespace mlir::serenity;

namespace {

/// Last step using `value` directly (not through aliases): the terminator
/// counts as step `numSteps`; an unused value ends where it is defined.
int64_t lastDirectUse(const FunctionMemoryModel &model, Value value,
                      int64_t defStep, int64_t numSteps) {
  Block *block = value.getParentBlock();
  int64_t last = defStep;
  for (Operation *user : value.getUsers()) {
    Operation *top = block->findAncestorOpInBlock(*user);
    if (!top)
      continue;
    int step = model.getStep(top);
    if (step >= 0)
      last = std::max<int64_t>(last, step);
    else if (top->hasTrait<OpTrait::IsTerminator>())
      last = numSteps;
  }
  return last;
}

struct SerenityAnnotateLifetimesPass
    : public mlir::serenity::impl::SerenityAnnotateLifetimesPassBase<
          SerenityAnnotateLifetimesPass> {
  using SerenityAnnotateLifetimesPassBase::SerenityAnnotateLifetimesPassBase;

  void runOnOperation() override {
    func::FuncOp function = getOperation();
    MemoryModelOptions modelOptions =
        MemoryModelOptions{concat, accumulateInPlace, fuseRequantization,
                           inPlaceConvs};
    FailureOr<FunctionMemoryModel> model =
        FunctionMemoryModel::build(function, modelOptions);
    if (failed(model))
      return signalPassFailure();

    ::serenity::MemoryProfile profile = ::serenity::simulate(
        model->graph, ::serenity::programOrder(model->graph));
    MLIRContext *context = &getContext();
    Builder builder(context);
    int64_t numSteps = model->steps.size();

    for (auto [step, op] : llvm::enumerate(model->steps)) {
      SmallVector<Attribute> lifetimes;
      for (OpResult result : op->getResults()) {
        int buffer = model->getBuffer(result);
        bool ownsBuffer = buffer >= 0 && model->bufferValues[buffer] == result;
        if (ownsBuffer) {
          lifetimes.push_back(LifetimeAttr::get(
              context, model->graph.buffers[buffer].bytes,
              profile.defStep[buffer], profile.lastStep[buffer]));
          continue;
        }
        // Aliases and non-activation results add no bytes.
        int64_t def = step;
        lifetimes.push_back(LifetimeAttr::get(
            context, 0, def, lastDirectUse(*model, result, def, numSteps)));
      }
      op->setAttr("serenity.lifetime", builder.getArrayAttr(lifetimes));
    }
    function->setAttr("serenity.peak_bytes",
                      builder.getI64IntegerAttr(profile.peak));
    function->setAttr("serenity.peak_step",
                      builder.getI64IntegerAttr(profile.peakStep));
  }
};

} // namespace
