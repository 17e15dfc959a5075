//===- GraphGenerators.h - Seeded graphs for scheduler tests ---*- C++ -*-===//
//
// Random DAGs with every feature of the memory model (multi-result nodes,
// unused results, aliases, graph inputs, returned buffers, in-place
// concatenations with partial producers) and networks of
// the shapes the scheduler targets: DARTS cells and RandWire stages.
//
//===----------------------------------------------------------------------===//

#ifndef SERENITY_UNITTESTS_SCHEDULING_GRAPHGENERATORS_H
#define SERENITY_UNITTESTS_SCHEDULING_GRAPHGENERATORS_H

#include "Serenity/Analysis/MemoryGraph.h"

#include <algorithm>
#include <limits>
#include <random>
#include <set>
#include <utility>
#include <vector>

namespace serenity {
namespace testing {

/// A value of a graph under construction: its root buffer and the node that
/// produces it (-1 for a graph input), as FunctionMemoryModel builds them.
struct Value {
  int buffer;
  int node;
};

/// Adds a node reading `operands`: uses their root buffers and depends on
/// their producers, like FunctionMemoryModel::build.
inline int addOp(MemoryGraph &graph, const std::vector<Value> &operands) {
  int node = graph.addNode();
  for (const Value &operand : operands) {
    graph.addUse(node, operand.buffer);
    if (operand.node >= 0)
      graph.addDependence(node, operand.node);
  }
  return node;
}

/// Calls `fn(order)` for every topological order of `graph`.
template <typename Fn>
void forEachTopologicalOrder(const MemoryGraph &graph, Fn fn) {
  const int n = graph.size();
  std::vector<int> indegree(n);
  std::vector<std::vector<int>> succs = graph.successors();
  // A use implies a dependence on the producer (FunctionMemoryModel always
  // records both; the generators do too), so preds alone define the orders.
  for (int v = 0; v < n; ++v)
    indegree[v] = static_cast<int>(graph.nodes[v].preds.size());
  std::vector<int> order;
  auto visit = [&](auto &self) -> void {
    if (static_cast<int>(order.size()) == n) {
      fn(static_cast<const std::vector<int> &>(order));
      return;
    }
    for (int v = 0; v < n; ++v) {
      if (indegree[v] != 0)
        continue;
      indegree[v] = -1;
      for (int s : succs[v])
        --indegree[s];
      order.push_back(v);
      self(self);
      order.pop_back();
      for (int s : succs[v])
        ++indegree[s];
      indegree[v] = 0;
    }
  };
  visit(visit);
}

/// Least peak over all topological orders, by enumerating them.
inline int64_t bruteForcePeak(const MemoryGraph &graph) {
  int64_t best = std::numeric_limits<int64_t>::max();
  forEachTopologicalOrder(graph, [&](const std::vector<int> &order) {
    best = std::min(best, peakMemory(graph, order));
  });
  return graph.size() == 0 ? 0 : best;
}

/// A random DAG of `numNodes` nodes. `chainy` makes most nodes unary ops on
/// the previous node (elementwise chains), which exercises eager execution.
inline MemoryGraph randomGraph(std::mt19937 &rng, int numNodes,
                               bool chainy = false) {
  auto uniform = [&](int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng);
  };
  MemoryGraph graph;
  std::vector<Value> values;
  int numInputs = uniform(0, 2);
  for (int i = 0; i < numInputs; ++i)
    values.push_back({graph.addInput(uniform(0, 5) * 8), -1});
  for (int n = 0; n < numNodes; ++n) {
    std::vector<Value> operands;
    if (chainy && n > 0 && uniform(0, 3) != 0) {
      operands.push_back(values.back());
    } else if (!values.empty()) {
      int count = uniform(values.size() > 1 ? 1 : 0, 3);
      for (int i = 0; i < count; ++i)
        operands.push_back(values[uniform(0, values.size() - 1)]);
    }
    // An alias (view) of its first operand when it has one.
    bool alias =
        !operands.empty() && operands[0].node >= 0 && uniform(0, 7) == 0;
    int node = addOp(graph, operands);
    if (n > 0 && uniform(0, 9) == 0)
      graph.addDependence(node, uniform(0, n - 1));
    if (alias) {
      values.push_back({operands[0].buffer, node});
      continue;
    }
    int numResults = uniform(0, 5) == 0 ? uniform(1, 3) : 1;
    for (int r = 0; r < numResults; ++r) {
      int bytes = uniform(0, 9) == 0 ? 0 : uniform(1, 12) * 8;
      values.push_back({graph.addResult(node, bytes), node});
    }
  }
  for (const Value &value : values)
    if (uniform(0, 5) == 0)
      graph.buffers[value.buffer].returned = true;
  if (!values.empty())
    graph.buffers[values.back().buffer].returned = true;
  return graph;
}

/// A random DAG of `numNodes` nodes in which some nodes are in-place
/// concatenations: 2 or 3 op results read by nothing else become slices of
/// the concat's output, as FunctionMemoryModel::build records them under
/// concat=inplace (their own buffers keep 0 bytes, their producers become
/// partial producers of the output and the concat depends on them without
/// reading them). With `general`, the graphs also leave the shapes the
/// adapter builds, to exercise every case of simulate(): a concat may not
/// depend on a slice writer (which may then run after the buffer is
/// freed), slices may be concats themselves or graph-input-fed nodes, and
/// outputs may be unused.
inline MemoryGraph randomInPlaceGraph(std::mt19937 &rng, int numNodes,
                                      bool general = false) {
  auto uniform = [&](int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng);
  };
  MemoryGraph graph;
  std::vector<Value> values;
  // Op results that nothing reads yet: candidates for in-place slices.
  std::vector<Value> fresh;
  auto take = [&](const Value &value) {
    fresh.erase(std::remove_if(fresh.begin(), fresh.end(),
                               [&](const Value &other) {
                                 return other.buffer == value.buffer;
                               }),
                fresh.end());
  };
  int numInputs = uniform(0, 2);
  for (int i = 0; i < numInputs; ++i)
    values.push_back({graph.addInput(uniform(1, 5) * 8), -1});
  for (int n = 0; n < numNodes; ++n) {
    if (fresh.size() >= 2 && uniform(0, 2) == 0) {
      // An in-place concat of 2 or 3 fresh results.
      std::shuffle(fresh.begin(), fresh.end(), rng);
      int count = std::min<int>(fresh.size(), uniform(2, 3));
      std::vector<Value> slices(fresh.begin(), fresh.begin() + count);
      int node = graph.addNode();
      int64_t bytes = 0;
      for (const Value &slice : slices) {
        bytes += graph.buffers[slice.buffer].bytes;
        if (!general || uniform(0, 3) != 0)
          graph.addDependence(node, slice.node);
        take(slice);
        // The concat is the slice's only user, now and later.
        values.erase(std::remove_if(values.begin(), values.end(),
                                    [&](const Value &other) {
                                      return other.buffer == slice.buffer;
                                    }),
                     values.end());
      }
      int output = graph.addResult(node, bytes + uniform(0, 1) * 8);
      for (const Value &slice : slices) {
        graph.buffers[slice.buffer].bytes = 0;
        graph.addPartialProducer(output, slice.node);
      }
      Value value{output, node};
      values.push_back(value);
      if (general && uniform(0, 1) == 0)
        fresh.push_back(value);
      continue;
    }
    std::vector<Value> operands;
    if (!values.empty()) {
      int count = uniform(values.size() > 1 ? 1 : 0, 2);
      for (int i = 0; i < count; ++i)
        operands.push_back(values[uniform(0, values.size() - 1)]);
    }
    int node = addOp(graph, operands);
    for (const Value &operand : operands)
      take(operand);
    if (n > 0 && uniform(0, 9) == 0)
      graph.addDependence(node, uniform(0, n - 1));
    int numResults = uniform(0, 5) == 0 ? 2 : 1;
    for (int r = 0; r < numResults; ++r) {
      Value value{graph.addResult(node, uniform(1, 12) * 8), node};
      values.push_back(value);
      fresh.push_back(value);
    }
  }
  for (const Value &value : values)
    if (uniform(0, 5) == 0)
      graph.buffers[value.buffer].returned = true;
  if (!general && !values.empty())
    graph.buffers[values.back().buffer].returned = true;
  return graph;
}

/// Adds `ops` unary ops of `bytes` after `value`; returns the last value.
inline Value addChain(MemoryGraph &graph, Value value, int ops, int64_t bytes) {
  for (int i = 0; i < ops; ++i) {
    int node = addOp(graph, {value});
    value = {graph.addResult(node, bytes), node};
  }
  return value;
}

/// Adds an n-ary op of `bytes` over `operands`.
inline Value addJoin(MemoryGraph &graph, const std::vector<Value> &operands,
                     int64_t bytes) {
  int node = addOp(graph, operands);
  return {graph.addResult(node, bytes), node};
}

/// A RandWire stage (Xie et al. 2019): a Watts-Strogatz WS(n, k, p) ring
/// lattice whose edges are rewired with probability p (as networkx's
/// watts_strogatz_graph does), made acyclic by orienting edges from lower to
/// higher index. Every node is sum -> relu -> dwconv -> pwconv; sources read
/// the stage input (`inputScale` times a node's `bytes`: twice the channels
/// ratio at stride 2) and their dwconv has stride 2; the sinks are averaged
/// into the output. n nodes give 4n + 1 ops.
inline MemoryGraph randWireStage(unsigned seed, int n = 32, int k = 4,
                                 double p = 0.75,
                                 int64_t bytes = 4 * 78 * 28 * 28,
                                 int64_t inputScale = 2) {
  std::mt19937 rng(seed);
  std::set<std::pair<int, int>> edges;
  auto edge = [](int a, int b) {
    return std::make_pair(std::min(a, b), std::max(a, b));
  };
  for (int i = 0; i < n; ++i)
    for (int j = 1; j <= k / 2; ++j)
      edges.insert(edge(i, (i + j) % n));
  std::uniform_real_distribution<double> coin(0.0, 1.0);
  std::uniform_int_distribution<int> anyNode(0, n - 1);
  for (int j = 1; j <= k / 2; ++j)
    for (int i = 0; i < n; ++i) {
      if (coin(rng) >= p || !edges.count(edge(i, (i + j) % n)))
        continue;
      int target = anyNode(rng);
      // networkx retries until the new edge is no self-loop or duplicate,
      // and keeps the edge when node i is already connected to all others.
      int degree = 0;
      for (int other = 0; other < n; ++other)
        degree += other != i && edges.count(edge(i, other));
      if (degree >= n - 1)
        continue;
      while (target == i || edges.count(edge(i, target)))
        target = anyNode(rng);
      edges.erase(edge(i, (i + j) % n));
      edges.insert(edge(i, target));
    }
  std::vector<std::vector<int>> preds(n);
  std::vector<bool> hasSucc(n, false);
  for (auto [a, b] : edges) {
    preds[b].push_back(a);
    hasSucc[a] = true;
  }
  MemoryGraph graph;
  Value input{graph.addInput(inputScale * bytes), -1};
  std::vector<Value> outputs(n);
  for (int i = 0; i < n; ++i) {
    std::vector<Value> operands;
    for (int pred : preds[i])
      operands.push_back(outputs[pred]);
    int64_t inBytes = bytes;
    if (operands.empty()) {
      operands.push_back(input);
      inBytes = inputScale * bytes;
    }
    Value relu = addChain(graph, addJoin(graph, operands, inBytes), 1, inBytes);
    outputs[i] = addChain(graph, relu, 2, bytes);
  }
  std::vector<Value> sinks;
  for (int i = 0; i < n; ++i)
    if (!hasSucc[i])
      sinks.push_back(outputs[i]);
  Value output = addJoin(graph, sinks, bytes);
  graph.buffers[output.buffer].returned = true;
  return graph;
}

/// One DARTS operation applied to a cell state.
enum class DartsOp { SepConv3x3, DilConv3x3, SkipConnect };

/// A DARTS normal-cell genotype: node i (2..5) sums ops[2i-4] and ops[2i-3],
/// each applied to the state of the given index.
using DartsGenotype = std::vector<std::pair<DartsOp, int>>;

/// DARTS_V2 normal cell (quark0/darts cnn/genotypes.py).
inline DartsGenotype dartsV2() {
  return {{DartsOp::SepConv3x3, 0},  {DartsOp::SepConv3x3, 1},
          {DartsOp::SepConv3x3, 0},  {DartsOp::SepConv3x3, 1},
          {DartsOp::SepConv3x3, 1},  {DartsOp::SkipConnect, 0},
          {DartsOp::SkipConnect, 0}, {DartsOp::DilConv3x3, 2}};
}

/// DARTS_V1 normal cell (quark0/darts cnn/genotypes.py).
inline DartsGenotype dartsV1() {
  return {{DartsOp::SepConv3x3, 1},  {DartsOp::SepConv3x3, 0},
          {DartsOp::SkipConnect, 0}, {DartsOp::SepConv3x3, 1},
          {DartsOp::SkipConnect, 0}, {DartsOp::SepConv3x3, 1},
          {DartsOp::SepConv3x3, 0},  {DartsOp::SkipConnect, 2}};
}

/// `cells` stacked DARTS normal cells: two inputs preprocessed by
/// relu -> 1x1 conv -> bn, four nodes each the sum of two operations
/// (sep_conv_3x3 = (relu, dw, pw, bn) twice, dil_conv_3x3 = once,
/// skip_connect = the state itself), nodes 2..5 concatenated (4c bytes).
/// `c` is the bytes of one state.
inline MemoryGraph dartsCells(int cells = 1,
                              const DartsGenotype &genotype = dartsV2(),
                              int64_t c = 4 * 36 * 32 * 32) {
  MemoryGraph graph;
  Value prevPrev{graph.addInput(c), -1};
  Value prev{graph.addInput(c), -1};
  Value out{};
  for (int cell = 0; cell < cells; ++cell) {
    std::vector<Value> states{addChain(graph, prevPrev, 3, c),
                              addChain(graph, prev, 3, c)};
    auto apply = [&](std::pair<DartsOp, int> op) {
      switch (op.first) {
      case DartsOp::SepConv3x3:
        return addChain(graph, states[op.second], 8, c);
      case DartsOp::DilConv3x3:
        return addChain(graph, states[op.second], 4, c);
      case DartsOp::SkipConnect:
        return states[op.second];
      }
      return states[op.second];
    };
    for (int node = 0; node < 4; ++node)
      states.push_back(addJoin(
          graph, {apply(genotype[2 * node]), apply(genotype[2 * node + 1])},
          c));
    out = addJoin(graph, {states[2], states[3], states[4], states[5]}, 4 * c);
    prevPrev = prev;
    prev = out;
  }
  graph.buffers[out.buffer].returned = true;
  return graph;
}

} // namespace testing
} // namespace serenity

#endif // SERENITY_UNITTESTS_SCHEDULING_GRAPHGENERATORS_H
