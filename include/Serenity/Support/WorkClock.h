//===- WorkClock.h - Deterministic limits for searches ---------*- C++ -*-===//
//
// A search's clock counts the work it has done (states created, nodes
// visited, moves tried, candidates evaluated) instead of seconds. Every limit
// of a search is a point on that clock, so what the search returns depends
// only on its input and options: the same model gives the same bytes on an
// idle laptop and on a loaded CI runner.
//
// The clock is per thread: a search that runs pieces on two threads starts
// each piece from the same point and adds up their work when they join
// (WorkClock::Fork), so its result does not depend on the threads' speeds.
//
// A wall-clock limit remains as an explicit, opt-in safety net: when one is
// set (WorkClock::Scope) and passed, the clock jumps to WorkClock::kEnd,
// past every limit, and the search stops at its next check; the result it
// returns is then flagged as cut short by time (wallExpired()).
// (WorkClock::Scope sets both: a search's clock and its safety net.)
//
//===----------------------------------------------------------------------===//

#ifndef SERENITY_SUPPORT_WORKCLOCK_H
#define SERENITY_SUPPORT_WORKCLOCK_H

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>

namespace serenity {

/// What ended a search before it finished (for reports).
enum class SearchStop {
  /// It finished: the result is what the search proves.
  None,
  /// Its work budget (a `work-limit` option) ran out.
  Work,
  /// Its memory cap (a state or node count) was reached.
  States,
  /// The opt-in wall-clock safety net (a `time-limit` option) passed.
  Time,
};

/// The report spelling of `stop`: "none", "work-limit", "state-limit",
/// "time-limit".
inline const char *getSearchStopName(SearchStop stop) {
  switch (stop) {
  case SearchStop::None:
    return "none";
  case SearchStop::Work:
    return "work-limit";
  case SearchStop::States:
    return "state-limit";
  case SearchStop::Time:
    return "time-limit";
  }
  return "none";
}

/// The work done by this thread's search, in units the search defines.
class WorkClock {
public:
  using Point = int64_t;

private:
  static constexpr int64_t kWallCheck = 1024;
  struct State {
    Point now = 0;
    int64_t sinceCheck = 0;
    std::optional<std::chrono::steady_clock::time_point> wall;
    bool wallExpired = false;
  };
  static State &state() {
    thread_local State current;
    return current;
  }

public:
  /// Past every limit a search sets (limits are clamped below it), with
  /// room for the differences and fractions searches compute.
  static constexpr Point kEnd = std::numeric_limits<int64_t>::max() / 4;

  /// The work done so far on this thread.
  static Point now() { return state().now; }

  /// Counts `units` of work; when a wall-clock safety net is set and has
  /// passed (checked every kWallCheck units), the clock jumps to kEnd.
  static void tick(int64_t units = 1) {
    State &s = state();
    s.now += units;
    if (s.wall && (s.sinceCheck += units) >= kWallCheck) {
      s.sinceCheck = 0;
      if (std::chrono::steady_clock::now() >= *s.wall) {
        s.wallExpired = true;
        s.now = kEnd;
      }
    }
  }

  /// Whether the safety net has stopped this thread's search.
  static bool wallExpired() { return state().wallExpired; }

  /// `now() + budget`, clamped to kEnd (budgets may be "unlimited").
  static Point after(int64_t budget) {
    Point n = now();
    if (budget < 0 || budget >= kEnd - n)
      return kEnd;
    return n + budget;
  }

  /// Starts a search on this thread: the clock at zero, and the wall-clock
  /// safety net `milliseconds` from now when positive (off when 0). Restores
  /// the previous clock when destroyed (searches may nest).
  class Scope {
  public:
    explicit Scope(int64_t milliseconds = 0) : saved(state()) {
      State fresh;
      if (milliseconds > 0)
        fresh.wall = std::chrono::steady_clock::now() +
                     std::chrono::milliseconds(
                         std::min<int64_t>(milliseconds, int64_t(1) << 40));
      state() = fresh;
    }
    ~Scope() { state() = saved; }
    Scope(const Scope &) = delete;
    Scope &operator=(const Scope &) = delete;

  private:
    State saved;
  };

  /// A piece of work run from this thread's current point beside the
  /// parent's own: construct it on the parent; the thread that runs the
  /// piece calls enter() before it and leave() after it; the parent then
  /// runs its own work from the same point (when it ran the piece itself,
  /// it calls enter() again first) and, after joining, join() adds the
  /// piece's work (and a passed safety net). So the limits each side sees
  /// do not depend on whether the piece ran on one thread or two.
  class Fork {
  public:
    Fork() : start(state()) {}
    /// Before the piece, on the thread that runs it; sets this thread's
    /// clock to the fork's point.
    void enter() {
      state() = start;
      childStart = start.now;
    }
    /// After the piece, on the thread that ran it.
    void leave() {
      const State &s = state();
      childWork = s.now - childStart;
      childExpired = s.wallExpired;
    }
    /// On the parent thread, after joining the child.
    void join() {
      State &s = state();
      s.now = std::min(kEnd, s.now + childWork);
      if (childExpired) {
        s.wallExpired = true;
        s.now = kEnd;
      }
    }

  private:
    State start;
    Point childStart = 0, childWork = 0;
    bool childExpired = false;
  };

};

/// The option a remark names for a search stopped before it finished:
/// "time-limit-ms=T" when this thread's wall-clock safety net stopped it,
/// else "work-limit=W".
inline std::string describeStop(int64_t workLimit, int64_t timeLimitMs) {
  return WorkClock::wallExpired()
             ? "time-limit-ms=" + std::to_string(timeLimitMs)
             : "work-limit=" + std::to_string(workLimit);
}

} // namespace serenity

#endif // SERENITY_SUPPORT_WORKCLOCK_H
