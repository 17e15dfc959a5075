//===- Rewrite.cpp - Memory-driven identity graph rewriting ----*- C++ -*-===//
//
// The pass around the patterns of RewritePatterns.cpp: it enumerates
// candidate concats, measures the scheduled peak a candidate's rewrite would
// give on a clone of the function, and applies the profitable ones.
//
//===----------------------------------------------------------------------===//

#include "Serenity/Graph/Rewrite.h"
#include "Serenity/Analysis/MemoryModel.h"
#include "Serenity/Scheduling/Scheduler.h"
#include "Serenity/Graph/Passes.h"
#include "Serenity/Support/WorkClock.h"

#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Rewrite/FrozenRewritePatternSet.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/StringExtras.h"

#include <limits>
#include <map>
#include <tuple>

namespace mlir {
namespace serenity {
#define GEN_PASS_DEF_SERENITYREWRITEPASS
#include "Serenity/Graph/Passes.h.inc"
} // namespace serenity
} // namespace mlir

using namespace mlir;
using namespace mlir::serenity;

namespace {

/// Records which patterns applied and why the others did not.
struct RewriteRecorder : public RewriterBase::Listener {
  std::map<std::string, int> applied;
  std::vector<std::string> failures;

  void notifyPatternBegin(const Pattern &pattern, Operation *) override {
    current = pattern.getDebugName().str();
  }
  void notifyPatternEnd(const Pattern &, LogicalResult status) override {
    if (succeeded(status))
      ++applied[current];
  }
  void
  notifyMatchFailure(Location,
                     function_ref<void(Diagnostic &)> reasonCallback) override {
    Diagnostic diag(UnknownLoc::get(context), DiagnosticSeverity::Remark);
    reasonCallback(diag);
    std::string reason = "[" + current + "] " + diag.str();
    if (!llvm::is_contained(failures, reason))
      failures.push_back(reason);
  }

  /// "channel-partition x2, push-through-concat x1".
  std::string appliedSummary() const {
    SmallVector<std::string> parts;
    for (const auto &[name, count] : applied)
      parts.push_back(name + " x" + std::to_string(count));
    return llvm::join(parts, ", ");
  }

  MLIRContext *context = nullptr;

private:
  std::string current;
};

/// The concats of `function`'s body, in order: candidate roots.
SmallVector<tosa::ConcatOp> collectConcats(func::FuncOp function) {
  SmallVector<tosa::ConcatOp> concats;
  for (Operation &op : function.getBody().front())
    if (auto concat = dyn_cast<tosa::ConcatOp>(op))
      concats.push_back(concat);
  return concats;
}

struct SerenityRewritePass
    : public mlir::serenity::impl::SerenityRewritePassBase<
          SerenityRewritePass> {
  using SerenityRewritePassBase::SerenityRewritePassBase;

  LogicalResult initialize(MLIRContext *context) override {
    RewritePatternSet set(context);
    if (patternGroups.empty()) {
      populateSerenityRewritePatterns(set);
    } else {
      for (const std::string &group : patternGroups) {
        if (group == "channel-partition")
          populateSerenityChannelPartitionPatterns(set);
        else if (group == "kernel-partition")
          populateSerenityKernelPartitionPatterns(set);
        else if (group == "push-through-concat")
          populateSerenityConcatPushPatterns(set);
        else
          return emitError(UnknownLoc::get(context))
                 << "serenity-rewrite: unknown pattern group '" << group
                 << "' (expected channel-partition, kernel-partition or "
                    "push-through-concat)";
      }
    }
    patterns = std::move(set);
    return success();
  }

  void runOnOperation() override {
    // serenity-pipeline leaves this function to the upstream lowering.
    if (mlir::serenity::isUnoptimized(getOperation()))
      return;
    func::FuncOp function = getOperation();
    modelOptions =
        MemoryModelOptions{concat, accumulateInPlace, fuseRequantization,
                           inPlaceConvs};
    if (workLimit < -1 || timeLimitMs < 0) {
      function.emitError() << "serenity-rewrite: work-limit must be >= -1 "
                              "and time-limit-ms >= 0";
      return signalPassFailure();
    }
    if (function.isExternal())
      return;
    // The profitable search's clock counts the ops of the candidates it
    // evaluates (docs/Rewriting.md, "Work limit"). work-limit's default,
    // 300000, is about the old 20 s wall-clock default on the hardest input
    // found, the 200-cell DARTS stack (8356 ops, 17 k units/s on the 2-core
    // machine under load); the wall-clock safety net (time-limit-ms, off by
    // default) only ends it early.
    ::serenity::WorkClock::Scope clock(timeLimitMs);
    const ::serenity::WorkClock::Point workEnd =
        ::serenity::WorkClock::after(workLimit);
    auto expired = [&] {
      return mode == RewriteMode::Profitable &&
             ::serenity::WorkClock::now() >= workEnd;
    };
    std::optional<int64_t> peak = peakOf(function);
    if (!peak)
      return signalPassFailure();

    // A profitable rewrite strictly lowers the peak and every rewrite moves
    // concats towards the outputs; the bound only protects against pattern
    // sets that would cycle.
    int64_t budget = 4 * static_cast<int64_t>(
                             function.getBody().front().getOperations().size());
    while (budget-- > 0) {
      SmallVector<tosa::ConcatOp> concats = collectConcats(function);
      std::optional<size_t> chosen;
      int64_t chosenPeak = *peak;
      SmallVector<std::pair<size_t, int64_t>> rejected;
      bool timedOut = false;
      for (size_t index = 0; index < concats.size(); ++index) {
        if (expired()) {
          timedOut = true;
          break;
        }
        // A candidate costs a clone, the patterns, a memory model and a
        // schedule: one unit of work per op of the function.
        ::serenity::WorkClock::tick(static_cast<int64_t>(
            function.getBody().front().getOperations().size()));
        std::optional<int64_t> candidatePeak = evaluate(function, index);
        if (!candidatePeak)
          continue;
        bool better = mode == RewriteMode::All || *candidatePeak < chosenPeak;
        if (better) {
          chosen = index;
          chosenPeak = *candidatePeak;
          if (mode == RewriteMode::All)
            break;
        } else {
          rejected.push_back({index, *candidatePeak});
        }
      }
      if (chosen) {
        if (failed(applyAndReport(concats[*chosen], *peak)))
          return signalPassFailure();
        if (!timedOut)
          continue;
      }
      if (timedOut) {
        mlir::emitRemark(function.getLoc())
            << "serenity-rewrite: stopped by "
            << ::serenity::describeStop(workLimit, timeLimitMs)
            << "; kept the rewrites applied so far (scheduled peak " << *peak
            << " bytes), remaining candidates not evaluated";
        break;
      }
      // Rewrites that pay off only together (each alone moves the peak
      // elsewhere): apply the remaining candidates in order on a clone and
      // keep the prefix with the lowest peak.
      if (!rejected.empty()) {
        OwningOpRef<func::FuncOp> clone = function.clone();
        SmallVector<int64_t> prefixPeaks;
        applyCandidatesInOrder(*clone, std::numeric_limits<int64_t>::max(),
                               nullptr, &prefixPeaks);
        auto best = llvm::min_element(prefixPeaks);
        if (best != prefixPeaks.end() && *best < *peak) {
          int64_t before = *peak;
          int64_t count = applyCandidatesInOrder(
              function, best - prefixPeaks.begin() + 1, &*peak, nullptr);
          if (count < 0)
            return signalPassFailure();
          mlir::emitRemark(function.getLoc())
              << "serenity-rewrite: applied " << count
              << " rewrites together, none of which lowers the peak alone; "
                 "scheduled peak "
              << before << " -> " << *peak << " bytes";
          continue;
        }
      }
      for (auto [index, candidatePeak] : rejected)
        mlir::emitRemark(concats[index].getLoc())
            << "serenity-rewrite: not applied: scheduled peak " << *peak
            << " -> " << candidatePeak << " bytes does not go down";
      break;
    }

    if (explain)
      for (tosa::ConcatOp concat : collectConcats(function)) {
        // Concats that only feed returns, adds... are not candidates.
        if (llvm::none_of(concat->getUsers(), isPartitionableUser))
          continue;
        RewriteRecorder recorder;
        OwningOpRef<func::FuncOp> clone = function.clone();
        if (apply(collectConcats(*clone)[indexOf(function, concat)], recorder))
          continue; // Already reported as not profitable.
        InFlightDiagnostic remark = mlir::emitRemark(concat.getLoc())
                                    << "serenity-rewrite: concat kept:";
        for (const std::string &reason : recorder.failures)
          remark << " " << reason << ";";
      }
  }

private:
  /// Scheduled peak of `function`; nullopt (after an error) outside the
  /// memory model.
  std::optional<int64_t> peakOf(func::FuncOp function) {
    FailureOr<FunctionMemoryModel> model =
        FunctionMemoryModel::build(function, modelOptions);
    if (failed(model))
      return std::nullopt;
    return scheduledPeak(model->graph);
  }

  /// Applies the patterns to `concat` and to the ops they create; returns
  /// whether anything changed.
  bool apply(tosa::ConcatOp concat, RewriteRecorder &recorder) {
    recorder.context = concat.getContext();
    GreedyRewriteConfig config;
    config.setStrictness(GreedyRewriteStrictness::ExistingAndNewOps)
        .enableFolding(false)
        .setListener(&recorder);
    bool changed = false;
    (void)applyOpPatternsGreedily({concat.getOperation()}, patterns, config,
                                  &changed);
    return changed;
  }

  /// Applies the candidate rooted at `concat`, reports it with a remark and
  /// updates `peak`.
  LogicalResult applyAndReport(tosa::ConcatOp concat, int64_t &peak) {
    Location loc = concat.getLoc();
    auto function = concat->getParentOfType<func::FuncOp>();
    RewriteRecorder recorder;
    apply(concat, recorder);
    std::optional<int64_t> newPeak = peakOf(function);
    if (!newPeak)
      return failure();
    emitRemark(loc) << "serenity-rewrite: applied " << recorder.appliedSummary()
                    << "; scheduled peak " << peak << " -> " << *newPeak
                    << " bytes";
    peak = *newPeak;
    return success();
  }

  /// Applies up to `limit` candidates, each time the first one in program
  /// order that applies. With `peak`, reports each one (and updates it);
  /// with `peaks`, records the scheduled peak after each. Returns how many
  /// were applied, -1 when the function left the memory model.
  int64_t applyCandidatesInOrder(func::FuncOp function, int64_t limit,
                                 int64_t *peak,
                                 SmallVectorImpl<int64_t> *peaks) {
    int64_t count = 0;
    bool changed = true;
    while (changed && count < limit) {
      changed = false;
      for (tosa::ConcatOp concat : collectConcats(function)) {
        if (peak) {
          // Probe on a clone so that a candidate that does not apply leaves
          // no trace and the report names only real rewrites.
          OwningOpRef<func::FuncOp> probe = function.clone();
          RewriteRecorder unused;
          if (!apply(collectConcats(*probe)[indexOf(function, concat)], unused))
            continue;
          if (failed(applyAndReport(concat, *peak)))
            return -1;
        } else {
          RewriteRecorder unused;
          if (!apply(concat, unused))
            continue;
        }
        if (peaks) {
          std::optional<int64_t> after = peakOf(function);
          if (!after)
            return -1;
          peaks->push_back(*after);
        }
        ++count;
        changed = true;
        break;
      }
    }
    return count;
  }

  static size_t indexOf(func::FuncOp function, tosa::ConcatOp concat) {
    SmallVector<tosa::ConcatOp> concats = collectConcats(function);
    return llvm::find(concats, concat) - concats.begin();
  }

  /// Scheduled peak after rewriting the `index`-th concat, measured on a
  /// clone; nullopt when no pattern applies.
  std::optional<int64_t> evaluate(func::FuncOp function, size_t index) {
    OwningOpRef<func::FuncOp> clone = function.clone();
    RewriteRecorder recorder;
    if (!apply(collectConcats(*clone)[index], recorder))
      return std::nullopt;
    FailureOr<FunctionMemoryModel> model =
        FunctionMemoryModel::build(*clone, modelOptions);
    if (failed(model))
      return std::nullopt;
    return scheduledPeak(model->graph);
  }

  FrozenRewritePatternSet patterns;
  MemoryModelOptions modelOptions;
};

} // namespace

int64_t mlir::serenity::scheduledPeak(const ::serenity::MemoryGraph &graph) {
  // The DP is exact for every memory model option (in-place concatenation
  // included) and never returns an order worse than program order, Kahn or
  // its greedy heuristic, also when a limit stops it: its work limit (500
  // ms' worth on the reference machine) and its state limit, both counted,
  // so the peak, and every profitability decision made on it, is the same
  // on any machine (issue 46).
  ::serenity::ScheduleOptions options;
  options.workLimit = 500 * ::serenity::kScheduleWorkPerMs;
  options.maxStates = kScheduledPeakStates;
  ::serenity::ScheduleResult result = ::serenity::schedule(graph, options);
  if (!result.error.empty())
    return ::serenity::peakMemory(graph, ::serenity::programOrder(graph));
  return result.peak;
}
