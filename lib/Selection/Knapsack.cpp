//===- Knapsack.cpp - Exact 0/1 knapsack ------------------------*- C++ -*-===//

#include "Serenity/Selection/Knapsack.h"

#include <algorithm>
#include <numeric>

namespace serenity {

namespace {

/// Items by decreasing value per weight (weightless ones first), taken while
/// they fit.
KnapsackResult greedy(const std::vector<KnapsackItem> &items,
                      int64_t capacity) {
  std::vector<size_t> order(items.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    // value_a / weight_a > value_b / weight_b, without division.
    __int128 left = static_cast<__int128>(items[a].value) * items[b].weight;
    __int128 right = static_cast<__int128>(items[b].value) * items[a].weight;
    return left != right ? left > right : a < b;
  });
  KnapsackResult result;
  result.taken.assign(items.size(), false);
  for (size_t i : order)
    if (result.weight + items[i].weight <= capacity) {
      result.taken[i] = true;
      result.weight += items[i].weight;
      result.value += items[i].value;
    }
  return result;
}

} // namespace

KnapsackResult solveKnapsack(const std::vector<KnapsackItem> &items,
                             int64_t capacity, int64_t maxCells) {
  const size_t n = items.size();
  KnapsackResult result;
  result.taken.assign(n, false);
  if (capacity < 0)
    return result;
  int64_t total = 0, unit = 0;
  for (const KnapsackItem &item : items) {
    total += item.weight;
    unit = std::gcd(unit, item.weight);
  }
  if (total <= capacity) {
    result.taken.assign(n, true);
    result.weight = total;
    for (const KnapsackItem &item : items)
      result.value += item.value;
    return result;
  }
  // unit > 0 here: some weight is positive, or total <= capacity.
  const int64_t cells = capacity / unit;
  if (static_cast<__int128>(cells + 1) * static_cast<__int128>(n) > maxCells) {
    result = greedy(items, capacity);
    result.optimal = false;
    return result;
  }
  // best[c]: the most value within c units; take[i * (cells + 1) + c]: item
  // i improves best[c] when it is considered.
  std::vector<int64_t> best(cells + 1, 0);
  std::vector<bool> take(n * (cells + 1), false);
  for (size_t i = 0; i < n; ++i) {
    const int64_t weight = items[i].weight / unit;
    for (int64_t c = cells; c >= weight; --c)
      if (best[c - weight] + items[i].value > best[c]) {
        best[c] = best[c - weight] + items[i].value;
        take[i * (cells + 1) + c] = true;
      }
  }
  for (int64_t i = static_cast<int64_t>(n) - 1, c = cells; i >= 0; --i)
    if (take[i * (cells + 1) + c]) {
      result.taken[i] = true;
      result.value += items[i].value;
      result.weight += items[i].weight;
      c -= items[i].weight / unit;
    }
  return result;
}

} // namespace serenity
