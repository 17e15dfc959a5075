//===- ExactSolver.cpp - Branch and bound for one capacity ------*- C++ -*-===//
//
// Decides whether the buffers fit in `capacity` bytes, after the ideas of
// MiniMalloc (Moffitt, ASPLOS 2024):
//
//  - Canonical placements. Pushing every buffer down as far as it goes
//    turns any placement into one where each buffer sits at offset 0 or
//    (aligned) on top of a buffer it overlaps in time. Such a placement can be
//    built by placing buffers in non-decreasing offset order, each at the
//    lowest offset above the placed buffers it overlaps ("min offset"), so
//    the search only chooses the next buffer, never an offset; buffers at
//    equal offsets are placed in a fixed preorder (symmetry breaking).
//  - Section lower bounds. Time is cut into sections at every interval end
//    point. In each section the unplaced buffers still need their summed
//    sizes above the section floor (the top of the placed buffers there,
//    raised to the lowest min offset of its unplaced buffers and, since
//    offsets only grow, to the current offset); a node is pruned when this
//    exceeds the capacity in some section.
//  - Dominance. A buffer is never placed at or above the top that another
//    unplaced buffer would reach at its own min offset: that buffer could
//    drop into the gap left below, so the branch is dominated.
//  - Decomposition. Once no unplaced buffer crosses a section boundary, the
//    two sides are independent and are solved one after the other (a failure
//    on one side cannot be repaired by changing the other).
//  - Dynamic ordering. Candidates are tried by min offset, then by a static
//    preorder; several preorders are run round robin with doubling node
//    limits, because each instance has a preorder that finds it easy.
//
// Every limit is a point on this thread's WorkClock, which counts elementary
// steps (a node, each buffer or section a placement updates, each list entry
// built), so a unit costs about the same time on small and large instances
// and where the search stops depends only on its input.
//
//===----------------------------------------------------------------------===//

#include "Serenity/Allocation/Allocator.h"

#include <algorithm>
#include <deque>
#include <functional>
#include <limits>
#include <numeric>
#include <unordered_set>

using namespace serenity;
using namespace serenity::detail;

namespace {

int64_t alignUp(int64_t value, int64_t alignment) {
  int64_t rem = value % alignment;
  return rem == 0 ? value : value + alignment - rem;
}

/// A set of unplaced buffers confined to the sections [secLo, secHi).
struct Partition {
  std::vector<int> buffers;
  int secLo = 0;
  int secHi = 0;
};

/// A candidate in the dynamic order: its min offset and preorder index.
struct Candidate {
  int64_t offset;
  int preorderIdx;
  bool operator<(const Candidate &o) const {
    return offset != o.offset ? offset < o.offset : preorderIdx < o.preorderIdx;
  }
};

enum class Status { Found, NotFound, Aborted, Stopped };

/// A residual problem: the monotone-order constraint (offset, preorder
/// index) and, per buffer of the partition, -1 if placed or its min offset.
using StateKey = std::vector<int64_t>;
struct StateKeyHash {
  size_t operator()(const StateKey &key) const {
    uint64_t h = 1469598103934665603ull;
    for (int64_t v : key)
      h = (h ^ static_cast<uint64_t>(v)) * 1099511628211ull;
    return static_cast<size_t>(h);
  }
};
using FailureCache = std::unordered_set<StateKey, StateKeyHash>;

/// Total int64 words all failure caches may hold (about 256 MiB).
constexpr size_t kFailureCacheWords = size_t(32) << 20;

/// Static preorders (letters compared in turn, all descending): W = width
/// (lifetime length), A = area (size x width), T = the largest remaining
/// total of any section the buffer spans.
const char *const kPreorders[] = {"WAT", "TAW", "TWA"};

class Solver {
public:
  Solver(const std::vector<AllocBuffer> &buffers, int64_t capacity,
         WorkClock::Point deadline)
      : buffers(buffers), capacity(capacity), deadline(deadline),
        stallCheck(WorkClock::now() + (deadline - WorkClock::now()) / 4) {}

  ExactProbe run();

private:
  /// False when the lists would exceed kMaxListEntries.
  bool buildSections();
  static constexpr int64_t kMaxListEntries = int64_t(1) << 25;
  Status solvePartition(const Partition &p);
  Status search(const Partition &p, const std::vector<int> &preorder,
                const std::vector<Candidate> &parentOrder, int64_t minOffset,
                int minPreorderIdx);
  Status placeAndRecurse(const Partition &p, const std::vector<int> &preorder,
                         const std::vector<Candidate> &order, int64_t offset,
                         int preorderIdx, int b);
  Status decompose(const Partition &p, const std::vector<int> &preorder,
                   const std::vector<Candidate> &order, int64_t offset,
                   int preorderIdx, int b);
  bool boundHolds(const Partition &p, int64_t offset) const;

  const std::vector<AllocBuffer> &buffers;
  const int64_t capacity;
  const WorkClock::Point deadline;
  /// When fewer nodes than buffers have been visited by then, the search
  /// gives up (ExactProbe::stalled).
  const WorkClock::Point stallCheck;
  bool stalled = false;

  int numSections = 0;
  std::vector<int> secLo, secHi;
  std::vector<std::vector<int>> overlaps;
  std::vector<std::vector<int>> sectionBuffers;

  std::vector<int64_t> offset, minOff, solution;
  /// Per section: the floor, the remaining (aligned) sizes, the smallest
  /// alignment and the largest alignment rounding of its buffers.
  std::vector<int64_t> floorOf, totalOf, sectionAlign, sectionSlack;

  /// Bytes buffer `b` spans in a stack of section `s` unless it is on top.
  int64_t sizeIn(int b, int s) const {
    return sectionAlign[s] == 1 ? buffers[b].size
                                : alignUp(buffers[b].size, sectionAlign[s]);
  }
  std::vector<int> cuts;
  std::vector<char> affected;
  std::vector<int> witness;
  /// Undo logs of (index, old value), unwound on backtrack.
  std::vector<std::pair<int, int64_t>> minOffLog, floorLog;
  /// Scratch: sections whose floor may rise after a placement.
  std::vector<int> touched;
  /// Candidate lists by search depth (a deque: growing keeps references).
  std::deque<std::vector<Candidate>> orderPool;
  size_t depth = 0;
  /// Residual problems of the current partition search proven to have no
  /// completion. A canonical completion depends only on the unplaced
  /// buffers' min offsets and the monotone-order constraint (placed buffers
  /// act only through min offsets, since every new buffer goes on top of
  /// them), so a state reached again by another path fails again.
  FailureCache *failures = nullptr;
  size_t cachedWords = 0;
  StateKey key;

  /// The static preorder of the current round (one of kPreorders).
  const char *letters = kPreorders[0];
  int64_t nodes = 0;
  int64_t nodesLeft = 0;
  /// Elementary steps since the last node, counted on the WorkClock at the
  /// next one.
  int64_t work = 0;
};

bool Solver::buildSections() {
  const int n = static_cast<int>(buffers.size());
  std::vector<int64_t> times;
  for (const AllocBuffer &b : buffers) {
    times.push_back(b.lower);
    times.push_back(b.upper);
  }
  std::sort(times.begin(), times.end());
  times.erase(std::unique(times.begin(), times.end()), times.end());
  numSections = std::max<int>(0, static_cast<int>(times.size()) - 1);
  auto indexOf = [&](int64_t t) {
    return static_cast<int>(std::lower_bound(times.begin(), times.end(), t) -
                            times.begin());
  };
  secLo.resize(n);
  secHi.resize(n);
  sectionBuffers.assign(numSections, {});
  floorOf.assign(numSections, 0);
  totalOf.assign(numSections, 0);
  cuts.assign(std::max(0, numSections - 1), 0);
  for (int b = 0; b < n; ++b) {
    secLo[b] = indexOf(buffers[b].lower);
    secHi[b] = indexOf(buffers[b].upper);
  }
  // Buffers by first section; a sweep keeps the ones still live, so each
  // overlapping pair is met once (not all n^2 pairs). The lists it would
  // build are counted first: past kMaxListEntries the search could not
  // place every buffer once anyway, and the lists alone would take
  // gigabytes (100000 buffers of a long random trace).
  std::vector<int> byStart(n);
  std::iota(byStart.begin(), byStart.end(), 0);
  std::stable_sort(byStart.begin(), byStart.end(),
                   [&](int a, int b) { return secLo[a] < secLo[b]; });
  int64_t entries = 0;
  {
    std::vector<int> ends; // secHi of the active buffers, a min-heap
    for (int a : byStart) {
      while (!ends.empty() && ends.front() <= secLo[a]) {
        std::pop_heap(ends.begin(), ends.end(), std::greater<int>());
        ends.pop_back();
      }
      entries += 2 * static_cast<int64_t>(ends.size()) + (secHi[a] - secLo[a]);
      ends.push_back(secHi[a]);
      std::push_heap(ends.begin(), ends.end(), std::greater<int>());
    }
  }
  // Building the lists is part of the work (up to 2^25 units).
  WorkClock::tick(static_cast<int64_t>(n) + entries);
  if (entries > kMaxListEntries)
    return false;
  for (int b = 0; b < n; ++b) {
    for (int s = secLo[b]; s < secHi[b]; ++s)
      sectionBuffers[s].push_back(b);
    for (int s = secLo[b]; s + 1 < secHi[b]; ++s)
      ++cuts[s];
  }
  // Offsets in a section are multiples of its smallest alignment m, so in
  // a stack every buffer but the top one spans alignUp(size, m): totals
  // count aligned sizes and the bound takes back the largest rounding.
  sectionAlign.assign(numSections, 1);
  sectionSlack.assign(numSections, 0);
  for (int s = 0; s < numSections; ++s) {
    int64_t m = std::numeric_limits<int64_t>::max();
    for (int b : sectionBuffers[s])
      m = std::min(m, buffers[b].alignment);
    if (sectionBuffers[s].empty())
      m = 1;
    sectionAlign[s] = m;
    for (int b : sectionBuffers[s]) {
      totalOf[s] += sizeIn(b, s);
      sectionSlack[s] =
          std::max(sectionSlack[s], sizeIn(b, s) - buffers[b].size);
    }
  }
  overlaps.assign(n, {});
  std::vector<int> active;
  for (int a : byStart) {
    size_t kept = 0;
    for (int b : active)
      if (secHi[b] > secLo[a])
        active[kept++] = b;
    active.resize(kept);
    for (int b : active) {
      overlaps[a].push_back(b);
      overlaps[b].push_back(a);
    }
    active.push_back(a);
  }
  // In increasing order, as the search has always met them.
  for (std::vector<int> &list : overlaps)
    std::sort(list.begin(), list.end());
  return true;
}

bool Solver::boundHolds(const Partition &p, int64_t offset) const {
  for (int s = p.secLo; s < p.secHi; ++s)
    if (floorOf[s] > capacity ||
        (totalOf[s] > 0 &&
         alignUp(std::max(offset, floorOf[s]), sectionAlign[s]) + totalOf[s] -
                 sectionSlack[s] >
             capacity))
      return false;
  return true;
}

Status Solver::solvePartition(const Partition &p) {
  struct Key {
    int64_t width, area, total;
    int b;
  };
  std::vector<Key> keys;
  keys.reserve(p.buffers.size());
  for (int b : p.buffers) {
    work += 1 + secHi[b] - secLo[b];
    int64_t total = 0;
    for (int s = secLo[b]; s < secHi[b]; ++s)
      total = std::max(total, totalOf[s]);
    int64_t width = buffers[b].upper - buffers[b].lower;
    keys.push_back({width, width * buffers[b].size, total, b});
  }
  std::sort(keys.begin(), keys.end(), [&](const Key &x, const Key &y) {
    for (const char *c = letters; *c; ++c) {
      int64_t kx = *c == 'W' ? x.width : *c == 'A' ? x.area : x.total;
      int64_t ky = *c == 'W' ? y.width : *c == 'A' ? y.area : y.total;
      if (kx != ky)
        return kx > ky;
    }
    return x.b < y.b;
  });
  std::vector<int> preorder;
  std::vector<Candidate> order;
  for (const Key &k : keys) {
    order.push_back({0, static_cast<int>(preorder.size())});
    preorder.push_back(k.b);
  }
  FailureCache cache;
  FailureCache *outer = failures;
  failures = &cache;
  Status st = search(p, preorder, order, 0, 0);
  failures = outer;
  for (const StateKey &k : cache)
    cachedWords -= k.size();
  return st;
}

Status Solver::search(const Partition &p, const std::vector<int> &preorder,
                      const std::vector<Candidate> &parentOrder,
                      int64_t minOffset, int minPreorderIdx) {
  if (--nodesLeft < 0)
    return Status::Aborted;
  // A node costs its key and candidate list (one step per buffer of the
  // partition) plus the placement work since the last node (in proportion
  // to the buffers and sections it touched: thousands with long-lived
  // buffers).
  ++nodes;
  WorkClock::tick(1 + static_cast<int64_t>(p.buffers.size()) + work);
  work = 0;
  const WorkClock::Point now = WorkClock::now();
  stalled = now > stallCheck && nodes < static_cast<int64_t>(buffers.size());
  if (now >= deadline || stalled)
    return Status::Stopped;
  // One candidate list per depth, reused across siblings to avoid churn.
  if (depth == orderPool.size())
    orderPool.emplace_back();
  std::vector<Candidate> &order = orderPool[depth];
  order.clear();
  key.clear();
  key.push_back(minOffset);
  key.push_back(minPreorderIdx);
  for (int b : p.buffers)
    key.push_back(offset[b] >= 0 ? -1 : minOff[b]);
  if (failures->count(key))
    return Status::NotFound;
  for (const Candidate &c : parentOrder) {
    int b = preorder[c.preorderIdx];
    if (offset[b] < 0)
      order.push_back({minOff[b], c.preorderIdx});
  }
  if (order.empty())
    return Status::Found;
  std::sort(order.begin(), order.end());
  int64_t minHeight = std::numeric_limits<int64_t>::max();
  for (const Candidate &c : order)
    minHeight =
        std::min(minHeight, c.offset + buffers[preorder[c.preorderIdx]].size);
  for (const Candidate &c : order) {
    if (c.offset >= minHeight)
      break;
    if (c.offset < minOffset ||
        (c.offset == minOffset && c.preorderIdx < minPreorderIdx))
      continue;
    ++depth;
    Status st = placeAndRecurse(p, preorder, order, c.offset, c.preorderIdx,
                                preorder[c.preorderIdx]);
    --depth;
    if (st != Status::NotFound)
      return st;
  }
  // `key` was overwritten by the children: rebuild it.
  if (cachedWords + p.buffers.size() + 2 <= kFailureCacheWords) {
    key.clear();
    key.push_back(minOffset);
    key.push_back(minPreorderIdx);
    for (int b : p.buffers)
      key.push_back(offset[b] >= 0 ? -1 : minOff[b]);
    if (failures->insert(key).second)
      cachedWords += key.size();
  }
  return Status::NotFound;
}

Status Solver::placeAndRecurse(const Partition &p,
                               const std::vector<int> &preorder,
                               const std::vector<Candidate> &order, int64_t at,
                               int preorderIdx, int b) {
  const int64_t top = at + buffers[b].size;
  offset[b] = at;
  work += static_cast<int64_t>(overlaps[b].size()) + (secHi[b] - secLo[b]);
  const size_t minOffMark = minOffLog.size(), floorMark = floorLog.size();
  touched.clear();
  for (int o : overlaps[b]) {
    if (offset[o] >= 0)
      continue;
    int64_t align = buffers[o].alignment;
    int64_t raised = align == 1 ? top : alignUp(top, align);
    if (minOff[o] >= raised)
      continue;
    minOffLog.push_back({o, minOff[o]});
    minOff[o] = raised;
    work += secHi[o] - secLo[o];
    for (int s = secLo[o]; s < secHi[o]; ++s)
      if (!affected[s]) {
        affected[s] = 1;
        touched.push_back(s);
      }
  }
  for (int s = secLo[b]; s < secHi[b]; ++s) {
    floorLog.push_back({s, floorOf[s]});
    floorOf[s] = top;
    totalOf[s] -= sizeIn(b, s);
  }
  // No unplaced buffer of a section can go below its smallest min offset.
  // Any unplaced buffer at or below the floor proves nothing changes; the
  // last such witness is tried first (a hint only, so it needs no undo).
  for (int s : touched) {
    affected[s] = 0;
    int w = witness[s];
    if (offset[w] < 0 && minOff[w] <= floorOf[s])
      continue;
    int64_t lowest = std::numeric_limits<int64_t>::max();
    work += static_cast<int64_t>(sectionBuffers[s].size());
    for (int o : sectionBuffers[s]) {
      if (offset[o] >= 0)
        continue;
      if (minOff[o] <= floorOf[s]) {
        witness[s] = o;
        lowest = std::numeric_limits<int64_t>::max();
        break;
      }
      lowest = std::min(lowest, minOff[o]);
    }
    if (lowest != std::numeric_limits<int64_t>::max()) {
      floorLog.push_back({s, floorOf[s]});
      floorOf[s] = lowest;
    }
  }
  Status st = Status::NotFound;
  work += p.secHi - p.secLo;
  if (boundHolds(p, at))
    st = decompose(p, preorder, order, at, preorderIdx, b);
  while (floorLog.size() > floorMark) {
    floorOf[floorLog.back().first] = floorLog.back().second;
    floorLog.pop_back();
  }
  for (int s = secLo[b]; s < secHi[b]; ++s)
    totalOf[s] += sizeIn(b, s);
  while (minOffLog.size() > minOffMark) {
    minOff[minOffLog.back().first] = minOffLog.back().second;
    minOffLog.pop_back();
  }
  offset[b] = -1;
  return st;
}

Status Solver::decompose(const Partition &p, const std::vector<int> &preorder,
                         const std::vector<Candidate> &order, int64_t at,
                         int preorderIdx, int b) {
  // Recorded now: the successful path is the last to write every entry.
  solution[b] = at;
  std::vector<int> cutPoints = {p.secLo};
  for (int s = secLo[b]; s + 1 < secHi[b]; ++s)
    if (--cuts[s] == 0)
      cutPoints.push_back(s + 1);
  Status st = Status::Found;
  if (cutPoints.size() == 1) {
    st = search(p, preorder, order, at, preorderIdx);
  } else {
    cutPoints.push_back(p.secHi);
    for (size_t k = 1; k < cutPoints.size() && st == Status::Found; ++k) {
      work += static_cast<int64_t>(p.buffers.size());
      Partition sub;
      sub.secLo = cutPoints[k - 1];
      sub.secHi = cutPoints[k];
      for (int o : p.buffers)
        if (offset[o] < 0 && secLo[o] < sub.secHi && sub.secLo < secHi[o])
          sub.buffers.push_back(o);
      if (sub.buffers.empty())
        continue;
      st = solvePartition(sub);
    }
  }
  for (int s = secLo[b]; s + 1 < secHi[b]; ++s)
    ++cuts[s];
  return st;
}

ExactProbe Solver::run() {
  const int n = static_cast<int>(buffers.size());
  if (!buildSections()) {
    ExactProbe result;
    result.outcome = ExactProbe::Outcome::Stopped;
    result.stalled = true;
    result.listsTooLarge = true;
    return result;
  }
  offset.assign(n, -1);
  minOff.assign(n, 0);
  solution.assign(n, 0);
  affected.assign(numSections, 0);
  witness.assign(numSections, 0);
  for (int s = 0; s < numSections; ++s)
    witness[s] = sectionBuffers[s].empty() ? 0 : sectionBuffers[s].front();

  // Initial partitions: maximal section ranges with no boundary crossed.
  std::vector<Partition> partitions;
  {
    int start = 0;
    for (int s = 0; s < numSections; ++s)
      if (s + 1 == numSections || cuts[s] == 0) {
        Partition p;
        p.secLo = start;
        p.secHi = s + 1;
        partitions.push_back(p);
        start = s + 1;
      }
    for (int b = 0; b < n; ++b) {
      auto it = std::upper_bound(
          partitions.begin(), partitions.end(), secLo[b],
          [](int s, const Partition &p) { return s < p.secLo; });
      (it - 1)->buffers.push_back(b);
    }
  }

  ExactProbe result;
  for (const Partition &p : partitions) {
    if (p.buffers.empty())
      continue;
    Status st = Status::Aborted;
    for (int64_t limit = 2 * static_cast<int64_t>(p.buffers.size());
         st == Status::Aborted; limit *= 2) {
      for (const char *preorder : kPreorders) {
        nodesLeft = limit;
        letters = preorder;
        st = solvePartition(p);
        if (st != Status::Aborted)
          break;
      }
    }
    // The steps after the last node count too.
    WorkClock::tick(work);
    work = 0;
    if (st != Status::Found) {
      result.outcome = st == Status::Stopped ? ExactProbe::Outcome::Stopped
                                             : ExactProbe::Outcome::Infeasible;
      result.nodes = nodes;
      result.stalled = stalled;
      return result;
    }
  }
  result.outcome = ExactProbe::Outcome::Found;
  result.offsets = solution;
  result.nodes = nodes;
  return result;
}

} // namespace

ExactProbe serenity::detail::solveExact(const std::vector<AllocBuffer> &buffers,
                                        int64_t capacity,
                                        WorkClock::Point deadline) {
  return Solver(buffers, capacity, deadline).run();
}
