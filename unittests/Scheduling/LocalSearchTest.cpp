//===- LocalSearchTest.cpp - Optimal re-insertion vs brute force ----------===//
//
// reinsertOptimally is exact over the orders that keep the other nodes in
// their order (checked by enumerating all topological orders), also with
// tables kept from earlier calls, and
// improveOrder only ever returns valid orders of the peak it reports.
//
//===----------------------------------------------------------------------===//

#include "../../lib/Scheduling/LocalSearch.h"
#include "Serenity/Scheduling/Scheduler.h"

#include "GraphGenerators.h"

#include "gtest/gtest.h"

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

void checkReinsertion(const MemoryGraph &graph, std::mt19937 &rng, int index,
                      detail::ReinsertionScratch &shared) {
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
  // Tables kept from the calls on the earlier graphs (of other sizes) give
  // the same result.
  std::vector<int> again;
  ASSERT_EQ(detail::reinsertOptimally(problem, order, moved,
                                      std::numeric_limits<int64_t>::max(),
                                      again, shared),
            reached)
      << "graph " << index;
  ASSERT_EQ(again, result) << "graph " << index;
  // The budget is strict.
  ASSERT_EQ(detail::reinsertOptimally(problem, order, moved, best, result), -1)
      << "graph " << index;
  ASSERT_EQ(detail::reinsertOptimally(problem, order, moved, best + 1, result),
            best)
      << "graph " << index;
}

TEST(LocalSearch, ReinsertionIsTheBestOrderKeepingTheOthers) {
  std::mt19937 rng(61);
  detail::ReinsertionScratch shared;
  for (int index = 0; index < 400; ++index) {
    int n = 2 + index % 7;
    MemoryGraph graph = index % 3 == 2 ? randomInPlaceGraph(rng, n)
                                       : randomGraph(rng, n, index % 5 == 0);
    checkReinsertion(graph, rng, index, shared);
  }
}

TEST(LocalSearch, TooManySetsMoveOnlyTheFirstNodes) {
  // 20 unrelated nodes read one input: 2^20 sets of them. The first moved
  // nodes (a tail of the first of them, then eleven: 4096 sets) are moved,
  // the others stay in place, also the node the tail needs, listed last.
  MemoryGraph graph;
  Value input{graph.addInput(8), -1};
  std::vector<Value> results;
  for (int i = 0; i < 20; ++i) {
    int node = addOp(graph, {input});
    results.push_back({graph.addResult(node, 8 * (1 + i % 3)), node});
  }
  int join = addOp(graph, results);
  graph.buffers[graph.addResult(join, 8)].returned = true;
  int tail = addOp(graph, {results[0]});
  graph.buffers[graph.addResult(tail, 8)].returned = true;
  SchedulingProblem problem;
  std::string error;
  ASSERT_TRUE(problem.build(graph, error)) << error;
  std::vector<int> order = problem.kahnOrder(), moved, result;
  moved.push_back(tail);
  for (int i = 19; i >= 0; --i)
    moved.push_back(order[i]);
  ASSERT_EQ(moved.back(), results[0].node);
  const int64_t reached = detail::reinsertOptimally(
      problem, order, moved, std::numeric_limits<int64_t>::max(), result);
  ASSERT_TRUE(isTopological(problem, result));
  EXPECT_EQ(peakMemory(graph, result), reached);
  EXPECT_LE(reached, problem.peakOf(order));
  // The nine nodes left in place kept their order.
  std::vector<int> position(problem.numNodes);
  for (int t = 0; t < problem.numNodes; ++t)
    position[result[t]] = t;
  for (int t = 1; t < 9; ++t)
    EXPECT_LT(position[order[t - 1]], position[order[t]]) << t;
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
                         WorkClock::after(20 * kScheduleWorkPerMs),
                         index);
    ASSERT_TRUE(isTopological(problem, order)) << "graph " << index;
    ASSERT_EQ(peakMemory(graph, order), peak) << "graph " << index;
    ASSERT_LE(peak, start) << "graph " << index;
    ASSERT_GE(peak, bruteForcePeak(graph)) << "graph " << index;
  }
}

} // namespace
