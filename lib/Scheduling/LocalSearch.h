//===- LocalSearch.h - Better orders by optimal re-insertion ----*- C++ -*-===//
//
// Internal to lib/Scheduling: a large-neighbourhood search that lowers the
// peak of a known order, used by the dp on the segments it cannot prove
// (see LocalSearch.cpp and docs/Scheduling.md, dp step 8).
//
//===----------------------------------------------------------------------===//

#ifndef SERENITY_LIB_SCHEDULING_LOCALSEARCH_H
#define SERENITY_LIB_SCHEDULING_LOCALSEARCH_H

#include "SchedulingProblem.h"

#include "Serenity/Support/WorkClock.h"
#include <cstdint>
#include <memory>
#include <vector>

namespace serenity {
namespace detail {

/// Most nodes `reinsertOptimally` moves at once, most sets of them (closed
/// under their dependences) it considers, and most states (sets times kept
/// nodes + 1) its dp visits, which bounds a round's time (about 10 ms).
constexpr int kMaxReinserted = 32;
constexpr int kMaxMovedSets = 4096;
constexpr int64_t kMaxReinsertionStates = int64_t(1) << 20;

/// Among the topological orders of `problem` that keep the relative order of
/// the nodes of `order` outside `moved` (and put the nodes of `moved`
/// anywhere), one of least peak, if that peak is below `budget`: returns the
/// peak and sets `result`; else returns -1. `order` must be topological and
/// `moved` hold at most kMaxReinserted distinct nodes; when more than
/// kMaxMovedSets sets of them (or kMaxReinsertionStates / (kept nodes + 1))
/// are closed under their dependences, its last nodes stay in place (are
/// kept) until that many remain.
int64_t reinsertOptimally(const SchedulingProblem &problem,
                          const std::vector<int> &order, std::vector<int> moved,
                          int64_t budget, std::vector<int> &result);

/// The tables of reinsertOptimally, for callers that call it many times
/// (improveOrder): kept from one call to the next, on any problems.
class ReinsertionScratch {
public:
  ReinsertionScratch();
  ~ReinsertionScratch();
  struct Tables;
  std::unique_ptr<Tables> tables;
};

/// reinsertOptimally with the tables of `scratch` (same result).
int64_t reinsertOptimally(const SchedulingProblem &problem,
                          const std::vector<int> &order, std::vector<int> moved,
                          int64_t budget, std::vector<int> &result,
                          ReinsertionScratch &scratch);

struct LocalSearchStats {
  int64_t rounds = 0;
  int64_t improvements = 0;
};

/// Lowers the peak of `order` (a topological order of `problem` with peak
/// `peak`) until `deadline`, until the peak is at most `floor`, or until
/// many rounds in a row found no lower peak: each round re-inserts
/// optimally a few nodes that a step at the peak depends on (the node run
/// there, writers and readers of the buffers live across it, and the nodes
/// that have to move with them), chosen at random with `seed`, and keeps
/// the order when its peak is lower (or equal, with fewer steps at the
/// peak). `order` and `peak` always describe a valid order.
LocalSearchStats improveOrder(const SchedulingProblem &problem,
                              std::vector<int> &order, int64_t &peak,
                              int64_t floor,
                              WorkClock::Point deadline,
                              uint64_t seed = 1);

} // namespace detail
} // namespace serenity

#endif // SERENITY_LIB_SCHEDULING_LOCALSEARCH_H
