//===- ScheduledPeakTest.cpp - serenity-rewrite's peak estimate -*- C++ -*-===//

#include "Serenity/Graph/Rewrite.h"

#include <gtest/gtest.h>

using serenity::MemoryGraph;

namespace {

/// x -> a (10 B), x -> b (10 B), a -> pa (1 B), b -> pb (1 B), (pa, pb) -> s.
/// In program order a, b, pa, pb, s both wide buffers meet: x + a + b = 21.
MemoryGraph twoBranches() {
  MemoryGraph graph;
  int x = graph.addInput(1);
  auto op = [&](std::vector<int> inputs, int64_t bytes) {
    int node = graph.addNode();
    for (int buffer : inputs) {
      graph.addUse(node, buffer);
      if (graph.buffers[buffer].producer >= 0)
        graph.addDependence(node, graph.buffers[buffer].producer);
    }
    return graph.addResult(node, bytes);
  };
  int a = op({x}, 10);
  int b = op({x}, 10);
  int pa = op({a}, 1);
  int pb = op({b}, 1);
  int s = op({pa, pb}, 1);
  graph.buffers[s].returned = true;
  return graph;
}

TEST(ScheduledPeakTest, EmptyGraphHasNoPeak) {
  EXPECT_EQ(mlir::serenity::scheduledPeak(MemoryGraph()), 0);
}

TEST(ScheduledPeakTest, GreedyOrderFinishesOneBranchFirst) {
  MemoryGraph graph = twoBranches();
  EXPECT_EQ(serenity::peakMemory(graph, serenity::programOrder(graph)), 21);
  // a, pa, b, pb, s: x + pa + b = 12 while b runs, pa + b + pb = 12 next.
  EXPECT_EQ(mlir::serenity::scheduledPeak(graph), 12);
}

TEST(ScheduledPeakTest, NeverWorseThanProgramOrder) {
  // A chain has one order; the estimate must equal it.
  MemoryGraph graph;
  int previous = graph.addInput(4);
  int previousNode = -1;
  for (int64_t bytes : {8, 2, 16, 4}) {
    int node = graph.addNode();
    graph.addUse(node, previous);
    if (previousNode >= 0)
      graph.addDependence(node, previousNode);
    previous = graph.addResult(node, bytes);
    previousNode = node;
  }
  graph.buffers[previous].returned = true;
  EXPECT_EQ(mlir::serenity::scheduledPeak(graph),
            serenity::peakMemory(graph, serenity::programOrder(graph)));
  // Steps 4+8, 8+2, 2+16, 16+4: the last one is the peak.
  EXPECT_EQ(mlir::serenity::scheduledPeak(graph), 20);
}

} // namespace
