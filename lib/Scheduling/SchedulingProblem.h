//===- SchedulingProblem.h - Normalized graph for scheduling ---*- C++ -*-===//
//
// Internal to lib/Scheduling. A MemoryGraph normalized for search: uses imply
// dependences on producers, buffers that simulate() never counts are dropped,
// and the per-node byte counts the incremental liveness needs are
// precomputed. A buffer exists once any of its writers (its producer and, for
// in-place concatenation, its partial producers) has run, so live(S), the
// bytes live between steps once the set S has run, is a function of S and
// follows simulate() exactly:
//   live(S ∪ {v}) = live(S) + keptBytes(v, S)
//                   - bytes of v's uses that are not returned and whose
//                     other users are all in S,
// and executing v after S uses live(S) + newBytes(v, S).
//
//===----------------------------------------------------------------------===//

#ifndef SERENITY_LIB_SCHEDULING_SCHEDULINGPROBLEM_H
#define SERENITY_LIB_SCHEDULING_SCHEDULINGPROBLEM_H

#include "Serenity/Analysis/MemoryGraph.h"

#include <algorithm>
#include "Serenity/Support/WorkClock.h"
#include <cstdint>
#include <string>
#include <vector>

namespace serenity {
namespace detail {

/// A fixed-size bitset (over positions of a topological order).
class Bits {
public:
  explicit Bits(int size = 0) : words((size + 63) / 64, 0) {}
  void set(int i) { words[i >> 6] |= uint64_t(1) << (i & 63); }
  bool test(int i) const { return (words[i >> 6] >> (i & 63)) & 1; }
  void reset(int i) { words[i >> 6] &= ~(uint64_t(1) << (i & 63)); }
  void clear() { std::fill(words.begin(), words.end(), 0); }
  void setAll(int size) {
    std::fill(words.begin(), words.end(), ~uint64_t(0));
    if (size % 64)
      words.back() = (uint64_t(1) << (size % 64)) - 1;
  }
  void unite(const Bits &other) {
    for (size_t w = 0; w < words.size(); ++w)
      words[w] |= other.words[w];
  }
  void intersect(const Bits &other) {
    for (size_t w = 0; w < words.size(); ++w)
      words[w] &= other.words[w];
  }
  void subtract(const Bits &other) {
    for (size_t w = 0; w < words.size(); ++w)
      words[w] &= ~other.words[w];
  }
  bool empty() const { return words.empty(); }
  bool operator==(const Bits &other) const { return words == other.words; }
  /// Calls `fn(i)` for every set bit i in increasing order.
  template <typename Fn> void forEach(Fn fn) const {
    for (size_t w = 0; w < words.size(); ++w)
      for (uint64_t bits = words[w]; bits; bits &= bits - 1)
        fn(static_cast<int>(w * 64 + __builtin_ctzll(bits)));
  }
  /// Calls `fn(i)` for every i set in both this and `mask`.
  template <typename Fn> void forEachIn(const Bits &mask, Fn fn) const {
    for (size_t w = 0; w < words.size(); ++w)
      for (uint64_t bits = words[w] & mask.words[w]; bits; bits &= bits - 1)
        fn(static_cast<int>(w * 64 + __builtin_ctzll(bits)));
  }
  /// First clear bit below `limit`, or `limit` when all are set.
  int firstClear(int limit) const {
    for (int w = 0; w * 64 < limit; ++w) {
      uint64_t clear = ~words[w];
      if (clear)
        return std::min(w * 64 + __builtin_ctzll(clear), limit);
    }
    return limit;
  }

private:
  std::vector<uint64_t> words;
};

struct SchedulingProblem;

/// Nodes of a problem marked as run, with per-buffer counts that make the
/// byte counts of a node not marked cost O(its buffers) (the
/// SchedulingProblem versions scan every writer and reader of them: quadratic
/// on a concat of thousands of operands). Equal to newBytes, keptBytes and
/// freedBytes of SchedulingProblem with `scheduled` = the marked nodes.
class Execution {
public:
  explicit Execution(const SchedulingProblem &problem);
  int64_t newBytes(int node) const;
  int64_t keptBytes(int node) const;
  int64_t freedBytes(int node) const;
  /// Marks `node` (not marked) as run.
  void run(int node);
  /// Takes back run(node).
  void undo(int node);
  /// Calls `fn(w)` for every node whose byte counts running `node` may
  /// change: the other readers of its buffers and the other writers of its
  /// shared buffers (possibly more than once).
  template <typename Fn> void forEachAffected(int node, Fn fn) const;

private:
  const SchedulingProblem &problem;
  /// Per buffer: writers marked, readers not marked.
  std::vector<int> writersRun, pendingReaders;
};

/// Nodes run back to back as one contracted node: `hill` is the most bytes
/// above the live bytes before them that any of their steps uses, `keptBytes`
/// the bytes of the last node's results (the contracted node allocates
/// `hill - keptBytes` more in an unused result).
struct ContractedNode {
  std::vector<int> nodes;
  int64_t hill = 0, keptBytes = 0;
};

/// A graph prepared for scheduling.
struct SchedulingProblem {
  int numNodes = 0;
  /// Dependences including producer -> user edges implied by uses.
  std::vector<std::vector<int>> preds, succs;
  /// Per node: counted buffers it reads, never its own results.
  std::vector<std::vector<int>> uses;
  /// Per buffer: nodes reading it (excluding its producer).
  std::vector<std::vector<int>> users;
  std::vector<int64_t> bytes;
  std::vector<int> producer;
  std::vector<char> returned;
  /// Per buffer: the nodes that write it, producer first (empty for inputs).
  /// A buffer with several writers is allocated by the first to run.
  std::vector<std::vector<int>> writers;
  /// Per buffer: used or returned, so it outlives the step allocating it.
  std::vector<char> outlives;
  /// Per node: the buffers with several writers that it writes.
  std::vector<std::vector<int>> sharedWrites;
  /// True when some buffer has several writers.
  bool hasSharedBuffers = false;
  /// Per node: bytes of the results only it writes (allocated while it
  /// executes in every order).
  std::vector<int64_t> defBytes;
  /// Per node: the part of defBytes that outlives its step.
  std::vector<int64_t> persistBytes;
  /// live(empty set): graph inputs that are used or returned.
  int64_t initialLive = 0;
  /// A topological order (Kahn, ties by index) and each node's position in it.
  std::vector<int> topo, position;
  /// Per node: positions (in `topo`) of its ancestors and descendants.
  std::vector<Bits> ancestors, descendants;
  /// True when `a` must run before `b`.
  bool isAncestor(int a, int b) const { return ancestors[b].test(position[a]); }
  /// Per node: bytes live while it executes in every order (admissible).
  std::vector<int64_t> nodeBound;
  /// Per buffer with a producer: the nodes (as positions in `topo`) whose
  /// step it must survive in every order once it exists although nodeBound
  /// omits it: v is not a descendant of a writer (nor, for a buffer with
  /// several writers, a writer), does not read it, and a reader of it
  /// descends from v (or it is returned). Left empty for
  /// graphs so large that the bitsets would not fit in kSurvivesBudget.
  std::vector<Bits> survives;
  static constexpr int64_t kSurvivesBudget = int64_t(64) << 20;
  /// Per node: a lower bound on the bytes its step uses in every order, at
  /// least nodeBound (raised by strengthenBounds). Unlike nodeBound it may
  /// already count buffers that `survives` lists.
  std::vector<int64_t> stepBound;
  /// Nodes by decreasing stepBound (ties by index).
  std::vector<int> byBound;
  /// Largest stepBound, 0 without nodes.
  int64_t staticBound = 0;
  /// Classes of interchangeable branches, each member's nodes in matching
  /// order (at most 64 each): exchanging two members node for node is an
  /// automorphism, so permuted states have the same completions. Set by the
  /// caller (not by build); the searches store one state per permutation.
  std::vector<std::vector<std::vector<int>>> symmetricClasses;

  /// Builds the problem; returns false and sets `error` on a cycle. Without
  /// `withBounds`, ancestors, descendants and the bounds are left empty
  /// (they cost O(n^2) bits): only the heuristics, peakOf and
  /// contractChains may be used then.
  bool build(const MemoryGraph &graph, std::string &error,
             bool withBounds = true);

  /// Raises stepBound to the minimum-cut bounds (CutBound.h) of the nodes
  /// computed before `deadline`; needs the problem built with bounds.
  void strengthenBounds(WorkClock::Point deadline);
  /// Raises stepBound[v] to bounds[v] where that is larger (bounds valid for
  /// every order the caller searches).
  void raiseStepBounds(const std::vector<int64_t> &bounds);

  /// Bytes freed by executing `node` when `scheduled` (indexed by node) have
  /// run: its non-returned uses whose other users have all run.
  int64_t freedBytes(int node, const std::vector<char> &scheduled) const;

  /// True when no writer of `buffer` other than `node` is in `scheduled`:
  /// running `node` next allocates the shared buffer.
  bool isFirstWriter(int node, int buffer,
                     const std::vector<char> &scheduled) const;
  /// Bytes `node` allocates when `scheduled` have run: defBytes plus the
  /// buffers with several writers of which it is the first to run.
  int64_t newBytes(int node, const std::vector<char> &scheduled) const;
  /// The part of newBytes(node, scheduled) that outlives the step.
  int64_t keptBytes(int node, const std::vector<char> &scheduled) const;

  /// Kahn's order: FIFO over ready nodes, ties by index.
  std::vector<int> kahnOrder() const;
  /// XLA-style list schedule: max (freed - defined), ties by index.
  std::vector<int> greedyOrder() const;
  /// Peak of `order` using the incremental liveness (equals simulate()).
  int64_t peakOf(const std::vector<int> &order) const;
  /// The bytes each step of `order` uses (peakOf is their maximum).
  std::vector<int64_t> usagesOf(const std::vector<int> &order) const;

  /// Contracts chains whose ops can always run back to back without loss
  /// (see SchedulingProblem.cpp) into single nodes; writers of buffers with
  /// several writers stay single nodes with their partial producers. The
  /// result's node i runs the original nodes `members[i]` in order; its results
  /// are the chain's buffers that outlive it plus one unused buffer that makes
  /// its step use exactly the chain's internal peak, so simulate() of the
  /// contracted graph equals simulate() of the expanded order.
  void contractChains(MemoryGraph &contracted,
                      std::vector<std::vector<int>> &members) const;

  /// Contracts the segments of private chains that some optimal order runs
  /// back to back (Liu's hill-valley segments, see SchedulingProblem.cpp)
  /// into single nodes, like contractChains.
  void contractSegments(MemoryGraph &contracted,
                        std::vector<std::vector<int>> &members) const;

  /// Splits the nodes into segments that every topological order executes
  /// one after the other (each segment's nodes are ancestors of all later
  /// ones). Segments are returned in execution order, nodes by index.
  std::vector<std::vector<int>> forcedSegments() const;

private:
  /// Sorts byBound by stepBound and sets staticBound.
  void sortByBound();
  /// The graph with each of `parts` (a partition of the nodes, each in
  /// execution order, whose intermediate results only the next member reads
  /// unless returned) as one node; node i runs `members[i]`.
  void buildContracted(const std::vector<ContractedNode> &parts,
                       MemoryGraph &contracted,
                       std::vector<std::vector<int>> &members) const;

public:
  /// The sub-graph of segment `segment` of `segmentOf` (per node), whose
  /// simulate() equals the full graph's usage at those steps: buffers
  /// allocated in earlier segments (by any writer) and still needed become
  /// inputs, buffers needed by later segments are returned, and a buffer
  /// first written here keeps the segment's writers. Node i of the result is
  /// `nodes[i]`.
  MemoryGraph subGraph(const std::vector<int> &segmentOf, int segment,
                       const std::vector<int> &nodes) const;
};

template <typename Fn> void Execution::forEachAffected(int node, Fn fn) const {
  for (int b : problem.uses[node])
    for (int w : problem.users[b])
      fn(w);
  for (int b : problem.sharedWrites[node])
    for (int w : problem.writers[b])
      fn(w);
}

} // namespace detail
} // namespace serenity

#endif // SERENITY_LIB_SCHEDULING_SCHEDULINGPROBLEM_H
