//===- Scheduler.cpp - Memory-aware scheduling of a MemoryGraph -*- C++ -*-===//
//
// The dp driver: chains that can always run back to back are contracted
// (SchedulingProblem::contractChains), heuristics give an upper bound, the
// graph is cut into segments that every order runs one after the other
// (divide and conquer),
// and each segment whose heuristic peak exceeds the best known lower bound is
// searched exactly: a depth-first search just below the best peak (is the
// order optimal?), best-first, then adaptive soft budgeting (binary search
// on a budget tau with depth-first searches under a per-step time limit)
// when those hit a limit.
//
//===----------------------------------------------------------------------===//

#include "Serenity/Scheduling/Scheduler.h"

#include "ExactSearch.h"
#include "HillValley.h"
#include "LocalSearch.h"
#include "SchedulingProblem.h"
#include "Shaving.h"
#include "Symmetry.h"

#include <algorithm>
#include <atomic>
#include <cassert>
#include <chrono>
#include <limits>
#include <optional>
#include <thread>

namespace serenity {

using detail::ExactSearch;
using detail::SchedulingProblem;
using detail::SearchOutcome;
using detail::SearchResult;

int64_t staticLowerBound(const MemoryGraph &graph) {
  SchedulingProblem problem;
  std::string error;
  if (!problem.build(graph, error))
    return 0;
  return problem.staticBound;
}

namespace {

/// One segment of the divide and conquer with its best order so far.
struct Segment {
  /// Global node ids, increasing; local node i is nodes[i].
  std::vector<int> nodes;
  MemoryGraph graph;
  SchedulingProblem problem;
  /// Best local order found and its peak (equal to the full graph's peak
  /// over these steps).
  std::vector<int> order;
  int64_t peak = 0;
  /// Proven lower bound on this segment's peak in every order.
  int64_t lowerBound = 0;
  /// The reversed graph (reverseGraph) and its problem, with the same
  /// interchangeable classes, when `reversible`: the decisions search both
  /// (see decide).
  bool reversible = false;
  MemoryGraph backwardGraph;
  SchedulingProblem backward;
};

/// The nodes of `order` that belong to `segment`, as local ids.
std::vector<int> induce(const std::vector<int> &order,
                        const std::vector<int> &segmentOf,
                        const std::vector<int> &localId, int segment) {
  std::vector<int> local;
  for (int v : order)
    if (segmentOf[v] == segment)
      local.push_back(localId[v]);
  return local;
}

/// What a segment's depth-first decisions keep from one to the next: the
/// dead sets, one table per direction (a set of the reversed graph is what
/// its orders run first).
struct Decisions {
  Decisions(int numNodes, int64_t capacity, bool parallel)
      : forward(numNodes, capacity), backward(numNodes, capacity),
        parallel(parallel) {}
  detail::DeadStates forward, backward;
  /// Whether the two directions run on two threads.
  bool parallel;
};

/// Depth-first decision whether some order of `forward` has peak <= tau,
/// on the graph and, when `backward` (its reversed graph's problem) is
/// given, on the reversed graph too: the two searches advance in turns of
/// kSliceStates states each (side by side on two threads when
/// memory.parallel), and after each turn the first to have decided, the
/// graph's search first, decides (an order of the reversed graph is
/// returned read backwards: same steps, same peak). The outcome does not
/// depend on the threads or their speeds, only on the deadline. Each search
/// may create half the state limit. With `values`, the searches record and
/// return lower bounds above tau (ExactSearch::depthFirst): only for the
/// unshaved problems, whose bounds hold for every order (60-node fan-in-6
/// DAGs at 3 s: seeds 10, 12, 21, 23 created 7-14 % fewer states, seed 17
/// 23 % more on another path, seeds 1 and 20 as many).
///
/// Why both: a search prunes a set once its steps so far or the bounds of
/// the rest exceed tau, so it is fast when the steps near the peak come
/// early in its direction. On the 60-node fan-in-6 DAGs of the scale suite
/// the decision just below the optimum of seed 10 created more than 2.8
/// million states forwards and 44 thousand backwards; 48-node RandWire
/// stages 19 and 24 (at 655359): 2 million forwards without an answer,
/// 0.14 and 0.62 million backwards (docs/Scheduling.md).
SearchResult depthFirstAt(const SchedulingProblem &forward,
                          const SchedulingProblem *backward, int64_t tau,
                          WorkClock::Point deadline, int64_t stateLimit,
                          Decisions &memory, bool values) {
  if (!backward) {
    ExactSearch search(forward, stateLimit, deadline);
    return search.depthFirst(tau, &memory.forward, values);
  }
  constexpr int64_t kSliceStates = 1 << 13;
  const int64_t limit = std::max<int64_t>(1, stateLimit / 2);
  ExactSearch ahead(forward, limit, deadline),
      behind(*backward, limit, deadline);
  ahead.startDepthFirst(tau, &memory.forward, values);
  behind.startDepthFirst(tau, &memory.backward, values);
  SearchResult result, other;
  for (int64_t pause = kSliceStates;; pause += kSliceStates) {
    // Both turns start from the same point of the work clock and their
    // work adds up after them, on one thread or two (WorkClock::Fork): the
    // deadline each sees does not depend on the other's speed.
    std::thread helper;
    WorkClock::Fork fork;
    if (ahead.isPaused()) {
      auto turn = [&ahead, &result, &fork, pause] {
        fork.enter();
        result = ahead.resumeDepthFirst(pause);
        fork.leave();
      };
      if (memory.parallel && behind.isPaused()) {
        helper = std::thread(turn);
      } else {
        turn();
        fork.enter();
      }
    }
    if (behind.isPaused())
      other = behind.resumeDepthFirst(pause);
    if (helper.joinable())
      helper.join();
    fork.join();
    if (result.outcome != SearchOutcome::Limit)
      break;
    if (other.outcome != SearchOutcome::Limit) {
      std::swap(result, other);
      std::reverse(result.order.begin(), result.order.end());
      break;
    }
    if (!ahead.isPaused() && !behind.isPaused())
      break;
  }
  result.states += other.states;
  result.stateLimited = result.stateLimited || other.stateLimited;
  return result;
}

/// Shaving tests pairs of nodes (quadratic in cuts): segments of more nodes
/// are not shaved.
constexpr int kShavingNodes = 1000;

/// Decides whether some order of `segment` has peak <= tau before
/// `deadline`: shaving at tau from the dependences `known` (valid at tau),
/// with 1/shavingShare of the time, then a depth-first search on the graph
/// with the dependences it derived (every order of peak <= tau keeps them,
/// so Exhausted still means none exists). Open shavings replace `known`
/// with their dependences. With `done`, starts from that shaving instead
/// (one valid at tau). Sets `shavingOutcome` to the shaving's outcome
/// (Timeout also when the segment is too large to shave).
SearchResult searchAt(const Segment &segment, int64_t tau,
                      WorkClock::Point deadline, int64_t stateLimit,
                      std::vector<std::pair<int, int>> &known,
                      Decisions &memory, int shavingShare,
                      const detail::Shaving *done,
                      detail::Shaving::Outcome &shavingOutcome) {
  const SchedulingProblem *backward =
      segment.reversible ? &segment.backward : nullptr;
  // When shaving cannot finish, the plain search gets the rest. Segments of
  // more than kShavingNodes nodes are searched plainly (left as Timeout).
  detail::Shaving shaving;
  if (done) {
    shaving = *done;
  } else if (segment.problem.numNodes <= kShavingNodes) {
    const WorkClock::Point start = WorkClock::now();
    shaving = detail::shave(segment.problem, tau,
                            start + (deadline - start) / shavingShare, known);
  }
  shavingOutcome = shaving.outcome;
  if (shaving.outcome == detail::Shaving::Refuted) {
    SearchResult result;
    result.outcome = SearchOutcome::Exhausted;
    return result;
  }
  if (shaving.outcome == detail::Shaving::Timeout) {
    return depthFirstAt(segment.problem, backward, tau, deadline, stateLimit,
                        memory, true);
  }
  known = shaving.dependences;
  // The interchangeable branches stay interchangeable (and the search keeps
  // storing one state per permutation) with the dependences that involve
  // none of their nodes: only those are added.
  std::vector<char> permutable(segment.problem.numNodes, 0);
  for (const std::vector<std::vector<int>> &members :
       segment.problem.symmetricClasses)
    for (const std::vector<int> &member : members)
      for (int v : member)
        permutable[v] = 1;
  // The graph (and the reversed one) with the dependences; bounds on the
  // steps of every order of peak <= tau (with or without the dependences
  // left out), which is all the search needs. A step's usage is the same
  // read backwards, so the bounds hold for the reversed graph too, and a
  // dependence a -> b of the graph is b -> a there.
  auto withDependences = [&](const SchedulingProblem &problem,
                             const MemoryGraph &graph, bool reversed) {
    MemoryGraph dependent = graph;
    bool added = false;
    for (auto [before, after] : shaving.dependences)
      if (!permutable[before] && !permutable[after]) {
        if (reversed)
          dependent.addDependence(before, after);
        else
          dependent.addDependence(after, before);
        added = true;
      }
    SchedulingProblem shaved;
    if (added) {
      std::string error;
      [[maybe_unused]] bool built = shaved.build(dependent, error);
      assert(built && "derived dependences follow an order of the graph");
      shaved.symmetricClasses = problem.symmetricClasses;
    } else {
      shaved = problem;
    }
    shaved.raiseStepBounds(shaving.stepBounds);
    return shaved;
  };
  SchedulingProblem shaved =
      withDependences(segment.problem, segment.graph, false);
  if (!backward)
    return depthFirstAt(shaved, nullptr, tau, deadline, stateLimit, memory,
                        false);
  SchedulingProblem shavedBackward =
      withDependences(segment.backward, segment.backwardGraph, true);
  return depthFirstAt(shaved, &shavedBackward, tau, deadline, stateLimit,
                      memory, false);
}

/// What the exact searches of a schedule spent.
struct Effort {
  int64_t states = 0;
  /// Whether some search stopped at its state limit.
  bool stateLimited = false;
  void add(const SearchResult &result) {
    states += result.states;
    stateLimited = stateLimited || result.stateLimited;
  }
};

/// Improves `segment` by exact search until `deadline` (a point on the work
/// clock), adding what its searches spent to `effort`. Orders with peak <=
/// floor are as good as optimal for the whole graph, so the search stops at
/// the first one.
void improveSegment(Segment &segment, int64_t floor, WorkClock::Point deadline,
                    int64_t stateLimit, bool parallel, Effort &effort) {
  const SchedulingProblem &problem = segment.problem;
  WorkClock::Point now = WorkClock::now();
  // Sets found without a completion within some tau, shared by the
  // depth-first searches below (a quarter of the state budget per
  // direction).
  Decisions memory(problem.numNodes, stateLimit / 4, parallel);
  const SchedulingProblem *backward =
      segment.reversible ? &segment.backward : nullptr;
  // Every peak is a multiple of the buffer sizes' gcd.
  const int64_t unit = std::max<int64_t>(1, detail::peakUnit(problem));
  {
    // First whether the best order known is optimal: a depth-first search
    // just below its peak, with a quarter of the time. The heuristic orders
    // often are (tiled graphs: the search then proves it with a third of the
    // states the best-first search needs, its eager rule being looser); else
    // it finds a better order fast while the budget is loose. When it runs
    // out of time, the sets it finished stay dead for the later decisions at
    // that tau or below (the downward track starts at the same tau).
    SearchResult below =
        depthFirstAt(problem, backward, segment.peak - unit,
                     now + (deadline - now) / 4, stateLimit, memory, true);
    effort.add(below);
    if (below.outcome == SearchOutcome::Exhausted) {
      segment.lowerBound = segment.peak;
      return;
    }
    if (below.outcome == SearchOutcome::Found) {
      segment.order = std::move(below.order);
      segment.peak = below.peak;
      if (segment.peak <= floor)
        return;
    }
    now = WorkClock::now();
  }
  // The best-first search: an eighth of the time (see docs/Scheduling.md for
  // a quarter and a sixteenth), half when half is at most 200 ms (the many
  // small segments of a large graph, which it proves in milliseconds). Only
  // when at most kBestFirstLevels units separate the bound from the peak
  // (or half is that small): measured on the scale suite, it proves or
  // raises the bound on graphs of equal buffers (a handful of units), and
  // on DAGs of varied sizes (hundreds of units) it ended at the static
  // bound, its time better spent on the decisions at tau below
  // (docs/Scheduling.md, dp step 7). With an eighth, at most
  // kBestFirstStates states: where it proves, it needs few (DARTS stacks of
  // 20 cells about 1100, 3-stage RandWire networks up to 8200), and where
  // it does not, the local search and the shaved decisions after it prove
  // the segment in a fraction of its time (48-node RandWire stages: it ran
  // for 0.4 s at 3 s and 1.25 s at 10 s, 260 thousand and a million states,
  // before decisions that took 0.1 s; the class at 3 s took 25 s in all
  // without the cap, 15-16 s with 2^10 to 2^14 states, 17 s with 2^16; the
  // 32-node stages 3.1 s and 1.5 s, max 0.48 and 0.11-0.15 s; DARTS stacks
  // as fast with 2^12 and more, twice as slow with 2^10).
  constexpr int64_t kBestFirstLevels = 64;
  constexpr int64_t kBestFirstStates = int64_t(1) << 14;
  const int64_t total = deadline - now;
  const bool half = total / 2 <= 200 * kScheduleWorkPerMs;
  if (half || (segment.peak - segment.lowerBound) / unit <= kBestFirstLevels) {
    const int64_t limit =
        half ? stateLimit : std::min(stateLimit, kBestFirstStates);
    ExactSearch search(problem, limit, now + total / (half ? 2 : 8));
    SearchResult best = search.bestFirst(segment.peak, floor);
    // Its own cap is a share of the work, not the memory limit.
    best.stateLimited = best.stateLimited && limit == stateLimit;
    effort.add(best);
    segment.lowerBound = std::max(segment.lowerBound, best.lowerBound);
    if (best.outcome == SearchOutcome::Found) {
      segment.order = std::move(best.order);
      segment.peak = best.peak;
      return;
    }
    if (best.outcome == SearchOutcome::Exhausted)
      return;
  }

  // Then re-insertion of the nodes a step at the peak depends on (a
  // large-neighbourhood search, LocalSearch.h) until it stalls, with at most
  // a quarter of the time left: the orders of the heuristics and of the
  // depth-first search can be far above the optimum on DAGs of varied buffer
  // sizes, and a lower peak leaves the decisions below less to do. After the
  // best-first search, which proves the segments of few units in
  // milliseconds (before it, the 20-cell DARTS stacks took 0.1 s instead of
  // 9 ms). Not on segments of more than kLocalSearchNodes nodes (a round
  // costs a pass over the order per set of moved nodes; the 4192-node
  // segment of a 200-cell DARTS stack took 0.5 s more and gained nothing).
  // See docs/Scheduling.md, dp step 7.
  constexpr int kLocalSearchNodes = 1000;
  const bool localSearch = problem.numNodes <= kLocalSearchNodes;
  uint64_t descents = 0;
  auto descend = [&](WorkClock::Point until) {
    detail::improveOrder(problem, segment.order, segment.peak,
                         std::max(floor, segment.lowerBound), until,
                         ++descents);
  };

  // Adaptive soft budgeting: decisions "some order has peak <= tau" for tau
  // in [lowerBound, peak - 1], over the multiples of the buffer sizes' gcd
  // (every peak is one), on two tracks taking turns until each hits its
  // limit, then binary search:
  //  - downwards from just below the best peak with the plain depth-first
  //    search, while that keeps finding orders (cheap when the budget is
  //    loose, and a last 'none' proves the order optimal); only on segments
  //    without the local search (below);
  //  - upwards from the lower bound with doubling strides, each tau shaved
  //    first (searchAt): shaving refutes most taus below the optimum, and at
  //    the least one it does not, its dependences often lead the search
  //    straight to an optimal order.
  // 'No solution' raises the low end (a proven bound), a found order lowers
  // the high end below its peak; a timeout stops its track, and on the
  // binary search gives up the values from tau up once those above it are
  // decided (timedOutLow, below; a smaller budget prunes more and is
  // decided faster). The binary search takes the upper middle: the looser
  // half is decided faster.
  auto down = [&](int64_t bytes) { return bytes / unit; };
  int64_t low = (segment.lowerBound + unit - 1) / unit,
          high = down(segment.peak - 1);
  // The downward track gallops: its step doubles while orders are found
  // (the first order within tau is often just below tau, and creeping down
  // one unit per step took hundreds of steps on 100-node DAGs) and falls
  // back to one unit when a longer step is not decided in time.
  int64_t stride = 1, downStride = 1;
  // After the local search the downward track is left out: its orders just
  // below a near-optimal peak cost more than the upward track's shaved
  // decisions take to reach it (on the 60-node fan-in-6 DAGs of the scale
  // suite: 23/30 proven with median 0.65 s without it, 22/30 and 1.0 s with
  // it); it remains for the segments too large for the local search.
  // Shaving gets half of an upward step, where it refutes most taus, and an
  // eighth of a step of the binary search, near the optimum, where it mostly
  // cannot finish, and a quarter of that after each binary step where it
  // ran out of time, down to 1/kLeastShavingShare: on the 60-node fan-in-6
  // DAGs at 3 s the decisions of 10 hard seeds took 16.3 s in all with
  // half, 13.4 s with an eighth, 9.1-9.4 s so, 11.1 s without shaving, and
  // the steps that shaved with half were never refuted by it. It costs
  // bound on the 100-node ones at 10 s: with half, 14/30 proven and 19/30
  // within 5 %; with an eighth 13 and 18; so 13 and 16 (seeds 1, 8, 9, 12,
  // 15, 25 and 27 ended with lower bounds).
  constexpr int kBinaryShavingShare = 8, kLeastShavingShare = 512;
  int binaryShavingShare = kBinaryShavingShare;
  bool descending = !localSearch, ascending = true, turnUp = true,
       probeHigh = false;
  // Binary steps that ran out of time at taus in [timedOutLow,
  // timedOutHigh] (-1: none since the last reset). The binary search then
  // takes turns below them (first) and above them, each half by its upper
  // middle; a step above gets 1/kAboveTimeoutShare of the time left (a
  // looser tau finds an order sooner; a timeout near the optimum says
  // nothing about the values above it). Once a found order brings the high
  // end down to the timeouts, the values from timedOutLow up are given up
  // (a smaller budget prunes more and is decided faster). Before, a timeout
  // gave them up at once: on the 100-node fan-in-6 DAGs at 10 s the first
  // binary step often lands just below the optimum (seed 13: refuting
  // 7147520 takes 75 million states), and the orders above it that a
  // decision finds in a second (7344128 bytes at 7348224, 1.5 million
  // states; the run had ended at 7548928) were never searched. Measured
  // alternating with the binary before on that class's 16 unproven seeds:
  // at 10 s 7/16 -> 11/16 within 5 % of the bound; at 3 s 6/16 both, the
  // largest gap 1.143 both, seven seeds better, two worse. Deciding the
  // values above first (no turns) gave 11/16 at 10 s but lost bounds at
  // 3 s (seeds 9 and 12: 1.171 and 1.198); starting the turns above, seed
  // 21 at 3 s 1.029 -> 1.057; a quarter instead of an eighth 9/16, a
  // sixteenth 10/16.
  constexpr int kAboveTimeoutShare = 8;
  int64_t timedOutLow = -1, timedOutHigh = -1;
  bool aboveTurn = false;
  // Dependences shaved at the least tau not refuted so far; a decision at a
  // tau up to that one starts from them.
  std::vector<std::pair<int, int>> known;
  int64_t knownTau = std::numeric_limits<int64_t>::max();
  // A shaving at openTau that ended Open and no search has used yet: what
  // it derived holds for every order of peak <= openTau, so the next
  // decision at a tau up to that one starts from it instead of shaving.
  detail::Shaving open;
  int64_t openTau = -1;
  // The least tau at which a shaving ended open.
  int64_t leastOpenTau = std::numeric_limits<int64_t>::max();
  // An open shaving's dependences at tau become `known` when tau is the
  // least so far.
  auto keepKnown = [&](int64_t tau,
                       const std::vector<std::pair<int, int>> &dependences) {
    if (tau < knownTau && !dependences.empty()) {
      known = dependences;
      knownTau = tau;
    }
  };
  auto decide = [&](int64_t tau, WorkClock::Point stepDeadline, bool upward) {
    // Above a tau where shaving ended open it cannot refute either (its
    // cuts only weaken as tau grows): an upward step there shaves as a
    // binary one does. Below it, where shaving may refute, a binary step
    // shaves as an upward one does: the upward track stops at the first
    // tau its doubling strides find open, often far above the least (on
    // the 100-node fan-in-6 DAGs 128 units), and the searches between
    // decide little there (those DAGs at 10 s: with an eighth, seeds 9, 12
    // and 21 ended with bounds 5595136, 6590464 and 5828608; so 6025216,
    // 6942720 and 5967872; the 60-node ones take as long).
    const bool binary = !upward || tau > leastOpenTau;
    const int shavingShare =
        binary && tau >= leastOpenTau ? binaryShavingShare : 2;
    std::vector<std::pair<int, int>> dependences;
    if (tau <= knownTau)
      dependences = known;
    detail::Shaving::Outcome outcome = detail::Shaving::Timeout;
    SearchResult result = searchAt(
        segment, tau * unit, stepDeadline, stateLimit, dependences, memory,
        shavingShare, tau <= openTau ? &open : nullptr, outcome);
    if (outcome == detail::Shaving::Open)
      leastOpenTau = std::min(leastOpenTau, tau);
    if (binary)
      binaryShavingShare =
          outcome == detail::Shaving::Timeout &&
                  problem.numNodes <= kShavingNodes
              ? std::min(4 * binaryShavingShare, kLeastShavingShare)
              : kBinaryShavingShare;
    openTau = -1;
    keepKnown(tau, dependences);
    return result;
  };
  // The first decision of the upward track, when it ran beside the local
  // search (below), at pendingTau.
  std::optional<SearchResult> pending;
  int64_t pendingTau = -1;
  if (localSearch) {
    // The local search, then the upward track's first steps: at taus far
    // below the peak, shaving alone refutes them (on the 60-node fan-in-6
    // DAGs each takes 20-60 ms, the local search 0.2-0.4 s); the first tau
    // not refuted keeps its shaving for the search that decides it in the
    // loop below. (They once ran beside the local search on a second
    // thread, with a speculative decision cancelled by the local search's
    // end: the point where each started on the work clock then depended on
    // the threads' speeds. The decisions' two directions still run on two
    // threads, from the same point: depthFirstAt.)
    now = WorkClock::now();
    const WorkClock::Point until = now + (deadline - now) / 4;
    // A local search that reaches this is done: no shaving or decision is
    // needed (the 100-node fan-in-6 DAG of seed 4 at 10 s: its local search
    // reached the floor in 50 ms).
    const int64_t enough = std::max(floor, segment.lowerBound);
    auto shaveUpwards = [&] {
      for (; low <= high; stride *= 2) {
        const WorkClock::Point stepStart = WorkClock::now();
        const int64_t tau = std::min(high, low + stride - 1);
        detail::Shaving shaving = detail::shave(
            problem, tau * unit, stepStart + (deadline - stepStart) / 4, known);
        if (shaving.outcome == detail::Shaving::Open) {
          keepKnown(tau, shaving.dependences);
          open = std::move(shaving);
          openTau = leastOpenTau = tau;
          break;
        }
        if (shaving.outcome != detail::Shaving::Refuted)
          break;
        low = tau + 1;
      }
    };
    descend(until);
    if (segment.peak > enough) {
      shaveUpwards();
      // The decision at the first tau shaving did not refute, when the
      // local search's peak is above it (else the loop below starts lower).
      if (openTau >= 0 && segment.peak > openTau * unit) {
        const WorkClock::Point start = WorkClock::now();
        pendingTau = openTau;
        pending = decide(openTau, start + (deadline - start) / 2, true);
      }
    }
    high = std::min(high, down(segment.peak - 1));
    segment.lowerBound = std::max(segment.lowerBound, low * unit);
    if (segment.peak <= std::max(floor, segment.lowerBound))
      return;
  }
  while (pending || (low <= high && segment.peak > floor)) {
    now = WorkClock::now();
    if (!pending && now >= deadline)
      break;
    int64_t searchLow = std::max(low, std::min(down(floor), high)),
            searchHigh = high;
    const bool up = ascending && (turnUp || !descending);
    turnUp = !turnUp;
    bool above = false;
    if (timedOutLow >= 0 && !up && !descending) {
      above = aboveTurn || searchLow >= timedOutLow;
      aboveTurn = !aboveTurn;
      if (above)
        searchLow = std::max(searchLow, timedOutHigh + 1);
      else
        searchHigh = timedOutLow - 1;
    }
    int steps = 1;
    for (int64_t span = searchHigh - searchLow + 1; span > 1; span >>= 1)
      ++steps;
    int64_t tau =
        probeHigh ? high : searchLow + (searchHigh - searchLow + 1) / 2;
    probeHigh = false;
    WorkClock::Point stepDeadline = now + (deadline - now) / steps;
    if (up) {
      tau = std::min(high, searchLow + stride - 1);
      stepDeadline = now + (deadline - now) / 2;
    } else if (descending) {
      tau = std::max(searchLow, high - downStride + 1);
      stepDeadline = now + (deadline - now) / 8;
    }
    if (above)
      stepDeadline = now + (deadline - now) / kAboveTimeoutShare;
    const bool downward = !up && descending;
    SearchResult step;
    if (pending) {
      tau = pendingTau;
      step = std::move(*pending);
      pending.reset();
    } else if (up || !descending) {
      step = decide(tau, stepDeadline, up);
    } else {
      step = depthFirstAt(problem, backward, tau * unit, stepDeadline,
                          stateLimit, memory, true);
    }
    effort.add(step);
    switch (step.outcome) {
    case SearchOutcome::Found:
      // (The local search may have found a lower peak beside it.)
      if (step.peak < segment.peak) {
        segment.order = std::move(step.order);
        segment.peak = step.peak;
      }
      high = down(segment.peak - 1);
      // Found near the lower bound: binary search (shaved) decides the
      // rest, first just below the peak found (it is often optimal).
      if (up) {
        ascending = descending = false;
        probeHigh = true;
      }
      if (downward)
        downStride *= 2;
      break;
    case SearchOutcome::Exhausted:
      low = std::max(tau + 1, (step.lowerBound + unit - 1) / unit);
      stride *= 2;
      if (downward)
        downStride = 1;
      break;
    case SearchOutcome::Limit:
      if (up) {
        ascending = false;
      } else if (downward && downStride > 1) {
        downStride = 1;
      } else {
        descending = false;
        if (timedOutLow < 0) {
          timedOutLow = timedOutHigh = tau;
          aboveTurn = false;
        } else {
          timedOutLow = std::min(timedOutLow, tau);
          timedOutHigh = std::max(timedOutHigh, tau);
        }
        // A decision of the binary search that runs out of time is often
        // followed by more (100-node fan-in-6 DAGs: every step after the
        // upward track's); another descent of the local search, with other
        // random choices, may still lower the peak.
        if (localSearch && !downward) {
          descend(WorkClock::now() + (deadline - WorkClock::now()) / 4);
          high = std::min(high, down(segment.peak - 1));
        }
      }
      break;
    }
    // Values proven below the timeouts make them moot; values above them
    // used up give them up.
    if (timedOutLow >= 0 && low > timedOutHigh) {
      timedOutLow = timedOutHigh = -1;
    } else if (timedOutLow >= 0 && high <= timedOutHigh) {
      high = std::min(high, timedOutLow - 1);
      timedOutLow = timedOutHigh = -1;
    }
  }
  // Time left after timeouts gave up the values above the lower bound: the
  // least of them once more, with all of it.
  if (low * unit < segment.peak && segment.peak > floor &&
      WorkClock::now() < deadline) {
    SearchResult last = decide(low, deadline, false);
    effort.add(last);
    if (last.outcome == SearchOutcome::Found) {
      segment.order = std::move(last.order);
      segment.peak = last.peak;
    } else if (last.outcome == SearchOutcome::Exhausted) {
      low = std::max(low + 1, (last.lowerBound + unit - 1) / unit);
    }
  }
  segment.lowerBound = std::max(segment.lowerBound, low * unit);
  // Decisions that end at the state limit give up their values, so the
  // loop above may end long before the deadline (a 60-node fan-in-6 DAG
  // under time-limit-ms=60000: after 18 s, with an order worse than a 3 s
  // run's). The time left goes to more descents of the local search, which
  // only lower the peak; kStaleDescents in a row without a lower peak end
  // them.
  constexpr int kStaleDescents = 4;
  for (int stale = 0; localSearch && stale < kStaleDescents &&
                      segment.peak > std::max(floor, segment.lowerBound) &&
                      WorkClock::now() < deadline;) {
    const int64_t before = segment.peak;
    descend(deadline);
    stale = segment.peak < before ? 0 : stale + 1;
  }
}

/// `order` of the original graph as orders of the graph whose node k
/// contracts the original nodes members[k]: by each contracted node's first
/// member, and by its last member (either may violate a dependence).
std::vector<std::vector<int>>
contractOrder(const std::vector<int> &order,
              const std::vector<std::vector<int>> &members) {
  std::vector<int> position(order.size());
  for (int i = 0, e = static_cast<int>(order.size()); i < e; ++i)
    position[order[i]] = i;
  std::vector<std::vector<int>> orders;
  for (bool last : {false, true}) {
    std::vector<std::pair<int, int>> keyed;
    for (int k = 0, e = static_cast<int>(members.size()); k < e; ++k) {
      int key = last ? -1 : static_cast<int>(order.size());
      for (int v : members[k])
        key = last ? std::max(key, position[v]) : std::min(key, position[v]);
      keyed.emplace_back(key, k);
    }
    std::sort(keyed.begin(), keyed.end());
    orders.emplace_back();
    for (auto [key, k] : keyed)
      orders.back().push_back(k);
  }
  return orders;
}

/// The dp algorithm; fills order, lowerBound and statesExplored.
void scheduleExact(const SchedulingProblem &problem,
                   const ScheduleOptions &options,
                   const std::vector<std::vector<int>> &heuristics,
                   ScheduleResult &result, Effort &effort) {
  const int numNodes = problem.numNodes;
  const WorkClock::Point deadline = WorkClock::after(options.workLimit);
  const int64_t words = std::max(1, (numNodes + 63) / 64);
  // Signature, peak, live bytes, dead value, parent/node/depth, hash slots,
  // queue entry.
  const int64_t bytesPerState = 8 * words + 88;
  const int64_t stateLimit = std::max<int64_t>(
      1, std::min(options.maxStates, options.memoryLimitBytes / bytesPerState));

  std::vector<std::vector<int>> parts = problem.forcedSegments();
  std::vector<int> segmentOf(numNodes), localId(numNodes);
  for (int k = 0, e = static_cast<int>(parts.size()); k < e; ++k)
    for (int i = 0, n = static_cast<int>(parts[k].size()); i < n; ++i) {
      segmentOf[parts[k][i]] = k;
      localId[parts[k][i]] = i;
    }

  std::vector<Segment> segments(parts.size());
  int64_t floor = problem.staticBound;
  for (int k = 0, e = static_cast<int>(parts.size()); k < e; ++k) {
    Segment &segment = segments[k];
    segment.nodes = std::move(parts[k]);
    std::string error;
    segment.graph = problem.subGraph(segmentOf, k, segment.nodes);
    [[maybe_unused]] bool built = segment.problem.build(segment.graph, error);
    assert(built && "a segment of an acyclic graph is acyclic");
    // Interchangeable branches stay interchangeable in their segment
    // (they read the same earlier buffers and feed the same later nodes).
    for (const std::vector<std::vector<int>> &members :
         problem.symmetricClasses) {
      if (segmentOf[members.front().front()] != k)
        continue;
      std::vector<std::vector<int>> local;
      for (const std::vector<int> &member : members) {
        local.emplace_back();
        for (int v : member)
          local.back().push_back(localId[v]);
      }
      segment.problem.symmetricClasses.push_back(std::move(local));
    }
    // Candidates: the heuristics' orders restricted to the segment (so the
    // result is never worse than any of them) and greedy on the segment.
    std::vector<std::vector<int>> candidates;
    for (const std::vector<int> &order : heuristics)
      candidates.push_back(induce(order, segmentOf, localId, k));
    candidates.push_back(segment.problem.greedyOrder());
    for (std::vector<int> &candidate : candidates) {
      int64_t peak = segment.problem.peakOf(candidate);
      if (segment.order.empty() || peak < segment.peak) {
        segment.order = std::move(candidate);
        segment.peak = peak;
      }
    }
    segment.lowerBound = segment.problem.staticBound;
    if (segment.nodes.size() == 1)
      segment.lowerBound = segment.peak;
    floor = std::max(floor, segment.lowerBound);
  }

  // Hardest segments first: they are the most likely to set the peak, and a
  // proven bound from them lets the others stop at any order under it.
  std::vector<int> pending;
  for (int k = 0, e = static_cast<int>(segments.size()); k < e; ++k)
    if (segments[k].peak > segments[k].lowerBound)
      pending.push_back(k);
  std::sort(pending.begin(), pending.end(), [&](int a, int b) {
    return segments[a].peak > segments[b].peak ||
           (segments[a].peak == segments[b].peak && a < b);
  });
  for (size_t i = 0; i < pending.size(); ++i) {
    Segment &segment = segments[pending[i]];
    if (segment.peak <= floor)
      continue;
    WorkClock::Point now = WorkClock::now();
    if (now >= deadline)
      break;
    size_t left = 0;
    for (size_t j = i; j < pending.size(); ++j)
      left += segments[pending[j]].peak > floor;
    WorkClock::Point share = now + (deadline - now) / left;
    // The minimum-cut bounds first, within an eighth of the segment's share:
    // they may prove the heuristic order optimal or the floor reached.
    segment.problem.strengthenBounds(now + (share - now) / 8);
    segment.lowerBound =
        std::max(segment.lowerBound, segment.problem.staticBound);
    floor = std::max(floor, segment.lowerBound);
    if (segment.peak <= floor)
      continue;
    // The reversed graph, which the decisions search too (depthFirstAt),
    // with its own bounds (nodeBound and the cuts see the steps from the
    // other end): a step's usage is the same read backwards, so each
    // problem takes the other's step bounds.
    std::string error;
    segment.reversible = reverseGraph(segment.graph, segment.backwardGraph) &&
                         segment.backward.build(segment.backwardGraph, error);
    if (segment.reversible) {
      segment.backward.symmetricClasses = segment.problem.symmetricClasses;
      now = WorkClock::now();
      segment.backward.strengthenBounds(now + (share - now) / 8);
      segment.backward.raiseStepBounds(segment.problem.stepBound);
      segment.problem.raiseStepBounds(segment.backward.stepBound);
    }
    segment.lowerBound =
        std::max(segment.lowerBound, segment.problem.staticBound);
    floor = std::max(floor, segment.lowerBound);
    if (segment.peak <= floor)
      continue;
    improveSegment(segment, floor, share, stateLimit, options.parallel,
                   effort);
    floor = std::max(floor, segment.lowerBound);
  }

  result.order.clear();
  result.lowerBound = floor;
  for (const Segment &segment : segments) {
    for (int v : segment.order)
      result.order.push_back(segment.nodes[v]);
    result.lowerBound = std::max(result.lowerBound, segment.lowerBound);
  }
}

} // namespace

ScheduleResult schedule(const MemoryGraph &graph,
                        const ScheduleOptions &options) {
  const auto start = std::chrono::steady_clock::now();
  // The search's clock counts its work from here; the wall-clock safety
  // net is armed only when asked for (timeLimitMs > 0).
  WorkClock::Scope clock(options.timeLimitMs);
  ScheduleResult result;
  Effort effort;
  SchedulingProblem problem;
  const bool isDP = options.algorithm == ScheduleAlgorithm::DP;
  // The dp computes its bounds on the contracted graph.
  if (!problem.build(graph, result.error, /*withBounds=*/!isDP))
    return result;

  std::vector<int> program = programOrder(graph);
  bool programValid = true;
  for (int v = 0; v < problem.numNodes; ++v)
    for (int p : problem.preds[v])
      programValid = programValid && p < v;

  switch (options.algorithm) {
  case ScheduleAlgorithm::ProgramOrder:
    if (!programValid) {
      result.error = "program order violates a dependence";
      return result;
    }
    result.order = program;
    break;
  case ScheduleAlgorithm::Kahn:
    result.order = problem.kahnOrder();
    break;
  case ScheduleAlgorithm::Greedy:
    result.order = problem.greedyOrder();
    break;
  case ScheduleAlgorithm::HillValley:
    result.order = detail::hillValleyOrder(problem);
    break;
  case ScheduleAlgorithm::DP: {
    // Search the graph with contracted chains; its orders expand to orders
    // of the same peak, and its optimum is the original one.
    MemoryGraph contracted;
    std::vector<std::vector<int>> members;
    problem.contractChains(contracted, members);
    // Then the hill-valley segments of private chains, which need the
    // contracted graph's (fixed) profiles.
    {
      SchedulingProblem chained;
      [[maybe_unused]] bool built =
          chained.build(contracted, result.error, /*withBounds=*/false);
      assert(built && "contracting chains keeps the graph acyclic");
      MemoryGraph segmented;
      std::vector<std::vector<int>> parts;
      chained.contractSegments(segmented, parts);
      std::vector<std::vector<int>> composed;
      for (const std::vector<int> &part : parts) {
        composed.emplace_back();
        for (int node : part)
          composed.back().insert(composed.back().end(), members[node].begin(),
                                 members[node].end());
      }
      contracted = std::move(segmented);
      members = std::move(composed);
    }
    // Interchangeable nodes and branches start in index order (some
    // optimal order does): this removes the factorial blow-up of
    // interchangeable branches, e.g. the tiles of a fused-tiled region.
    std::vector<std::vector<std::vector<int>>> permutable;
    detail::breakSymmetries(contracted, &permutable);
    SchedulingProblem reduced;
    [[maybe_unused]] bool built = reduced.build(contracted, result.error);
    assert(built && "contracting chains keeps the graph acyclic");
    for (std::vector<std::vector<int>> &symmetric : permutable)
      if (symmetric.front().size() <= 64)
        reduced.symmetricClasses.push_back(std::move(symmetric));
    std::vector<std::vector<int>> heuristics{reduced.kahnOrder(),
                                             reduced.greedyOrder(),
                                             detail::hillValleyOrder(reduced)};
    // The order as written, unless a symmetry dependence reverses it.
    std::vector<int> written = programOrder(contracted);
    if (contracted.isTopologicalOrder(written))
      heuristics.insert(heuristics.begin(), std::move(written));
    // The heuristics on the original graph see other choices than on the
    // contracted one (a chain's members may interleave with other nodes);
    // their orders, with each contracted node at its first or last
    // member's step, are candidates too where that is an order of the
    // contracted graph.
    std::vector<std::vector<int>> original{problem.greedyOrder(),
                                           detail::hillValleyOrder(problem)};
    for (const std::vector<int> &order : original)
      for (std::vector<int> &mapped : contractOrder(order, members))
        if (contracted.isTopologicalOrder(mapped))
          heuristics.push_back(std::move(mapped));
    ScheduleResult search;
    scheduleExact(reduced, options, heuristics, search, effort);
    result.lowerBound = search.lowerBound;
    std::vector<int> expanded;
    for (int node : search.order)
      expanded.insert(expanded.end(), members[node].begin(),
                      members[node].end());
    // Never worse than the heuristics on the original graph; on ties the
    // program order is kept, which makes the pass idempotent.
    std::vector<std::vector<int>> candidates;
    if (programValid)
      candidates.push_back(program);
    candidates.push_back(std::move(expanded));
    candidates.push_back(problem.kahnOrder());
    for (std::vector<int> &order : original)
      candidates.push_back(std::move(order));
    int64_t best = 0;
    for (std::vector<int> &candidate : candidates) {
      int64_t peak = problem.peakOf(candidate);
      if (result.order.empty() || peak < best) {
        result.order = std::move(candidate);
        best = peak;
      }
    }
    break;
  }
  }
  result.peak = peakMemory(graph, result.order);
  result.lowerBound = std::max(result.lowerBound, problem.staticBound);
  result.provenOptimal = result.peak == result.lowerBound;
  result.statesExplored = effort.states;
  result.work = WorkClock::wallExpired() ? -1 : WorkClock::now();
  if (!result.provenOptimal && isDP)
    result.stoppedBy = WorkClock::wallExpired() ? SearchStop::Time
                       : effort.stateLimited    ? SearchStop::States
                                                : SearchStop::Work;
  result.timeMs = std::chrono::duration_cast<std::chrono::milliseconds>(
                      std::chrono::steady_clock::now() - start)
                      .count();
  return result;
}

} // namespace serenity
