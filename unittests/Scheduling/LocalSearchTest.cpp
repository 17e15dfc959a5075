//===- LocalSearchTest.cpp - Optimal re-insertion vs brute force ----------===//
//
// reinsertOptimally is exact over the orders that keep the other nodes in
// their order (checked by enumerating all topological orders), and
// improveOrder only ever returns valid orders of the peak it reports.
//
//===----------------------------------------------------------------------===//

#include "../../lib/Scheduling/LocalSearch.h"

#include "GraphGenerators.h"

#include "gtest/gtest.h"

#include <chrono>
#include <limits>

using namespace serenity;
using namespace serenity::testing;
using detail::SchedulingProblem;

namespace {

bool isTopological(const SchedulingProblem &problem,
                   const std::vector<int> &order) {
  std::vector<int> position(problem.numNodes, -1);
  for (int t = 0, e = static_cast<int>(order.size()); t < e; ++t) {
    if (order[t] < 0 || order[t] >= problem.numNodes || position[order[t]] >= 0)
      return false;
    position[order[t]] = t;
  }
  for (int v = 0; v < problem.numNodes; ++v)
    for (int p : problem.preds[v])
      if (position[v] < 0 || position[p] > position[v])
        return false;
  return static_cast<int>(order.size()) == problem.numNodes;
}

/// The nodes of `order` that are not `moved`, in order.
std::vector<int> keptOf(const std::vector<int> &order,
                        const std::vector<char> &moved) {
  std::vector<int> kept;
  for (int v : order)
    if (!moved[v])
      kept.push_back(v);
  return kept;
}

void checkReinsertion(const MemoryGraph &graph, std::mt19937 &rng, int index) {
  SchedulingProblem problem;
  std::string error;
  ASSERT_TRUE(problem.build(graph, error)) << error;
  const std::vector<int> order = problem.kahnOrder();
  std::vector<char> isMoved(problem.numNodes, 0);
  std::vector<int> moved;
  for (int v = 0; v < problem.numNodes; ++v)
    if (rng() % 2 && moved.size() < 6) {
      isMoved[v] = 1;
      moved.push_back(v);
    }
  const std::vector<int> kept = keptOf(order, isMoved);
  int64_t best = std::numeric_limits<int64_t>::max();
  forEachTopologicalOrder(graph, [&](const std::vector<int> &other) {
    if (keptOf(other, isMoved) == kept)
      best = std::min(best, peakMemory(graph, other));
  });
  std::vector<int> result;
  const int64_t reached = detail::reinsertOptimally(
      problem, order, moved, std::numeric_limits<int64_t>::max(), result);
  ASSERT_EQ(reached, best) << "graph " << index;
  ASSERT_TRUE(isTopological(problem, result)) << "graph " << index;
  ASSERT_EQ(keptOf(result, isMoved), kept) << "graph " << index;
  ASSERT_EQ(peakMemory(graph, result), reached) << "graph " << index;
  // The budget is strict.
  ASSERT_EQ(detail::reinsertOptimally(problem, order, moved, best, result), -1)
      << "graph " << index;
  ASSERT_EQ(detail::reinsertOptimally(problem, order, moved, best + 1, result),
            best)
      << "graph " << index;
}

TEST(LocalSearch, ReinsertionIsTheBestOrderKeepingTheOthers) {
  std::mt19937 rng(61);
  for (int index = 0; index < 400; ++index) {
    int n = 2 + index % 7;
    MemoryGraph graph = index % 3 == 2 ? randomInPlaceGraph(rng, n)
                                       : randomGraph(rng, n, index % 5 == 0);
    checkReinsertion(graph, rng, index);
  }
}

TEST(LocalSearch, ImprovedOrdersAreValidAndNeverWorse) {
  std::mt19937 rng(62);
  for (int index = 0; index < 200; ++index) {
    const int n = 3 + index % 7;
    MemoryGraph graph =
        index % 3 == 2 ? randomInPlaceGraph(rng, n) : randomGraph(rng, n);
    SchedulingProblem problem;
    std::string error;
    ASSERT_TRUE(problem.build(graph, error)) << error;
    std::vector<int> order = problem.kahnOrder();
    const int64_t start = problem.peakOf(order);
    int64_t peak = start;
    detail::improveOrder(problem, order, peak, 0,
                         std::chrono::steady_clock::now() +
                             std::chrono::milliseconds(20),
                         index);
    ASSERT_TRUE(isTopological(problem, order)) << "graph " << index;
    ASSERT_EQ(peakMemory(graph, order), peak) << "graph " << index;
    ASSERT_LE(peak, start) << "graph " << index;
    ASSERT_GE(peak, bruteForcePeak(graph)) << "graph " << index;
  }
}

} // namespace
