//===- PrimitiveSelectionTest.cpp - Primitive ILP against enumeration -----===//

#include "Serenity/Selection/PrimitiveSelection.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <random>
#include <utility>

using namespace serenity;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

/// Two layers; layer 0's fast primitive needs a large workspace.
///   layer 0, base 100: (time 1, +900 bytes) or (time 5, +0)
///   layer 1, base 200: (time 2, +100 bytes) or (time 3, +0)
///   otherPeak 50
/// Choices -> (time, peak): {0,0} (3, 1000), {0,1} (4, 1000),
/// {1,0} (7, 300), {1,1} (8, 200).
SelectionProblem twoLayers() {
  SelectionProblem problem;
  problem.otherPeak = 50;
  problem.layers = {{100, {{1, 900}, {5, 0}}}, {200, {{2, 100}, {3, 0}}}};
  return problem;
}

/// The returned choice is available and its recomputed time and peak are
/// the reported ones, within the budgets.
void checkChoice(const SelectionProblem &problem, const SelectionResult &result,
                 const SelectionBudgets &budgets) {
  ASSERT_TRUE(result.error.empty()) << result.error;
  if (!result.feasible) {
    EXPECT_TRUE(result.choice.empty());
    return;
  }
  ASSERT_EQ(result.choice.size(), problem.layers.size());
  for (size_t l = 0; l < problem.layers.size(); ++l) {
    ASSERT_GE(result.choice[l], 0);
    ASSERT_LT(static_cast<size_t>(result.choice[l]),
              problem.layers[l].choices.size());
    EXPECT_TRUE(problem.layers[l].choices[result.choice[l]].available);
  }
  EXPECT_EQ(result.time, selectionTime(problem, result.choice));
  EXPECT_EQ(result.peak, selectionPeak(problem, result.choice));
  if (budgets.bytes)
    EXPECT_LE(result.peak, *budgets.bytes);
  if (budgets.time)
    EXPECT_LE(result.time, *budgets.time);
}

TEST(PrimitiveSelection, BudgetForcesTheSlowerPrimitive) {
  SelectionProblem problem = twoLayers();
  SelectionResult fastest = selectPrimitives(problem, SelectionObjective::Time);
  checkChoice(problem, fastest, {});
  EXPECT_TRUE(fastest.feasible);
  EXPECT_TRUE(fastest.optimal);
  EXPECT_EQ(fastest.choice, (std::vector<int>{0, 0}));
  EXPECT_EQ(fastest.time, 3);
  EXPECT_EQ(fastest.peak, 1000); // 100 + 900
  EXPECT_EQ(fastest.leastPeak, 200);
  EXPECT_EQ(fastest.leastTime, 3);

  // 100 + 900 > 400: layer 0 must take the workspace-free primitive; layer
  // 1's fast one still fits (200 + 100).
  SelectionBudgets budgets;
  budgets.bytes = 400;
  SelectionResult within =
      selectPrimitives(problem, SelectionObjective::Time, budgets);
  checkChoice(problem, within, budgets);
  EXPECT_TRUE(within.optimal);
  EXPECT_EQ(within.choice, (std::vector<int>{1, 0}));
  EXPECT_EQ(within.time, 7);
  EXPECT_EQ(within.peak, 300);
}

TEST(PrimitiveSelection, InfeasibleBudgetReportsTheLeastPeak) {
  SelectionProblem problem = twoLayers();
  SelectionBudgets budgets;
  budgets.bytes = 150;
  SelectionResult result =
      selectPrimitives(problem, SelectionObjective::Time, budgets);
  ASSERT_TRUE(result.error.empty()) << result.error;
  EXPECT_FALSE(result.feasible);
  EXPECT_TRUE(result.optimal);
  EXPECT_TRUE(result.choice.empty());
  // Layer 1 alone holds 200 bytes whatever it runs.
  EXPECT_EQ(result.leastPeak, 200);
  EXPECT_EQ(result.leastTime, 3);

  // otherPeak above the budget: no choice helps.
  problem.otherPeak = 5000;
  budgets.bytes = 4999;
  result = selectPrimitives(problem, SelectionObjective::Time, budgets);
  EXPECT_FALSE(result.feasible);
  EXPECT_EQ(result.leastPeak, 5000);
}

TEST(PrimitiveSelection, MemoryObjectiveWithATimeBudget) {
  SelectionProblem problem = twoLayers();
  SelectionResult smallest =
      selectPrimitives(problem, SelectionObjective::Memory);
  checkChoice(problem, smallest, {});
  EXPECT_TRUE(smallest.optimal);
  EXPECT_EQ(smallest.choice, (std::vector<int>{1, 1}));
  EXPECT_EQ(smallest.peak, 200);
  EXPECT_EQ(smallest.time, 8);

  SelectionBudgets budgets;
  budgets.time = 7;
  SelectionResult within =
      selectPrimitives(problem, SelectionObjective::Memory, budgets);
  checkChoice(problem, within, budgets);
  EXPECT_EQ(within.choice, (std::vector<int>{1, 0}));
  EXPECT_EQ(within.peak, 300);

  // Only peak 1000 meets 6.5; of {0,0} and {0,1} the faster one wins.
  budgets.time = 6.5;
  within = selectPrimitives(problem, SelectionObjective::Memory, budgets);
  checkChoice(problem, within, budgets);
  EXPECT_EQ(within.choice, (std::vector<int>{0, 0}));
  EXPECT_EQ(within.peak, 1000);
  EXPECT_EQ(within.time, 3);

  budgets.time = 2;
  SelectionResult below =
      selectPrimitives(problem, SelectionObjective::Memory, budgets);
  EXPECT_FALSE(below.feasible);
  EXPECT_TRUE(below.optimal);
  EXPECT_EQ(below.leastTime, 3);
  EXPECT_EQ(below.leastPeak, 200);

  // Both budgets: a time within 7 needs a peak of 300.
  budgets.time = 7;
  budgets.bytes = 299;
  EXPECT_FALSE(
      selectPrimitives(problem, SelectionObjective::Memory, budgets).feasible);
  EXPECT_FALSE(
      selectPrimitives(problem, SelectionObjective::Time, budgets).feasible);
}

TEST(PrimitiveSelection, TransitionsChangeTheChoice) {
  // Alone, both layers prefer primitive 0 (time 2); switching layout
  // between two primitive-0 layers costs 5.
  SelectionProblem problem;
  problem.layers = {{0, {{1, 0}, {2, 0}}}, {0, {{1, 0}, {1.5, 0}}}};
  SelectionResult alone = selectPrimitives(problem, SelectionObjective::Time);
  EXPECT_EQ(alone.choice, (std::vector<int>{0, 0}));
  EXPECT_EQ(alone.time, 2);

  problem.transitions = {{0, 1, {{5, 0}, {0, 0}}}};
  // {0,0} 7, {0,1} 2.5, {1,0} 3, {1,1} 3.5.
  SelectionResult result = selectPrimitives(problem, SelectionObjective::Time);
  checkChoice(problem, result, {});
  EXPECT_TRUE(result.optimal);
  EXPECT_EQ(result.choice, (std::vector<int>{0, 1}));
  EXPECT_EQ(result.time, 2.5);
}

TEST(PrimitiveSelection, UnavailableChoicesAreNeverChosen) {
  // The unavailable primitives would be the fastest and smallest; their
  // values and transition costs are ignored, even when meaningless.
  SelectionProblem problem;
  problem.layers = {
      {10, {{std::nan(""), -1, false}, {4, 30}}},
      {10, {{2, 20}, {-1, -5, false}, {3, 0}}},
  };
  problem.transitions = {{0, 1, {{-1, kInf, -1}, {2, -7, 0}}}};
  EXPECT_EQ(validateSelectionProblem(problem), "");
  for (SelectionObjective objective :
       {SelectionObjective::Time, SelectionObjective::Memory}) {
    SelectionResult result = selectPrimitives(problem, objective);
    checkChoice(problem, result, {});
    EXPECT_EQ(result.choice[0], 1);
    EXPECT_NE(result.choice[1], 1);
    SelectionResult enumerated = enumerateSelection(problem, objective);
    EXPECT_EQ(enumerated.choice, result.choice);
  }
  SelectionFrontier frontier = paretoFrontier(problem);
  ASSERT_TRUE(frontier.error.empty()) << frontier.error;
  for (const SelectionResult &point : frontier.points) {
    EXPECT_EQ(point.choice[0], 1);
    EXPECT_NE(point.choice[1], 1);
  }
}

TEST(PrimitiveSelection, InvalidInputIsAnError) {
  auto broken = [](auto edit) {
    SelectionProblem problem = twoLayers();
    problem.transitions = {{0, 1, {{0, 1}, {1, 0}}}};
    edit(problem);
    return problem;
  };
  std::vector<SelectionProblem> problems{
      broken([](SelectionProblem &p) { p.layers[1].choices.clear(); }),
      broken([](SelectionProblem &p) {
        for (PrimitiveChoice &choice : p.layers[0].choices)
          choice.available = false;
      }),
      broken([](SelectionProblem &p) { p.layers[0].choices[1].time = -1; }),
      broken([](SelectionProblem &p) {
        p.layers[0].choices[1].time = std::nan("");
      }),
      broken([](SelectionProblem &p) { p.layers[0].choices[1].time = kInf; }),
      broken(
          [](SelectionProblem &p) { p.layers[1].choices[0].workspace = -1; }),
      broken([](SelectionProblem &p) { p.layers[1].base = -1; }),
      broken([](SelectionProblem &p) { p.otherPeak = -1; }),
      broken([](SelectionProblem &p) {
        p.layers[1].base = std::numeric_limits<int64_t>::max();
      }),
      broken([](SelectionProblem &p) { p.transitions[0].to = 2; }),
      broken([](SelectionProblem &p) { p.transitions[0].to = 0; }),
      broken([](SelectionProblem &p) { p.transitions[0].cost.pop_back(); }),
      broken(
          [](SelectionProblem &p) { p.transitions[0].cost[1].push_back(0); }),
      broken([](SelectionProblem &p) { p.transitions[0].cost[0][1] = -0.5; }),
      broken([](SelectionProblem &p) { p.transitions[0].cost[0][1] = kInf; }),
  };
  for (size_t i = 0; i < problems.size(); ++i) {
    const SelectionProblem &problem = problems[i];
    std::string error = validateSelectionProblem(problem);
    EXPECT_FALSE(error.empty()) << "case " << i;
    EXPECT_EQ(selectPrimitives(problem, SelectionObjective::Time).error, error);
    EXPECT_EQ(selectPrimitives(problem, SelectionObjective::Memory).error,
              error);
    EXPECT_EQ(enumerateSelection(problem, SelectionObjective::Time).error,
              error);
    EXPECT_EQ(paretoFrontier(problem).error, error);
  }
  EXPECT_EQ(validateSelectionProblem(broken([](SelectionProblem &) {})), "");

  SelectionBudgets nanBudget;
  nanBudget.time = std::nan("");
  EXPECT_FALSE(
      selectPrimitives(twoLayers(), SelectionObjective::Memory, nanBudget)
          .error.empty());
  EXPECT_FALSE(selectPrimitives(twoLayers(), SelectionObjective::Time, {}, -2)
                   .error.empty());
  EXPECT_FALSE(paretoFrontier(twoLayers(), -2).error.empty());
  EXPECT_FALSE(enumerateSelection(twoLayers(), SelectionObjective::Time, {},
                                  /*maxCombinations=*/3)
                   .error.empty());
}

TEST(PrimitiveSelection, NoLayers) {
  SelectionProblem problem;
  problem.otherPeak = 64;
  SelectionResult result = selectPrimitives(problem, SelectionObjective::Time);
  EXPECT_TRUE(result.feasible);
  EXPECT_TRUE(result.optimal);
  EXPECT_TRUE(result.choice.empty());
  EXPECT_EQ(result.peak, 64);
  EXPECT_EQ(result.time, 0);
  SelectionFrontier frontier = paretoFrontier(problem);
  ASSERT_EQ(frontier.points.size(), 1u);
  EXPECT_EQ(frontier.points[0].peak, 64);
}

TEST(PrimitiveSelection, ByteCountsBeyondDoublePrecisionOfGLPKAreExact) {
  // Peaks around 2^41 that differ by one byte; GLPK's relative tolerance
  // (1e-7) would not tell them apart, the bounds formulation does.
  const int64_t big = int64_t(1) << 41;
  SelectionProblem problem;
  problem.otherPeak = big;
  problem.layers = {{big - 7, {{1, 8}, {2, 7}}}, {big - 1, {{1, 2}, {3, 1}}}};
  SelectionBudgets budgets;
  budgets.bytes = big;
  SelectionResult tight =
      selectPrimitives(problem, SelectionObjective::Time, budgets);
  checkChoice(problem, tight, budgets);
  EXPECT_EQ(tight.choice, (std::vector<int>{1, 1}));
  EXPECT_EQ(tight.peak, big);
  budgets.bytes = big + 1;
  SelectionResult loose =
      selectPrimitives(problem, SelectionObjective::Time, budgets);
  EXPECT_EQ(loose.choice, (std::vector<int>{0, 0}));
  EXPECT_EQ(loose.peak, big + 1);
  EXPECT_EQ(loose.time, 2);
  budgets.bytes = big - 1;
  SelectionResult below =
      selectPrimitives(problem, SelectionObjective::Time, budgets);
  EXPECT_FALSE(below.feasible);
  EXPECT_EQ(below.leastPeak, big);

  SelectionResult smallest =
      selectPrimitives(problem, SelectionObjective::Memory);
  EXPECT_EQ(smallest.peak, big);
  EXPECT_EQ(smallest.time, 5);
}

/// Large enough that GLPK has no proven answer after a few nodes; the last
/// choice of every layer needs no workspace, so a budget of 1000 bytes is
/// met by every layer's last choice.
SelectionProblem largeProblem() {
  std::mt19937 rng(3);
  SelectionProblem problem;
  const int layers = 300, choices = 6;
  for (int l = 0; l < layers; ++l) {
    SelectionLayer layer{int64_t(rng() % 500), {}};
    for (int c = 0; c < choices; ++c)
      layer.choices.push_back(
          {double(rng() % 100), c + 1 < choices ? int64_t(rng() % 1000) : 0});
    problem.layers.push_back(layer);
  }
  for (int k = 0; k < 2 * layers; ++k) {
    size_t from = rng() % layers, to = rng() % layers;
    if (from == to)
      continue;
    LayerTransition transition{from, to, {}};
    transition.cost.assign(choices, std::vector<double>(choices, 0));
    for (std::vector<double> &row : transition.cost)
      for (double &cost : row)
        cost = double(rng() % 50);
    problem.transitions.push_back(transition);
  }
  return problem;
}

TEST(PrimitiveSelection, WorkLimitStillRespectsTheBudget) {
  SelectionProblem problem = largeProblem();
  SelectionBudgets budgets;
  budgets.bytes = 1000;
  for (int64_t workLimit : {0, 1, 50}) {
    SelectionResult result = selectPrimitives(problem, SelectionObjective::Time,
                                              budgets, workLimit);
    checkChoice(problem, result, budgets);
    EXPECT_TRUE(result.feasible) << workLimit;
    EXPECT_FALSE(result.optimal) << workLimit;
    EXPECT_EQ(result.stop, SearchStop::Work) << workLimit;
  }
}

TEST(PrimitiveSelection, WorkLimitIsDeterministic) {
  // The budget is counted in GLPK's callbacks and simplex iterations, not in
  // time: the same problem stops at the same point and gives the same
  // choice, whatever the machine does meanwhile.
  SelectionProblem problem = largeProblem();
  SelectionBudgets budgets;
  budgets.bytes = 1000;
  for (int64_t workLimit : {5, 200, 2000}) {
    SelectionResult first = selectPrimitives(problem, SelectionObjective::Time,
                                             budgets, workLimit);
    SelectionResult second = selectPrimitives(
        problem, SelectionObjective::Time, budgets, workLimit);
    EXPECT_EQ(first.choice, second.choice) << workLimit;
    EXPECT_EQ(first.time, second.time) << workLimit;
    EXPECT_EQ(first.optimal, second.optimal) << workLimit;
    EXPECT_EQ(first.stop, second.stop) << workLimit;
    SelectionFrontier a = paretoFrontier(twoLayers(), workLimit),
                      b = paretoFrontier(twoLayers(), workLimit);
    ASSERT_EQ(a.points.size(), b.points.size());
    for (size_t i = 0; i < a.points.size(); ++i)
      EXPECT_EQ(a.points[i].choice, b.points[i].choice);
  }
  // A call counts from the clock's current point: an enclosing search that
  // has done work does not shorten the budget.
  SelectionResult fresh = selectPrimitives(problem, SelectionObjective::Time,
                                           budgets, 200);
  WorkClock::Scope scope;
  WorkClock::tick(1000000);
  SelectionResult later = selectPrimitives(problem, SelectionObjective::Time,
                                           budgets, 200);
  EXPECT_EQ(fresh.choice, later.choice);
}

TEST(PrimitiveSelection, UnlimitedWorkProvesTheSmallProblems) {
  SelectionResult result =
      selectPrimitives(twoLayers(), SelectionObjective::Time, {}, -1);
  EXPECT_TRUE(result.optimal);
  EXPECT_EQ(result.stop, SearchStop::None);
  SelectionFrontier frontier = paretoFrontier(twoLayers(), -1);
  EXPECT_TRUE(frontier.optimal);
  EXPECT_EQ(frontier.stop, SearchStop::None);
}

TEST(PrimitiveSelection, SafetyNetIsNamedWhenItStops) {
  // A safety net already passed (the clock at kEnd from a 1 ms Scope whose
  // check ran) stops every solve; the stop says time, not work.
  WorkClock::Scope scope(1);
  auto start = std::chrono::steady_clock::now();
  while (std::chrono::steady_clock::now() - start < std::chrono::milliseconds(5))
    ;
  WorkClock::tick(1024);
  ASSERT_TRUE(WorkClock::wallExpired());
  SelectionResult result =
      selectPrimitives(twoLayers(), SelectionObjective::Time, {}, -1);
  EXPECT_TRUE(result.feasible);
  EXPECT_FALSE(result.optimal);
  EXPECT_EQ(result.stop, SearchStop::Time);
}

/// A random problem: `layers` layers of 1-4 choices (one in five
/// unavailable), transitions between most neighbours and sometimes a
/// farther pair. Times are small integers or quarters, so sums are exact and
/// distinct optima differ far beyond GLPK's tolerance.
SelectionProblem randomProblem(std::mt19937 &rng, int layerCount,
                               int64_t byteScale) {
  SelectionProblem problem;
  problem.otherPeak = byteScale * (rng() % 1500);
  for (int l = 0; l < layerCount; ++l) {
    SelectionLayer layer;
    layer.base = byteScale * (rng() % 1000);
    int choices = 1 + rng() % 4;
    for (int c = 0; c < choices; ++c) {
      PrimitiveChoice choice;
      choice.time = rng() % 3 ? double(rng() % 20) : (rng() % 80) / 4.0;
      choice.workspace = rng() % 4 ? byteScale * (rng() % 1000) : 0;
      choice.available = rng() % 5 != 0;
      layer.choices.push_back(choice);
    }
    if (std::none_of(layer.choices.begin(), layer.choices.end(),
                     [](const PrimitiveChoice &c) { return c.available; }))
      layer.choices[rng() % choices].available = true;
    problem.layers.push_back(layer);
  }
  auto addTransition = [&](size_t from, size_t to) {
    LayerTransition transition{from, to, {}};
    transition.cost.assign(
        problem.layers[from].choices.size(),
        std::vector<double>(problem.layers[to].choices.size(), 0));
    for (std::vector<double> &row : transition.cost)
      for (double &cost : row)
        cost = rng() % 2 ? double(rng() % 10) : 0;
    problem.transitions.push_back(transition);
  };
  for (int l = 0; l + 1 < layerCount; ++l)
    if (rng() % 4)
      addTransition(l, l + 1);
  if (layerCount >= 3 && rng() % 3 == 0)
    addTransition(rng() % layerCount, (rng() % 2 ? 0 : layerCount - 1));
  if (!problem.transitions.empty() &&
      problem.transitions.back().from == problem.transitions.back().to)
    problem.transitions.pop_back();
  return problem;
}

TEST(PrimitiveSelection, EqualsEnumerationOnRandomInstances) {
  std::mt19937 rng(11);
  for (int trial = 0; trial < 1000; ++trial) {
    // Every tenth instance has byte counts near 2^40.
    int64_t byteScale = trial % 10 == 9 ? (int64_t(1) << 30) + 1 : 1;
    SelectionProblem problem = randomProblem(rng, 1 + rng() % 6, byteScale);
    SelectionResult unbounded =
        enumerateSelection(problem, SelectionObjective::Time);
    ASSERT_TRUE(unbounded.error.empty()) << unbounded.error;
    // Budgets around the achievable range, some below it, some unset.
    SelectionBudgets budgets;
    if (rng() % 4)
      budgets.bytes = unbounded.leastPeak - byteScale * 20 +
                      byteScale * int64_t(rng() % 1500);
    if (rng() % 3 == 0)
      budgets.time = unbounded.leastTime - 2 + double(rng() % 40);
    for (SelectionObjective objective :
         {SelectionObjective::Time, SelectionObjective::Memory}) {
      SelectionResult expected =
          enumerateSelection(problem, objective, budgets);
      SelectionResult result = selectPrimitives(problem, objective, budgets);
      SCOPED_TRACE(
          testing::Message()
          << "trial " << trial << " objective "
          << (objective == SelectionObjective::Time ? "time" : "memory"));
      checkChoice(problem, result, budgets);
      EXPECT_TRUE(result.optimal);
      EXPECT_EQ(result.feasible, expected.feasible);
      EXPECT_EQ(result.leastPeak, expected.leastPeak);
      EXPECT_EQ(result.leastTime, expected.leastTime);
      if (!result.feasible || !expected.feasible)
        continue;
      EXPECT_EQ(result.time, expected.time);
      if (objective == SelectionObjective::Memory)
        EXPECT_EQ(result.peak, expected.peak);
    }
  }
}

/// The nondominated (peak, time) pairs over every combination.
std::vector<std::pair<int64_t, double>>
enumeratedFrontier(const SelectionProblem &problem) {
  std::vector<std::pair<int64_t, double>> all;
  std::vector<int> choice(problem.layers.size(), 0);
  while (true) {
    bool available = true;
    for (size_t l = 0; l < choice.size(); ++l)
      available &= problem.layers[l].choices[choice[l]].available;
    if (available)
      all.emplace_back(selectionPeak(problem, choice),
                       selectionTime(problem, choice));
    size_t l = 0;
    while (l < choice.size() &&
           ++choice[l] == int(problem.layers[l].choices.size()))
      choice[l++] = 0;
    if (l == choice.size())
      break;
  }
  std::sort(all.begin(), all.end());
  std::vector<std::pair<int64_t, double>> frontier;
  for (const auto &point : all)
    if (frontier.empty() || point.second < frontier.back().second)
      frontier.push_back(point);
  return frontier;
}

TEST(PrimitiveSelection, ParetoFrontierEqualsEnumeration) {
  std::mt19937 rng(5);
  for (int trial = 0; trial < 300; ++trial) {
    SelectionProblem problem = randomProblem(rng, 1 + rng() % 6, 1);
    SelectionFrontier frontier = paretoFrontier(problem);
    ASSERT_TRUE(frontier.error.empty()) << frontier.error;
    EXPECT_TRUE(frontier.optimal);
    std::vector<std::pair<int64_t, double>> found;
    for (const SelectionResult &point : frontier.points) {
      checkChoice(problem, point, {});
      EXPECT_TRUE(point.feasible);
      found.emplace_back(point.peak, point.time);
    }
    EXPECT_EQ(found, enumeratedFrontier(problem)) << "trial " << trial;
  }
}

TEST(PrimitiveSelection, LongChainEqualsDynamicProgramming) {
  // 60 layers x 5 choices with neighbour transitions: too many combinations
  // to enumerate, but a chain, so a Viterbi pass over the allowed choices
  // gives the least time under a byte budget.
  std::mt19937 rng(17);
  for (int trial = 0; trial < 10; ++trial) {
    SelectionProblem problem;
    const int layers = 60, choices = 5;
    for (int l = 0; l < layers; ++l) {
      SelectionLayer layer{int64_t(rng() % 1000), {}};
      for (int c = 0; c < choices; ++c)
        layer.choices.push_back(
            {double(1 + rng() % 100), int64_t(rng() % 2000)});
      problem.layers.push_back(layer);
    }
    for (int l = 0; l + 1 < layers; ++l) {
      LayerTransition transition{size_t(l), size_t(l + 1), {}};
      transition.cost.assign(choices, std::vector<double>(choices, 0));
      for (int c1 = 0; c1 < choices; ++c1)
        for (int c2 = 0; c2 < choices; ++c2)
          transition.cost[c1][c2] = c1 == c2 ? 0 : double(rng() % 30);
      problem.transitions.push_back(transition);
    }
    SelectionBudgets budgets;
    budgets.bytes = 1500 + rng() % 1500;
    SelectionResult result =
        selectPrimitives(problem, SelectionObjective::Time, budgets);
    checkChoice(problem, result, budgets);

    auto allowed = [&](int l, int c) {
      return problem.layers[l].base + problem.layers[l].choices[c].workspace <=
             *budgets.bytes;
    };
    std::vector<double> best(choices);
    for (int c = 0; c < choices; ++c)
      best[c] = allowed(0, c) ? problem.layers[0].choices[c].time : kInf;
    for (int l = 1; l < layers; ++l) {
      std::vector<double> next(choices, kInf);
      for (int c2 = 0; c2 < choices; ++c2)
        if (allowed(l, c2))
          for (int c1 = 0; c1 < choices; ++c1)
            next[c2] = std::min(
                next[c2], best[c1] + problem.transitions[l - 1].cost[c1][c2] +
                              problem.layers[l].choices[c2].time);
      best = next;
    }
    double expected = *std::min_element(best.begin(), best.end());
    ASSERT_EQ(result.feasible, expected != kInf) << "trial " << trial;
    if (result.feasible) {
      EXPECT_TRUE(result.optimal);
      EXPECT_EQ(result.time, expected) << "trial " << trial;
    }
  }
}

} // namespace
