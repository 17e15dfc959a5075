//===- Schedule.cpp - Reorder ops to minimize peak memory ------*- C++ -*-===//
//
// Thin adapter: FunctionMemoryModel -> serenity::schedule -> op moves. All
// scheduling logic lives in lib/Scheduling (plain C++).
//
//===----------------------------------------------------------------------===//

#include "Serenity/Analysis/MemoryModel.h"
#include "Serenity/Scheduling/Scheduler.h"
#include "Serenity/Graph/Passes.h"

#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseSet.h"

#include <chrono>
#include <limits>

namespace mlir {
namespace serenity {
#define GEN_PASS_DEF_SERENITYSCHEDULEPASS
#include "Serenity/Graph/Passes.h.inc"

// The pass's default work-limit (Passes.td) is 3 s of the reference machine.
static_assert(3000 * ::serenity::kScheduleWorkPerMs == 9000000,
              "serenity-schedule's work-limit default follows the calibration");
} // namespace serenity
} // namespace mlir

using namespace mlir;
using namespace mlir::serenity;

namespace {

/// Moves the steps of `model` into `order` before the terminator of their
/// block; each constant moves right before its first user in the new order
/// (constants used by no step stay at the top of the block), so every use
/// is still dominated by its definition.
void reorderBlock(const FunctionMemoryModel &model,
                  const std::vector<int> &order, Block &block) {
  Operation *terminator = &block.back();
  llvm::DenseSet<Operation *> placed;
  auto placeConstant = [&](Value value) {
    Operation *def = value.getDefiningOp();
    if (def && def->getBlock() == &block && isConstantLike(def) &&
        placed.insert(def).second)
      def->moveBefore(terminator);
  };
  for (int node : order) {
    Operation *op = model.steps[node];
    for (Value operand : op->getOperands())
      placeConstant(operand);
    op->walk([&](Operation *nested) {
      if (nested != op)
        for (Value operand : nested->getOperands())
          placeConstant(operand);
    });
    op->moveBefore(terminator);
  }
}

struct SerenitySchedulePass
    : public mlir::serenity::impl::SerenitySchedulePassBase<
          SerenitySchedulePass> {
  using Base::Base;

  /// Builds the model of `function` (with the pass's ordering constraints)
  /// and schedules it; `before` is the program-order peak.
  LogicalResult scheduleFunction(func::FuncOp function,
                                 const MemoryModelOptions &modelOptions,
                                 const ::serenity::ScheduleOptions &options,
                                 std::optional<FunctionMemoryModel> &model,
                                 int64_t &before,
                                 ::serenity::ScheduleResult &result) {
    FailureOr<FunctionMemoryModel> built =
        FunctionMemoryModel::build(function, modelOptions);
    if (failed(built))
      return failure();
    model = std::move(*built);
    ::serenity::MemoryGraph &graph = model->graph;
    // Ops with memory effects (or unknown ones) keep their relative order.
    int previousEffect = -1;
    for (auto [node, op] : llvm::enumerate(model->steps)) {
      if (isMemoryEffectFree(op))
        continue;
      if (previousEffect >= 0)
        graph.addDependence(node, previousEffect);
      previousEffect = node;
    }
    // The model counts an accumulation only when the accumulator comes
    // first; keeping the others in their order keeps the model (and so the
    // peak reported here) valid for the reordered function.
    if (modelOptions.accumulateInPlace)
      for (auto [conv, accumulator] :
           findBlockedAccumulations(function.getBody().front()))
        graph.addDependence(model->getStep(accumulator), model->getStep(conv));

    before = ::serenity::peakMemory(graph, ::serenity::programOrder(graph));
    result = ::serenity::schedule(graph, options);
    if (!result.error.empty())
      return function.emitError() << "serenity-schedule: " << result.error;
    return success();
  }

  /// concat=auto: marks (kConcatInPlaceAttr) the concats whose in-place
  /// lowering lowers the scheduled peak, greedily in block order: each
  /// candidate (a concat with an operand that can be produced in place) is
  /// tried with the ones kept so far, and kept when the peak goes down.
  /// Only candidates whose buffers are live at every step of the best order
  /// so far that uses its peak are tried: in that order, in-place changes
  /// only the steps where the concat's buffers are live, so the others
  /// cannot lower its peak. This keeps the number of trials, each a whole
  /// schedule, small on large networks. Every trial schedules with an
  /// equal share of the work limit (at least 10 ms' worth), and trials stop
  /// once their work adds up to the limit (deterministic: the same concats
  /// are kept on any machine).
  LogicalResult chooseInPlaceConcats(func::FuncOp function,
                                     const MemoryModelOptions &modelOptions,
                                     const ::serenity::ScheduleOptions &full) {
    Block &block = function.getBody().front();
    SmallVector<tosa::ConcatOp> candidates;
    for (auto concat : block.getOps<tosa::ConcatOp>()) {
      concat->removeAttr(kConcatInPlaceAttr);
      if (llvm::any_of(concat->getOperands(), [&](Value operand) {
            return isInPlaceConcatOperand(operand, block);
          }))
        candidates.push_back(concat);
    }
    if (candidates.empty())
      return success();
    ::serenity::ScheduleOptions trial = full;
    trial.workLimit = std::max<int64_t>(
        10 * ::serenity::kScheduleWorkPerMs,
        full.workLimit / static_cast<int64_t>(candidates.size() + 1));
    if (full.timeLimitMs > 0)
      trial.timeLimitMs = std::max<int64_t>(
          10, full.timeLimitMs / static_cast<int64_t>(candidates.size() + 1));
    const auto start = std::chrono::steady_clock::now();
    std::optional<FunctionMemoryModel> model;
    int64_t before = 0;
    ::serenity::ScheduleResult result;
    if (failed(scheduleFunction(function, modelOptions, trial, model, before,
                                result)))
      return failure();
    int64_t best = result.peak;
    int64_t work = result.work;
    std::vector<char> touchesPeak = touchPeak(*model, result, candidates);
    UnitAttr mark = UnitAttr::get(function.getContext());
    for (auto [index, concat] : llvm::enumerate(candidates)) {
      if (!touchesPeak[index])
        continue;
      const bool outOfTime =
          full.timeLimitMs > 0 &&
          std::chrono::steady_clock::now() - start >=
              std::chrono::milliseconds(full.timeLimitMs);
      if (outOfTime || work < 0 || work >= full.workLimit) {
        mlir::emitRemark(concat.getLoc())
            << "serenity-schedule: concat=auto stopped by "
            << (outOfTime || work < 0 ? "time-limit-ms=" : "work-limit=")
            << (outOfTime || work < 0 ? full.timeLimitMs : full.workLimit)
            << "; this concat and the later ones stay copies";
        break;
      }
      concat->setAttr(kConcatInPlaceAttr, mark);
      if (failed(scheduleFunction(function, modelOptions, trial, model, before,
                                  result)))
        return failure();
      work = result.work < 0 ? -1 : work + result.work;
      if (result.peak < best) {
        best = result.peak;
        touchesPeak = touchPeak(*model, result, candidates);
      } else {
        concat->removeAttr(kConcatInPlaceAttr);
      }
    }
    return success();
  }

  /// Per candidate concat: whether its buffers (operands, result) are live
  /// at every step of `result`'s order that uses the peak.
  static std::vector<char> touchPeak(const FunctionMemoryModel &model,
                                     const ::serenity::ScheduleResult &result,
                                     ArrayRef<tosa::ConcatOp> candidates) {
    ::serenity::MemoryProfile profile =
        ::serenity::simulate(model.graph, result.order);
    std::vector<int> peakSteps;
    for (int t = 0, e = static_cast<int>(profile.usage.size()); t < e; ++t)
      if (profile.usage[t] == profile.peak)
        peakSteps.push_back(t);
    std::vector<char> touches;
    for (tosa::ConcatOp concat : candidates) {
      int first = std::numeric_limits<int>::max(), last = -1;
      auto extend = [&](Value value) {
        int buffer = model.getBuffer(value);
        if (buffer < 0)
          return;
        first = std::min(first, std::max(profile.defStep[buffer], 0));
        last = std::max(last, profile.lastStep[buffer]);
      };
      for (Value operand : concat->getOperands())
        extend(operand);
      extend(concat.getResult());
      touches.push_back(llvm::all_of(
          peakSteps, [&](int t) { return first <= t && t <= last; }));
    }
    return touches;
  }

  void runOnOperation() override {
    // serenity-pipeline leaves this function to the upstream lowering.
    if (mlir::serenity::isUnoptimized(getOperation()))
      return;
    func::FuncOp function = getOperation();
    if (timeLimitMs < 0 || maxStates < 0 || workLimit < 0) {
      function.emitError() << "serenity-schedule: work-limit, time-limit-ms "
                              "and max-states must not be negative (got "
                           << workLimit.getValue() << ", "
                           << timeLimitMs.getValue() << " and "
                           << maxStates.getValue() << ")";
      return signalPassFailure();
    }
    if (memoryLimitMb < 1 || memoryLimitMb > (int64_t(1) << 30)) {
      function.emitError() << "serenity-schedule: memory-limit-mb must be "
                              "between 1 and 2^30 (got "
                           << memoryLimitMb.getValue() << ")";
      return signalPassFailure();
    }
    MemoryModelOptions modelOptions =
        MemoryModelOptions{concat, accumulateInPlace, fuseRequantization,
                           inPlaceConvs};
    if (function.isExternal())
      return;

    ::serenity::ScheduleOptions options;
    options.algorithm = algorithm;
    options.workLimit = workLimit;
    options.timeLimitMs = timeLimitMs;
    options.maxStates = maxStates;
    options.memoryLimitBytes = memoryLimitMb << 20;
    // Two search threads only where MLIR may use threads
    // (--mlir-disable-threading turns both off); same results either way.
    options.parallel = getContext().isMultithreadingEnabled();
    if (modelOptions.concat == ConcatMode::Auto &&
        failed(chooseInPlaceConcats(function, modelOptions, options)))
      return signalPassFailure();

    std::optional<FunctionMemoryModel> model;
    int64_t before = 0;
    ::serenity::ScheduleResult result;
    if (failed(scheduleFunction(function, modelOptions, options, model, before,
                                result)))
      return signalPassFailure();
    reorderBlock(*model, result.order, function.getBody().front());

    Builder builder(&getContext());
    NamedAttrList summary;
    summary.append("algorithm", builder.getStringAttr(stringifyEnum(algorithm.getValue())));
    summary.append("peak_bytes", builder.getI64IntegerAttr(result.peak));
    summary.append("optimal", builder.getBoolAttr(result.provenOptimal));
    summary.append("lower_bound_bytes",
                   builder.getI64IntegerAttr(result.lowerBound));
    summary.append("states", builder.getI64IntegerAttr(result.statesExplored));
    // Work, not time: the same graph and options give the same summary.
    summary.append("work", builder.getI64IntegerAttr(result.work));
    summary.append("stopped_by", builder.getStringAttr(::serenity::getSearchStopName(result.stoppedBy)));
    function->setAttr("serenity.schedule",
                      summary.getDictionary(&getContext()));

    InFlightDiagnostic remark = mlir::emitRemark(function.getLoc());
    remark << "serenity-schedule (" << stringifyEnum(algorithm.getValue()) << "): peak "
           << before << " -> " << result.peak << " bytes, ";
    if (result.provenOptimal)
      remark << "proven optimal";
    else
      remark << "not proven optimal (lower bound " << result.lowerBound
             << " bytes; stopped by "
             << ::serenity::getSearchStopName(result.stoppedBy) << ")";
  }
};

} // namespace
