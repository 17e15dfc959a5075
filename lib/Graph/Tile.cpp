//===- Tile.cpp - serenity-tile: fused tiling of critical buffers -*- C++
//-*-===//
//
// The search around the fused feature-map tiling rewrite of
// SpatialTiling.cpp: critical buffers from the memory model in program
// order, candidate regions around them, every grid evaluated on a clone, the
// best applied, repeated while the peak goes down. docs/Tiling.md.
//
//===----------------------------------------------------------------------===//

#include "Serenity/Analysis/MemoryModel.h"
#include "Serenity/Graph/Passes.h"
#include "Serenity/Support/WorkClock.h"
#include "Serenity/Tiling/Tiling.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/PatternMatch.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <numeric>
#include <set>
#include <tuple>

namespace mlir {
namespace serenity {
#define GEN_PASS_DEF_SERENITYTILEPASS
#include "Serenity/Graph/Passes.h.inc"
} // namespace serenity
} // namespace mlir

using namespace mlir;
using namespace mlir::serenity;

namespace {

/// Unit attribute on the ops serenity-tile created (one tile's copy of a
/// region op).
constexpr llvm::StringLiteral kTileAttr = "serenity.tile";
/// Unit attribute on a function serenity-tile tiled.
constexpr llvm::StringLiteral kTiledFunctionAttr = "serenity.tiled";

/// What the search minimizes (see improves / preferredTo).
struct Score {
  int64_t peak = 0;
  /// Steps at the peak: a region that removes one of two equal peaks is
  /// progress towards removing both.
  int64_t peakSteps = 0;
  int64_t macs = 0;

  /// Progress over `other`: a lower peak, or as many bytes at fewer steps.
  bool improves(const Score &other) const {
    return std::tie(peak, peakSteps) < std::tie(other.peak, other.peakSteps);
  }
  /// Preference among candidates that improve: lowest peak, then fewest
  /// MACs, then fewest steps at the peak.
  bool preferredTo(const Score &other) const {
    return std::tie(peak, macs, peakSteps) <
           std::tie(other.peak, other.macs, other.peakSteps);
  }
};

/// How to tile a region: a spatial grid (FFMT) or channel partitions (FDT).
struct Candidate {
  bool channels = false;
  TileGrid grid;
  int64_t parts = 0;
};

/// The best candidate of a round, its score and its region's ops (in the
/// function the round searched).
struct Choice {
  Candidate candidate;
  Score score;
  SmallVector<Operation *> ops;
};

/// The ops of `block` in order (to find an op's twin in a clone).
SmallVector<Operation *> blockOps(Block &block) {
  SmallVector<Operation *> ops;
  for (Operation &op : block)
    ops.push_back(&op);
  return ops;
}

/// "tosa.conv2d, tosa.rescale x2, ..." for a remark: op names with repeats
/// of consecutive equal names folded.
std::string describeOps(ArrayRef<Operation *> ops) {
  SmallVector<std::string> parts;
  for (size_t i = 0; i < ops.size();) {
    size_t j = i;
    while (j < ops.size() && ops[j]->getName() == ops[i]->getName())
      ++j;
    std::string name = ops[i]->getName().getStringRef().str();
    parts.push_back(j - i > 1 ? name + " x" + std::to_string(j - i) : name);
    i = j;
  }
  return llvm::join(parts, ", ");
}

std::string shapeOf(Value value) {
  std::string text;
  llvm::raw_string_ostream os(text);
  llvm::interleave(cast<RankedTensorType>(value.getType()).getShape(), os, "x");
  return text;
}

struct SerenityTilePass
    : public mlir::serenity::impl::SerenityTilePassBase<SerenityTilePass> {
  using SerenityTilePassBase::SerenityTilePassBase;

  void runOnOperation() override {
    // serenity-pipeline leaves this function to the upstream lowering.
    if (mlir::serenity::isUnoptimized(getOperation()))
      return;
    func::FuncOp function = getOperation();
    if (maxPartitions < 2 || maxRegionOps < 1 || workLimit < -1 ||
        timeLimitMs < 0 || !(maxMacOverhead >= 0) || beamWidth < 1 ||
        beamWidth > 64) {
      function.emitError()
          << "serenity-tile: invalid limits (expected max-partitions >= 2, "
             "max-region-ops >= 1, max-mac-overhead >= 0, work-limit >= -1, "
             "time-limit-ms >= 0, 1 <= beam-width <= 64)";
      return signalPassFailure();
    }
    modelOptions =
        MemoryModelOptions{concat, accumulateInPlace, fuseRequantization,
                           inPlaceConvs};
    if (function.isExternal())
      return;
    // The search's clock counts the ops of the candidates it evaluates
    // (docs/Tiling.md, "Work limit"). work-limit's default, 6000000, is
    // about the old 10 s wall-clock default on the hardest input found, the
    // 200-cell DARTS stack (8356 ops: 0.4-1.0 M units/s on the 2-core
    // machine, idle to loaded; docs/Tiling.md has the commands); the
    // wall-clock
    // safety net (time-limit-ms, off by default) only ends it early.
    ::serenity::WorkClock::Scope clock(timeLimitMs);
    workEnd = ::serenity::WorkClock::after(workLimit);

    std::optional<Score> initial = evaluate(function);
    if (!initial)
      return signalPassFailure();
    // Partial tilings (clones) searched round by round: each round every
    // kept state's best candidates are applied to clones of it, and the
    // `beam-width` best of those are kept (1: greedy). The function takes
    // the body of the state with the lowest peak seen in any round (with a
    // beam, then the fewest MACs; with width 1 the last point where the peak
    // went down: steps that only removed one of several equal peaks are
    // dropped if nothing follows).
    struct State {
      OwningOpRef<func::FuncOp> work;
      Score score;
      SmallVector<std::pair<Location, std::string>> remarks;
    };
    SmallVector<State> states;
    states.push_back({function.clone(), *initial, {}});
    Score bestScore = *initial;
    OwningOpRef<func::FuncOp> best;
    SmallVector<std::pair<Location, std::string>> bestRemarks;
    int64_t macBudget = static_cast<int64_t>(
        static_cast<double>(initial->macs) * maxMacOverhead / 100.0);
    const size_t width = static_cast<size_t>(beamWidth);
    bool timedOut = false;
    // Each applied region removes ops from the untiled part; bound the rounds.
    for (int round = 0; round < 64 && !timedOut && !states.empty(); ++round) {
      SmallVector<State> next;
      for (State &state : states) {
        SmallVector<Choice> choices = searchRound(
            *state.work, state.score, initial->macs + macBudget, timedOut,
            width);
        for (Choice &chosen : choices) {
          // The last choice may take the state itself; the others a clone.
          bool last = &chosen == &choices.back();
          OwningOpRef<func::FuncOp> work =
              last ? std::move(state.work) : state.work->clone();
          SmallVector<Operation *> ops = chosen.ops;
          if (!last) {
            SmallVector<Operation *> from =
                blockOps(state.work->getBody().front());
            SmallVector<Operation *> to = blockOps(work->getBody().front());
            for (Operation *&op : ops)
              op = to[llvm::find(from, op) - from.begin()];
          }
          Location loc = ops.front()->getLoc();
          std::string what;
          if (failed(applyCandidate(chosen.candidate, ops, &what)))
            continue; // Evaluated on a clone, so this does not happen.
          const Score &score = chosen.score;
          double overhead =
              initial->macs
                  ? 100.0 * static_cast<double>(score.macs - initial->macs) /
                        static_cast<double>(initial->macs)
                  : 0.0;
          State child{std::move(work), score, state.remarks};
          child.remarks.push_back(
              {loc,
               llvm::formatv("{0}; peak {1} -> {2} bytes; MACs +{3:F1}% of "
                             "the function",
                             what, state.score.peak, score.peak, overhead)
                   .str()});
          // A lower peak; with a beam also the same peak for fewer MACs
          // (greedy keeps the first point of its chain at the lowest peak:
          // a region can lower the MACs, e.g. one that drops rows no output
          // reads, and the untiled function is kept unless the peak falls).
          if (score.peak < bestScore.peak ||
              (width > 1 && best && score.peak == bestScore.peak &&
               score.macs < bestScore.macs)) {
            bestScore = score;
            best = child.work->clone();
            bestRemarks = child.remarks;
          }
          next.push_back(std::move(child));
        }
        if (timedOut)
          break;
      }
      // The best `width` children, one per score (equally good ones in the
      // order they were made).
      SmallVector<size_t> order(next.size());
      std::iota(order.begin(), order.end(), 0);
      llvm::sort(order, [&](size_t a, size_t b) {
        if (next[a].score.preferredTo(next[b].score))
          return true;
        return !next[b].score.preferredTo(next[a].score) && a < b;
      });
      SmallVector<State> kept;
      for (size_t index : order) {
        State &child = next[index];
        if (kept.size() == width)
          break;
        if (llvm::any_of(kept, [&](const State &k) {
              return !k.score.preferredTo(child.score) &&
                     !child.score.preferredTo(k.score);
            }))
          continue;
        kept.push_back(std::move(child));
      }
      states = std::move(kept);
    }
    int64_t bestPeak = bestScore.peak;
    if (best) {
      function.getBody().takeBody(best->getBody());
      for (auto &[loc, text] : bestRemarks)
        mlir::emitRemark(loc) << text;
    }
    // Marks a tiled function: its tiles repeat a region's kernels, which
    // serenity-share-kernels (only-tiled) turns into calls of one function
    // per tile shape.
    if (function.getBody()
            .walk([](Operation *op) {
              return op->hasAttr(kTileAttr) ? WalkResult::interrupt()
                                            : WalkResult::advance();
            })
            .wasInterrupted())
    {
      // With the MACs it computes, tiled and as it was (the halo's
      // recomputation), for reports (serenity-compile's "tiling").
      Builder builder(&getContext());
      function->setAttr(
          kTiledFunctionAttr,
          builder.getDictionaryAttr(
              {builder.getNamedAttr("macs",
                                    builder.getI64IntegerAttr(bestScore.macs)),
               builder.getNamedAttr(
                   "untiled_macs",
                   builder.getI64IntegerAttr(initial->macs))}));
    }
    if (timedOut) {
      mlir::emitRemark(function.getLoc())
          << "serenity-tile: stopped by "
          << ::serenity::describeStop(workLimit, timeLimitMs)
          << "; kept the regions tiled so far (peak " << bestPeak << " bytes)";
    }
  }

private:
  StringRef concatMark() const {
    return modelOptions.concat == ConcatMode::Auto
               ? StringRef(kConcatInPlaceAttr)
               : StringRef();
  }

  /// Whether the search has used its work budget (or the safety net
  /// passed, which moves the clock past every budget).
  bool expired() const { return ::serenity::WorkClock::now() >= workEnd; }

  /// Program-order score of `function`; nullopt (after an error) outside
  /// the memory model.
  std::optional<Score> evaluate(func::FuncOp function) {
    FailureOr<FunctionMemoryModel> model =
        FunctionMemoryModel::build(function, modelOptions);
    if (failed(model))
      return std::nullopt;
    ::serenity::MemoryProfile profile = ::serenity::simulate(
        model->graph, ::serenity::programOrder(model->graph));
    Score score;
    score.peak = profile.peak;
    score.peakSteps = llvm::count(profile.usage, profile.peak);
    for (Operation &op : function.getBody().front())
      score.macs += countMacs(&op);
    return score;
  }

  /// Evaluates the candidates around the critical buffers of `function` and
  /// returns the `keep` best better than `current` within `macLimit`, best
  /// first (equally good ones in the order they were found).
  SmallVector<Choice> searchRound(func::FuncOp function, Score current,
                                  int64_t macLimit, bool &timedOut,
                                  size_t keep) {
    SmallVector<Choice> best;
    FailureOr<FunctionMemoryModel> model =
        FunctionMemoryModel::build(function, modelOptions);
    if (failed(model))
      return best;
    const ::serenity::MemoryGraph &graph = model->graph;
    ::serenity::MemoryProfile profile =
        ::serenity::simulate(graph, ::serenity::programOrder(graph));
    int steps = graph.size();

    // Critical buffers: live at a step at the peak, neither an input nor a
    // result of the function.
    SmallVector<int> critical;
    for (int t = 0; t < steps; ++t) {
      if (profile.usage[t] != profile.peak)
        continue;
      for (int b = 0, e = graph.buffers.size(); b < e; ++b)
        if (graph.buffers[b].producer >= 0 && !graph.buffers[b].returned &&
            profile.defStep[b] <= t && t <= profile.lastStep[b] &&
            !llvm::is_contained(critical, b))
          critical.push_back(b);
    }

    // Regions that hold a critical buffer whole (its producer and every
    // use), and regions that hold a step at the peak (a critical buffer is
    // then the region's input or output, and the region shrinks the others
    // live there).
    std::set<std::pair<int, int>> regions;
    auto addRegions = [&](int top, int bottom) {
      for (int first = top; first >= std::max<int>(0, top - maxRegionOps);
           --first)
        for (int last = bottom;
             last < std::min<int>(steps, bottom + maxRegionOps + 1); ++last)
          if (last > first)
            regions.insert({first, last});
    };
    for (int b : critical)
      addRegions(graph.buffers[b].producer,
                 std::max(graph.buffers[b].producer, profile.lastStep[b]));
    for (int t = 0; t < steps; ++t)
      if (profile.usage[t] == profile.peak)
        addRegions(t, t);

    SmallVector<Operation *> ops = model->steps;
    SmallVector<Operation *> order = blockOps(function.getBody().front());
    DenseMap<Operation *, unsigned> position;
    for (auto [index, op] : llvm::enumerate(order))
      position[op] = index;
    bool spatial = method != TileMethod::FDT,
         channel = method != TileMethod::FFMT;
    for (auto [first, last] : regions) {
      ArrayRef<Operation *> regionOps =
          ArrayRef(ops).slice(first, last - first + 1);
      // Tiles are not tiled again: their halos would compound.
      if (llvm::any_of(regionOps,
                       [](Operation *op) { return op->hasAttr(kTileAttr); }))
        continue;
      std::string reason;
      SmallVector<Candidate> candidates;
      Value input, output;
      if (spatial) {
        if (FailureOr<SpatialRegion> region =
                getSpatialRegion(regionOps, reason);
            succeeded(region)) {
          input = region->input;
          output = region->output;
          auto type = cast<RankedTensorType>(output.getType());
          int64_t rows = type.getDimSize(1), cols = type.getDimSize(2);
          for (int64_t n = 2; n <= std::min<int64_t>(rows, maxPartitions); ++n)
            candidates.push_back({false, {n, 1}, 0});
          for (int64_t n = 2; n <= 5 && n * n <= maxPartitions; ++n)
            if (n <= rows && n <= cols)
              candidates.push_back({false, {n, n}, 0});
        }
      }
      if (channel) {
        FailureOr<ChannelRegion> region = getChannelRegion(regionOps, reason);
        if (succeeded(region)) {
          input = region->input;
          output = region->output;
          int64_t channels = cast<RankedTensorType>(
                                 region->ops.front()->getResult(0).getType())
                                 .getDimSize(3);
          for (int64_t n = 2; n <= std::min<int64_t>(channels, maxPartitions);
               ++n)
            candidates.push_back({true, {}, n});
        }
      }
      if (candidates.empty())
        continue;
      // The region's input and output are whole while any tile runs.
      int64_t ends = getTypeBytes(input.getType()).value_or(0) +
                     getTypeBytes(output.getType()).value_or(0);
      if (ends >= (best.size() == keep ? best.back().score.peak : current.peak))
        continue;
      for (const Candidate &candidate : candidates) {
        if (expired()) {
          timedOut = true;
          return best;
        }
        // A candidate costs a clone, the rewrite and a memory model, all
        // linear in the function: one unit of work per op of the function.
        ::serenity::WorkClock::tick(static_cast<int64_t>(order.size()));
        OwningOpRef<func::FuncOp> clone = function.clone();
        SmallVector<Operation *> twins = blockOps(clone->getBody().front());
        SmallVector<Operation *> cloneOps;
        for (Operation *op : regionOps)
          cloneOps.push_back(twins[position[op]]);
        if (failed(applyCandidate(candidate, cloneOps, nullptr)))
          continue;
        std::optional<Score> score = evaluate(*clone);
        if (!score || score->macs > macLimit || !score->improves(current) ||
            (best.size() == keep && !score->preferredTo(best.back().score)))
          continue;
        // Insert after every choice at least as good, drop the last over
        // `keep`.
        auto at = llvm::find_if(best, [&](const Choice &c) {
          return score->preferredTo(c.score);
        });
        best.insert(at, Choice{candidate, *score,
                               SmallVector<Operation *>(regionOps.begin(),
                                                        regionOps.end())});
        if (best.size() > keep)
          best.pop_back();
      }
    }
    return best;
  }

  /// Tiles `ops` (a region of the function being tiled or of a clone) as
  /// `candidate` says; with `what`, describes it for the remark.
  LogicalResult applyCandidate(const Candidate &candidate,
                               ArrayRef<Operation *> ops, std::string *what) {
    std::string reason;
    IRRewriter rewriter(ops.front()->getContext());
    if (candidate.channels) {
      FailureOr<ChannelRegion> region = getChannelRegion(ops, reason);
      if (failed(region))
        return failure();
      if (what)
        *what = llvm::formatv("serenity-tile: fdt {0} channel partitions over "
                              "{1} ops ({2}) from {3} to {4} ({5})",
                              candidate.parts, ops.size(), describeOps(ops),
                              shapeOf(region->input), shapeOf(region->output),
                              region->fanIn ? "fan-in" : "concat");
      return tileChannelRegion(rewriter, *region, candidate.parts, concatMark(),
                               kTileAttr);
    }
    FailureOr<SpatialRegion> region = getSpatialRegion(ops, reason);
    if (failed(region))
      return failure();
    if (what)
      *what = llvm::formatv(
          "serenity-tile: ffmt {0}x{1} tiles over {2} ops ({3}) from {4} to "
          "{5}",
          candidate.grid.rows, candidate.grid.cols, ops.size(),
          describeOps(ops), shapeOf(region->input), shapeOf(region->output));
    return tileSpatialRegion(rewriter, *region, candidate.grid, concatMark(),
                             kTileAttr);
  }

  MemoryModelOptions modelOptions;
  /// The work clock's reading at which the search stops (work-limit).
  ::serenity::WorkClock::Point workEnd = 0;
};

} // namespace
