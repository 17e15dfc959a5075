//===- LocalSearch.cpp - Better orders by optimal re-insertion --*- C++ -*-===//
//
// reinsertOptimally: the kept nodes run in their order, the moved ones
// anywhere in between. A partial order is then described by (j, X): the
// first j kept nodes and the subset X of the moved ones have run. That is a
// scheduled set, so its live bytes, and the usage of every later step, do
// not depend on how it was reached: only the least peak reaching each
// (j, X) matters (the dp's argument, on this smaller space of (kept + 1)
// times the sets of moved nodes closed under their own dependences).
// Filled in increasing j, and X in increasing value (a set grows by adding
// a bit), which lists every state after the states it is reached from.
//
// improveOrder: a large-neighbourhood search (Shaw 1998) with this exact
// re-insertion as the move. A step's usage is live(S) plus the bytes its
// node allocates; it falls only if the step runs elsewhere, a buffer live
// across it is written later, or its last reader runs earlier. Those nodes
// are the candidates of the steps at the peak; a round re-inserts one or
// two of them with the nodes that have to move along (descendants of a
// writer up to the step, ancestors of a reader from the step on), or a
// random few (every step at the peak has to fall for the peak to).
//
//===----------------------------------------------------------------------===//

#include "LocalSearch.h"

#include <algorithm>
#include <cassert>
#include <limits>
#include <random>

namespace serenity {
namespace detail {

/// Reinsertion moves relaxed per unit of work: about as long as an
/// exact-search expansion (docs/Scheduling.md, work limits).
constexpr int64_t kReinsertionMovesPerWork = 64;

namespace {

/// Index of the sets of moved nodes (at most kMaxMovedSets): open
/// addressing at most half full.
class SetIndex {
public:
  /// Empties the index, sized for the sets of `k` nodes.
  void reset(int k) {
    size_t size = 4;
    while (size < size_t(4) * kMaxMovedSets && size >> 2 < size_t(1) << k)
      size <<= 1;
    slots.assign(size, Slot{0, -1});
  }
  /// The index of `set`; -1 when absent.
  int find(uint64_t set) const { return slots[slotOf(set)].index; }
  /// The index of `set`, given `index` when absent.
  int insert(uint64_t set, int index, bool &inserted) {
    Slot &slot = slots[slotOf(set)];
    inserted = slot.index < 0;
    if (inserted)
      slot = Slot{set, index};
    return slot.index;
  }

private:
  struct Slot {
    uint64_t set;
    int index;
  };
  size_t slotOf(uint64_t set) const {
    const size_t mask = slots.size() - 1;
    size_t slot = (set * 0x9E3779B97F4A7C15ULL) >> 40 & mask;
    while (slots[slot].index >= 0 && slots[slot].set != set)
      slot = (slot + 1) & mask;
    return slot;
  }
  std::vector<Slot> slots;
};

} // namespace

/// The local search keeps these from one round to the next: a round
/// allocated and filled up to a few megabytes, and the fresh pages' faults
/// were about a tenth of a 60-node fan-in-6 DAG's scheduling time (44 % of
/// its page faults; measured with perf).
struct ReinsertionScratch::Tables {
  std::vector<int> movedIndex, grownBy, kept, keptPosition, keptNeeded;
  std::vector<uint64_t> movedNeeded, sets, grownSets, keptNeedsMoved;
  std::vector<int64_t> peak, live;
  std::vector<signed char> last;
  std::vector<char> scheduled;
  SetIndex setIndex;
};

ReinsertionScratch::ReinsertionScratch() : tables(new Tables) {}
ReinsertionScratch::~ReinsertionScratch() = default;

int64_t reinsertOptimally(const SchedulingProblem &problem,
                          const std::vector<int> &order, std::vector<int> moved,
                          int64_t budget, std::vector<int> &result,
                          ReinsertionScratch &scratch) {
  ReinsertionScratch::Tables &tables = *scratch.tables;
  const int n = problem.numNodes;
  assert(moved.size() <= size_t(kMaxReinserted) && "too many nodes to move");
  std::vector<int> &movedIndex = tables.movedIndex;
  movedIndex.assign(n, -1);
  // The sets of moved nodes that can have run (closed under the moved
  // nodes' own dependences); the last nodes of `moved` stay in place while
  // there are more than maxSets of them.
  std::vector<uint64_t> &movedNeeded = tables.movedNeeded, &sets = tables.sets,
                        &grownSets = tables.grownSets;
  movedNeeded.assign(moved.size(), 0);
  sets.assign(1, 0);
  for (size_t i = 0; i < moved.size(); ++i)
    movedIndex[moved[i]] = static_cast<int>(i);
  for (size_t i = 0; i < moved.size(); ++i)
    for (int p : problem.preds[moved[i]])
      if (movedIndex[p] >= 0)
        movedNeeded[i] |= uint64_t(1) << movedIndex[p];
  // Adding the moved nodes one at a time: a set without node i holds none
  // of the nodes that need it, a set with it all the nodes it needs (among
  // those added so far; later ones filter in their turn).
  const size_t maxSets = static_cast<size_t>(std::clamp<int64_t>(
      kMaxReinsertionStates / (int64_t(n) + 1), 1, kMaxMovedSets));
  int k = 0;
  for (; k < static_cast<int>(moved.size()); ++k) {
    const uint64_t bit = uint64_t(1) << k, before = bit - 1;
    uint64_t needers = 0;
    for (int e = 0; e < k; ++e)
      if (movedNeeded[e] & bit)
        needers |= uint64_t(1) << e;
    const uint64_t needs = movedNeeded[k] & before;
    grownSets.clear();
    for (uint64_t set : sets) {
      if ((set & needers) == 0)
        grownSets.push_back(set);
      if ((needs & ~set) == 0)
        grownSets.push_back(set | bit);
    }
    if (grownSets.size() > maxSets)
      break;
    sets.swap(grownSets);
  }
  // The nodes left out are kept (their dependences then bind through j).
  for (int i = k, e = static_cast<int>(moved.size()); i < e; ++i)
    movedIndex[moved[i]] = -1;
  moved.resize(k);
  movedNeeded.resize(k);
  for (uint64_t &needed : movedNeeded)
    needed &= (uint64_t(1) << k) - 1;
  // Increasing values: a set comes after every set it grows from.
  std::sort(sets.begin(), sets.end());
  SetIndex &setIndex = tables.setIndex;
  setIndex.reset(k);
  bool inserted;
  for (int x = 0, e = static_cast<int>(sets.size()); x < e; ++x)
    setIndex.insert(sets[x], x, inserted);
  const int numSets = static_cast<int>(sets.size());
  // grownBy[x * k + i]: the set x plus moved node i, -1 when i cannot run
  // after x.
  std::vector<int> &grownBy = tables.grownBy;
  grownBy.assign(size_t(numSets) * k, -1);
  for (int x = 0; x < numSets; ++x)
    for (int i = 0; i < k; ++i)
      if (!((sets[x] >> i) & 1) && (movedNeeded[i] & ~sets[x]) == 0)
        grownBy[size_t(x) * k + i] =
            setIndex.find(sets[x] | (uint64_t(1) << i));

  std::vector<int> &kept = tables.kept, &keptPosition = tables.keptPosition;
  kept.clear();
  keptPosition.assign(n, -1);
  for (int v : order)
    if (movedIndex[v] < 0) {
      keptPosition[v] = static_cast<int>(kept.size());
      kept.push_back(v);
    }
  const int m = static_cast<int>(kept.size());
  // Moved node i may run once the kept nodes before keptNeeded[i] have;
  // kept node j once the moved nodes of keptNeedsMoved[j] have.
  std::vector<int> &keptNeeded = tables.keptNeeded;
  keptNeeded.assign(k, 0);
  std::vector<uint64_t> &keptNeedsMoved = tables.keptNeedsMoved;
  keptNeedsMoved.assign(m, 0);
  for (int i = 0; i < k; ++i)
    for (int p : problem.preds[moved[i]])
      if (movedIndex[p] < 0)
        keptNeeded[i] = std::max(keptNeeded[i], keptPosition[p] + 1);
  for (int j = 0; j < m; ++j)
    for (int p : problem.preds[kept[j]])
      if (movedIndex[p] >= 0)
        keptNeedsMoved[j] |= uint64_t(1) << movedIndex[p];

  // State j * numSets + x: the first j kept nodes and the set x have run.
  // Only the rows j and j + 1 of the least peaks (and live bytes) are kept;
  // `last` holds every state's last node for the way back: the kept node
  // (label k) or moved node `label`, written whenever a state is reached.
  constexpr int64_t kNone = std::numeric_limits<int64_t>::max();
  std::vector<int64_t> &peak = tables.peak, &live = tables.live;
  peak.resize(2 * size_t(numSets));
  live.resize(2 * size_t(numSets));
  // Read only where written (the states reached).
  std::vector<signed char> &last = tables.last;
  last.resize(size_t(m + 1) * numSets);
  std::fill(peak.begin(), peak.begin() + numSets, kNone);
  peak[0] = 0;
  live[0] = problem.initialLive;
  std::vector<char> &scheduled = tables.scheduled;
  scheduled.assign(n, 0);
  // From state (row, x) of the rows to (toRow, to) by running v.
  auto relax = [&](size_t from, size_t to, size_t state, int v, int label) {
    const int64_t usage = live[from] + problem.newBytes(v, scheduled);
    const int64_t reached = std::max(peak[from], usage);
    if (reached >= budget || reached >= peak[to])
      return;
    peak[to] = reached;
    live[to] = live[from] - problem.freedBytes(v, scheduled) +
               problem.keptBytes(v, scheduled);
    last[state] = static_cast<signed char>(label);
  };
  const size_t endSet = setIndex.find((uint64_t(1) << k) - 1);
  // The table below has (m + 1) x numSets states of up to k + 1 moves.
  WorkClock::tick(1 + (int64_t(m) + 1) * numSets * (k + 1) /
                          kReinsertionMovesPerWork);
  for (int j = 0; j <= m; ++j) {
    if (j > 0)
      scheduled[kept[j - 1]] = 1;
    const size_t row = size_t(j % 2) * numSets,
                 nextRow = size_t((j + 1) % 2) * numSets;
    std::fill(peak.begin() + nextRow, peak.begin() + nextRow + numSets, kNone);
    for (int x = 0; x < numSets; ++x) {
      if (peak[row + x] == kNone)
        continue;
      for (int i = 0; i < k; ++i)
        scheduled[moved[i]] = (sets[x] >> i) & 1;
      if (j < m && (keptNeedsMoved[j] & ~sets[x]) == 0)
        relax(row + x, nextRow + x, size_t(j + 1) * numSets + x, kept[j], k);
      for (int i = 0; i < k; ++i)
        if (const int grown = grownBy[size_t(x) * k + i];
            grown >= 0 && keptNeeded[i] <= j)
          relax(row + x, row + grown, size_t(j) * numSets + grown, moved[i], i);
    }
    if (j == m && peak[row + endSet] == kNone)
      return -1;
  }
  const int64_t best = peak[size_t(m % 2) * numSets + endSet];
  result.assign(n, -1);
  size_t state = size_t(m) * numSets + endSet;
  for (int step = n - 1; step >= 0; --step) {
    const int label = last[state];
    const size_t j = state / numSets;
    const uint64_t set = sets[state % numSets];
    if (label == k) {
      result[step] = kept[j - 1];
      state -= numSets;
    } else {
      result[step] = moved[label];
      state = j * numSets + setIndex.find(set & ~(uint64_t(1) << label));
    }
  }
  return best;
}

int64_t reinsertOptimally(const SchedulingProblem &problem,
                          const std::vector<int> &order, std::vector<int> moved,
                          int64_t budget, std::vector<int> &result) {
  ReinsertionScratch scratch;
  return reinsertOptimally(problem, order, std::move(moved), budget, result,
                           scratch);
}

namespace {

/// One order under improvement: its step usages, and the nodes that a step
/// at its peak depends on.
class Neighbourhood {
public:
  explicit Neighbourhood(const SchedulingProblem &problem)
      : problem(problem), n(problem.numNodes), position(n),
        firstWrite(problem.bytes.size()), lastRead(problem.bytes.size()),
        isCandidate(n, 0) {}

  /// Usages, peak and candidates of `order`.
  void analyze(const std::vector<int> &order);
  int64_t getPeak() const { return peak; }
  /// Steps whose usage is at the peak.
  int stepsAtPeak() const;
  /// Steps of `other` at this order's peak.
  int stepsAtPeak(const std::vector<int> &other) const;
  /// A set of nodes to re-insert: at random, either a few candidates or the
  /// nodes that move with one or two of the buffers live across a step at
  /// the peak (see chain).
  void pick(const std::vector<int> &order, std::mt19937_64 &random,
            std::vector<int> &moved) const;

private:
  /// Adds to `moved` a writer of `buffer` run before step t with its
  /// descendants run up to t (so that it can run after t), a reader run
  /// after t with its ancestors run from t on (so that it can run before),
  /// or the node of step t with its descendants or its ancestors (up to
  /// kMaxReinserted nodes, the nearest first).
  void chain(const std::vector<int> &order, int buffer, int t,
             std::mt19937_64 &random, std::vector<int> &moved) const;

  const SchedulingProblem &problem;
  const int n;
  int64_t peak = 0;
  std::vector<int> position, candidates;
  /// Per buffer: the step that allocates it (-1 for a graph input) and its
  /// last reader's step (n when returned).
  std::vector<int> firstWrite, lastRead;
  std::vector<int64_t> usage;
  std::vector<char> isCandidate;
  /// Buffers live across a step at the peak, with the step.
  std::vector<std::pair<int, int>> across;
};

void Neighbourhood::analyze(const std::vector<int> &order) {
  for (int t = 0; t < n; ++t)
    position[order[t]] = t;
  usage = problem.usagesOf(order);
  peak = *std::max_element(usage.begin(), usage.end());
  for (int b = 0, e = static_cast<int>(problem.bytes.size()); b < e; ++b) {
    // A graph input exists from the start.
    firstWrite[b] = problem.producer[b] < 0 ? -1 : n;
    lastRead[b] = problem.returned[b] ? n : -1;
    for (int w : problem.writers[b])
      firstWrite[b] = std::min(firstWrite[b], position[w]);
    for (int r : problem.users[b])
      lastRead[b] = std::max(lastRead[b], position[r]);
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
      if (problem.bytes[b] == 0 || firstWrite[b] >= t || lastRead[b] < t)
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

int Neighbourhood::stepsAtPeak(const std::vector<int> &other) const {
  std::vector<int64_t> usages = problem.usagesOf(other);
  return static_cast<int>(
      std::count_if(usages.begin(), usages.end(),
                    [&](int64_t bytes) { return bytes >= peak; }));
}

void Neighbourhood::chain(const std::vector<int> &order, int buffer, int t,
                          std::mt19937_64 &random,
                          std::vector<int> &moved) const {
  // (node, forward, last position): the node with its descendants (forward)
  // or its ancestors (backward) run between it and the last position.
  struct End {
    int node;
    bool forward;
    int last;
  };
  std::vector<End> ends = {{order[t], true, n - 1}, {order[t], false, 0}};
  for (int w : problem.writers[buffer])
    if (position[w] < t)
      ends.push_back({w, true, t});
  for (int r : problem.users[buffer])
    if (position[r] > t)
      ends.push_back({r, false, t});
  const End end = ends[random() % ends.size()];
  auto take = [&](int v) {
    if (moved.size() < size_t(kMaxReinserted) &&
        std::find(moved.begin(), moved.end(), v) == moved.end())
      moved.push_back(v);
  };
  if (end.forward) {
    for (int p = position[end.node]; p <= end.last; ++p)
      if (order[p] == end.node || problem.isAncestor(end.node, order[p]))
        take(order[p]);
  } else {
    for (int p = position[end.node]; p >= end.last; --p)
      if (order[p] == end.node || problem.isAncestor(order[p], end.node))
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
  // Between 4 and 12 candidates (often unrelated: up to 2^12 sets).
  std::vector<int> shuffled = candidates;
  std::shuffle(shuffled.begin(), shuffled.end(), random);
  const size_t size = std::min<size_t>(shuffled.size(), 4 + random() % 9);
  moved.assign(shuffled.begin(), shuffled.begin() + size);
}

} // namespace

LocalSearchStats improveOrder(const SchedulingProblem &problem,
                              std::vector<int> &order, int64_t &peak,
                              int64_t floor,
                              WorkClock::Point deadline,
                              uint64_t seed) {
  LocalSearchStats stats;
  const int n = problem.numNodes;
  if (n < 3)
    return stats;
  // Ends after kStale rounds without a lower peak: on 60- and 100-node DAGs
  // the last improvement came within 150 rounds, but 100 instead of 200
  // took the 60-node fan-in-6 DAGs of the scale suite from 13.6 to 11.8 s
  // in all, with as many 100-node ones within 5 % of their bound at 10 s
  // (20/30) and the 48-node RandWire stages as fast (the decisions that
  // follow, and the local search after them, find what the last rounds
  // would have). Restarts (from the given
  // order with other random choices, or from the best order) reached other
  // local optima, but at the exact search's expense (measured on the scale
  // suite's 60-node DAGs: 22/30 proven with one descent, 21-22/30 with four
  // or eight, max gap 1.082 against 1.065): the caller runs another descent
  // only when a decision runs out of time.
  constexpr int kStale = 100;
  std::mt19937_64 random(seed);
  Neighbourhood current(problem);
  std::vector<int> moved, better;
  ReinsertionScratch scratch;
  current.analyze(order);
  for (int stale = 0; stale < kStale && peak > floor &&
                      WorkClock::now() < deadline;
       ++stale) {
    ++stats.rounds;
    current.pick(order, random, moved);
    // Orders of equal peak with no more steps at the peak are taken too (a
    // walk along the plateau), so the budget is the peak + 1.
    const int64_t reached =
        reinsertOptimally(problem, order, moved, peak + 1, better, scratch);
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
