//===- LocalSearch.cpp - Better orders by optimal re-insertion --*- C++ -*-===//
//
// reinsertOptimally: the kept nodes run in their order, the moved ones
// anywhere in between. A partial order is then described by (j, X): the
// first j kept nodes and the subset X of the moved ones have run. That is a
// scheduled set, so its live bytes, and the usage of every later step, do
// not depend on how it was reached: only the least peak reaching each
// (j, X) matters (the dp's argument, on this smaller space of
// (kept + 1) * 2^moved sets). Filled in increasing (j, X), which lists
// every state after the states it is reached from.
//
// improveOrder: a large-neighbourhood search (Shaw 1998) with this exact
// re-insertion as the move. A step's usage is live(S) plus the bytes its
// node allocates; it falls only if the step runs elsewhere, a buffer live
// across it is written later, or its last reader runs earlier. Those nodes
// are the candidates of the steps at the peak; a round re-inserts a random
// few of them (every step at the peak has to fall for the peak to).
//
//===----------------------------------------------------------------------===//

#include "LocalSearch.h"

#include <algorithm>
#include <cassert>
#include <limits>
#include <random>

namespace serenity {
namespace detail {

int64_t reinsertOptimally(const SchedulingProblem &problem,
                          const std::vector<int> &order,
                          const std::vector<int> &moved, int64_t budget,
                          std::vector<int> &result) {
  const int n = problem.numNodes;
  const int k = static_cast<int>(moved.size());
  assert(k <= kMaxReinserted && "too many nodes to re-insert");
  std::vector<int> movedIndex(n, -1);
  for (int i = 0; i < k; ++i)
    movedIndex[moved[i]] = i;
  std::vector<int> kept, keptPosition(n, -1);
  for (int v : order)
    if (movedIndex[v] < 0) {
      keptPosition[v] = static_cast<int>(kept.size());
      kept.push_back(v);
    }
  const int m = static_cast<int>(kept.size());
  // Moved node i may run once the kept nodes before keptNeeded[i] and the
  // moved nodes of movedNeeded[i] have; kept node j once those of
  // keptNeedsMoved[j] have.
  std::vector<int> keptNeeded(k, 0);
  std::vector<uint32_t> movedNeeded(k, 0), keptNeedsMoved(m, 0);
  for (int i = 0; i < k; ++i)
    for (int p : problem.preds[moved[i]]) {
      if (movedIndex[p] >= 0)
        movedNeeded[i] |= uint32_t(1) << movedIndex[p];
      else
        keptNeeded[i] = std::max(keptNeeded[i], keptPosition[p] + 1);
    }
  for (int j = 0; j < m; ++j)
    for (int p : problem.preds[kept[j]])
      if (movedIndex[p] >= 0)
        keptNeedsMoved[j] |= uint32_t(1) << movedIndex[p];

  constexpr int64_t kNone = std::numeric_limits<int64_t>::max();
  const size_t subsets = size_t(1) << k;
  const size_t numStates = (m + 1) * subsets;
  std::vector<int64_t> peak(numStates, kNone), live(numStates, 0);
  // The node run last: k for the kept one, else the moved node's index.
  std::vector<signed char> last(numStates, -1);
  peak[0] = 0;
  live[0] = problem.initialLive;
  std::vector<char> scheduled(n, 0);
  auto relax = [&](size_t from, size_t to, int v, int label) {
    const int64_t usage = live[from] + problem.newBytes(v, scheduled);
    const int64_t reached = std::max(peak[from], usage);
    if (reached >= budget || reached >= peak[to])
      return;
    peak[to] = reached;
    live[to] = live[from] - problem.freedBytes(v, scheduled) +
               problem.keptBytes(v, scheduled);
    last[to] = static_cast<signed char>(label);
  };
  for (int j = 0; j <= m; ++j) {
    if (j > 0)
      scheduled[kept[j - 1]] = 1;
    for (size_t x = 0; x < subsets; ++x) {
      const size_t state = j * subsets + x;
      if (peak[state] == kNone)
        continue;
      for (int i = 0; i < k; ++i)
        scheduled[moved[i]] = (x >> i) & 1;
      if (j < m && (keptNeedsMoved[j] & ~x) == 0)
        relax(state, state + subsets, kept[j], k);
      for (int i = 0; i < k; ++i)
        if (!((x >> i) & 1) && keptNeeded[i] <= j && (movedNeeded[i] & ~x) == 0)
          relax(state, state | (size_t(1) << i), moved[i], i);
    }
  }
  size_t state = m * subsets + (subsets - 1);
  if (peak[state] == kNone)
    return -1;
  result.assign(n, -1);
  for (int step = n - 1; step >= 0; --step) {
    const int label = last[state];
    if (label == k) {
      state -= subsets;
      result[step] = kept[state / subsets];
    } else {
      state &= ~(size_t(1) << label);
      result[step] = moved[label];
    }
  }
  return peak[m * subsets + (subsets - 1)];
}

namespace {

/// One order under improvement: its step usages, and the nodes that a step
/// at its peak depends on.
class Neighbourhood {
public:
  explicit Neighbourhood(const SchedulingProblem &problem)
      : problem(problem), n(problem.numNodes), position(n), usage(n),
        isCandidate(n, 0), scheduled(n, 0) {}

  /// Usages, peak and candidates of `order`.
  void analyze(const std::vector<int> &order);
  int64_t getPeak() const { return peak; }
  /// Steps whose usage is at the peak.
  int stepsAtPeak() const;
  /// Steps of `other` at this order's peak.
  int stepsAtPeak(const std::vector<int> &other);
  /// A set of nodes to re-insert: at random, either a few candidates or the
  /// nodes that move with one or two of the buffers live across a step at
  /// the peak (see chain).
  void pick(const std::vector<int> &order, std::mt19937_64 &random,
            std::vector<int> &moved) const;

private:
  /// Adds to `moved` a writer of `buffer` run before step t with its
  /// descendants run up to t (so that it can run after t), or a reader run
  /// after t with its ancestors run from t on (so that it can run before).
  void chain(const std::vector<int> &order, int buffer, int t,
             std::mt19937_64 &random, std::vector<int> &moved) const;

  const SchedulingProblem &problem;
  const int n;
  int64_t peak = 0;
  std::vector<int> position, candidates;
  std::vector<int64_t> usage;
  std::vector<char> isCandidate, scheduled;
  /// Buffers live across a step at the peak, with the step.
  std::vector<std::pair<int, int>> across;
};

void Neighbourhood::analyze(const std::vector<int> &order) {
  for (int t = 0; t < n; ++t)
    position[order[t]] = t;
  std::fill(scheduled.begin(), scheduled.end(), 0);
  int64_t live = problem.initialLive;
  peak = 0;
  for (int t = 0; t < n; ++t) {
    const int v = order[t];
    usage[t] = live + problem.newBytes(v, scheduled);
    peak = std::max(peak, usage[t]);
    live += problem.keptBytes(v, scheduled) - problem.freedBytes(v, scheduled);
    scheduled[v] = 1;
  }
  candidates.clear();
  across.clear();
  std::fill(isCandidate.begin(), isCandidate.end(), 0);
  auto add = [&](int v) {
    if (!isCandidate[v]) {
      isCandidate[v] = 1;
      candidates.push_back(v);
    }
  };
  for (int t = 0; t < n; ++t) {
    if (usage[t] < peak)
      continue;
    add(order[t]);
    for (int b = 0, e = static_cast<int>(problem.bytes.size()); b < e; ++b) {
      if (problem.bytes[b] == 0)
        continue;
      // A graph input exists from the start.
      int firstWrite = problem.producer[b] < 0 ? -1 : n;
      int lastRead = problem.returned[b] ? n : -1;
      for (int w : problem.writers[b])
        firstWrite = std::min(firstWrite, position[w]);
      for (int r : problem.users[b])
        lastRead = std::max(lastRead, position[r]);
      if (firstWrite >= t || lastRead < t)
        continue;
      across.emplace_back(b, t);
      for (int w : problem.writers[b])
        if (position[w] < t)
          add(w);
      for (int r : problem.users[b])
        if (position[r] > t)
          add(r);
    }
  }
}

int Neighbourhood::stepsAtPeak() const {
  return static_cast<int>(
      std::count_if(usage.begin(), usage.end(),
                    [&](int64_t bytes) { return bytes >= peak; }));
}

int Neighbourhood::stepsAtPeak(const std::vector<int> &other) {
  std::fill(scheduled.begin(), scheduled.end(), 0);
  int64_t live = problem.initialLive;
  int steps = 0;
  for (int v : other) {
    steps += live + problem.newBytes(v, scheduled) >= peak;
    live += problem.keptBytes(v, scheduled) - problem.freedBytes(v, scheduled);
    scheduled[v] = 1;
  }
  return steps;
}

void Neighbourhood::chain(const std::vector<int> &order, int buffer, int t,
                          std::mt19937_64 &random,
                          std::vector<int> &moved) const {
  std::vector<int> ends;
  for (int w : problem.writers[buffer])
    if (position[w] < t)
      ends.push_back(-1 - w);
  for (int r : problem.users[buffer])
    if (position[r] > t)
      ends.push_back(r);
  if (ends.empty())
    return;
  const int end = ends[random() % ends.size()];
  auto take = [&](int v) {
    if (moved.size() < size_t(kMaxReinserted - 2) &&
        std::find(moved.begin(), moved.end(), v) == moved.end())
      moved.push_back(v);
  };
  if (end < 0) {
    const int writer = -1 - end;
    for (int p = position[writer]; p <= t; ++p)
      if (order[p] == writer || problem.isAncestor(writer, order[p]))
        take(order[p]);
  } else {
    for (int p = position[end]; p >= t; --p)
      if (order[p] == end || problem.isAncestor(order[p], end))
        take(order[p]);
  }
}

void Neighbourhood::pick(const std::vector<int> &order, std::mt19937_64 &random,
                         std::vector<int> &moved) const {
  moved.clear();
  if (!across.empty() && random() % 2) {
    for (int i = 0; i < 2; ++i) {
      auto [buffer, t] = across[random() % across.size()];
      chain(order, buffer, t, random, moved);
    }
    if (!moved.empty())
      return;
  }
  // Between 4 and kMaxReinserted - 4 candidates (2^k states per kept node).
  std::vector<int> shuffled = candidates;
  std::shuffle(shuffled.begin(), shuffled.end(), random);
  const size_t size =
      std::min<size_t>(shuffled.size(), 4 + random() % (kMaxReinserted - 7));
  moved.assign(shuffled.begin(), shuffled.begin() + size);
}

} // namespace

LocalSearchStats improveOrder(const SchedulingProblem &problem,
                              std::vector<int> &order, int64_t &peak,
                              int64_t floor,
                              std::chrono::steady_clock::time_point deadline,
                              uint64_t seed) {
  LocalSearchStats stats;
  const int n = problem.numNodes;
  if (n < 3)
    return stats;
  // Ends after kStale rounds without a lower peak: measured on 60- and
  // 100-node DAGs, the last improvement came within 150 rounds, and
  // restarts from the best order with a window of 16 steps reordered at
  // random (iterated local search) found no lower peak in the seconds after.
  constexpr int kStale = 200;
  std::mt19937_64 random(seed);
  Neighbourhood current(problem);
  std::vector<int> moved, better;
  current.analyze(order);
  for (int stale = 0; stale < kStale && peak > floor &&
                      std::chrono::steady_clock::now() < deadline;
       ++stale) {
    ++stats.rounds;
    current.pick(order, random, moved);
    // Orders of equal peak with no more steps at the peak are taken too (a
    // walk along the plateau), so the budget is the peak + 1.
    const int64_t reached =
        reinsertOptimally(problem, order, moved, peak + 1, better);
    if (reached < 0 || better == order ||
        (reached == peak &&
         current.stepsAtPeak(better) > current.stepsAtPeak()))
      continue;
    order.swap(better);
    current.analyze(order);
    if (reached < peak) {
      peak = reached;
      ++stats.improvements;
      stale = -1;
    }
  }
  return stats;
}

} // namespace detail
} // namespace serenity
