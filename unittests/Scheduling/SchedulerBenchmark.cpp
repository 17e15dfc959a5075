//===- SchedulerBenchmark.cpp - Scheduler benchmark table -----*- C++ -*-===//
//
// Disabled by default (its time depends on the machine). Run:
//   build/unittests/SerenitySchedulingUnitTests \
//       --gtest_also_run_disabled_tests --gtest_filter='*Benchmark*'
// It prints one markdown row per graph: peaks of every algorithm, whether
// dp proved optimality, its time and states, and the reduction of dp over
// program order; then the geometric mean of that reduction. Correctness
// (valid orders, reported peak == simulate) is still asserted.
//
//===----------------------------------------------------------------------===//

#include "Serenity/Scheduling/Scheduler.h"

#include "GraphGenerators.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

using namespace serenity;
using namespace serenity::testing;

namespace {

/// GoogLeNet inception blocks 3a and 3b at 28x28 (f32): four branches
/// (1x1; 1x1 -> 3x3; 1x1 -> 5x5; maxpool -> 1x1) concatenated.
MemoryGraph inceptionBlocks() {
  const int64_t unit = 4 * 28 * 28;
  MemoryGraph graph;
  Value x{graph.addInput(192 * unit), -1};
  struct Block {
    int b1, b2a, b2, b3a, b3, b4, in;
  };
  for (Block block : {Block{64, 96, 128, 16, 32, 32, 192},
                      Block{128, 128, 192, 32, 96, 64, 256}}) {
    Value b1 = addJoin(graph, {x}, block.b1 * unit);
    Value b2 = addJoin(graph, {addJoin(graph, {x}, block.b2a * unit)},
                       block.b2 * unit);
    Value b3 = addJoin(graph, {addJoin(graph, {x}, block.b3a * unit)},
                       block.b3 * unit);
    Value b4 =
        addJoin(graph, {addJoin(graph, {x}, block.in * unit)}, block.b4 * unit);
    x = addJoin(graph, {b1, b2, b3, b4},
                (block.b1 + block.b2 + block.b3 + block.b4) * unit);
  }
  graph.buffers[x.buffer].returned = true;
  return graph;
}

struct Table {
  double logSum = 0;
  int rows = 0, proven = 0;

  void header() {
    std::printf("| graph | ops | program-order | kahn | greedy | dp | proven "
                "| lower bound | dp ms | states | dp vs program |\n"
                "|---|---|---|---|---|---|---|---|---|---|---|\n");
  }

  void row(const std::string &name, const MemoryGraph &graph) {
    ScheduleResult results[4];
    const ScheduleAlgorithm algorithms[] = {
        ScheduleAlgorithm::ProgramOrder, ScheduleAlgorithm::Kahn,
        ScheduleAlgorithm::Greedy, ScheduleAlgorithm::DP};
    for (int i = 0; i < 4; ++i) {
      ScheduleOptions options;
      options.algorithm = algorithms[i];
      results[i] = schedule(graph, options);
      ASSERT_TRUE(graph.isTopologicalOrder(results[i].order));
      ASSERT_EQ(results[i].peak, peakMemory(graph, results[i].order));
    }
    const ScheduleResult &dp = results[3];
    double reduction =
        static_cast<double>(results[0].peak) / std::max<int64_t>(1, dp.peak);
    logSum += std::log(reduction);
    ++rows;
    proven += dp.provenOptimal;
    std::printf("| %s | %d | %lld | %lld | %lld | %lld | %s | %lld | %lld | "
                "%lld | %.3fx |\n",
                name.c_str(), graph.size(), (long long)results[0].peak,
                (long long)results[1].peak, (long long)results[2].peak,
                (long long)dp.peak, dp.provenOptimal ? "yes" : "no",
                (long long)dp.lowerBound, (long long)dp.timeMs,
                (long long)dp.statesExplored, reduction);
  }

  void footer() {
    std::printf("\n%d graphs, dp proven optimal on %d; geomean reduction of "
                "dp vs program order: %.3fx\n\n",
                rows, proven, std::exp(logSum / std::max(1, rows)));
  }
};

TEST(SchedulerBenchmark, DISABLED_Table) {
  Table table;
  table.header();
  for (int cells : {1, 3}) {
    table.row("DARTS_V1 normal x" + std::to_string(cells),
              dartsCells(cells, dartsV1()));
    table.row("DARTS_V2 normal x" + std::to_string(cells),
              dartsCells(cells, dartsV2()));
  }
  for (unsigned seed = 1; seed <= 10; ++seed)
    table.row("RandWire WS(32,4,0.75) seed " + std::to_string(seed),
              randWireStage(seed));
  table.row("Inception 3a+3b", inceptionBlocks());
  for (int nodes : {50, 100, 200, 1000}) {
    std::mt19937 rng(nodes);
    table.row("random DAG " + std::to_string(nodes), randomGraph(rng, nodes));
  }
  table.footer();
}

TEST(SchedulerBenchmark, DISABLED_RandWireSeeds) {
  // Proof statistics over 100 RandWire stages with the default limits.
  std::vector<int64_t> times;
  int proven = 0, provenUnderOneSecond = 0;
  for (unsigned seed = 1; seed <= 100; ++seed) {
    MemoryGraph graph = randWireStage(seed);
    ScheduleResult dp = schedule(graph);
    ASSERT_TRUE(graph.isTopologicalOrder(dp.order));
    ASSERT_EQ(dp.peak, peakMemory(graph, dp.order));
    proven += dp.provenOptimal;
    provenUnderOneSecond += dp.provenOptimal && dp.timeMs < 1000;
    times.push_back(dp.timeMs);
  }
  std::sort(times.begin(), times.end());
  std::printf("RandWire WS(32,4,0.75) seeds 1-100: proven optimal %d/100, "
              "proven in under 1 s %d/100, dp time median %lld ms, p90 %lld "
              "ms, max %lld ms\n",
              proven, provenUnderOneSecond, (long long)times[49],
              (long long)times[89], (long long)times[99]);
}

} // namespace
