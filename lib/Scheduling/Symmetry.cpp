//===- Symmetry.cpp - Symmetry breaking for the exact scheduler -----------===//
//
// A twin class is found by a key per node: its dependences (explicit ones
// and producers of the buffers it reads), the buffers it reads, its nodes
// depending on it explicitly, and per result (bytes, returned, readers),
// sorted. Equal keys mean the transposition of the two nodes, with their
// results matched by the sorted descriptors, is an automorphism of the
// graph: every node other than the two sees the same buffers and
// dependences, and simulate() of an order and of its image use the same
// bytes at every step.
//
//===----------------------------------------------------------------------===//

#include "Symmetry.h"

#include "Decomposition.h"

#include <algorithm>
#include <map>
#include <numeric>

namespace serenity {
namespace detail {

/// Per node: whether it writes (or allocates) a buffer with several writers.
static std::vector<char> writesSharedBuffer(const MemoryGraph &graph) {
  std::vector<char> shared(graph.size(), 0);
  for (const MemoryGraph::Buffer &buffer : graph.buffers) {
    if (buffer.partialProducers.empty())
      continue;
    if (buffer.producer >= 0)
      shared[buffer.producer] = 1;
    for (int w : buffer.partialProducers)
      shared[w] = 1;
  }
  return shared;
}

namespace {

/// The decomposition of `breakSymmetries` over a graph whose dependences
/// (explicit ones and producers of used buffers) are kept normalized.
class BranchSymmetry {
public:
  explicit BranchSymmetry(MemoryGraph &graph) : graph(graph) {
    const int numNodes = graph.size();
    const int numBuffers = static_cast<int>(graph.buffers.size());
    deps.assign(numNodes, {});
    dependents.assign(numNodes, {});
    controlSuccs.assign(numNodes, {});
    readers.assign(numBuffers, {});
    defIndex.assign(numBuffers, 0);
    for (int v = 0; v < numNodes; ++v) {
      const MemoryGraph::Node &node = graph.nodes[v];
      for (int i = 0, e = static_cast<int>(node.defs.size()); i < e; ++i)
        defIndex[node.defs[i]] = i;
      for (int p : node.preds) {
        addDep(v, p);
        controlSuccs[p].push_back(v);
      }
      for (int b : node.uses) {
        readers[b].push_back(v);
        if (graph.buffers[b].producer >= 0)
          addDep(v, graph.buffers[b].producer);
      }
    }
    shared = writesSharedBuffer(graph);
    for (std::vector<int> &list : readers)
      std::sort(list.begin(), list.end());
    local.assign(numNodes, -1);
  }

  /// Twin nodes first (each class in index order), then the branches.
  int run() {
    for (const std::vector<int> &members : twinClasses())
      for (size_t i = 1; i < members.size(); ++i)
        addEdge(members[i], members[i - 1]);
    std::vector<int> all(graph.size());
    std::iota(all.begin(), all.end(), 0);
    visit(all);
    return added;
  }

private:
  /// Classes of mutual twins with at least two members, each increasing: a
  /// key per node of its dependences, the buffers it reads, the nodes
  /// depending on it explicitly, and per result (bytes, returned, readers),
  /// sorted. Equal keys mean the transposition of the two nodes, with their
  /// results matched by the sorted descriptors, is an automorphism of the
  /// graph. Nodes writing a buffer with several writers are never twins.
  std::vector<std::vector<int>> twinClasses() const {
    std::map<std::vector<int64_t>, std::vector<int>> byKey;
    for (int v = 0, e = graph.size(); v < e; ++v) {
      if (shared[v])
        continue;
      const MemoryGraph::Node &node = graph.nodes[v];
      std::vector<int64_t> key;
      auto append = [&](std::vector<int> values) {
        std::sort(values.begin(), values.end());
        values.erase(std::unique(values.begin(), values.end()), values.end());
        key.push_back(static_cast<int64_t>(values.size()));
        key.insert(key.end(), values.begin(), values.end());
      };
      append(deps[v]);
      append(node.uses);
      append(controlSuccs[v]);
      std::vector<std::vector<int64_t>> results;
      for (int b : node.defs) {
        std::vector<int64_t> result{graph.buffers[b].bytes,
                                    graph.buffers[b].returned ? 1 : 0};
        result.insert(result.end(), readers[b].begin(), readers[b].end());
        results.push_back(std::move(result));
      }
      std::sort(results.begin(), results.end());
      key.push_back(static_cast<int64_t>(results.size()));
      for (const std::vector<int64_t> &result : results) {
        key.push_back(static_cast<int64_t>(result.size()));
        key.insert(key.end(), result.begin(), result.end());
      }
      byKey[key].push_back(v);
    }
    std::vector<std::vector<int>> classes;
    for (auto &entry : byKey)
      if (entry.second.size() > 1)
        classes.push_back(std::move(entry.second));
    return classes;
  }

  /// Adds the dependence `after` on `before` to the graph and the indexes.
  void addEdge(int after, int before) {
    graph.addDependence(after, before);
    addDep(after, before);
    controlSuccs[before].push_back(after);
    ++added;
  }

  void addDep(int node, int pred) {
    if (node == pred || std::find(deps[node].begin(), deps[node].end(), pred) !=
                            deps[node].end())
      return;
    deps[node].push_back(pred);
    dependents[pred].push_back(node);
  }

  /// A description of `component` (sorted) that two branches share exactly
  /// when matching their nodes by position is an automorphism exchanging
  /// them: inside references by position, outside ones by id. Empty when
  /// the branch writes a buffer with several writers.
  std::vector<int64_t> encode(const std::vector<int> &component) {
    const int n = static_cast<int>(component.size());
    for (int i = 0; i < n; ++i)
      local[component[i]] = i;
    std::vector<int64_t> key{n};
    auto ref = [&](int node) -> std::pair<int64_t, int64_t> {
      return local[node] >= 0 ? std::make_pair(int64_t(0), int64_t(local[node]))
                              : std::make_pair(int64_t(1), int64_t(node));
    };
    auto appendRefs = [&](std::vector<std::pair<int64_t, int64_t>> refs) {
      std::sort(refs.begin(), refs.end());
      key.push_back(static_cast<int64_t>(refs.size()));
      for (auto [kind, id] : refs) {
        key.push_back(kind);
        key.push_back(id);
      }
    };
    bool eligible = true;
    for (int v : component) {
      eligible = eligible && !shared[v];
      const MemoryGraph::Node &node = graph.nodes[v];
      std::vector<std::pair<int64_t, int64_t>> refs;
      for (int p : deps[v])
        refs.push_back(ref(p));
      appendRefs(refs);
      refs.clear();
      for (int b : node.uses) {
        int p = graph.buffers[b].producer;
        if (p >= 0 && local[p] >= 0)
          refs.emplace_back(local[p], defIndex[b]);
        else
          refs.emplace_back(-1, b);
      }
      appendRefs(refs);
      refs.clear();
      for (int s : controlSuccs[v])
        if (local[s] < 0)
          refs.push_back(ref(s));
      appendRefs(refs);
      key.push_back(static_cast<int64_t>(node.defs.size()));
      for (int b : node.defs) {
        key.push_back(graph.buffers[b].bytes);
        key.push_back(graph.buffers[b].returned);
        refs.clear();
        for (int r : readers[b])
          refs.push_back(ref(r));
        appendRefs(refs);
      }
    }
    for (int v : component)
      local[v] = -1;
    if (!eligible)
      key.clear();
    return key;
  }

  void visit(const std::vector<int> &nodes) {
    if (nodes.size() < 2)
      return;
    std::vector<std::vector<int>> segments = decomposer.seriesSplit(nodes);
    if (segments.size() > 1) {
      for (const std::vector<int> &segment : segments)
        visit(segment);
      return;
    }
    std::vector<std::vector<int>> branches = decomposer.components(nodes);
    if (branches.size() < 2)
      return; // Neither series nor parallel: left to the search.
    for (const std::vector<int> &branch : branches)
      visit(branch);
    std::map<std::vector<int64_t>, std::vector<const std::vector<int> *>>
        classes;
    for (const std::vector<int> &branch : branches) {
      std::vector<int64_t> key = encode(branch);
      if (!key.empty())
        classes[key].push_back(&branch);
    }
    for (auto &entry : classes)
      if (entry.second.size() > 1)
        orderClass(entry.second);
  }

  /// Breaks the symmetry of a class of interchangeable branches (in index
  /// order of their first nodes).
  ///  - Chains (each node depends on the previous one): the progress of a
  ///    branch is a number, and whenever two of them have made the same
  ///    progress the state is symmetric in them, so the rest of any order
  ///    may be mirrored to let the earlier branch step first: some optimal
  ///    order runs the k-th node of each branch before the k-th node of the
  ///    next, for every k. These dependences are added (in index order, so
  ///    that the order as written stays valid when it ran the branches one
  ///    after the other).
  ///  - Other classes are recorded for the search, which stores each state
  ///    once per class permutation (ExactSearch::canonicalize); a
  ///    dependence between them would not be preserved by the exchanges.
  void orderClass(const std::vector<const std::vector<int> *> &members) {
    const std::vector<int> &first = *members.front();
    const int n = static_cast<int>(first.size());
    bool chain = true;
    for (int k = 1; k < n && chain; ++k)
      chain = std::find(deps[first[k]].begin(), deps[first[k]].end(),
                        first[k - 1]) != deps[first[k]].end();
    if (!chain) {
      std::vector<std::vector<int>> recorded;
      for (const std::vector<int> *member : members)
        recorded.push_back(*member);
      permutable.push_back(std::move(recorded));
      return;
    }
    for (size_t i = 1; i < members.size(); ++i)
      for (int k = 0; k < n; ++k)
        addEdge((*members[i])[k], (*members[i - 1])[k]);
  }

public:
  /// The recorded classes whose exchanges are still automorphisms of the
  /// graph with every dependence added (checked again by their encodings).
  std::vector<std::vector<std::vector<int>>> permutableClasses() {
    std::vector<std::vector<std::vector<int>>> result;
    for (std::vector<std::vector<int>> &members : permutable) {
      std::vector<int64_t> key = encode(members.front());
      bool same = !key.empty();
      for (size_t i = 1; i < members.size() && same; ++i)
        same = encode(members[i]) == key;
      if (same)
        result.push_back(std::move(members));
    }
    return result;
  }

private:
  std::vector<std::vector<std::vector<int>>> permutable;

  MemoryGraph &graph;
  /// Per node: explicit dependences and producers of used buffers.
  std::vector<std::vector<int>> deps, dependents, controlSuccs;
  std::vector<std::vector<int>> readers;
  std::vector<int> defIndex;
  std::vector<char> shared;
  Decomposer decomposer{deps, dependents};
  /// Scratch: position of a node in the set being processed, else -1.
  std::vector<int> local;
  int added = 0;
};

} // namespace

int breakSymmetries(
    MemoryGraph &graph,
    std::vector<std::vector<std::vector<int>>> *permutableClasses) {
  BranchSymmetry symmetry(graph);
  int added = symmetry.run();
  if (permutableClasses)
    *permutableClasses = symmetry.permutableClasses();
  return added;
}

} // namespace detail
} // namespace serenity
