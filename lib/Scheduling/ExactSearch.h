//===- ExactSearch.h - Search over scheduled-set signatures -----*- C++ -*-===//
//
// Internal to lib/Scheduling. The state of a partial schedule is the set S of
// nodes already executed (a bitset signature): it determines the ready nodes
// and live(S), so only the least peak reaching each S matters.
//
//===----------------------------------------------------------------------===//

#ifndef SERENITY_LIB_SCHEDULING_EXACTSEARCH_H
#define SERENITY_LIB_SCHEDULING_EXACTSEARCH_H

#include "LargeAllocator.h"
#include "SchedulingProblem.h"

#include <algorithm>
#include "Serenity/Support/WorkClock.h"
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace serenity {
namespace detail {

/// How a bounded search ended.
enum class SearchOutcome {
  /// An order was found (see SearchResult).
  Found,
  /// The whole space under the budget was searched without finding one.
  Exhausted,
  /// The time or state limit stopped the search.
  Limit,
};

/// Result of one bounded search.
struct SearchResult {
  SearchOutcome outcome = SearchOutcome::Limit;
  std::vector<int> order;
  int64_t peak = 0;
  /// Proven lower bound on the peak of every order (capped at the budget).
  int64_t lowerBound = 0;
  int64_t states = 0;
  /// Whether the search stopped at its state limit (memory), not at its
  /// work deadline.
  bool stateLimited = false;
};

/// Scheduled-set signatures of `words` words each, numbered in insertion
/// order, in an open-addressing hash table (the high hash bits are kept as
/// a tag to skip most signature comparisons).
class SignatureSet {
public:
  explicit SignatureSet(int words);
  /// The number of `bits`, or -1 when absent.
  int find(const uint64_t *bits) const;
  /// The number of `bits`, inserting it (as size() - 1) when absent.
  int findOrInsert(const uint64_t *bits, bool &inserted);
  const uint64_t *operator[](int i) const {
    return &signatures[static_cast<size_t>(i) * words];
  }
  int size() const { return count; }
  void clear();

private:
  struct Slot {
    int index;
    uint32_t tag;
  };
  /// The slot holding `bits`, or the empty slot where it would go.
  size_t slotOf(const uint64_t *bits, uint64_t hash) const;
  void grow();

  int words;
  int count = 0;
  LargeVector<uint64_t> signatures;
  LargeVector<Slot> table;
};

/// Scheduled sets known to have no completion within a budget, kept across
/// the depth-first searches of one graph (the searches at the several taus
/// of soft budgeting, on the graph or on it plus shaved dependences). A set
/// with no completion within tau has none within any smaller budget, so a
/// search at tau' <= tau skips it (argument at ExactSearch::depthFirst).
/// Holds at most `capacity` sets; later ones are not recorded.
class DeadStates {
public:
  DeadStates(int numNodes, int64_t capacity);
  /// The largest budget at which `bits` is known dead, or -1.
  int64_t deadAt(const uint64_t *bits) const;
  /// Records that `bits` has no completion within `tau`.
  void record(const uint64_t *bits, int64_t tau);
  int64_t size() const { return sets.size(); }

private:
  int64_t capacity;
  SignatureSet sets;
  /// Per set of `sets`: the largest budget it is known dead at.
  LargeVector<int64_t> taus;
};

/// Searches orders of `problem`. Orders whose peak is at most `floor` are all
/// considered equally good (the caller knows the whole graph cannot do
/// better than `floor`).
class ExactSearch {
public:
  ExactSearch(const SchedulingProblem &problem, int64_t stateLimit,
              WorkClock::Point deadline);

  /// Best-first search (A* on the peak with the admissible node bounds) for
  /// the least-peak order with peak < `budget`. Found: the order is optimal
  /// (or within `floor`). Exhausted: no order has peak < budget.
  SearchResult bestFirst(int64_t budget, int64_t floor);

  /// Depth-first search for any order with peak <= `tau`. Found: such an
  /// order; Exhausted: none exists. With `dead`, skips the sets it holds
  /// dead at tau or above and records the sets this search finishes
  /// without an order. With `values` (only when the problem's bounds and
  /// dependences hold for every order, not just for those within tau), a
  /// finished set is recorded dead up to a lower bound on its completions'
  /// peaks (often above tau), and Exhausted returns such a bound for the
  /// whole graph.
  SearchResult depthFirst(int64_t tau, DeadStates *dead = nullptr,
                          bool values = false);

  /// The same search in slices: startDepthFirst sets it up, and each
  /// resumeDepthFirst continues it until it ends or has created `pauseAt`
  /// states in all (then Limit with isPaused()). Another search on this
  /// object ends it.
  void startDepthFirst(int64_t tau, DeadStates *dead = nullptr,
                       bool values = false);
  SearchResult resumeDepthFirst(int64_t pauseAt);
  /// After resumeDepthFirst: whether it stopped for the pause only (and may
  /// be resumed).
  bool isPaused() const { return !dfs.done; }

  /// The node the searches run alone from the predecessor-closed set `set`
  /// (a node per entry, nonzero when scheduled) when every step must stay
  /// within `threshold`, and the usage of its step; none when they branch.
  /// Some completion of `set` within threshold starts with it whenever
  /// one exists (for tests).
  std::optional<std::pair<int, int64_t>>
  eagerChild(const std::vector<char> &set, int64_t threshold);

  /// For tests: the depth-first searches also compute every state's bound
  /// from scratch (load) and count where the carried one (loadDepthFirst)
  /// differs.
  struct BoundChecks {
    int64_t states = 0, carried = 0, mismatches = 0;
  };
  void checkBounds() { checkedBounds.emplace(); }
  const BoundChecks &boundChecks() const { return *checkedBounds; }

  /// Moves the time limit of later searches.
  void setDeadline(WorkClock::Point newDeadline) { deadline = newDeadline; }

private:
  struct Expansion {
    int node;
    int64_t peak;
    int64_t live;
  };

  void reset();
  /// reset(), then the state of the empty scheduled set (live bytes = the
  /// graph inputs); returns its id.
  int resetToRoot();
  /// Index of the state with signature `bits`, inserting it when absent.
  int findOrInsert(const uint64_t *bits, bool &inserted);
  const uint64_t *signature(int state) const { return states[state]; }
  bool isScheduled(const uint64_t *bits, int node) const {
    return (bits[node >> 6] >> (node & 63)) & 1;
  }
  /// Admissible bound on the peak of any completion from `bits`, from the
  /// static node bounds only (cheap, used when a state is created).
  int64_t remainingBound(const uint64_t *bits) const;
  /// Loads `state` into `scheduled` and returns an admissible bound on the
  /// peak of its completions: each unscheduled node's static bound plus the
  /// live buffers of unrelated nodes that must survive its step. When that
  /// cannot exceed `atMost`, returns the cheaper static bound instead.
  int64_t load(int state, int64_t atMost);
  /// load() for the depth-first search, entering `state` above the frames
  /// on the stack: the same bound, but the live buffers' survive sums are
  /// updated from the top frame's when `state` is its set plus `node` (not
  /// canonicalized: else -1), instead of summed over every live buffer.
  int64_t loadDepthFirst(int state, int64_t atMost, int node);
  /// The largest of `staticBound` and, over the `unscheduled` positions,
  /// nodeBound plus the bytes in `extra` that must survive the node's step.
  int64_t survivingBound(int64_t staticBound, const Bits &unscheduled,
                         const std::vector<int64_t> &extra) const;
  /// Adds `bytes` for counted buffer `i` to the survive sums.
  void addSurvivor(size_t i, int64_t bytes);
  /// The survive sums (and `scheduled`) of the set `bits`, from nothing.
  void recomputeSurvivors(const uint64_t *bits);
  /// Pops the top frame and restores its parent's survive sums, flags and
  /// unscheduled nodes.
  void leaveFrame();
  /// Whether the survive sums, flags and unscheduled nodes are those of the
  /// set `bits` (for tests).
  bool survivorsMatch(const uint64_t *bits);
  /// Whether counted buffer `i` is live after the set `bits`.
  bool isLive(const uint64_t *bits, size_t i) const {
    const CountedBuffer &buffer = counted[i];
    const bool allocated = buffer.writer >= 0
                               ? isScheduled(bits, buffer.writer)
                               : intersects(writerMasks, i, bits);
    return allocated && (buffer.returned || !containedIn(userMasks, i, bits));
  }
  /// The children worth exploring from the loaded state (peak so far `peak`,
  /// `live` bytes) whose completions are bounded below by `bound`, in order
  /// of increasing peak so far (the best-first search's key), or with
  /// `liveFirst` of increasing live bytes after them (the depth-first
  /// search, where any peak within tau will do); true when one child may
  /// run eagerly without loss (a node, or the first node of an eager pair),
  /// and is the only child.
  bool expand(int64_t peak, int64_t live, int64_t bound, int64_t floor,
              std::vector<Expansion> &children, bool liveFirst = false);
  /// Whether every predecessor of `node` is in the loaded `scheduled` set.
  bool isReady(int node) const {
    for (int p : problem.preds[node])
      if (!scheduled[p])
        return false;
    return true;
  }
  /// With `scheduled` loaded (live bytes `live`): whether the child (a
  /// ready node v that grows the live bytes) may run eagerly as the first
  /// of a pair v, w (see the file comment).
  bool eagerPair(const Expansion &child, int64_t live, int64_t threshold);
  std::vector<int> pathTo(int state);
  /// Whether row `i` of `masks` (one bitset of `words` words per counted
  /// buffer) meets `bits`, or lies inside it.
  bool intersects(const std::vector<uint64_t> &masks, size_t i,
                  const uint64_t *bits) const;
  bool containedIn(const std::vector<uint64_t> &masks, size_t i,
                   const uint64_t *bits) const;
  /// Rewrites `bits` into the representative of its permutations under
  /// problem.symmetricClasses: in each class, the members' scheduled sets
  /// sorted in decreasing order (as bit patterns). With `mapping`, also
  /// returns, per node of `bits`, the node it became. With `added` >= 0,
  /// `bits` is a canonical state plus node `added`: only its classes can
  /// be out of order.
  void canonicalize(uint64_t *bits, std::vector<int> *mapping = nullptr,
                    int added = -1) const;
  /// Signature of the child that ran `node`: scratchBits, canonicalized
  /// into canonicalBits when the node belongs to a symmetric class.
  const uint64_t *childSignature(int node);
  bool outOfBudget();
  /// The depth-first search's steps: enters a state (true when complete,
  /// else pushes its frame with its children within tau), and its result.
  bool enterDepthFirst(int state, int node);
  SearchResult finishDepthFirst(SearchOutcome outcome);

  const SchedulingProblem &problem;
  const int words;
  const int64_t stateLimit;
  /// Work units an expansion counts.
  const int64_t expansionWork;
  WorkClock::Point deadline;
  int64_t created = 0;
  bool limitHit = false;

  // State records, one entry per state, numbered as in `states`.
  SignatureSet states;
  LargeVector<int64_t> bestPeak, liveBytes;
  LargeVector<int> parent, lastNode, depth;
  /// Per set the depth-first search finished: no completion has a lower
  /// peak.
  LargeVector<int64_t> deadValue;
  // Buffers load() may count (with a producer and bytes): the only writer
  // (-1 when several), and per buffer the bitsets of its writers and
  // readers.
  struct CountedBuffer {
    int buffer;
    int64_t bytes;
    bool returned;
    int writer;
  };
  std::vector<CountedBuffer> counted;
  std::vector<uint64_t> writerMasks, userMasks;
  // The depth-first search under way: the states on the path with their
  // children (pending[begin, end), the next to try at `next`).
  struct Frame {
    int state;
    size_t begin, next, end;
    /// With values: the least peak above tau found for its completions.
    int64_t low;
    /// Where its survive changes start in dfs.changes, or whether the sums
    /// were recomputed for it (loadDepthFirst).
    size_t changes;
    bool recomputed;
    void lower(int64_t value) { low = std::min(low, value); }
  };
  struct DepthFirstRun {
    int64_t tau = 0;
    DeadStates *dead = nullptr;
    int root = 0;
    bool values = false, started = false, done = false;
    int64_t rootValue = 0;
    std::vector<Frame> frames;
    std::vector<Expansion> pending;
    /// For the frame on top, per position in topo: the bytes of its live
    /// buffers that must survive that node's step (`survives`), and the
    /// bytes of all its live counted buffers; the frames' changes to them
    /// (counted buffer, bytes), undone as frames are left.
    std::vector<int64_t> extra;
    int64_t produced = 0;
    /// The top frame's unscheduled nodes, by position in topo (`scheduled`
    /// is carried as well).
    Bits unscheduled;
    std::vector<std::pair<int, int64_t>> changes;
  } dfs;
  /// Per node: the counted buffers it writes or reads (their liveness may
  /// change when it runs).
  std::vector<std::vector<int>> countedOf;
  /// Whether every counted buffer has its survive set (loadDepthFirst may
  /// carry the sums).
  bool carrySurvives = false;
  std::optional<BoundChecks> checkedBounds;
  std::vector<Expansion> dfsChildren;
  // Scratch.
  std::vector<char> scheduled;
  std::vector<uint64_t> scratchBits, canonicalBits;
  mutable std::vector<std::pair<uint64_t, int>> classKeys;
  /// Per node: the symmetric classes it belongs to, increasing, and the
  /// member of each that holds it.
  std::vector<std::vector<int>> classesOf, memberIn;
  std::vector<int> liveList;
  std::vector<int64_t> extraBytes;
  Bits unscheduledPositions;
};

} // namespace detail
} // namespace serenity

#endif // SERENITY_LIB_SCHEDULING_EXACTSEARCH_H
