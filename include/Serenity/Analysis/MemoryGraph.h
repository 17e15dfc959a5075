//===- MemoryGraph.h - Plain dataflow graph for peak memory ----*- C++ -*-===//
//
// The graph-level memory model of DESIGN.md over plain data, with no MLIR
// types: the scheduler, the rewriter's profitability check and the reports
// all evaluate orders on this one structure, so they cannot disagree.
//
//===----------------------------------------------------------------------===//

#ifndef SERENITY_ANALYSIS_MEMORYGRAPH_H
#define SERENITY_ANALYSIS_MEMORYGRAPH_H

#include <cstdint>
#include <string>
#include <vector>

namespace serenity {

/// A dataflow graph reduced to what peak activation memory depends on.
///
/// Nodes are scheduled operations. Buffers are activation memory: either graph
/// inputs (producer -1, live before the first step) or results of a node. A
/// node that only aliases a buffer (a reshape) defines no buffer; its users
/// list the aliased root buffer in `uses` and the alias node in `preds`.
struct MemoryGraph {
  /// One activation buffer.
  struct Buffer {
    int64_t bytes = 0;
    /// Defining node, or -1 for a graph input.
    int producer = -1;
    /// Returned by the graph: live until the end.
    bool returned = false;
    /// Other nodes that write a part of this buffer in place (in-place
    /// concatenation: an operand produced directly into its slice of the
    /// concat's output). The buffer is allocated by the first of `producer`
    /// and these to execute. Empty for ordinary buffers.
    std::vector<int> partialProducers;
    /// A primitive's workspace (im2col rows, winograd tiles): no node reads
    /// it, so it is live only during its producer's step.
    bool workspace = false;
  };
  /// One scheduled operation.
  struct Node {
    /// Buffers this node allocates, in result order.
    std::vector<int> defs;
    /// Root buffers this node reads (deduplicated).
    std::vector<int> uses;
    /// Nodes that must execute before this one (deduplicated).
    std::vector<int> preds;
  };

  std::vector<Buffer> buffers;
  std::vector<Node> nodes;

  /// Adds a graph input of `bytes` and returns its buffer id.
  int addInput(int64_t bytes);
  /// Adds a node with no buffers and returns its id.
  int addNode();
  /// Adds a buffer of `bytes` defined by `node` and returns its id.
  int addResult(int node, int64_t bytes);
  /// Records that `node` reads `buffer` (ignores repeats).
  void addUse(int node, int buffer);
  /// Records that `node` writes part of `buffer` in place (ignores repeats
  /// and the buffer's producer).
  void addPartialProducer(int buffer, int node);
  /// Records that `node` must run after `pred` (ignores repeats and self).
  void addDependence(int node, int pred);

  /// Number of nodes.
  int size() const { return static_cast<int>(nodes.size()); }
  /// Successor lists derived from `preds`.
  std::vector<std::vector<int>> successors() const;
  /// True when `order` is a permutation of all nodes respecting `preds`.
  bool isTopologicalOrder(const std::vector<int> &order) const;
};

/// The graph whose orders are the reverses of `graph`'s, with the same usage
/// at every step: for every order of `graph`, simulate(result, reversed
/// order).usage is simulate(graph, order).usage reversed. A buffer lives from
/// its first writer to its last reader (DESIGN.md), so in the reversed order
/// it lives from its first reader to its last writer: its readers write it
/// (the first to run allocates it), its writers read it, a graph input
/// becomes a returned buffer and a returned buffer a graph input; every
/// dependence (listed, or implied by a use) is reversed. Nodes and buffers
/// keep their ids, so an order of one is an order of the other read
/// backwards. Fails (returns false) where the model cannot say it: a buffer
/// with several writers and no reader, or one whose reader does not run
/// after all its writers in every order (the reversed graph would add that
/// dependence).
bool reverseGraph(const MemoryGraph &graph, MemoryGraph &reversed);

/// Memory usage of a graph executed in one order.
struct MemoryProfile {
  /// usage[t]: bytes live while executing step t (DESIGN.md).
  std::vector<int64_t> usage;
  /// newBytes[t]: bytes allocated by step t.
  std::vector<int64_t> newBytes;
  /// Maximum of `usage`, 0 for a graph with no steps.
  int64_t peak = 0;
  /// First step reaching the peak, -1 for a graph with no steps.
  int peakStep = -1;
  /// Per buffer: the step that defines it (-1 for an input); for a buffer
  /// with partial producers, the first step writing any part of it.
  std::vector<int> defStep;
  /// Per buffer: the last step that needs it; the number of steps when it is
  /// returned (the terminator); defStep for an unused result; -2 for an input
  /// that is neither used nor returned (never counted).
  std::vector<int> lastStep;
};

/// Evaluates the memory model of DESIGN.md for `graph` executed in `order`
/// (a topological order of all nodes; not checked here).
MemoryProfile simulate(const MemoryGraph &graph, const std::vector<int> &order);

/// Peak of `graph` executed in `order`; cheaper than `simulate`.
int64_t peakMemory(const MemoryGraph &graph, const std::vector<int> &order);

/// The identity order 0..n-1 (program order for graphs built from IR).
std::vector<int> programOrder(const MemoryGraph &graph);

} // namespace serenity

#endif // SERENITY_ANALYSIS_MEMORYGRAPH_H
