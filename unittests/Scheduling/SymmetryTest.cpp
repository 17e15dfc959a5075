//===- SymmetryTest.cpp - Symmetry breaking keeps the optimum --*- C++ -*-===//
//
// breakSymmetries adds dependences that some optimal order satisfies. On
// small random graphs with planted interchangeable branches (copies of a
// random template reading the same outside values, nested two levels deep)
// and on plain random graphs, the least peak over all topological orders
// must be the same with and without them, and dp must still find it.
//
//===----------------------------------------------------------------------===//

#include "../../lib/Scheduling/Symmetry.h"
#include "../../lib/Scheduling/ExactSearch.h"
#include "Serenity/Scheduling/Scheduler.h"

#include "GraphGenerators.h"

#include "gtest/gtest.h"

#include <limits>

using namespace serenity;
using namespace serenity::testing;

namespace {

/// One op of a branch template: operands are outside values (>= 0, index
/// into the outside list) or earlier template results (-1 - index).
struct TemplateOp {
  std::vector<int> operands;
  std::vector<int64_t> results;
  bool alias = false;
};

struct Generator {
  std::mt19937 rng;
  int uniform(int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng);
  }

  std::vector<TemplateOp> randomTemplate(int ops, int outside) {
    std::vector<TemplateOp> result(ops);
    int produced = 0;
    for (int i = 0; i < ops; ++i) {
      TemplateOp &op = result[i];
      int count = uniform(1, 2);
      for (int k = 0; k < count; ++k) {
        bool inside = produced > 0 && (outside == 0 || uniform(0, 2) != 0);
        if (inside)
          op.operands.push_back(-1 - uniform(0, produced - 1));
        else if (outside > 0)
          op.operands.push_back(uniform(0, outside - 1));
      }
      op.alias =
          !op.operands.empty() && op.operands[0] < 0 && uniform(0, 6) == 0;
      if (!op.alias) {
        int results = uniform(0, 4) == 0 ? 2 : 1;
        for (int r = 0; r < results; ++r)
          op.results.push_back(uniform(0, 8) == 0 ? 0 : uniform(1, 12) * 8);
      }
      produced += op.alias ? 1 : static_cast<int>(op.results.size());
    }
    return result;
  }

  /// Instantiates `ops` reading `outside`; returns the values it produced.
  std::vector<Value> instantiate(MemoryGraph &graph,
                                 const std::vector<TemplateOp> &ops,
                                 const std::vector<Value> &outside,
                                 int perturbed = -1) {
    std::vector<Value> produced;
    for (const TemplateOp &op : ops) {
      bool change = perturbed-- == 0;
      std::vector<Value> operands;
      for (int ref : op.operands)
        operands.push_back(ref >= 0 ? outside[ref] : produced[-1 - ref]);
      int node = addOp(graph, operands);
      if (op.alias) {
        produced.push_back({operands[0].buffer, node});
        continue;
      }
      for (int64_t bytes : op.results)
        produced.push_back(
            {graph.addResult(node, change ? bytes * 3 + 40 : bytes), node});
      change = false;
    }
    return produced;
  }

  /// Stem values, then `copies` copies of a group (an inner template
  /// repeated `innerCopies` times, optionally joined), then a sink reading
  /// the last value of each group or the group outputs returned.
  MemoryGraph planted() {
    MemoryGraph graph;
    std::vector<Value> outside;
    for (int i = uniform(0, 1); i > 0; --i)
      outside.push_back({graph.addInput(uniform(1, 6) * 8), -1});
    for (int i = uniform(outside.empty() ? 1 : 0, 2); i > 0; --i) {
      std::vector<Value> operands;
      if (!outside.empty())
        operands.push_back(outside[uniform(0, outside.size() - 1)]);
      outside.push_back(addJoin(graph, operands, uniform(1, 10) * 8));
    }
    int copies = uniform(2, 3);
    int innerCopies = copies == 2 ? uniform(1, 2) : 1;
    int innerOps = innerCopies == 2 ? 1 : uniform(1, 2);
    std::vector<TemplateOp> inner =
        randomTemplate(innerOps, static_cast<int>(outside.size()));
    bool join = innerCopies == 2 && uniform(0, 1);
    int64_t joinBytes = uniform(1, 10) * 8;
    std::vector<Value> groupOutputs;
    // Sometimes the last copy differs (not interchangeable); sometimes
    // the second inner instance of every group does (the groups are then
    // interchangeable but are not chains).
    bool perturbLast = uniform(0, 2) == 0;
    bool variantInner = uniform(0, 1) == 0;
    int lastOp = static_cast<int>(inner.size()) - 1;
    for (int c = 0; c < copies; ++c) {
      std::vector<Value> last;
      for (int k = 0; k < innerCopies; ++k) {
        bool lastCopy = c == copies - 1 && k == innerCopies - 1;
        int perturbed = perturbLast && lastCopy  ? uniform(0, lastOp)
                        : variantInner && k == 1 ? lastOp
                                                 : -1;
        std::vector<Value> produced =
            instantiate(graph, inner, outside, perturbed);
        if (!produced.empty())
          last.push_back(produced.back());
      }
      if (join && !last.empty())
        last = {addJoin(graph, last, joinBytes)};
      groupOutputs.insert(groupOutputs.end(), last.begin(), last.end());
    }
    if (uniform(0, 2) != 0 && !groupOutputs.empty()) {
      Value sink = addJoin(graph, groupOutputs, uniform(1, 10) * 8);
      graph.buffers[sink.buffer].returned = true;
    } else {
      for (const Value &value : groupOutputs)
        graph.buffers[value.buffer].returned = true;
    }
    return graph;
  }
};

TEST(Symmetry, BreakingKeepsTheOptimumOnPlantedBranches) {
  Generator gen{std::mt19937(20261201)};
  int withSymmetry = 0, withPermutable = 0;
  for (int i = 0; i < 1500; ++i) {
    MemoryGraph graph = gen.planted();
    ASSERT_LE(graph.size(), 11);
    MemoryGraph constrained = graph;
    std::vector<std::vector<std::vector<int>>> permutable;
    int added = detail::breakSymmetries(constrained, &permutable);
    withSymmetry += added > 0;
    withPermutable += !permutable.empty();
    int64_t optimum = bruteForcePeak(graph);
    ASSERT_EQ(bruteForcePeak(constrained), optimum) << "graph " << i;
    if (!permutable.empty()) {
      // The searches themselves, merging permuted states: their orders are
      // replayed into real orders of the graph with the peaks they report.
      detail::SchedulingProblem problem;
      std::string error;
      ASSERT_TRUE(problem.build(constrained, error));
      problem.symmetricClasses = permutable;
      detail::ExactSearch search(problem, 1000000,
                                 WorkClock::kEnd);
      detail::SearchResult best = search.bestFirst(int64_t(1) << 40, 0);
      ASSERT_EQ(best.outcome, detail::SearchOutcome::Found);
      ASSERT_TRUE(constrained.isTopologicalOrder(best.order)) << "graph " << i;
      EXPECT_EQ(best.peak, optimum) << "graph " << i;
      EXPECT_EQ(peakMemory(graph, best.order), optimum) << "graph " << i;
      // (Permuted states: their bounds are computed from scratch.)
      search.checkBounds();
      detail::SearchResult any = search.depthFirst(optimum);
      EXPECT_EQ(search.boundChecks().mismatches, 0) << "graph " << i;
      ASSERT_EQ(any.outcome, detail::SearchOutcome::Found);
      ASSERT_TRUE(constrained.isTopologicalOrder(any.order)) << "graph " << i;
      EXPECT_EQ(peakMemory(graph, any.order), any.peak) << "graph " << i;
      EXPECT_LE(any.peak, optimum) << "graph " << i;
      if (optimum > 0) {
        detail::SearchResult none = search.depthFirst(optimum - 1);
        EXPECT_EQ(none.outcome, detail::SearchOutcome::Exhausted)
            << "graph " << i;
        EXPECT_EQ(search.boundChecks().mismatches, 0) << "graph " << i;
      }
    }
    ScheduleResult dp = schedule(graph);
    ASSERT_TRUE(graph.isTopologicalOrder(dp.order));
    EXPECT_EQ(dp.peak, optimum) << "graph " << i;
    EXPECT_TRUE(dp.provenOptimal) << "graph " << i;
  }
  // Not vacuous: most planted graphs get dependences, many have classes
  // that only the search's state merging handles (dp against brute force
  // above).
  EXPECT_GT(withSymmetry, 700);
  EXPECT_GT(withPermutable, 50);
}

TEST(Symmetry, BreakingKeepsTheOptimumOnRandomGraphs) {
  std::mt19937 rng(7);
  for (int i = 0; i < 400; ++i) {
    MemoryGraph graph = randomGraph(rng, 1 + i % 9, i % 2);
    MemoryGraph constrained = graph;
    detail::breakSymmetries(constrained);
    ASSERT_EQ(bruteForcePeak(constrained), bruteForcePeak(graph))
        << "graph " << i;
  }
}

TEST(Symmetry, TiledBranchesStartInOrder) {
  // An input read by 2 x 2 identical tile chains (a view, then two ops),
  // two row joins and an output join. Tiles of a row are interchangeable
  // chains: their k-th nodes get ordered, 3 dependences per row; the rows
  // are interchangeable branches that are not chains: they are returned
  // for the search to merge permuted states.
  MemoryGraph graph;
  Value input{graph.addInput(64), -1};
  std::vector<Value> rows;
  for (int r = 0; r < 2; ++r) {
    std::vector<Value> tiles;
    for (int t = 0; t < 2; ++t) {
      int view = addOp(graph, {input});
      Value tile = addChain(graph, {input.buffer, view}, 2, 16);
      tiles.push_back(tile);
    }
    rows.push_back(addJoin(graph, tiles, 32));
  }
  Value output = addJoin(graph, rows, 64);
  graph.buffers[output.buffer].returned = true;
  MemoryGraph constrained = graph;
  std::vector<std::vector<std::vector<int>>> permutable;
  EXPECT_EQ(detail::breakSymmetries(constrained, &permutable), 6);
  ASSERT_EQ(permutable.size(), 1u);
  EXPECT_EQ(permutable[0].size(), 2u);
  EXPECT_EQ(permutable[0][0].size(), 7u);
  EXPECT_EQ(bruteForcePeak(constrained), bruteForcePeak(graph));
}

} // namespace

namespace {

/// Two or three private chains of random sizes (sometimes with an unused
/// extra result) off shared inputs, joined or returned: the chains'
/// hill-valley segments are contracted, and dp must still equal brute force.
TEST(HillValleySegments, DpEqualsBruteForceOnChains) {
  std::mt19937 rng(99);
  auto uniform = [&](int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng);
  };
  for (int i = 0; i < 1500; ++i) {
    MemoryGraph graph;
    Value input{graph.addInput(uniform(1, 8) * 8), -1};
    int chains = uniform(2, 3);
    std::vector<Value> outputs;
    int budget = 10 - (chains == 3 ? 1 : 0);
    for (int c = 0; c < chains; ++c) {
      int length =
          c + 1 == chains ? budget : uniform(1, budget - (chains - c - 1));
      budget -= length;
      Value value = input;
      for (int k = 0; k < length; ++k) {
        int node = addOp(graph, {value});
        value = {graph.addResult(node, uniform(1, 16) * 8), node};
        if (uniform(0, 5) == 0)
          graph.addResult(node, uniform(1, 16) * 8); // Unused.
      }
      outputs.push_back(value);
    }
    if (uniform(0, 1)) {
      Value join = addJoin(graph, outputs, uniform(1, 8) * 8);
      graph.buffers[join.buffer].returned = true;
    } else {
      for (const Value &value : outputs)
        graph.buffers[value.buffer].returned = true;
    }
    ScheduleResult dp = schedule(graph);
    ASSERT_TRUE(graph.isTopologicalOrder(dp.order));
    int64_t optimum = bruteForcePeak(graph);
    ASSERT_EQ(dp.peak, optimum) << "graph " << i;
    ASSERT_LE(dp.lowerBound, optimum) << "graph " << i;
    EXPECT_TRUE(dp.provenOptimal) << "graph " << i;
  }
}

} // namespace

namespace {

/// Liu's setting: a fork whose branches each read a result of their own,
/// private chains of random sizes, joined. The branches' orders are forced,
/// and merging their hill-valley segments by decreasing hill - valley is
/// optimal, so algorithm=hill-valley must equal brute force; elsewhere it is
/// a valid order no better than dp.
TEST(HillValley, OptimalOnForkJoinChains) {
  std::mt19937 rng(5);
  auto uniform = [&](int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng);
  };
  ScheduleOptions hillValley;
  hillValley.algorithm = ScheduleAlgorithm::HillValley;
  int differs = 0;
  for (int i = 0; i < 1000; ++i) {
    MemoryGraph graph;
    int fork = graph.addNode();
    int branches = uniform(2, 3);
    std::vector<Value> outputs;
    int budget = 8;
    for (int c = 0; c < branches; ++c) {
      Value value{graph.addResult(fork, uniform(1, 8) * 8), fork};
      int length =
          c + 1 == branches ? budget : uniform(1, budget - (branches - c - 1));
      budget -= length;
      for (int k = 0; k < length; ++k) {
        int node = addOp(graph, {value});
        value = {graph.addResult(node, uniform(1, 16) * 8), node};
      }
      outputs.push_back(value);
    }
    Value join = addJoin(graph, outputs, uniform(1, 8) * 8);
    graph.buffers[join.buffer].returned = true;
    ScheduleResult result = schedule(graph, hillValley);
    ASSERT_TRUE(graph.isTopologicalOrder(result.order));
    int64_t optimum = bruteForcePeak(graph);
    ASSERT_EQ(result.peak, optimum) << "graph " << i;
    differs += peakMemory(graph, programOrder(graph)) != optimum;
  }
  // Not vacuous: the order as written is often worse.
  EXPECT_GT(differs, 200);
}

} // namespace
