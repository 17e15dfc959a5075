//===- ExactSearch.cpp - Search over scheduled-set signatures ---*- C++ -*-===//
//
// Two searches share one state table keyed by the scheduled-set bitset:
// best-first (A* on the bottleneck cost max(peak so far, bound of the rest))
// and a budgeted depth-first search used by adaptive soft budgeting.
//
// Pruning that keeps the searches exact:
//  - remainingBound(S) = max over unscheduled v of stepBound[v] (nodeBound
//    or the minimum-cut bound of CutBound.h) is a lower bound on the peak of
//    any completion of S; load() strengthens it with nodeBound[v] plus the
//    live buffers of unrelated executed nodes that a descendant of v still
//    needs. States with max(peak so far, bound) at or above the
//    budget are dropped. The depth-first search carries those sums from a
//    set to its child (loadDepthFirst: only buffers the child's node writes
//    or reads change liveness) and undoes them as it backtracks; the same
//    bounds, without summing over every live buffer per state.
//  - Eager execution (what lets chains run as segments inside the search):
//    if a ready node v does not grow the live bytes
//    (keptBytes(v, S) <= freed bytes) and its step usage is at most
//    max(peak so far, bound of S, floor), then some best completion
//    of S starts with v. Proof: in any completion, moving v to the front only
//    lowers the usage of the steps it overtakes: such a step w runs after
//    some T ⊇ S and used live(T) + newBytes(w, T); it now uses
//    live(T+v) + newBytes(w, T+v), where newBytes(w, T+v) <= newBytes(w, T)
//    (a buffer v also writes may no longer be w's to allocate) and
//    live(T+v) - live(T) = keptBytes(v, T) - freed_T(v) <= keptBytes(v, S) -
//    freed_S(v) <= 0, since kept only shrinks and freed only grows with T
//    (this includes the buffers v now allocates before w). Later steps are
//    unchanged, and v's own step stays within a value the completion
//    reaches anyway. The depth-first search, which wants any completion
//    within tau, takes tau as that value.
//  - Eager pairs, when no node is eager by itself: a ready v that grows the
//    live bytes, then a successor w whose other predecessors have run and
//    which takes them back to at most live(S), both steps within the same
//    value: some best completion of S starts with v, w. This is the case
//    D = {v, w} of a rule on node sets: if S + D is predecessor-closed, no
//    sub-ideal D' of D (S + D' closed, D' != D) has live(S + D') <
//    live(S + D) (D ends in a valley; here: live(S + v + w) <= live(S) <
//    live(S + v)), and some order of D from S keeps its steps within the
//    value, then some best completion of S starts with that order. Proof:
//    in any completion, move D's nodes to the front. A step u of another
//    node ran after S + P + D', with P the other nodes before it and D' the
//    nodes of D before it; S + D' is closed (D's predecessors lie in S + D
//    and ran before), and u now runs after S + P + D. A buffer is live when
//    allocated (a writer ran) and needed (a reader has not, or returned);
//    for X = D - D', disjoint from T, live(T + X) - live(T) only falls as T
//    grows (a buffer X allocates is needed by fewer outside readers, and a
//    buffer X frees keeps a reader in X, so it is live in every such T that
//    allocated it). Hence live(S + P + D) - live(S + P + D') <=
//    live(S + D) - live(S + D') <= 0, newBytes(u, .) only falls, and no
//    other step grows; D's steps stay within the value. The single-node
//    rule is the case D = {v}. (Sets of up to 4 nodes - a node and its
//    unrun ancestors - pruned about as many states on the 60-node fan-in-6
//    DAGs, but testing them in every state cost more than they saved.)
//
//===----------------------------------------------------------------------===//

#include "ExactSearch.h"

#include <algorithm>
#include <limits>
#include <numeric>
#include <queue>

namespace serenity {
namespace detail {

ExactSearch::ExactSearch(const SchedulingProblem &problem, int64_t stateLimit,
                         WorkClock::Point deadline)
    : problem(problem), words(std::max(1, (problem.numNodes + 63) / 64)),
      stateLimit(std::max<int64_t>(stateLimit, 1)),
      expansionWork(1 + problem.numNodes / 32), deadline(deadline),
      states(words), scheduled(problem.numNodes, 0), scratchBits(words, 0),
      extraBytes(problem.numNodes, 0), unscheduledPositions(problem.numNodes) {
  for (int b = 0, e = static_cast<int>(problem.bytes.size()); b < e; ++b) {
    if (problem.producer[b] < 0 || problem.bytes[b] == 0)
      continue;
    const std::vector<int> &writers = problem.writers[b];
    counted.push_back({b, problem.bytes[b], problem.returned[b] != 0,
                       writers.size() == 1 ? writers[0] : -1});
    // One row of `words` words per counted buffer.
    auto addRow = [&](std::vector<uint64_t> &masks,
                      const std::vector<int> &nodes) {
      masks.resize(counted.size() * words, 0);
      uint64_t *row = &masks[(counted.size() - 1) * words];
      for (int v : nodes)
        row[v >> 6] |= uint64_t(1) << (v & 63);
    };
    addRow(writerMasks, writers);
    addRow(userMasks, problem.users[b]);
  }
  countedOf.resize(problem.numNodes);
  carrySurvives = problem.numNodes > 0;
  for (size_t i = 0; i < counted.size(); ++i) {
    const int b = counted[i].buffer;
    carrySurvives = carrySurvives && !problem.survives[b].empty();
    for (const std::vector<int> *nodes :
         {&problem.writers[b], &problem.users[b]})
      for (int v : *nodes)
        if (countedOf[v].empty() || countedOf[v].back() != static_cast<int>(i))
          countedOf[v].push_back(static_cast<int>(i));
  }
  classesOf.resize(problem.numNodes);
  memberIn.resize(problem.numNodes);
  for (int c = 0, e = static_cast<int>(problem.symmetricClasses.size()); c < e;
       ++c)
    for (int i = 0, m = static_cast<int>(problem.symmetricClasses[c].size());
         i < m; ++i)
      for (int v : problem.symmetricClasses[c][i]) {
        classesOf[v].push_back(c);
        memberIn[v].push_back(i);
      }
}

void ExactSearch::reset() {
  states.clear();
  bestPeak.clear();
  liveBytes.clear();
  parent.clear();
  deadValue.clear();
  lastNode.clear();
  depth.clear();
  created = 0;
  limitHit = false;
}

static uint64_t hashSignature(const uint64_t *bits, int words) {
  uint64_t h = 0x243F6A8885A308D3ULL;
  for (int w = 0; w < words; ++w) {
    h ^= bits[w] + 0x9E3779B97F4A7C15ULL + (h << 6) + (h >> 2);
    h *= 0xBF58476D1CE4E5B9ULL;
    h ^= h >> 31;
  }
  return h;
}

SignatureSet::SignatureSet(int words) : words(words) { clear(); }

void SignatureSet::clear() {
  count = 0;
  signatures.clear();
  table.assign(1024, Slot{-1, 0});
}

size_t SignatureSet::slotOf(const uint64_t *bits, uint64_t hash) const {
  const size_t mask = table.size() - 1;
  const uint32_t tag = static_cast<uint32_t>(hash >> 32);
  size_t slot = hash & mask;
  while (table[slot].index != -1) {
    if (table[slot].tag == tag) {
      const uint64_t *other = (*this)[table[slot].index];
      int w = 0;
      while (w < words && bits[w] == other[w])
        ++w;
      if (w == words)
        return slot;
    }
    slot = (slot + 1) & mask;
  }
  return slot;
}

int SignatureSet::find(const uint64_t *bits) const {
  return table[slotOf(bits, hashSignature(bits, words))].index;
}

int SignatureSet::findOrInsert(const uint64_t *bits, bool &inserted) {
  const uint64_t hash = hashSignature(bits, words);
  const size_t slot = slotOf(bits, hash);
  inserted = table[slot].index == -1;
  if (!inserted)
    return table[slot].index;
  table[slot] = Slot{count, static_cast<uint32_t>(hash >> 32)};
  signatures.insert(signatures.end(), bits, bits + words);
  if (++count * size_t(2) > table.size())
    grow();
  return count - 1;
}

void SignatureSet::grow() {
  table.assign(table.size() * 2, Slot{-1, 0});
  const size_t mask = table.size() - 1;
  for (int i = 0; i < count; ++i) {
    const uint64_t hash = hashSignature((*this)[i], words);
    size_t slot = hash & mask;
    while (table[slot].index != -1)
      slot = (slot + 1) & mask;
    table[slot] = Slot{i, static_cast<uint32_t>(hash >> 32)};
  }
}

DeadStates::DeadStates(int numNodes, int64_t capacity)
    : capacity(std::max<int64_t>(capacity, 0)),
      sets(std::max(1, (numNodes + 63) / 64)) {}

int64_t DeadStates::deadAt(const uint64_t *bits) const {
  if (taus.empty())
    return -1;
  const int i = sets.find(bits);
  return i < 0 ? -1 : taus[i];
}

void DeadStates::record(const uint64_t *bits, int64_t tau) {
  bool inserted = false;
  const int i =
      size() < capacity ? sets.findOrInsert(bits, inserted) : sets.find(bits);
  if (inserted)
    taus.push_back(tau);
  else if (i >= 0)
    taus[i] = std::max(taus[i], tau);
}

int ExactSearch::findOrInsert(const uint64_t *bits, bool &inserted) {
  const int state = states.findOrInsert(bits, inserted);
  if (inserted) {
    bestPeak.push_back(0);
    liveBytes.push_back(0);
    parent.push_back(-1);
    deadValue.push_back(0);
    lastNode.push_back(-1);
    depth.push_back(0);
    ++created;
  }
  return state;
}

bool ExactSearch::outOfBudget() {
  if (created >= stateLimit)
    limitHit = true;
  // An expansion's cost grows with the graph (its candidates, signature
  // words, bounds): on the scale suite about linearly (docs/Scheduling.md,
  // work limits).
  WorkClock::tick(expansionWork);
  if (!limitHit && WorkClock::now() >= deadline)
    limitHit = true;
  return limitHit;
}

int64_t ExactSearch::remainingBound(const uint64_t *bits) const {
  for (int v : problem.byBound)
    if (!isScheduled(bits, v))
      return problem.stepBound[v];
  return 0;
}

bool ExactSearch::intersects(const std::vector<uint64_t> &masks, size_t i,
                             const uint64_t *bits) const {
  const uint64_t *mask = &masks[i * words];
  for (int w = 0; w < words; ++w)
    if (mask[w] & bits[w])
      return true;
  return false;
}

bool ExactSearch::containedIn(const std::vector<uint64_t> &masks, size_t i,
                              const uint64_t *bits) const {
  const uint64_t *mask = &masks[i * words];
  for (int w = 0; w < words; ++w)
    if (mask[w] & ~bits[w])
      return false;
  return true;
}

int64_t ExactSearch::load(int state, int64_t atMost) {
  const uint64_t *bits = signature(state);
  for (int v = 0; v < problem.numNodes; ++v)
    scheduled[v] = isScheduled(bits, v);
  // Buffers of scheduled nodes that are still needed: allocated once any
  // writer has run, needed while a reader has not (or returned).
  liveList.clear();
  int64_t liveProduced = 0;
  for (size_t i = 0, e = counted.size(); i < e; ++i) {
    if (isLive(bits, i)) {
      liveList.push_back(counted[i].buffer);
      liveProduced += counted[i].bytes;
    }
  }
  // nodeBound[v] already counts v's uses and its ancestors' buffers needed
  // after it; add the live buffers of other nodes that must survive v.
  const int64_t staticBound = remainingBound(bits);
  if (staticBound + liveProduced <= atMost)
    return staticBound;
  unscheduledPositions.clear();
  for (int pos = 0; pos < problem.numNodes; ++pos)
    if (!scheduled[problem.topo[pos]]) {
      unscheduledPositions.set(pos);
      extraBytes[pos] = 0;
    }
  for (int b : liveList) {
    if (problem.survives[b].empty())
      return staticBound;
    int64_t size = problem.bytes[b];
    problem.survives[b].forEachIn(unscheduledPositions,
                                  [&](int pos) { extraBytes[pos] += size; });
  }
  return survivingBound(staticBound, unscheduledPositions, extraBytes);
}

int64_t ExactSearch::survivingBound(int64_t staticBound,
                                    const Bits &unscheduled,
                                    const std::vector<int64_t> &extra) const {
  int64_t best = staticBound;
  unscheduled.forEach([&](int pos) {
    best = std::max(best, problem.nodeBound[problem.topo[pos]] + extra[pos]);
  });
  return best;
}

int64_t ExactSearch::loadDepthFirst(int state, int64_t atMost, int node) {
  if (!carrySurvives)
    return load(state, atMost);
  const uint64_t *bits = signature(state);
  if (dfs.frames.empty() || node < 0) {
    recomputeSurvivors(bits);
  } else {
    // Only `node` is newly scheduled, and only the buffers it writes or
    // reads can change; the changes are undone when the frame is left
    // (leaveFrame).
    scheduled[node] = 1;
    dfs.unscheduled.reset(problem.position[node]);
    const uint64_t *before = signature(dfs.frames.back().state);
    for (int i : countedOf[node])
      if (const bool live = isLive(bits, i); live != isLive(before, i)) {
        const int64_t bytes = live ? counted[i].bytes : -counted[i].bytes;
        addSurvivor(i, bytes);
        dfs.changes.emplace_back(i, bytes);
      }
  }
  const int64_t staticBound = remainingBound(bits);
  if (staticBound + dfs.produced <= atMost)
    return staticBound;
  return survivingBound(staticBound, dfs.unscheduled, dfs.extra);
}

void ExactSearch::addSurvivor(size_t i, int64_t bytes) {
  // Over every position (only the unscheduled ones are read): a buffer's
  // survive set does not depend on the scheduled set.
  dfs.produced += bytes;
  problem.survives[counted[i].buffer].forEach(
      [&](int pos) { dfs.extra[pos] += bytes; });
}

void ExactSearch::recomputeSurvivors(const uint64_t *bits) {
  const int n = problem.numNodes;
  dfs.unscheduled = Bits(n);
  for (int pos = 0; pos < n; ++pos) {
    const int v = problem.topo[pos];
    scheduled[v] = isScheduled(bits, v);
    if (!scheduled[v])
      dfs.unscheduled.set(pos);
  }
  dfs.extra.assign(n, 0);
  dfs.produced = 0;
  for (size_t i = 0, e = counted.size(); i < e; ++i)
    if (isLive(bits, i))
      addSurvivor(i, counted[i].bytes);
}

void ExactSearch::leaveFrame() {
  const Frame frame = dfs.frames.back();
  dfs.frames.pop_back();
  if (!carrySurvives || dfs.frames.empty())
    return;
  if (frame.recomputed) {
    recomputeSurvivors(signature(dfs.frames.back().state));
  } else {
    for (size_t c = dfs.changes.size(); c-- > frame.changes;)
      addSurvivor(dfs.changes[c].first, -dfs.changes[c].second);
    dfs.changes.resize(frame.changes);
    const int node = lastNode[frame.state];
    scheduled[node] = 0;
    dfs.unscheduled.set(problem.position[node]);
  }
  if (checkedBounds)
    checkedBounds->mismatches +=
        !survivorsMatch(signature(dfs.frames.back().state));
}

bool ExactSearch::survivorsMatch(const uint64_t *bits) {
  if (!carrySurvives)
    return true;
  const std::vector<int64_t> extra = dfs.extra;
  const int64_t produced = dfs.produced;
  const std::vector<char> flags = scheduled;
  const Bits unscheduled = dfs.unscheduled;
  recomputeSurvivors(bits);
  bool same = produced == dfs.produced && flags == scheduled &&
              unscheduled == dfs.unscheduled;
  for (int pos = 0; pos < problem.numNodes; ++pos)
    same = same && (isScheduled(bits, problem.topo[pos]) ||
                    extra[pos] == dfs.extra[pos]);
  dfs.extra = extra;
  dfs.produced = produced;
  scheduled = flags;
  dfs.unscheduled = unscheduled;
  return same;
}

bool ExactSearch::expand(int64_t peak, int64_t live, int64_t bound,
                         int64_t floor, std::vector<Expansion> &children,
                         bool liveFirst) {
  children.clear();
  const int64_t threshold = std::max({peak, bound, floor});
  for (int v = 0; v < problem.numNodes; ++v) {
    if (scheduled[v] || !isReady(v))
      continue;
    int64_t usage = live + problem.newBytes(v, scheduled);
    int64_t freed = problem.freedBytes(v, scheduled);
    int64_t kept = problem.keptBytes(v, scheduled);
    Expansion child{v, std::max(peak, usage), live - freed + kept};
    if (usage <= threshold && kept <= freed) {
      children.assign(1, child);
      return true;
    }
    children.push_back(child);
  }
  for (const Expansion &child : children)
    if (eagerPair(child, live, threshold)) {
      children.assign(1, child);
      return true;
    }
  // The depth-first search tries the children that leave the fewest live
  // bytes first: an order within tau is found sooner (100-node fan-in-6
  // DAG of seed 21 at 10 s: 6131712 bytes against 6885376 by increasing
  // step; docs/Scheduling.md).
  std::sort(children.begin(), children.end(),
            [liveFirst](const Expansion &a, const Expansion &b) {
              if (liveFirst && a.live != b.live)
                return a.live < b.live;
              if (a.peak != b.peak)
                return a.peak < b.peak;
              if (a.live != b.live)
                return a.live < b.live;
              return a.node < b.node;
            });
  return false;
}

bool ExactSearch::eagerPair(const Expansion &child, int64_t live,
                            int64_t threshold) {
  const int v = child.node;
  // v's step, then a successor w whose other predecessors have run and
  // which takes the live bytes back to at most live(S), each step within
  // threshold: then S + v + w is a valley (live(S + v + w) <= live(S),
  // live(S + v)), and some best completion starts with v, w.
  if (child.live <= live || child.peak > threshold)
    return false;
  scheduled[v] = 1;
  bool eager = false;
  for (int w : problem.succs[v]) {
    if (!isReady(w))
      continue;
    const int64_t after = child.live + problem.keptBytes(w, scheduled) -
                          problem.freedBytes(w, scheduled);
    if (after <= live &&
        child.live + problem.newBytes(w, scheduled) <= threshold) {
      eager = true;
      break;
    }
  }
  scheduled[v] = 0;
  return eager;
}

std::optional<std::pair<int, int64_t>>
ExactSearch::eagerChild(const std::vector<char> &set, int64_t threshold) {
  std::fill(scheduled.begin(), scheduled.end(), 0);
  int64_t live = problem.initialLive;
  for (int v : problem.topo)
    if (set[v]) {
      live +=
          problem.keptBytes(v, scheduled) - problem.freedBytes(v, scheduled);
      scheduled[v] = 1;
    }
  std::vector<Expansion> children;
  if (!expand(0, live, threshold, threshold, children))
    return std::nullopt;
  return std::make_pair(children[0].node, children[0].peak);
}

void ExactSearch::canonicalize(uint64_t *bits, std::vector<int> *mapping,
                               int added) const {
  if (mapping) {
    mapping->resize(problem.numNodes);
    std::iota(mapping->begin(), mapping->end(), 0);
  }
  std::vector<std::pair<uint64_t, int>> &keys = classKeys;
  auto patternOf = [&](const std::vector<int> &member) {
    uint64_t key = 0;
    for (int k = 0, n = static_cast<int>(member.size()); k < n; ++k)
      if (isScheduled(bits, member[k]))
        key |= uint64_t(1) << k;
    return key;
  };
  auto write = [&](const std::vector<int> &slot, uint64_t key) {
    for (int k = 0, n = static_cast<int>(slot.size()); k < n; ++k) {
      int node = slot[k];
      if ((key >> k) & 1)
        bits[node >> 6] |= uint64_t(1) << (node & 63);
      else
        bits[node >> 6] &= ~(uint64_t(1) << (node & 63));
    }
  };
  if (added >= 0) {
    // A canonical state plus `added`: only the member holding it grew, so
    // it moves up past the members now below it (what the full sort below
    // would do). Inner classes permute inside one outer member, which
    // therefore still holds `added`.
    for (size_t t = 0; t < classesOf[added].size(); ++t) {
      const std::vector<std::vector<int>> &members =
          problem.symmetricClasses[classesOf[added][t]];
      int j = memberIn[added][t], p = j;
      uint64_t grown = patternOf(members[j]);
      keys.clear();
      while (p > 0) {
        uint64_t before = patternOf(members[p - 1]);
        if (before >= grown)
          break;
        keys.emplace_back(before, p - 1);
        --p;
      }
      if (p == j)
        continue;
      write(members[p], grown);
      for (const std::pair<uint64_t, int> &moved : keys)
        write(members[moved.second + 1], moved.first);
    }
    return;
  }
  for (const std::vector<std::vector<int>> &members :
       problem.symmetricClasses) {
    keys.clear();
    bool sorted = true;
    for (int i = 0, e = static_cast<int>(members.size()); i < e; ++i) {
      uint64_t key = patternOf(members[i]);
      sorted = sorted && (i == 0 || keys.back().first >= key);
      keys.emplace_back(key, i);
    }
    if (sorted && !mapping)
      continue;
    // Decreasing patterns; equal ones keep their members.
    std::sort(keys.begin(), keys.end(),
              [](const std::pair<uint64_t, int> &a,
                 const std::pair<uint64_t, int> &b) {
                return a.first > b.first ||
                       (a.first == b.first && a.second < b.second);
              });
    for (int i = 0, e = static_cast<int>(members.size()); i < e; ++i)
      write(members[i], keys[i].first);
    if (mapping) {
      // Compose: a node at slot member j, position k is now at slot i.
      std::vector<int> moved(problem.numNodes, -1);
      for (int i = 0, e = static_cast<int>(members.size()); i < e; ++i)
        for (int k = 0, n = static_cast<int>(members[i].size()); k < n; ++k)
          moved[members[keys[i].second][k]] = members[i][k];
      for (int &position : *mapping)
        if (moved[position] >= 0)
          position = moved[position];
    }
  }
}

const uint64_t *ExactSearch::childSignature(int node) {
  if (classesOf[node].empty())
    return scratchBits.data();
  canonicalBits = scratchBits;
  canonicalize(canonicalBits.data(), nullptr, node);
  return canonicalBits.data();
}

std::vector<int> ExactSearch::pathTo(int state) {
  std::vector<int> steps;
  for (int s = state; parent[s] != -1; s = parent[s])
    steps.push_back(lastNode[s]);
  std::reverse(steps.begin(), steps.end());
  if (problem.symmetricClasses.empty())
    return steps;
  // Each step ran a node from a stored (canonical) state, whose child was
  // stored canonicalized. Replay them: `real[x]` is the node that the
  // stored state's node x stands for in the order being built.
  std::vector<int> real(problem.numNodes), order, mapping;
  std::iota(real.begin(), real.end(), 0);
  std::vector<uint64_t> bits(words, 0);
  for (int node : steps) {
    order.push_back(real[node]);
    bits[node >> 6] |= uint64_t(1) << (node & 63);
    canonicalize(bits.data(), &mapping);
    std::vector<int> next(problem.numNodes);
    for (int x = 0; x < problem.numNodes; ++x)
      next[mapping[x]] = real[x];
    real = std::move(next);
  }
  return order;
}

int ExactSearch::resetToRoot() {
  reset();
  std::fill(scratchBits.begin(), scratchBits.end(), 0);
  bool inserted;
  int root = findOrInsert(scratchBits.data(), inserted);
  liveBytes[root] = problem.initialLive;
  return root;
}

SearchResult ExactSearch::bestFirst(int64_t budget, int64_t floor) {
  SearchResult result;
  int root = resetToRoot();

  struct Entry {
    int64_t key;
    int64_t peak;
    int depth;
    int state;
  };
  auto later = [](const Entry &a, const Entry &b) {
    if (a.key != b.key)
      return a.key > b.key;
    if (a.depth != b.depth)
      return a.depth < b.depth;
    return a.state > b.state;
  };
  std::priority_queue<Entry, std::vector<Entry>, decltype(later)> open(later);
  int64_t rootBound = remainingBound(scratchBits.data());
  if (rootBound < budget)
    open.push({std::max(rootBound, floor), 0, 0, root});

  int64_t proven = problem.staticBound;
  std::vector<Expansion> children;
  while (!open.empty()) {
    Entry top = open.top();
    open.pop();
    if (top.peak > bestPeak[top.state])
      continue;
    if (top.key > floor)
      proven = std::max(proven, top.key);
    if (depth[top.state] == problem.numNodes) {
      result.outcome = SearchOutcome::Found;
      result.order = pathTo(top.state);
      result.peak = top.peak;
      result.lowerBound = top.peak > floor ? top.peak : problem.staticBound;
      result.states = created;
      return result;
    }
    if (outOfBudget()) {
      result.outcome = SearchOutcome::Limit;
      result.lowerBound = std::min(proven, budget);
      result.states = created;
      result.stateLimited = created >= stateLimit;
      return result;
    }
    int64_t bound = load(top.state, top.key);
    int64_t f = std::max(top.peak, bound);
    if (f >= budget)
      continue;
    // The stronger bound moves the state back in the queue once.
    if (std::max(f, floor) > top.key) {
      open.push({std::max(f, floor), top.peak, top.depth, top.state});
      continue;
    }
    expand(bestPeak[top.state], liveBytes[top.state], bound, floor, children);
    const uint64_t *bits = signature(top.state);
    std::copy(bits, bits + words, scratchBits.begin());
    const int childDepth = depth[top.state] + 1;
    for (const Expansion &child : children) {
      scratchBits[child.node >> 6] |= uint64_t(1) << (child.node & 63);
      // States that cannot beat the budget are not even stored.
      int64_t f = std::max(child.peak, remainingBound(scratchBits.data()));
      if (f < budget) {
        bool inserted;
        int next = findOrInsert(childSignature(child.node), inserted);
        if (inserted || child.peak < bestPeak[next]) {
          bestPeak[next] = child.peak;
          liveBytes[next] = child.live;
          parent[next] = top.state;
          lastNode[next] = child.node;
          depth[next] = childDepth;
          open.push({std::max(f, floor), child.peak, childDepth, next});
        }
      }
      scratchBits[child.node >> 6] &= ~(uint64_t(1) << (child.node & 63));
    }
  }
  result.outcome = SearchOutcome::Exhausted;
  result.lowerBound = budget;
  result.states = created;
  return result;
}

// The depth-first search runs frame by frame (each state's children are
// generated once, when it is entered), so when a frame is left without an
// order, every set below it has been searched: the set has no completion
// within tau. A set met again was left before (sets only grow along a
// path), so it is dead too and skipped; each set is searched once.
//
// Why a set dead at tau may be skipped by a later search at tau' <= tau,
// also on another graph of the same nodes: the searches run on the graph
// plus dependences that every order of peak <= the search's budget keeps,
// with step bounds that hold for those orders (shaving). Suppose the later
// search reaches S and S has a completion within tau'. The whole order has
// peak <= tau' <= tau in the original graph, so it keeps the dependences
// and step bounds of the earlier search too, and its suffix is a completion
// of S within tau there: the earlier search would have found it (its
// pruning - bounds, eager rule - is exact for "a completion within tau").
// States are canonical under the same interchangeable classes in every
// search of a segment, so equal signatures mean the same set up to an
// automorphism of both graphs.
//
// Values (only where the bounds and dependences hold for every order, not
// just those within tau): a finished set S gets value(S), the least of
//  - its bound, when load() pruned it;
//  - per child v, max(step of v, value(S + v)), where value(S + v) is the
//    child's usage alone when that is above tau (the child is not entered),
//    its value when it was finished or is met again, or the value the dead
//    sets hold for it (+1);
// and no completion of S has a peak below value(S). By induction: a
// completion starts with some child v (its peak is at least v's step and
// the peak of the rest), except where S has one child only by the eager
// rules; there v's step is within tau, below every completion of S (none
// is within tau), and some completion at least as good starts with v (the
// rules' argument with tau replaced by that completion's peak). The set is
// recorded dead at value(S) - 1, which a later search at a larger tau up to
// that value skips as above; the root's value is the bound the search
// returns (Exhausted).
SearchResult ExactSearch::depthFirst(int64_t tau, DeadStates *dead,
                                     bool values) {
  startDepthFirst(tau, dead, values);
  return resumeDepthFirst(std::numeric_limits<int64_t>::max());
}

SearchResult ExactSearch::finishDepthFirst(SearchOutcome outcome) {
  SearchResult result;
  result.outcome = outcome;
  result.lowerBound = outcome == SearchOutcome::Exhausted
                          ? std::max(dfs.tau + 1, dfs.rootValue)
                          : problem.staticBound;
  result.states = created;
  result.stateLimited =
      outcome == SearchOutcome::Limit && created >= stateLimit;
  dfs.done = outcome != SearchOutcome::Limit || limitHit;
  return result;
}

bool ExactSearch::enterDepthFirst(int state, int node) {
  if (depth[state] == problem.numNodes)
    return true;
  // Any order within tau will do: the bound matters only against tau, and
  // a node may run eagerly whenever its step stays within tau.
  const size_t begin = dfs.pending.size(), changes = dfs.changes.size();
  const bool recomputed = dfs.frames.empty() || node < 0;
  int64_t low = std::numeric_limits<int64_t>::max();
  const int64_t bound = loadDepthFirst(state, dfs.tau, node);
  if (checkedBounds) {
    // The carried values first (load() rewrites the flags from scratch).
    const bool same = survivorsMatch(signature(state));
    ++checkedBounds->states;
    checkedBounds->carried += !recomputed;
    checkedBounds->mismatches += !same || bound != load(state, dfs.tau);
  }
  if (bound <= dfs.tau) {
    expand(bestPeak[state], liveBytes[state], bound, dfs.tau, dfsChildren,
           /*liveFirst=*/true);
    for (const Expansion &child : dfsChildren) {
      if (child.peak <= dfs.tau)
        dfs.pending.push_back(child);
      else
        low = std::min(low, child.peak);
    }
  } else {
    low = bound;
  }
  dfs.frames.push_back(
      {state, begin, begin, dfs.pending.size(), low, changes, recomputed});
  return false;
}

void ExactSearch::startDepthFirst(int64_t tau, DeadStates *dead, bool values) {
  dfs = DepthFirstRun();
  dfs.tau = tau;
  dfs.dead = dead;
  dfs.values = values;
  dfs.root = resetToRoot();
}

SearchResult ExactSearch::resumeDepthFirst(int64_t pauseAt) {
  const int64_t tau = dfs.tau;
  DeadStates *dead = dfs.dead;
  if (dfs.done) {
    SearchResult result;
    result.states = created;
    return result;
  }
  if (!dfs.started) {
    dfs.started = true;
    const int64_t bound = remainingBound(scratchBits.data());
    const int64_t deadAt = dead ? dead->deadAt(scratchBits.data()) : -1;
    if (bound > tau || deadAt >= tau) {
      if (dfs.values)
        dfs.rootValue = std::max(bound, deadAt + 1);
      return finishDepthFirst(SearchOutcome::Exhausted);
    }
    if (enterDepthFirst(dfs.root, -1)) {
      SearchResult result = finishDepthFirst(SearchOutcome::Found);
      result.order = pathTo(dfs.root);
      result.peak = 0;
      return result;
    }
  }
  while (!dfs.frames.empty()) {
    Frame &frame = dfs.frames.back();
    if (frame.next == frame.end) {
      // No completion has a peak below `value` (tau + 1 without values).
      const int state = frame.state;
      const int64_t value = dfs.values ? frame.low : tau + 1;
      deadValue[state] = value;
      // Sets without children within tau are as cheap to decide again as
      // to look up: only the others are recorded.
      if (dead && frame.end > frame.begin)
        dead->record(signature(state), value - 1);
      dfs.pending.resize(frame.begin);
      leaveFrame();
      if (dfs.frames.empty())
        dfs.rootValue = value;
      else
        dfs.frames.back().lower(std::max(bestPeak[state], value));
      continue;
    }
    if (outOfBudget() || created >= pauseAt)
      return finishDepthFirst(SearchOutcome::Limit);
    const Expansion child = dfs.pending[frame.next++];
    const int from = frame.state;
    const uint64_t *bits = signature(from);
    std::copy(bits, bits + words, scratchBits.begin());
    scratchBits[child.node >> 6] |= uint64_t(1) << (child.node & 63);
    if (int64_t bound = remainingBound(scratchBits.data()); bound > tau) {
      frame.lower(std::max(child.peak, bound));
      continue;
    }
    const uint64_t *next = childSignature(child.node);
    bool inserted;
    int state = findOrInsert(next, inserted);
    // A set met again was finished (sets only grow along the path).
    if (!inserted) {
      frame.lower(std::max(child.peak, deadValue[state]));
      continue;
    }
    if (int64_t deadAt = dead ? dead->deadAt(next) : -1; deadAt >= tau) {
      deadValue[state] = deadAt + 1;
      frame.lower(std::max(child.peak, deadAt + 1));
      continue;
    }
    bestPeak[state] = child.peak;
    liveBytes[state] = child.live;
    parent[state] = from;
    lastNode[state] = child.node;
    depth[state] = depth[from] + 1;
    if (enterDepthFirst(state,
                        classesOf[child.node].empty() ? child.node : -1)) {
      SearchResult result = finishDepthFirst(SearchOutcome::Found);
      result.order = pathTo(state);
      result.peak = child.peak;
      return result;
    }
  }
  return finishDepthFirst(SearchOutcome::Exhausted);
}

} // namespace detail
} // namespace serenity
