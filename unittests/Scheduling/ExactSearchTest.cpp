//===- ExactSearchTest.cpp - The searches' eager children vs brute force --===//
//
// When the searches expand a scheduled set into one child only (a node that
// does not grow the live bytes, or the first node of an eager pair), some
// completion within the budget must start with it whenever one exists.
// Checked on every predecessor-closed set of random graphs, against the
// step usages of simulate() along every topological order.
//
//===----------------------------------------------------------------------===//

#include "../../lib/Scheduling/ExactSearch.h"
#include "../../lib/Scheduling/Shaving.h"
#include "Serenity/Scheduling/Scheduler.h"

#include "GraphGenerators.h"

#include "gtest/gtest.h"

#include <map>

using namespace serenity;
using namespace serenity::testing;
using detail::SchedulingProblem;

namespace {

struct EagerCounts {
  int64_t children = 0, pairs = 0;
};

/// For every prefix set S of a topological order (as a bit mask) and budget
/// tau among a few around the optimum: whether some completion of S keeps
/// every later step within tau. Then every eager child of S within tau
/// must keep that answer (its own step within tau, S + child completable).
void checkEagerChildren(const MemoryGraph &graph, int index,
                        EagerCounts &counts) {
  SchedulingProblem problem;
  std::string error;
  ASSERT_TRUE(problem.build(graph, error)) << error;
  const int n = graph.size();
  ASSERT_LE(n, 16);
  const int64_t optimum = bruteForcePeak(graph);
  const int64_t unit = std::max<int64_t>(1, detail::peakUnit(problem));
  for (int64_t tau :
       {optimum - unit, optimum, optimum + unit, optimum + 3 * unit}) {
    // completable[S]: some completion of S has every step within tau.
    std::map<uint32_t, bool> completable;
    forEachTopologicalOrder(graph, [&](const std::vector<int> &order) {
      MemoryProfile profile = simulate(graph, order);
      int64_t rest = 0; // the largest step from position t on
      std::vector<int64_t> suffix(n + 1, 0);
      for (int t = n - 1; t >= 0; --t)
        suffix[t] = rest = std::max(rest, profile.usage[t]);
      uint32_t set = 0;
      for (int t = 0; t <= n; ++t) {
        completable[set] = completable[set] || suffix[t] <= tau;
        if (t < n)
          set |= uint32_t(1) << order[t];
      }
    });
    detail::ExactSearch search(problem, 1 << 20,
                               WorkClock::kEnd);
    for (auto [set, possible] : completable) {
      if (set == (uint32_t(1) << n) - 1)
        continue;
      std::vector<char> scheduled(n);
      for (int v = 0; v < n; ++v)
        scheduled[v] = (set >> v) & 1;
      std::optional<std::pair<int, int64_t>> child =
          search.eagerChild(scheduled, tau);
      if (!child)
        continue;
      auto [node, usage] = *child;
      ++counts.children;
      // A child the single-node rule does not explain came from a pair.
      counts.pairs += problem.keptBytes(node, scheduled) >
                      problem.freedBytes(node, scheduled);
      ASSERT_FALSE((set >> node) & 1);
      if (!possible)
        continue;
      EXPECT_LE(usage, tau) << "graph " << index << " set " << set;
      EXPECT_TRUE(completable[set | (uint32_t(1) << node)])
          << "graph " << index << " set " << set << " node " << node << " tau "
          << tau;
    }
  }
}

} // namespace

TEST(ExactSearch, EagerChildrenKeepACompletionWithinTheBudget) {
  std::mt19937 rng(2026);
  EagerCounts counts;
  for (int i = 0; i < 300; ++i) {
    MemoryGraph graph = randomGraph(rng, 4 + i % 6, /*chainy=*/i % 3 == 0);
    checkEagerChildren(graph, i, counts);
  }
  for (int i = 0; i < 150; ++i) {
    MemoryGraph graph = randomInPlaceGraph(rng, 4 + i % 5, /*general=*/i % 2);
    checkEagerChildren(graph, 300 + i, counts);
  }
  // Reversed graphs (reverseGraph), which the decisions search too: every
  // buffer read twice or more has several writers there.
  for (int i = 0; i < 150; ++i) {
    MemoryGraph graph = i % 2 ? randomInPlaceGraph(rng, 4 + i % 5)
                              : randomGraph(rng, 4 + i % 6);
    MemoryGraph reversed;
    ASSERT_TRUE(reverseGraph(graph, reversed) || i % 2);
    if (reversed.size() == graph.size())
      checkEagerChildren(reversed, 450 + i, counts);
  }
  // Not vacuous: pairs (first nodes that grow the live bytes) are taken.
  EXPECT_GT(counts.pairs, 200);
  EXPECT_GT(counts.children, counts.pairs);
}

// The decisions on the reversed graph answer as on the graph (brute force),
// an order found there is one of the graph read backwards, and a search
// paused after every state and resumed answers as one run at once.
TEST(ExactSearch, ReversedAndResumedDecisionsAnswerAsBruteForce) {
  std::mt19937 rng(2027);
  int reversedGraphs = 0;
  for (int i = 0; i < 300; ++i) {
    MemoryGraph graph = i % 2 ? randomInPlaceGraph(rng, 3 + i % 6)
                              : randomGraph(rng, 3 + i % 7, i % 3 == 0);
    MemoryGraph reversed;
    if (!reverseGraph(graph, reversed))
      continue;
    ++reversedGraphs;
    const int64_t optimum = bruteForcePeak(graph);
    SchedulingProblem problem;
    std::string error;
    ASSERT_TRUE(problem.build(reversed, error)) << error;
    const auto forever = WorkClock::kEnd;
    for (int64_t tau : {optimum - 1, optimum}) {
      if (tau < 0)
        continue;
      detail::ExactSearch whole(problem, 1 << 20, forever);
      detail::SearchResult once = whole.depthFirst(tau);
      detail::ExactSearch sliced(problem, 1 << 20, forever);
      sliced.startDepthFirst(tau);
      detail::SearchResult resumed;
      for (int64_t pause = 1; sliced.isPaused(); ++pause)
        resumed = sliced.resumeDepthFirst(pause);
      SCOPED_TRACE("graph " + std::to_string(i) + ", tau " +
                   std::to_string(tau));
      ASSERT_EQ(once.outcome, tau < optimum ? detail::SearchOutcome::Exhausted
                                            : detail::SearchOutcome::Found);
      ASSERT_EQ(resumed.outcome, once.outcome);
      ASSERT_EQ(resumed.order, once.order);
      ASSERT_EQ(resumed.states, once.states);
      if (once.outcome != detail::SearchOutcome::Found)
        continue;
      std::vector<int> order(once.order.rbegin(), once.order.rend());
      ASSERT_TRUE(graph.isTopologicalOrder(order));
      EXPECT_LE(peakMemory(graph, order), tau);
      EXPECT_EQ(peakMemory(reversed, once.order), peakMemory(graph, order));
    }
  }
  EXPECT_GT(reversedGraphs, 250);
}

// The depth-first search carries each state's survive sums from its parent
// (loadDepthFirst) instead of summing them over every live buffer (load):
// the bound must be the same in every state it enters, with and without
// values, across pauses, with in-place buffers of several writers.
TEST(ExactSearch, CarriedStateBoundsEqualTheBoundsFromScratch) {
  std::mt19937 rng(2029);
  detail::ExactSearch::BoundChecks total;
  for (int i = 0; i < 300; ++i) {
    MemoryGraph graph = i % 3 == 2 ? randomInPlaceGraph(rng, 4 + i % 10)
                                   : randomGraph(rng, 4 + i % 17, i % 3 == 0);
    SchedulingProblem problem;
    std::string error;
    ASSERT_TRUE(problem.build(graph, error)) << error;
    const int64_t low = problem.staticBound,
                  high = problem.peakOf(problem.greedyOrder());
    const auto forever = WorkClock::kEnd;
    for (int k = 0; k < 4; ++k) {
      detail::ExactSearch search(problem, 1 << 20, forever);
      search.checkBounds();
      search.startDepthFirst(low + (high - low) * k / 3, nullptr,
                             /*values=*/k % 2 == 1);
      for (int64_t pause = 5; search.isPaused(); pause += 5)
        search.resumeDepthFirst(pause);
      const detail::ExactSearch::BoundChecks &checks = search.boundChecks();
      ASSERT_EQ(checks.mismatches, 0) << "graph " << i << ", k " << k;
      total.states += checks.states;
      total.carried += checks.carried;
    }
  }
  // Not vacuous: most states are entered from their parent's sums.
  EXPECT_GT(total.states, 10000);
  EXPECT_GT(total.carried, total.states / 2);
}
