//===- Allocator.h - Offset allocation over live intervals ------*- C++ -*-===//
//
// Places buffers with fixed live intervals at offsets in one arena so that no
// two buffers live at the same time share a byte. Plain data only (no MLIR):
// the serenity-alloc tool, the static allocation pass and the tests all use
// this one interface, so they share one validator and one notion of optimum.
//
// Algorithms:
//  - greedy-size: TFLite Micro's GreedyMemoryPlanner (size descending, first
//    fit among the buffers already placed that overlap in time).
//  - best-fit: XLA's GlobalDecreasingSizeBestFitHeap (smallest fitting gap),
//    run ordered by size and by lifetime; the better result is kept.
//  - exact: branch and bound after MiniMalloc (Moffitt, ASPLOS 2024):
//    canonical placements, section lower bounds, cut-line decomposition and
//    dominance pruning, stopped by a work budget (WorkClock units), so
//    its result depends only on the input and the options.
//
//===----------------------------------------------------------------------===//

#ifndef SERENITY_ALLOCATION_ALLOCATOR_H
#define SERENITY_ALLOCATION_ALLOCATOR_H

#include "Serenity/Support/EnumTable.h"
#include "Serenity/Support/WorkClock.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace serenity {

/// One buffer to place: it needs `size` bytes at an offset that is a multiple
/// of `alignment` and is live on the half-open interval [lower, upper).
struct AllocBuffer {
  std::string id;
  int64_t lower = 0;
  int64_t upper = 0;
  int64_t size = 0;
  int64_t alignment = 1;
};

/// Offset allocation algorithms.
enum class AllocAlgorithm { GreedySize, BestFit, Exact };

/// The spellings of AllocAlgorithm (serenity-static-alloc's and
/// serenity-alloc's `algorithm`).
SERENITY_ENUM_NAMES(AllocAlgorithm, {AllocAlgorithm::Exact, "exact"},
                    {AllocAlgorithm::BestFit, "best-fit"},
                    {AllocAlgorithm::GreedySize, "greedy-size"})

/// Parses a spelling of kAllocAlgorithmNames.
inline std::optional<AllocAlgorithm>
parseAllocAlgorithm(const std::string &name) {
  return parseEnum<AllocAlgorithm>(name);
}
/// The command-line spelling of `algorithm`.
inline const char *allocAlgorithmName(AllocAlgorithm algorithm) {
  return stringifyEnum(algorithm);
}

/// What to compute.
struct AllocOptions {
  AllocAlgorithm algorithm = AllocAlgorithm::Exact;
  /// Arena bytes the placement must fit in; none means unbounded.
  std::optional<int64_t> capacity;
  /// For `exact`: search for the smallest arena (down to the lower bound)
  /// instead of stopping at the first placement within `capacity`. Without a
  /// capacity `exact` always minimizes.
  bool minimize = false;
  /// The default `workLimit`, calibrated to end about where the old
  /// wall-clock default (10 s) did: on the loaded 2-core machine of
  /// docs/Allocation.md (#Work limit) the search does 5.2e8-6.6e8 units a
  /// second on the hardest inputs that use all of it (MiniMalloc's D and J
  /// minimized: `serenity-alloc ../shared/bench/minimalloc/J.1048576.csv
  /// --work-limit 5000000000` took 9.4 s), 2.5e8-5.5e8 on 3000 long-lived
  /// buffers (test/Tools/serenity-alloc/Inputs/random-dag-3k.csv).
  static constexpr int64_t kDefaultWorkLimit = 5'000'000'000;
  /// Work budget of the exact search in WorkClock units (one unit is one
  /// elementary step of the solver: a search node, a buffer or section a
  /// placement updates, a list entry built); negative means unlimited. When
  /// it runs out the best placement found so far is returned, flagged not
  /// proven optimal, with `AllocResult::stop == SearchStop::Work`.
  int64_t workLimit = kDefaultWorkLimit;
  /// Opt-in wall-clock safety net of the exact search in seconds (0, the
  /// default, is off). A search it cuts short returns its best placement,
  /// not proven, with `AllocResult::stop == SearchStop::Time`; such a
  /// result depends on the machine's speed.
  double timeLimitSeconds = 0;
};

/// Outcome of `allocate`.
struct AllocResult {
  enum class Status {
    /// `offsets` is a valid placement within the capacity (if any).
    Placed,
    /// Proven: no placement fits the capacity.
    Infeasible,
    /// No placement within the capacity was found, but infeasibility is not
    /// proven (heuristic algorithm, or the search was stopped).
    NotFound,
  };
  Status status = Status::NotFound;
  /// One offset per input buffer (only meaningful when Placed).
  std::vector<int64_t> offsets;
  /// max over buffers of offset + size (0 for no buffers).
  int64_t arenaSize = 0;
  /// Max over time of the summed sizes of live buffers (`maxLiveLowerBound`).
  int64_t lowerBound = 0;
  /// The arena is the smallest possible (equals the lower bound, or the exact
  /// search proved that no smaller arena fits).
  bool provenOptimal = false;
  /// What stopped the exact search before it finished: None, Work (the
  /// work-limit ran out), States (the overlap lists would be too large, see
  /// ExactProbe::stalled) or Time (the time-limit safety net).
  SearchStop stop = SearchStop::None;
  /// The search was stopped early (ExactProbe::stalled): too slow or too
  /// large to place every buffer once.
  bool stalled = false;
  /// Search nodes the exact solver visited.
  int64_t nodes = 0;
  /// Work units the exact solver used (WorkClock); after a time-limit stop,
  /// those counted up to the end of the last probe that ended before it.
  int64_t work = 0;
  /// Human-readable explanation when not Placed.
  std::string message;
};

/// Computes a placement of `buffers` according to `options`.
AllocResult allocate(const std::vector<AllocBuffer> &buffers,
                     const AllocOptions &options);

/// Max over time of the summed sizes of the live buffers (and at least the
/// largest buffer, live or not): no placement can use a smaller arena.
int64_t maxLiveLowerBound(const std::vector<AllocBuffer> &buffers);

/// Bytes spanned by a placement: max over buffers of offset + size.
int64_t arenaSize(const std::vector<AllocBuffer> &buffers,
                  const std::vector<int64_t> &offsets);

/// Checks a placement: one non-negative offset per buffer, each a multiple of
/// the buffer's alignment, no two buffers that are live at a common time
/// share a byte, and every buffer ends within `capacity` (if given). Returns
/// a description of the first violation, or nothing when valid.
std::optional<std::string>
validatePlacement(const std::vector<AllocBuffer> &buffers,
                  const std::vector<int64_t> &offsets,
                  std::optional<int64_t> capacity = std::nullopt);

/// Checks the buffers themselves: sizes non-negative, alignments positive,
/// lower <= upper, ids unique. Returns the first problem found.
std::optional<std::string>
validateBuffers(const std::vector<AllocBuffer> &buffers);

namespace detail {
/// Result of one capacity probe of the exact solver.
struct ExactProbe {
  enum class Outcome { Found, Infeasible, Stopped };
  Outcome outcome = Outcome::Stopped;
  std::vector<int64_t> offsets;
  int64_t nodes = 0;
  /// Stopped early: a quarter of the way (in work) to the deadline having
  /// visited fewer search nodes than there are buffers (with nodes that
  /// expensive, thousands of long-lived buffers, later probes cannot do
  /// better), or at once when the overlap and section lists would exceed
  /// 2^25 entries (`listsTooLarge`).
  bool stalled = false;
  bool listsTooLarge = false;
};

/// Searches for a placement of `buffers` (sizes > 0, lower < upper) with
/// every buffer ending at or below `capacity`, counting its work on this
/// thread's WorkClock and stopping once the clock reaches `deadline`.
ExactProbe solveExact(const std::vector<AllocBuffer> &buffers, int64_t capacity,
                      WorkClock::Point deadline);
} // namespace detail

} // namespace serenity

#endif // SERENITY_ALLOCATION_ALLOCATOR_H
