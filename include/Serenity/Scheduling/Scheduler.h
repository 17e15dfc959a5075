//===- Scheduler.h - Memory-aware scheduling of a MemoryGraph ---*- C++ -*-===//
//
// Orders the nodes of a serenity::MemoryGraph to minimize peak activation
// memory as defined by serenity::simulate. Plain C++, no MLIR: the pass
// --serenity-schedule is a thin adapter over this library.
//
//===----------------------------------------------------------------------===//

#ifndef SERENITY_SCHEDULING_SCHEDULER_H
#define SERENITY_SCHEDULING_SCHEDULER_H

#include "Serenity/Analysis/MemoryGraph.h"
#include "Serenity/Support/EnumTable.h"

#include "Serenity/Support/WorkClock.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace serenity {

/// The scheduling algorithms.
enum class ScheduleAlgorithm {
  /// Nodes in index order (the order written in the IR).
  ProgramOrder,
  /// Kahn's algorithm: FIFO over ready nodes, ties by node index.
  Kahn,
  /// XLA-style list scheduling: the ready node with the largest
  /// (bytes freed - bytes defined), ties by node index.
  Greedy,
  /// Liu's hill-valley merging over the series-parallel decomposition
  /// (greedy inside parts that are neither series nor parallel).
  HillValley,
  /// Exact search over scheduled-set signatures (see docs/Scheduling.md).
  DP,
};

/// The spellings of ScheduleAlgorithm (serenity-schedule's `algorithm`).
SERENITY_ENUM_NAMES(ScheduleAlgorithm, {ScheduleAlgorithm::DP, "dp"},
                    {ScheduleAlgorithm::Kahn, "kahn"},
                    {ScheduleAlgorithm::Greedy, "greedy"},
                    {ScheduleAlgorithm::HillValley, "hill-valley"},
                    {ScheduleAlgorithm::ProgramOrder, "program-order"})

/// Parses a spelling of kScheduleAlgorithmNames.
inline std::optional<ScheduleAlgorithm>
parseScheduleAlgorithm(const std::string &name) {
  return parseEnum<ScheduleAlgorithm>(name);
}
/// The option spelling of `algorithm`.
inline const char *getScheduleAlgorithmName(ScheduleAlgorithm algorithm) {
  return stringifyEnum(algorithm);
}

/// Work units the dp does per millisecond on the reference machine (2-core
/// x86-64 CI kind), measured on the scale suite (docs/Scheduling.md, work
/// limits): converts the former wall-clock defaults into work budgets.
constexpr int64_t kScheduleWorkPerMs = 3000;

/// Limits and choices for `schedule`.
struct ScheduleOptions {
  ScheduleAlgorithm algorithm = ScheduleAlgorithm::DP;
  /// Work budget of the dp search, in units of about one exact-search
  /// state expansion (WorkClock; heuristics always run to completion, they
  /// are O(n^2) at worst). The result depends only on the graph and the
  /// options. The default takes about 3 s on the reference machine
  /// (kScheduleWorkPerMs).
  int64_t workLimit = 3000 * kScheduleWorkPerMs;
  /// Opt-in wall-clock safety net in milliseconds (0: off). A search it
  /// cuts short depends on the machine's speed and is reported as stopped
  /// by the time limit.
  int64_t timeLimitMs = 0;
  /// Most search states the dp may store at once; also capped so that the
  /// state tables stay under `memoryLimitBytes`.
  int64_t maxStates = 2000000;
  /// Approximate cap on the memory used by the dp's state tables.
  int64_t memoryLimitBytes = int64_t(256) << 20;
  /// Whether the dp's decisions may search the graph and its reverse on two
  /// threads at once; the results are the same either way, the time less
  /// on two cores.
  bool parallel = true;
};

/// The outcome of `schedule`.
struct ScheduleResult {
  /// A topological order of all nodes (empty when `error` is set).
  std::vector<int> order;
  /// peakMemory(graph, order): always recomputed with the memory model.
  int64_t peak = 0;
  /// True when no order of the graph has a lower peak (peak == lowerBound).
  bool provenOptimal = false;
  /// A proven lower bound on the peak of every topological order.
  int64_t lowerBound = 0;
  /// Search states created by the dp (0 for the heuristics).
  int64_t statesExplored = 0;
  /// Work units the dp spent (WorkClock); -1 when the time limit stopped it.
  int64_t work = 0;
  /// What ended the dp's search before it proved its order optimal.
  SearchStop stoppedBy = SearchStop::None;
  /// Wall-clock time spent in `schedule` (for benchmarks; never in the IR).
  int64_t timeMs = 0;
  /// Set when the graph cannot be scheduled (a dependence cycle, or a buffer
  /// used before any order can define it).
  std::string error;
};

/// Schedules `graph` with `options`. A use of a buffer implies a dependence
/// on its producer even when `preds` omits it. A buffer with partial
/// producers (in-place concatenation) is allocated by its first writer, as in
/// simulate(); every algorithm, and the dp's proofs, account for that. Every
/// algorithm returns a topological order; `dp` never returns a worse peak than
/// the three heuristics and stops at the time or state limit with the best
/// order found.
ScheduleResult schedule(const MemoryGraph &graph,
                        const ScheduleOptions &options = {});

/// An admissible lower bound on the peak of every order: the largest, over
/// nodes v, of the bytes that are live in every order while v executes (its
/// uses and results, and buffers defined before v and needed after it).
int64_t staticLowerBound(const MemoryGraph &graph);

} // namespace serenity

#endif // SERENITY_SCHEDULING_SCHEDULER_H
