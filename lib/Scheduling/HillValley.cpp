//===- HillValley.cpp - Series-parallel hill-valley heuristic -------------===//
//
// Series-parallel scheduling by exchange rules (Abdel-Wahab and Kameda
// 1978 for the maximum cumulative cost under series-parallel precedence;
// Liu 1987's hill-valley rule for tree pebbling is its second class), over
// the decomposition of Decomposer: segments in sequence are concatenated;
// parallel branches are ordered recursively, each branch's nodes become jobs
// (hill: the most bytes a step uses above the live bytes before it; change:
// of the live bytes), adjacent jobs of a branch are combined while the later
// one should go first, and all jobs are merged by the two-job exchange rule
// (shrinking jobs first by increasing hill, then growing ones by decreasing
// hill - change). Parts that are neither series nor parallel get a greedy
// order.
//
// Each branch's profile is taken as if it ran alone: a buffer it reads is
// freed by it only when all readers are inside it, so buffers shared with
// other branches count as live throughout. That is where our memory model
// (one buffer for all consumers) leaves the setting of the optimality proofs
// (private data per edge), so this is a heuristic: its order goes to the dp
// as an upper bound, and is an algorithm of its own (algorithm=hill-valley).
// Where branches share nothing (a fork with a result per branch, private
// chains, a join) it is optimal: tested against brute force.
//
//===----------------------------------------------------------------------===//

#include "HillValley.h"

#include "Decomposition.h"

#include <algorithm>
#include <numeric>

namespace serenity {
namespace detail {

namespace {

class HillValleyOrder {
public:
  explicit HillValleyOrder(const SchedulingProblem &problem)
      : problem(problem), decomposer(problem.preds, problem.succs),
        execution(problem), inside(problem.numNodes, 0),
        isReady(problem.numNodes, 0), missing(problem.numNodes, 0),
        key(problem.numNodes, 0) {}

  std::vector<int> order(const std::vector<int> &nodes) {
    if (nodes.size() <= 1)
      return nodes;
    std::vector<std::vector<int>> segments = decomposer.seriesSplit(nodes);
    if (segments.size() > 1) {
      std::vector<int> result;
      for (const std::vector<int> &segment : segments) {
        std::vector<int> part = order(segment);
        result.insert(result.end(), part.begin(), part.end());
      }
      return result;
    }
    std::vector<std::vector<int>> branches = decomposer.components(nodes);
    if (branches.size() == 1)
      return greedy(nodes);
    std::vector<Job> jobs;
    for (const std::vector<int> &branch : branches) {
      std::vector<int> sequence = order(branch);
      // The branch's nodes as jobs, adjacent ones combined while the later
      // one should go first: afterwards no job of the branch comes before
      // its predecessor in the merge below, which keeps the branch's order.
      std::vector<Job> stack;
      for (Job &job : profile(branch, sequence)) {
        stack.push_back(std::move(job));
        while (stack.size() >= 2 &&
               goesFirst(stack.back(), stack[stack.size() - 2])) {
          Job later = std::move(stack.back());
          stack.pop_back();
          Job &earlier = stack.back();
          earlier.hill = std::max(earlier.hill, earlier.change + later.hill);
          earlier.change += later.change;
          earlier.nodes.insert(earlier.nodes.end(), later.nodes.begin(),
                               later.nodes.end());
        }
      }
      for (Job &job : stack)
        jobs.push_back(std::move(job));
    }
    // Equal jobs keep their branch order and their order within a branch.
    std::vector<int> rank(jobs.size());
    std::iota(rank.begin(), rank.end(), 0);
    std::sort(rank.begin(), rank.end(), [&](int a, int b) {
      if (goesFirst(jobs[a], jobs[b]))
        return true;
      return !goesFirst(jobs[b], jobs[a]) && a < b;
    });
    std::vector<int> result;
    for (int j : rank)
      result.insert(result.end(), jobs[j].nodes.begin(), jobs[j].nodes.end());
    return result;
  }

private:
  /// Nodes run back to back: the most bytes above the live bytes before
  /// them that a step uses, and the change of the live bytes.
  struct Job {
    int64_t hill = 0, change = 0;
    std::vector<int> nodes;
  };

  /// The exchange rule for two jobs run one after the other (X then Y
  /// peaks at max(H_x, V_x + H_y)): jobs that do not grow the live bytes
  /// first, by increasing hill; then the others by decreasing hill -
  /// change (Abdel-Wahab and Kameda; Liu's rule for the second class).
  static bool goesFirst(const Job &x, const Job &y) {
    bool xShrinks = x.change <= 0, yShrinks = y.change <= 0;
    if (xShrinks != yShrinks)
      return xShrinks;
    if (xShrinks)
      return x.hill < y.hill;
    return x.hill - x.change > y.hill - y.change;
  }

private:
  /// Bytes `v` allocates, and the change of the live bytes, when the nodes
  /// marked in `execution` ran. Only nodes of the branch (or part) being
  /// ordered are ever marked, so a buffer read outside it is never freed: the
  /// branch is taken as if it ran alone.
  void stepOf(int v, int64_t &allocated, int64_t &change) const {
    allocated = execution.newBytes(v);
    change = execution.keptBytes(v) - execution.freedBytes(v);
  }

  /// The nodes of `sequence` (an order of `branch`) as jobs, as if the
  /// branch ran alone.
  std::vector<Job> profile(const std::vector<int> &branch,
                           const std::vector<int> &sequence) {
    for (int v : branch)
      inside[v] = 1;
    std::vector<Job> jobs;
    for (int v : sequence) {
      Job job;
      stepOf(v, job.hill, job.change);
      job.nodes.push_back(v);
      jobs.push_back(std::move(job));
      execution.run(v);
    }
    for (int v : sequence)
      execution.undo(v);
    for (int v : branch)
      inside[v] = 0;
    return jobs;
  }

  /// Greedy over a part that is neither series nor parallel: the ready node
  /// that grows the live bytes least, ties by index.
  std::vector<int> greedy(const std::vector<int> &nodes) {
    for (int v : nodes)
      inside[v] = 1;
    for (int v : nodes)
      for (int p : problem.preds[v])
        missing[v] += inside[p];
    // Keys of ready nodes, updated when a node sharing a buffer runs.
    std::vector<int> ready, result;
    auto refresh = [&](int v) {
      int64_t allocated;
      stepOf(v, allocated, key[v]);
    };
    for (int v : nodes)
      if (!missing[v]) {
        refresh(v);
        isReady[v] = 1;
        ready.push_back(v);
      }
    while (!ready.empty()) {
      int best = 0;
      for (int i = 1, e = static_cast<int>(ready.size()); i < e; ++i) {
        int v = ready[i], b = ready[best];
        if (key[v] < key[b] || (key[v] == key[b] && v < b))
          best = i;
      }
      int v = ready[best];
      ready.erase(ready.begin() + best);
      isReady[v] = 0;
      result.push_back(v);
      execution.run(v);
      execution.forEachAffected(v, [&](int w) {
        if (isReady[w])
          refresh(w);
      });
      for (int s : problem.succs[v])
        if (inside[s] && --missing[s] == 0) {
          refresh(s);
          isReady[s] = 1;
          ready.push_back(s);
        }
    }
    for (int v : result)
      execution.undo(v);
    for (int v : nodes)
      inside[v] = missing[v] = 0;
    return result;
  }

  const SchedulingProblem &problem;
  Decomposer decomposer;
  /// The nodes of the branch or part being ordered that have run.
  Execution execution;
  std::vector<char> inside, isReady;
  std::vector<int> missing;
  std::vector<int64_t> key;
};

} // namespace

std::vector<int> hillValleyOrder(const SchedulingProblem &problem) {
  std::vector<int> all(problem.numNodes);
  for (int v = 0; v < problem.numNodes; ++v)
    all[v] = v;
  return HillValleyOrder(problem).order(all);
}

} // namespace detail
} // namespace serenity
