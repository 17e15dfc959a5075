//===- KnapsackTest.cpp - solveKnapsack against enumeration ---------------===//

#include "Serenity/Selection/Knapsack.h"

#include <gtest/gtest.h>

#include <random>

using namespace serenity;

namespace {

/// The best value over all 2^n subsets.
int64_t bruteForce(const std::vector<KnapsackItem> &items, int64_t capacity) {
  int64_t best = 0;
  for (uint32_t mask = 0; mask < (1u << items.size()); ++mask) {
    int64_t weight = 0, value = 0;
    for (size_t i = 0; i < items.size(); ++i)
      if (mask >> i & 1) {
        weight += items[i].weight;
        value += items[i].value;
      }
    if (weight <= capacity)
      best = std::max(best, value);
  }
  return best;
}

/// The chosen set's sums, recomputed.
void checkConsistent(const std::vector<KnapsackItem> &items,
                     const KnapsackResult &result, int64_t capacity) {
  ASSERT_EQ(result.taken.size(), items.size());
  int64_t weight = 0, value = 0;
  for (size_t i = 0; i < items.size(); ++i)
    if (result.taken[i]) {
      weight += items[i].weight;
      value += items[i].value;
    }
  EXPECT_EQ(weight, result.weight);
  EXPECT_EQ(value, result.value);
  EXPECT_LE(weight, capacity);
}

TEST(Knapsack, EqualsEnumerationOnRandomInstances) {
  std::mt19937 rng(7);
  for (int trial = 0; trial < 2000; ++trial) {
    int n = 1 + rng() % 12;
    // Multiples of a common unit, as filter sizes are (multiples of 4).
    int64_t unit = 1 + rng() % 8;
    std::vector<KnapsackItem> items(n);
    int64_t total = 0;
    for (KnapsackItem &item : items) {
      item.weight = unit * (rng() % 50);
      item.value = rng() % 1000;
      total += item.weight;
    }
    int64_t capacity = total ? rng() % (total + 1) : 0;
    KnapsackResult result = solveKnapsack(items, capacity);
    checkConsistent(items, result, capacity);
    EXPECT_TRUE(result.optimal);
    EXPECT_EQ(result.value, bruteForce(items, capacity))
        << "trial " << trial << " capacity " << capacity;
  }
}

TEST(Knapsack, EverythingFitsOrNothingDoes) {
  std::vector<KnapsackItem> items{{4, 10}, {8, 3}, {12, 7}};
  KnapsackResult all = solveKnapsack(items, 24);
  EXPECT_EQ(all.taken, (std::vector<bool>{true, true, true}));
  EXPECT_EQ(all.value, 20);
  KnapsackResult none = solveKnapsack(items, 3);
  EXPECT_EQ(none.taken, (std::vector<bool>{false, false, false}));
  EXPECT_EQ(none.value, 0);
  KnapsackResult negative = solveKnapsack(items, -1);
  EXPECT_EQ(negative.value, 0);
  EXPECT_TRUE(solveKnapsack({}, 10).taken.empty());
}

TEST(Knapsack, GreedyBeyondTheCellLimitIsFeasibleAndFlagged) {
  std::vector<KnapsackItem> items{{6, 9}, {5, 5}, {5, 5}};
  // Greedy takes the best ratio (6, 9) and then nothing fits; the optimum
  // is the two others (value 10).
  KnapsackResult greedy = solveKnapsack(items, 10, /*maxCells=*/1);
  checkConsistent(items, greedy, 10);
  EXPECT_FALSE(greedy.optimal);
  EXPECT_EQ(greedy.value, 9);
  KnapsackResult exact = solveKnapsack(items, 10);
  EXPECT_TRUE(exact.optimal);
  EXPECT_EQ(exact.value, 10);
}

} // namespace
