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

#include <algorithm>
#include <cstdio>

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

// reverseGraph: the reversed graph has exactly the reversed orders (the
// same ancestor relation, turned around) and, along every order, the same
// usage at every step, read backwards. It may refuse only the graphs it
// documents: a buffer of several writers that nothing reads (an unused
// in-place concat), or a slice writer that need not run before the concat's
// readers (made only in `general` mode).
TEST(ReverseGraph, HasTheReversedOrdersAndUsages) {
  std::mt19937 rng(43);
  int reversedInPlace = 0, refusedGeneral = 0;
  for (int i = 0; i < 300; ++i) {
    const bool general = i % 6 == 5;
    MemoryGraph graph = i % 3 ? randomInPlaceGraph(rng, 3 + i % 6, general)
                              : randomGraph(rng, 3 + i % 6, i % 2);
    bool unusedShared = false;
    for (int b = 0, e = static_cast<int>(graph.buffers.size()); b < e; ++b) {
      const MemoryGraph::Buffer &buffer = graph.buffers[b];
      bool read = false;
      for (const MemoryGraph::Node &node : graph.nodes)
        read = read || std::count(node.uses.begin(), node.uses.end(), b);
      unusedShared =
          unusedShared || (buffer.producer >= 0 && !read && !buffer.returned &&
                           !buffer.partialProducers.empty());
    }
    MemoryGraph reversed;
    if (!reverseGraph(graph, reversed)) {
      ASSERT_TRUE(general || unusedShared) << "graph " << i;
      refusedGeneral += general;
      continue;
    }
    reversedInPlace += i % 3 != 0;
    ASSERT_EQ(reversed.size(), graph.size());
    SchedulingProblem forward, backward;
    std::string error;
    ASSERT_TRUE(forward.build(graph, error)) << error;
    ASSERT_TRUE(backward.build(reversed, error)) << error;
    for (int u = 0; u < graph.size(); ++u)
      for (int v = 0; v < graph.size(); ++v)
        ASSERT_EQ(forward.isAncestor(u, v), backward.isAncestor(v, u))
            << "graph " << i << ": " << u << ", " << v;
    forEachTopologicalOrder(graph, [&](const std::vector<int> &order) {
      std::vector<int> backwards(order.rbegin(), order.rend());
      ASSERT_TRUE(reversed.isTopologicalOrder(backwards));
      MemoryProfile there = simulate(graph, order);
      MemoryProfile back = simulate(reversed, backwards);
      std::reverse(back.usage.begin(), back.usage.end());
      ASSERT_EQ(there.usage, back.usage) << "graph " << i;
    });
  }
  std::printf("reversed %d in-place graphs; refused %d of 50 general ones\n",
              reversedInPlace, refusedGeneral);
  EXPECT_GT(reversedInPlace, 100);
}
