//===- Shaving.h - Lower bounds by precedence shaving -----------*- C++ -*-===//
//
// Internal to lib/Scheduling. A decision test "no order has peak <= tau":
// with CutBound.h's minimum cut, the step of a node v needs at least
// bound(v) bytes in every order; for two nodes a and b with no dependence
// between them, every order running a before b needs at least the cut of a
// with b and b's descendants also on the sink side, and the cut of b with a
// and a's ancestors also on the source side. When either exceeds tau, every
// order of peak <= tau runs b before a: that becomes a dependence of the
// sets the later cuts range over (the induction: every order of peak <= tau
// keeps every dependence derived so far, so its prefixes are closed under
// them). Both orders excluded, or one step's cut above tau: refuted. The
// pairs are tested until no dependence is added ("shaving", as in job-shop
// scheduling). Only that each cut is a lower bound on its step is used, so
// it holds with buffers of several writers too.
//
//===----------------------------------------------------------------------===//

#ifndef SERENITY_LIB_SCHEDULING_SHAVING_H
#define SERENITY_LIB_SCHEDULING_SHAVING_H

#include "SchedulingProblem.h"

#include "Serenity/Support/WorkClock.h"
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace serenity {
namespace detail {

/// What the test concluded at one threshold tau.
struct Shaving {
  enum Outcome {
    /// No order has peak <= tau.
    Refuted,
    /// Not refuted: every order of peak <= tau keeps `dependences`.
    Open,
    /// The deadline passed first.
    Timeout,
  };
  Outcome outcome = Timeout;
  /// Derived dependences (a before b), in the order they were found; not
  /// implied by the problem's nor by earlier ones when added.
  std::vector<std::pair<int, int>> dependences;
  /// Open: per node, the minimum cut of its step under the problem's and
  /// the derived dependences (a lower bound on the step in every order of
  /// peak <= tau), at least the step's stepBound.
  std::vector<int64_t> stepBounds;
  /// The work done: maximum flows computed, and cuts shown within tau by a
  /// set found without a flow (shave's `witnesses`).
  int64_t flows = 0, witnessedCuts = 0;
};

/// Shaves `problem` at `tau`, starting from the dependences `known` (which
/// every order of peak <= tau must keep, e.g. those shaved at a larger tau).
/// Needs the problem built with bounds. With `witnesses`, a pair's cut is
/// first tried on a set derived from the node's last least set (without a
/// flow when that set is admissible and within tau): the same conclusions,
/// fewer flows; without, every cut the screens leave is a flow (for tests).
Shaving shave(const SchedulingProblem &problem, int64_t tau,
              WorkClock::Point deadline,
              const std::vector<std::pair<int, int>> &known = {},
              bool witnesses = true);

/// True when no order of `problem` has peak <= tau, false when the test
/// cannot tell, nullopt when `deadline` passed first (shave's outcome).
std::optional<bool> refutePeak(const SchedulingProblem &problem, int64_t tau,
                               WorkClock::Point deadline);

/// The greatest common divisor of the problem's buffer sizes: every peak is
/// a multiple of it (0 without buffers).
int64_t peakUnit(const SchedulingProblem &problem);

/// The least value in [low, high + 1] that refutePeak does not refute below
/// (a lower bound on the peak of every order, given that no order peaks
/// below `low`), by binary search over the multiples of the greatest common
/// divisor of the buffer sizes (peaks are sums of them), until `deadline`.
int64_t shavingBound(const SchedulingProblem &problem, int64_t low,
                     int64_t high,
                     WorkClock::Point deadline);

} // namespace detail
} // namespace serenity

#endif // SERENITY_LIB_SCHEDULING_SHAVING_H
