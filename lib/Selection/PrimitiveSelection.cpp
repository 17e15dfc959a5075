//===- PrimitiveSelection.cpp - Per-layer conv primitive ILP ----*- C++ -*-===//

#include "Serenity/Selection/PrimitiveSelection.h"

#include <glpk.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <limits>
#include <map>
#include <sstream>

namespace serenity {

namespace {

/// The least peak of any choice vector that runs choice c at layer l.
int64_t choicePeak(const SelectionProblem &problem, size_t l, size_t c) {
  const SelectionLayer &layer = problem.layers[l];
  return std::max(problem.otherPeak, layer.base + layer.choices[c].workspace);
}

/// The distinct values choicePeak takes that some choice vector can have as
/// its peak (those >= the smallest achievable peak), ascending; never empty.
std::vector<int64_t> candidatePeaks(const SelectionProblem &problem) {
  int64_t leastPeak = problem.otherPeak;
  std::vector<int64_t> peaks{problem.otherPeak};
  for (size_t l = 0; l < problem.layers.size(); ++l) {
    int64_t layerLeast = std::numeric_limits<int64_t>::max();
    for (size_t c = 0; c < problem.layers[l].choices.size(); ++c)
      if (problem.layers[l].choices[c].available) {
        peaks.push_back(choicePeak(problem, l, c));
        layerLeast = std::min(layerLeast, peaks.back());
      }
    leastPeak = std::max(leastPeak, layerLeast);
  }
  std::sort(peaks.begin(), peaks.end());
  peaks.erase(std::unique(peaks.begin(), peaks.end()), peaks.end());
  peaks.erase(peaks.begin(),
              std::lower_bound(peaks.begin(), peaks.end(), leastPeak));
  return peaks;
}

/// The problem's error (validateSelectionProblem), else the budgets' and
/// the work limit's, else "".
std::string validateArguments(const SelectionProblem &problem,
                              const SelectionBudgets &budgets,
                              int64_t workLimit) {
  if (std::string error = validateSelectionProblem(problem); !error.empty())
    return error;
  if (budgets.time && std::isnan(*budgets.time))
    return "time budget is NaN";
  if (workLimit < -1)
    return "work limit must be >= 0, or -1 (none)";
  return "";
}

/// The fastest choice vector whose peak is within a limit.
struct TimeSolve {
  std::vector<int> choice;
  double time = 0;
  int64_t peak = 0;
  /// GLPK proved it optimal.
  bool proven = false;
  /// What stopped the solve (None when GLPK finished it).
  SearchStop stop = SearchStop::None;
};

/// Solves "least time with peak <= limit" by ILP, once per limit, all
/// within one work budget on this thread's WorkClock.
class TimeSolver {
public:
  TimeSolver(const SelectionProblem &problem, int64_t workLimit)
      : problem(problem), workEnd(WorkClock::after(workLimit)) {}

  /// `limit` must be at least the smallest achievable peak.
  const TimeSolve &solve(int64_t limit) {
    auto it = solved.find(limit);
    if (it == solved.end())
      it = solved.emplace(limit, run(limit)).first;
    return it->second;
  }

  bool allProven() const {
    return std::all_of(solved.begin(), solved.end(),
                       [](const auto &entry) { return entry.second.proven; });
  }

  /// What stopped a solve (None when every one finished): the safety net
  /// when it stopped any, else the work limit.
  SearchStop stop() const {
    SearchStop stop = SearchStop::None;
    for (const auto &entry : solved)
      if (entry.second.stop != SearchStop::None && stop != SearchStop::Time)
        stop = entry.second.stop;
    return stop;
  }

private:
  TimeSolve run(int64_t limit);

  /// glp_intopt's callback: counts the work and stops the search at the
  /// budget. GLPK's own limits are wall-clock (tm_lim) or apply to one LP
  /// (it_lim), so the budget is kept here, where GLPK calls back at least
  /// once per branch-and-bound node.
  static void onBranchAndBound(glp_tree *tree, void *info) {
    auto *solver = static_cast<TimeSolver *>(info);
    int iterations = glp_get_it_cnt(glp_ios_get_prob(tree));
    WorkClock::tick(solver->unitsPerStep *
                    (1 + std::max(0, iterations - solver->iterationsSeen)));
    solver->iterationsSeen = iterations;
    if (WorkClock::now() >= solver->workEnd)
      glp_ios_terminate(tree);
  }

  const SelectionProblem &problem;
  WorkClock::Point workEnd;
  /// Simplex iterations of the current solve already counted.
  int iterationsSeen = 0;
  /// The work of one simplex iteration or callback of the current solve:
  /// its rows, since a pivot and a node's bookkeeping grow with the basis
  /// (so the units follow the time across problem sizes).
  int64_t unitsPerStep = 1;
  std::map<int64_t, TimeSolve> solved;
};

TimeSolve TimeSolver::run(int64_t limit) {
  const std::vector<SelectionLayer> &layers = problem.layers;
  auto allowed = [&](size_t l, size_t c) {
    return layers[l].choices[c].available && choicePeak(problem, l, c) <= limit;
  };

  glp_prob *ilp = glp_create_prob();
  glp_set_obj_dir(ilp, GLP_MIN);
  // Constraint matrix in GLPK's 1-based triplets (index 0 unused).
  std::vector<int> rows{0}, cols{0};
  std::vector<double> values{0};
  auto addRow = [&](double equals) {
    int row = glp_add_rows(ilp, 1);
    glp_set_row_bnds(ilp, row, GLP_FX, equals, equals);
    return row;
  };
  auto addEntry = [&](int row, int col, double value) {
    rows.push_back(row);
    cols.push_back(col);
    values.push_back(value);
  };

  // x[l][c] (column, or 0 where c is not allowed), one-hot per layer. The
  // budget is these bounds: x[l][c] exists only where choicePeak <= limit.
  std::vector<std::vector<int>> x(layers.size());
  for (size_t l = 0; l < layers.size(); ++l) {
    x[l].assign(layers[l].choices.size(), 0);
    int row = addRow(1);
    for (size_t c = 0; c < layers[l].choices.size(); ++c)
      if (allowed(l, c)) {
        x[l][c] = glp_add_cols(ilp, 1);
        glp_set_col_kind(ilp, x[l][c], GLP_BV);
        glp_set_obj_coef(ilp, x[l][c], layers[l].choices[c].time);
        addEntry(row, x[l][c], 1);
      }
  }

  // y[c1][c2] >= 0 with marginals: sum_c2 y[c1][c2] = x[from][c1] and
  // sum_c1 y[c1][c2] = x[to][c2]. At an integral x they leave y one value,
  // the product x[from][c1] * x[to][c2], so the objective is time(choice)
  // whatever the costs' signs. The common y >= x1 + x2 - 1 is exact only
  // because a minimization with costs >= 0 pushes y down onto that bound,
  // and its relaxation is weak; the marginal one is integral when the
  // transitions form a chain or a tree, so neighbour-only transitions solve
  // at the root. Transitions whose allowed costs are all 0 need no y.
  for (const LayerTransition &transition : problem.transitions) {
    const size_t from = transition.from, to = transition.to;
    bool costly = false;
    for (size_t c1 = 0; c1 < x[from].size(); ++c1)
      for (size_t c2 = 0; c2 < x[to].size(); ++c2)
        costly |= x[from][c1] && x[to][c2] && transition.cost[c1][c2] != 0;
    if (!costly)
      continue;
    std::vector<int> fromRow(x[from].size(), 0), toRow(x[to].size(), 0);
    for (size_t c1 = 0; c1 < x[from].size(); ++c1)
      if (x[from][c1]) {
        fromRow[c1] = addRow(0);
        addEntry(fromRow[c1], x[from][c1], -1);
      }
    for (size_t c2 = 0; c2 < x[to].size(); ++c2)
      if (x[to][c2]) {
        toRow[c2] = addRow(0);
        addEntry(toRow[c2], x[to][c2], -1);
      }
    for (size_t c1 = 0; c1 < x[from].size(); ++c1)
      for (size_t c2 = 0; c2 < x[to].size(); ++c2)
        if (x[from][c1] && x[to][c2]) {
          int y = glp_add_cols(ilp, 1);
          glp_set_col_bnds(ilp, y, GLP_LO, 0, 0);
          glp_set_obj_coef(ilp, y, transition.cost[c1][c2]);
          addEntry(fromRow[c1], y, 1);
          addEntry(toRow[c2], y, 1);
        }
  }

  TimeSolve result;
  result.choice.assign(layers.size(), -1);
  if (!layers.empty()) {
    glp_load_matrix(ilp, static_cast<int>(rows.size() - 1), rows.data(),
                    cols.data(), values.data());
    // Every limit is on the work budget, never on the clock (tm_lim stays
    // INT_MAX): the LP relaxation runs with the budget left as its
    // iteration limit (it_lim), then the branch and bound counts its
    // callbacks and simplex iterations in onBranchAndBound and stops there.
    // The relaxation is solved here rather than by glp_intopt's presolver,
    // which has no iteration limit.
    int ret = GLP_ESTOP;
    // A budget already used (or a passed safety net) runs no solve: the
    // fallback below gives an unproven choice.
    if (WorkClock::now() < workEnd) {
      int terminal = glp_term_out(GLP_OFF);
      glp_smcp simplex;
      glp_init_smcp(&simplex);
      simplex.msg_lev = GLP_MSG_OFF;
      unitsPerStep = std::max(1, glp_get_num_rows(ilp));
      simplex.it_lim = static_cast<int>(std::min<int64_t>(
          (workEnd - WorkClock::now() + unitsPerStep - 1) / unitsPerStep,
          INT_MAX));
      int lp = glp_simplex(ilp, &simplex);
      iterationsSeen = glp_get_it_cnt(ilp);
      WorkClock::tick(unitsPerStep * iterationsSeen);
      // An optimal relaxation goes on to the branch and bound also when it
      // used the budget up: an integral one is proven at the root, else the
      // first callback stops the search.
      if (lp == 0 && glp_get_status(ilp) == GLP_OPT) {
        glp_iocp parm;
        glp_init_iocp(&parm);
        parm.msg_lev = GLP_MSG_OFF;
        parm.cb_func = onBranchAndBound;
        parm.cb_info = this;
        ret = glp_intopt(ilp, &parm);
      } else if (lp != GLP_EITLIM) {
        ret = lp != 0 ? lp : GLP_EFAIL;
      }
      glp_term_out(terminal);
    }
    if (ret == GLP_ESTOP)
      result.stop =
          WorkClock::wallExpired() ? SearchStop::Time : SearchStop::Work;
    int status = glp_mip_status(ilp);
    if ((ret == 0 || ret == GLP_ESTOP) &&
        (status == GLP_OPT || status == GLP_FEAS)) {
      result.proven = ret == 0 && status == GLP_OPT;
      // The largest x per layer: integral within GLPK's tolerance, so this
      // is the one x at 1.
      for (size_t l = 0; l < layers.size(); ++l) {
        double most = -1;
        for (size_t c = 0; c < x[l].size(); ++c)
          if (x[l][c] && glp_mip_col_val(ilp, x[l][c]) > most) {
            most = glp_mip_col_val(ilp, x[l][c]);
            result.choice[l] = static_cast<int>(c);
          }
      }
    }
  } else {
    result.proven = true;
  }
  glp_delete_prob(ilp);

  // No incumbent (stopped): every allowed vector is within the limit, so
  // take the fastest allowed choice per layer, unproven.
  if (!layers.empty() && result.choice[0] < 0) {
    for (size_t l = 0; l < layers.size(); ++l)
      for (size_t c = 0; c < x[l].size(); ++c)
        if (x[l][c] && (result.choice[l] < 0 ||
                        layers[l].choices[c].time <
                            layers[l].choices[result.choice[l]].time))
          result.choice[l] = static_cast<int>(c);
  }
  result.time = selectionTime(problem, result.choice);
  result.peak = selectionPeak(problem, result.choice);
  return result;
}

void setChoice(SelectionResult &result, const std::vector<int> &choice,
               double time, int64_t peak) {
  result.feasible = true;
  result.choice = choice;
  result.time = time;
  result.peak = peak;
}

bool withinBudgets(const SelectionBudgets &budgets, double time, int64_t peak) {
  return (!budgets.bytes || peak <= *budgets.bytes) &&
         (!budgets.time || time <= *budgets.time);
}

} // namespace

std::string validateSelectionProblem(const SelectionProblem &problem) {
  std::ostringstream error;
  if (problem.otherPeak < 0) {
    error << "otherPeak " << problem.otherPeak << " is negative";
    return error.str();
  }
  for (size_t l = 0; l < problem.layers.size(); ++l) {
    const SelectionLayer &layer = problem.layers[l];
    if (layer.base < 0) {
      error << "layer " << l << ": base " << layer.base << " is negative";
      return error.str();
    }
    if (layer.choices.size() > static_cast<size_t>(INT_MAX)) {
      error << "layer " << l << ": too many choices";
      return error.str();
    }
    bool anyAvailable = false;
    for (size_t c = 0; c < layer.choices.size(); ++c) {
      const PrimitiveChoice &choice = layer.choices[c];
      if (!choice.available)
        continue;
      anyAvailable = true;
      int64_t sum;
      if (!std::isfinite(choice.time) || choice.time < 0)
        error << "layer " << l << " choice " << c << ": time " << choice.time
              << " is negative or not finite";
      else if (choice.workspace < 0)
        error << "layer " << l << " choice " << c << ": workspace "
              << choice.workspace << " is negative";
      else if (__builtin_add_overflow(layer.base, choice.workspace, &sum))
        error << "layer " << l << " choice " << c
              << ": base + workspace overflows int64";
      if (!error.str().empty())
        return error.str();
    }
    if (!anyAvailable) {
      error << "layer " << l << " has no available choice";
      return error.str();
    }
  }
  for (size_t i = 0; i < problem.transitions.size(); ++i) {
    const LayerTransition &transition = problem.transitions[i];
    const size_t layerCount = problem.layers.size();
    if (transition.from >= layerCount || transition.to >= layerCount) {
      error << "transition " << i << ": layer " << transition.from << " -> "
            << transition.to << " out of range (" << layerCount << " layers)";
      return error.str();
    }
    if (transition.from == transition.to) {
      error << "transition " << i << ": layer " << transition.from
            << " to itself";
      return error.str();
    }
    const std::vector<PrimitiveChoice> &from =
        problem.layers[transition.from].choices;
    const std::vector<PrimitiveChoice> &to =
        problem.layers[transition.to].choices;
    bool sized = transition.cost.size() == from.size();
    for (const std::vector<double> &row : transition.cost)
      sized &= row.size() == to.size();
    if (!sized) {
      error << "transition " << i << ": cost matrix is not " << from.size()
            << "x" << to.size() << " (choices of layers " << transition.from
            << " and " << transition.to << ")";
      return error.str();
    }
    for (size_t c1 = 0; c1 < from.size(); ++c1)
      for (size_t c2 = 0; c2 < to.size(); ++c2) {
        double cost = transition.cost[c1][c2];
        if (from[c1].available && to[c2].available &&
            (!std::isfinite(cost) || cost < 0)) {
          error << "transition " << i << ": cost[" << c1 << "][" << c2
                << "] = " << cost
                << " is negative or not finite (costs are times)";
          return error.str();
        }
      }
  }
  return "";
}

double selectionTime(const SelectionProblem &problem,
                     const std::vector<int> &choice) {
  double time = 0;
  for (size_t l = 0; l < problem.layers.size(); ++l)
    time += problem.layers[l].choices[choice[l]].time;
  for (const LayerTransition &transition : problem.transitions)
    time += transition.cost[choice[transition.from]][choice[transition.to]];
  return time;
}

int64_t selectionPeak(const SelectionProblem &problem,
                      const std::vector<int> &choice) {
  int64_t peak = problem.otherPeak;
  for (size_t l = 0; l < problem.layers.size(); ++l)
    peak = std::max(peak, choicePeak(problem, l, choice[l]));
  return peak;
}

SelectionResult selectPrimitives(const SelectionProblem &problem,
                                 SelectionObjective objective,
                                 const SelectionBudgets &budgets,
                                 int64_t workLimit) {
  SelectionResult result;
  result.error = validateArguments(problem, budgets, workLimit);
  if (!result.error.empty())
    return result;

  const std::vector<int64_t> peaks = candidatePeaks(problem);
  TimeSolver solver(problem, workLimit);
  result.leastPeak = peaks.front();
  result.leastTime = solver.solve(peaks.back()).time;

  // peaks[0, fit) are within the byte budget.
  const size_t fit =
      budgets.bytes
          ? std::upper_bound(peaks.begin(), peaks.end(), *budgets.bytes) -
                peaks.begin()
          : peaks.size();
  const double timeBudget =
      budgets.time.value_or(std::numeric_limits<double>::infinity());
  const TimeSolve *best = nullptr;
  if (fit == 0) {
    // Below the smallest achievable peak.
  } else if (objective == SelectionObjective::Time) {
    best = &solver.solve(peaks[fit - 1]);
  } else if (!budgets.time) {
    best = &solver.solve(peaks[0]);
  } else if (solver.solve(peaks[fit - 1]).time <= timeBudget) {
    // The least time at a peak limit only falls as the limit grows: find the
    // first limit whose least time is within the budget.
    size_t lo = 0, hi = fit - 1;
    while (lo < hi) {
      size_t mid = lo + (hi - lo) / 2;
      if (solver.solve(peaks[mid]).time <= timeBudget)
        hi = mid;
      else
        lo = mid + 1;
    }
    best = &solver.solve(peaks[hi]);
  }
  // The Time objective never consults the time budget before this check,
  // and the byte budget holds by construction; check both on the exact
  // recomputed values anyway.
  if (best && withinBudgets(budgets, best->time, best->peak))
    setChoice(result, best->choice, best->time, best->peak);
  result.optimal = solver.allProven();
  result.stop = solver.stop();
  return result;
}

SelectionResult enumerateSelection(const SelectionProblem &problem,
                                   SelectionObjective objective,
                                   const SelectionBudgets &budgets,
                                   uint64_t maxCombinations) {
  SelectionResult result;
  result.error = validateArguments(problem, budgets, -1);
  if (!result.error.empty())
    return result;

  const size_t layerCount = problem.layers.size();
  std::vector<std::vector<int>> options(layerCount);
  uint64_t combinations = 1;
  for (size_t l = 0; l < layerCount; ++l) {
    for (size_t c = 0; c < problem.layers[l].choices.size(); ++c)
      if (problem.layers[l].choices[c].available)
        options[l].push_back(static_cast<int>(c));
    if (__builtin_mul_overflow(combinations, options[l].size(),
                               &combinations) ||
        combinations > maxCombinations) {
      result.error = "more than " + std::to_string(maxCombinations) +
                     " combinations to enumerate";
      return result;
    }
  }

  result.optimal = true;
  result.leastPeak = std::numeric_limits<int64_t>::max();
  result.leastTime = std::numeric_limits<double>::infinity();
  // position[l] indexes options[l]; advanced like an odometer.
  std::vector<size_t> position(layerCount, 0);
  std::vector<int> choice(layerCount);
  while (true) {
    for (size_t l = 0; l < layerCount; ++l)
      choice[l] = options[l][position[l]];
    const double time = selectionTime(problem, choice);
    const int64_t peak = selectionPeak(problem, choice);
    result.leastPeak = std::min(result.leastPeak, peak);
    result.leastTime = std::min(result.leastTime, time);
    if (withinBudgets(budgets, time, peak)) {
      bool better = !result.feasible;
      if (!better && objective == SelectionObjective::Time)
        better =
            time < result.time || (time == result.time && peak < result.peak);
      else if (!better)
        better =
            peak < result.peak || (peak == result.peak && time < result.time);
      if (better)
        setChoice(result, choice, time, peak);
    }
    size_t l = 0;
    while (l < layerCount && ++position[l] == options[l].size())
      position[l++] = 0;
    if (l == layerCount)
      break;
  }
  return result;
}

SelectionFrontier paretoFrontier(const SelectionProblem &problem,
                                 int64_t workLimit) {
  SelectionFrontier frontier;
  frontier.error = validateArguments(problem, {}, workLimit);
  if (!frontier.error.empty())
    return frontier;

  const std::vector<int64_t> peaks = candidatePeaks(problem);
  TimeSolver solver(problem, workLimit);
  // From the largest limit down: the next limit worth solving is the
  // largest candidate below the peak just found, since every limit from
  // that peak up has the same least time.
  std::vector<const TimeSolve *> found;
  size_t end = peaks.size();
  while (end > 0) {
    const TimeSolve &solve = solver.solve(peaks[end - 1]);
    found.push_back(&solve);
    end = std::lower_bound(peaks.begin(), peaks.end(), solve.peak) -
          peaks.begin();
  }
  // By increasing peak, a point is on the frontier when it is strictly
  // faster than every smaller peak (equal times: the smaller peak wins).
  for (auto it = found.rbegin(); it != found.rend(); ++it) {
    const TimeSolve &solve = **it;
    if (!frontier.points.empty() && solve.time >= frontier.points.back().time)
      continue;
    SelectionResult point;
    setChoice(point, solve.choice, solve.time, solve.peak);
    point.optimal = solve.proven;
    point.leastPeak = peaks.front();
    point.leastTime = found.front()->time;
    frontier.points.push_back(std::move(point));
  }
  frontier.optimal = solver.allProven();
  frontier.stop = solver.stop();
  return frontier;
}

} // namespace serenity
