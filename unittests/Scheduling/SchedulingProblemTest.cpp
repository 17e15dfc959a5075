//===- SchedulingProblemTest.cpp - Incremental byte counts ----------------===//
//
// Execution (per-buffer counts, what the greedy and hill-valley heuristics and
// peakOf use) gives the same byte counts as SchedulingProblem's scans, for
// every node not run, along random orders with run and undo.
//
//===----------------------------------------------------------------------===//

#include "../../lib/Scheduling/SchedulingProblem.h"

#include "GraphGenerators.h"

#include "gtest/gtest.h"

using namespace serenity;
using namespace serenity::testing;
using detail::Execution;
using detail::SchedulingProblem;

TEST(Execution, EqualsTheScansAlongRandomOrders) {
  std::mt19937 rng(41);
  for (int i = 0; i < 200; ++i) {
    MemoryGraph graph = i % 2 ? randomInPlaceGraph(rng, 4 + i % 9, i % 4 == 1)
                              : randomGraph(rng, 3 + i % 9);
    SchedulingProblem problem;
    std::string error;
    ASSERT_TRUE(problem.build(graph, error)) << error;
    // A random topological order.
    std::vector<int> missing(problem.numNodes), ready, order;
    for (int v = 0; v < problem.numNodes; ++v)
      if (!(missing[v] = static_cast<int>(problem.preds[v].size())))
        ready.push_back(v);
    while (!ready.empty()) {
      size_t k = rng() % ready.size();
      int v = ready[k];
      ready.erase(ready.begin() + k);
      order.push_back(v);
      for (int s : problem.succs[v])
        if (--missing[s] == 0)
          ready.push_back(s);
    }
    Execution execution(problem);
    std::vector<char> scheduled(problem.numNodes, 0);
    auto check = [&](int step) {
      for (int v = 0; v < problem.numNodes; ++v) {
        if (scheduled[v])
          continue;
        ASSERT_EQ(execution.newBytes(v), problem.newBytes(v, scheduled))
            << "graph " << i << " step " << step << " node " << v;
        ASSERT_EQ(execution.keptBytes(v), problem.keptBytes(v, scheduled))
            << "graph " << i << " step " << step << " node " << v;
        ASSERT_EQ(execution.freedBytes(v), problem.freedBytes(v, scheduled))
            << "graph " << i << " step " << step << " node " << v;
      }
    };
    for (int t = 0, e = static_cast<int>(order.size()); t < e; ++t) {
      check(t);
      execution.run(order[t]);
      scheduled[order[t]] = 1;
    }
    // Undo back to the half-way point, checking again.
    for (int t = static_cast<int>(order.size()) - 1;
         t >= static_cast<int>(order.size()) / 2; --t) {
      execution.undo(order[t]);
      scheduled[order[t]] = 0;
      check(-t);
    }
    EXPECT_EQ(problem.peakOf(order), peakMemory(graph, order)) << "graph " << i;
  }
}
