//===- Decomposition.cpp - Series-parallel style decomposition ------------===//

#include "Decomposition.h"

#include "SchedulingProblem.h"

#include <algorithm>
#include <map>
#include <numeric>

namespace serenity {
namespace detail {

std::vector<int> Decomposer::topological(const std::vector<int> &nodes) {
  prepare();
  for (int i = 0, e = static_cast<int>(nodes.size()); i < e; ++i)
    local[nodes[i]] = i;
  std::vector<int> indegree(nodes.size(), 0), order;
  for (int i = 0, e = static_cast<int>(nodes.size()); i < e; ++i)
    for (int p : deps[nodes[i]])
      indegree[i] += local[p] >= 0;
  for (int i = 0, e = static_cast<int>(nodes.size()); i < e; ++i)
    if (!indegree[i])
      order.push_back(nodes[i]);
  for (size_t k = 0; k < order.size(); ++k)
    for (int s : dependents[order[k]])
      if (local[s] >= 0 && --indegree[local[s]] == 0)
        order.push_back(s);
  for (int v : nodes)
    local[v] = -1;
  return order;
}

std::vector<std::vector<int>>
Decomposer::seriesSplit(const std::vector<int> &nodes) {
  std::vector<int> topo = topological(nodes);
  const int n = static_cast<int>(topo.size());
  if (n != static_cast<int>(nodes.size()))
    return {nodes};
  prepare();
  for (int i = 0; i < n; ++i)
    local[topo[i]] = i;
  std::vector<Bits> ancestors(n, Bits(n));
  for (int i = 0; i < n; ++i)
    for (int p : deps[topo[i]])
      if (local[p] >= 0) {
        ancestors[i].unite(ancestors[local[p]]);
        ancestors[i].set(local[p]);
      }
  for (int v : topo)
    local[v] = -1;
  // The first k nodes form a forced prefix iff every later node has all of
  // them as ancestors (as SchedulingProblem::forcedSegments).
  std::vector<int> suffixMin(n + 1, n);
  for (int i = n - 1; i >= 0; --i) {
    int first = ancestors[i].firstClear(i);
    if (first == i)
      first = i + 1;
    suffixMin[i] = std::min(suffixMin[i + 1], first);
  }
  std::vector<std::vector<int>> segments(1);
  for (int i = 0; i < n; ++i) {
    if (i > 0 && suffixMin[i] >= i)
      segments.emplace_back();
    segments.back().push_back(topo[i]);
  }
  for (std::vector<int> &segment : segments)
    std::sort(segment.begin(), segment.end());
  return segments;
}

std::vector<std::vector<int>>
Decomposer::components(const std::vector<int> &nodes) {
  prepare();
  const int n = static_cast<int>(nodes.size());
  for (int i = 0; i < n; ++i)
    local[nodes[i]] = i;
  std::vector<int> parent(n);
  std::iota(parent.begin(), parent.end(), 0);
  auto find = [&](int x) {
    while (parent[x] != x)
      x = parent[x] = parent[parent[x]];
    return x;
  };
  for (int i = 0; i < n; ++i)
    for (int p : deps[nodes[i]])
      if (local[p] >= 0)
        parent[find(i)] = find(local[p]);
  for (int v : nodes)
    local[v] = -1;
  std::map<int, std::vector<int>> byRoot;
  for (int i = 0; i < n; ++i)
    byRoot[find(i)].push_back(nodes[i]);
  std::vector<std::vector<int>> result;
  for (auto &entry : byRoot)
    result.push_back(std::move(entry.second));
  std::sort(result.begin(), result.end());
  return result;
}

} // namespace detail
} // namespace serenity
