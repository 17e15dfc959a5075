//===- Shaving.cpp - Lower bounds by precedence shaving ---------*- C++ -*-===//

#include "Shaving.h"

#include "CutBound.h"

#include <algorithm>
#include <numeric>
#include <utility>
#include <vector>

namespace serenity {
namespace detail {

namespace {

class Shaver {
public:
  Shaver(const SchedulingProblem &problem, int64_t tau)
      : problem(problem), tau(tau), n(problem.numNodes), bounder(problem),
        before(n, std::vector<char>(n, 0)), inSet(n, std::vector<char>(n, 0)),
        lastCut(n, 0), readBytes(n, 0), writtenBytes(n, 0),
        side(n, CutBounder::kFree), candidate(n, 0) {
    for (int b = 0, e = static_cast<int>(problem.bytes.size()); b < e; ++b) {
      for (int u : problem.users[b])
        readBytes[u] += problem.bytes[b];
      for (int w : problem.writers[b])
        writtenBytes[w] += problem.bytes[b];
    }
    for (int a = 0; a < n; ++a)
      for (int b = 0; b < n; ++b)
        before[a][b] = a != b && problem.isAncestor(a, b);
  }

  Shaving::Outcome refute(WorkClock::Point deadline) {
    for (int v = 0; v < n; ++v) {
      if (WorkClock::now() >= deadline)
        return Shaving::Timeout;
      if (!cut(v))
        return Shaving::Refuted;
    }
    for (bool changed = true; changed;) {
      changed = false;
      for (int a = 0; a < n; ++a)
        for (int b = a + 1; b < n; ++b) {
          if (before[a][b] || before[b][a])
            continue;
          if (WorkClock::now() >= deadline)
            return Shaving::Timeout;
          bool ab = possible(a, b), ba = possible(b, a);
          if (!ab && !ba)
            return Shaving::Refuted;
          if (ab && ba)
            continue;
          // Every order of peak <= tau runs `first` before `second`.
          int first = ab ? a : b, second = ab ? b : a;
          addDependence(first, second);
          changed = true;
          if (!cut(a) || !cut(b))
            return Shaving::Refuted;
        }
    }
    return Shaving::Open;
  }

  /// After refute: the dependences derived and the last cut of each node.
  std::vector<std::pair<int, int>> takeDependences() {
    return std::move(extra);
  }
  std::vector<int64_t> stepBounds() const {
    std::vector<int64_t> bounds(n);
    for (int v = 0; v < n; ++v)
      bounds[v] = std::max(problem.stepBound[v], lastCut[v]);
    return bounds;
  }

private:
  /// Marks v's sides: its ancestors Source, v and its descendants Sink;
  /// then `sink` and its descendants Sink, `source` and its ancestors
  /// Source (-1: none). False when a node would be on both sides.
  bool setSides(int v, int source, int sink) {
    for (int u = 0; u < n; ++u)
      side[u] = before[u][v]               ? CutBounder::kSource
                : (u == v || before[v][u]) ? CutBounder::kSink
                                           : CutBounder::kFree;
    auto mark = [&](int u, signed char s) {
      if (side[u] != CutBounder::kFree && side[u] != s)
        return false;
      side[u] = s;
      return true;
    };
    for (int u = 0; u < n; ++u) {
      if (sink >= 0 && (u == sink || before[sink][u]) &&
          !mark(u, CutBounder::kSink))
        return false;
      if (source >= 0 && (u == source || before[u][source]) &&
          !mark(u, CutBounder::kSource))
        return false;
    }
    return true;
  }

  /// The cut of v under the dependences so far; false when it exceeds tau.
  bool cut(int v) {
    setSides(v, -1, -1);
    int64_t value = flow(v);
    if (value > tau)
      return false;
    lastCut[v] = value;
    for (int u = 0; u < n; ++u)
      inSet[v][u] = bounder.inLeastSet(u);
    return true;
  }

  /// Whether some order of peak <= tau may run x before y, as far as the
  /// cuts of x (without y and its descendants) and y (with x and its
  /// ancestors) tell. A cut is skipped when the least set already found for
  /// the node, changed to meet the extra condition, stays within tau: taking
  /// y's descendants out of x's set frees nothing it did not free before and
  /// keeps at most the buffers they read; putting x's ancestors into y's set
  /// adds at most the buffers they write. (Skipping a cut only weakens the
  /// test, so the stale sets of nodes not cut since a dependence was added
  /// do no harm.)
  bool possible(int x, int y) {
    int64_t removed = 0;
    for (int u = 0; u < n; ++u)
      if (inSet[x][u] && (u == y || before[y][u]))
        removed += readBytes[u];
    if (removed > 0 && lastCut[x] + removed > tau) {
      for (int u = 0; u < n; ++u)
        candidate[u] = inSet[x][u] && u != y && !before[y][u];
      if (!witnessed(x, y) && (!setSides(x, -1, y) || flow(x) > tau))
        return false;
    }
    int64_t added = 0;
    for (int u = 0; u < n; ++u)
      if (!inSet[y][u] && (u == x || before[u][x]))
        added += writtenBytes[u];
    if (added > 0 && lastCut[y] + added > tau) {
      for (int u = 0; u < n; ++u)
        candidate[u] = inSet[y][u] || u == x || before[u][x];
      if (!witnessed(y, -1) && (!setSides(y, x, -1) || flow(y) > tau))
        return false;
    }
    return true;
  }

  /// Whether `candidate` is one of the sets the cut of v ranges over (closed
  /// under the problem's and the derived dependences, holding v's
  /// ancestors, neither v, its descendants, nor `sink` and its descendants
  /// when sink >= 0) and v's step after it fits within tau. The cut is the
  /// least such step, so it fits too: the flow would find the same, and is
  /// not needed (on the 60-node fan-in-6 DAGs of the scale suite this
  /// skips about 70 % of the flows; shaving takes a third of the time).
  ///
  /// The candidates are a least set minus a node and its descendants, or
  /// plus a node and its ancestors: closed under the problem's dependences
  /// by construction (a least set is, being a finite cut's source side).
  /// The least set may be stale (from before the last dependences were
  /// derived), hence the checks of the derived dependences and of v's
  /// ancestors and descendants as they are now.
  bool witnessed(int v, int sink) {
    if (!witnesses)
      return false;
    for (int u = 0; u < n; ++u)
      if (candidate[u] ? u == v || before[v][u] ||
                             (sink >= 0 && (u == sink || before[sink][u]))
                       : before[u][v])
        return false;
    for (auto [first, second] : extra)
      if (candidate[second] && !candidate[first])
        return false;
    int64_t live = problem.defBytes[v];
    for (int b = 0, e = static_cast<int>(problem.bytes.size()); b < e; ++b) {
      const int64_t size = problem.bytes[b];
      if (size == 0 || (!problem.returned[b] && problem.users[b].empty()))
        continue;
      bool allocated = problem.producer[b] < 0;
      for (int w : problem.writers[b])
        allocated = allocated || candidate[w];
      if (!allocated)
        continue;
      bool consumed = !problem.returned[b];
      for (int r : problem.users[b])
        consumed = consumed && candidate[r];
      if (!consumed && (live += size) > tau)
        return false;
    }
    ++witnessedCuts;
    return true;
  }

  /// The cut of v with the sides set.
  int64_t flow(int v) {
    ++flows;
    return bounder.bound(v, side, extra, tau);
  }

public:
  /// Every order of peak <= tau runs `first` before `second`.
  void addDependence(int first, int second) {
    if (before[first][second])
      return;
    extra.emplace_back(first, second);
    std::vector<int> up = {first}, down = {second};
    for (int u = 0; u < n; ++u) {
      if (before[u][first])
        up.push_back(u);
      if (before[second][u])
        down.push_back(u);
    }
    for (int u : up)
      for (int d : down)
        before[u][d] = 1;
  }

private:
  const SchedulingProblem &problem;
  const int64_t tau;
  const int n;
  CutBounder bounder;
  /// before[a][b]: every order of peak <= tau runs a before b.
  std::vector<std::vector<char>> before;
  /// inSet[v][u]: u is in the least set of v's last cut.
  std::vector<std::vector<char>> inSet;
  std::vector<int64_t> lastCut;
  /// Per node: bytes of the buffers it reads, and of those it writes.
  std::vector<int64_t> readBytes, writtenBytes;
  std::vector<signed char> side;
  std::vector<std::pair<int, int>> extra;
  /// A set that may show a cut within tau without a flow (witnessed).
  std::vector<char> candidate;

public:
  bool witnesses = true;
  int64_t flows = 0, witnessedCuts = 0;
};

} // namespace

Shaving shave(const SchedulingProblem &problem, int64_t tau,
              WorkClock::Point deadline,
              const std::vector<std::pair<int, int>> &known, bool witnesses) {
  Shaver shaver(problem, tau);
  shaver.witnesses = witnesses;
  for (auto [first, second] : known)
    shaver.addDependence(first, second);
  Shaving result;
  result.outcome = shaver.refute(deadline);
  result.flows = shaver.flows;
  result.witnessedCuts = shaver.witnessedCuts;
  if (result.outcome == Shaving::Open) {
    result.stepBounds = shaver.stepBounds();
    result.dependences = shaver.takeDependences();
  }
  return result;
}

std::optional<bool> refutePeak(const SchedulingProblem &problem, int64_t tau,
                               WorkClock::Point deadline) {
  switch (shave(problem, tau, deadline).outcome) {
  case Shaving::Refuted:
    return true;
  case Shaving::Open:
    return false;
  case Shaving::Timeout:
    break;
  }
  return std::nullopt;
}

int64_t peakUnit(const SchedulingProblem &problem) {
  int64_t unit = 0;
  for (int64_t size : problem.bytes)
    unit = std::gcd(unit, size);
  return unit;
}

int64_t shavingBound(const SchedulingProblem &problem, int64_t low,
                     int64_t high,
                     WorkClock::Point deadline) {
  const int64_t unit = peakUnit(problem);
  if (unit <= 0 || high < low)
    return low;
  // Peaks are multiples of unit: refuting k * unit - 1 proves k * unit.
  int64_t proven = (low + unit - 1) / unit, top = (high + 1) / unit;
  while (proven < top) {
    int64_t mid = proven + (top - proven + 1) / 2;
    std::optional<bool> refuted = refutePeak(problem, mid * unit - 1, deadline);
    if (!refuted)
      break;
    if (*refuted)
      proven = mid;
    else
      top = mid - 1;
  }
  return std::max(low, proven * unit);
}

} // namespace detail
} // namespace serenity
