//===- InPlaceConcatTest.cpp - Buffers with partial producers --*- C++ -*-===//

#include "Serenity/Analysis/MemoryGraph.h"

#include <gtest/gtest.h>

using namespace serenity;

namespace {

/// x (4 B) -> A, B each write an 8-byte half of C (16 B) in place; the concat
/// node K defines C; Y reads C and returns 4 B.
struct InPlaceConcat {
  MemoryGraph graph;
  int x, c, y;
  int nodeA, nodeB, nodeK, nodeY;

  InPlaceConcat() {
    x = graph.addInput(4);
    nodeA = graph.addNode();
    graph.addUse(nodeA, x);
    nodeB = graph.addNode();
    graph.addUse(nodeB, x);
    nodeK = graph.addNode();
    graph.addDependence(nodeK, nodeA);
    graph.addDependence(nodeK, nodeB);
    c = graph.addResult(nodeK, 16);
    graph.addPartialProducer(c, nodeA);
    graph.addPartialProducer(c, nodeB);
    graph.addPartialProducer(c, nodeK); // The producer itself: ignored.
    graph.addPartialProducer(c, nodeA); // Repeat: ignored.
    nodeY = graph.addNode();
    graph.addDependence(nodeY, nodeK);
    graph.addUse(nodeY, c);
    y = graph.addResult(nodeY, 4);
    graph.buffers[y].returned = true;
  }
};

TEST(InPlaceConcatTest, PartialProducersAreDeduplicated) {
  InPlaceConcat g;
  EXPECT_EQ(g.graph.buffers[g.c].partialProducers,
            (std::vector<int>{g.nodeA, g.nodeB}));
}

TEST(InPlaceConcatTest, AllocatedByTheFirstPartialProducer) {
  InPlaceConcat g;
  MemoryProfile profile = simulate(g.graph, programOrder(g.graph));
  // A: x + C = 20 (C is allocated whole by its first writer); B: 20;
  // K: C = 16 (x died at B); Y: C + y = 20.
  EXPECT_EQ(profile.usage, (std::vector<int64_t>{20, 20, 16, 20}));
  EXPECT_EQ(profile.newBytes, (std::vector<int64_t>{16, 0, 0, 4}));
  EXPECT_EQ(profile.defStep[g.c], 0);
  EXPECT_EQ(profile.lastStep[g.c], 3);
  EXPECT_EQ(profile.peak, 20);
}

TEST(InPlaceConcatTest, DefinitionFollowsTheOrder) {
  InPlaceConcat g;
  MemoryProfile profile =
      simulate(g.graph, {g.nodeB, g.nodeA, g.nodeK, g.nodeY});
  EXPECT_EQ(profile.defStep[g.c], 0);
  EXPECT_EQ(profile.newBytes[0], 16);
}

} // namespace
