//===- SelectPrimitives.cpp - Per-convolution primitive selection --------===//
//
// Adapter from a scheduled function to the plain selection problem of
// include/Serenity/Selection/PrimitiveSelection.h: one layer per step that
// computes convolutions (a fused loop may compute several: one choice per
// combination of their primitives), the step's live bytes from the memory
// model, each primitive's measured time from a profile file and its
// workspace from getWorkspaceBytes; the ILP's choice becomes the
// convolutions' serenity.primitive tags.
//
//===----------------------------------------------------------------------===//

#include "Serenity/Support/CheckedOptions.h"
#include "Serenity/Analysis/MemoryModel.h"
#include "Serenity/Analysis/Primitives.h"
#include "Serenity/Selection/PrimitiveSelection.h"
#include "Serenity/Support/OutputFile.h"
#include "Serenity/Graph/Passes.h"

#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <climits>
#include <cmath>

namespace mlir {
namespace serenity {
#define GEN_PASS_DEF_SERENITYSELECTPRIMITIVESPASS
#include "Serenity/Graph/Passes.h.inc"
} // namespace serenity
} // namespace mlir

using namespace mlir;
using namespace mlir::serenity;

namespace {

/// The steps that compute convolutions, in order, with the combinations of
/// their primitives.
struct Layer {
  int step = -1;
  SmallVector<Operation *> convs;
  SmallVector<SmallVector<ConvPrimitive>> combinations;
};

/// Measured times: shape key -> primitive name -> time.
using Profile = llvm::StringMap<llvm::StringMap<double>>;

FailureOr<Profile> readProfile(StringRef path, std::string &unit,
                               std::string &error) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(path);
  if (!buffer) {
    error = "cannot read profile '" + path.str() +
            "': " + buffer.getError().message();
    return failure();
  }
  llvm::Expected<llvm::json::Value> json =
      llvm::json::parse((*buffer)->getBuffer());
  if (!json) {
    error = "profile '" + path.str() +
            "' is not JSON: " + llvm::toString(json.takeError());
    return failure();
  }
  const llvm::json::Object *root = json->getAsObject();
  const llvm::json::Object *times = root ? root->getObject("times") : nullptr;
  if (!times) {
    error = "profile '" + path.str() +
            "' has no \"times\" object (expected {\"unit\": ..., \"times\": "
            "{shape key: {primitive: time}}})";
    return failure();
  }
  if (std::optional<StringRef> u = root->getString("unit"))
    unit = u->str();
  Profile profile;
  for (const auto &[key, value] : *times) {
    const llvm::json::Object *entry = value.getAsObject();
    if (!entry) {
      error = "profile '" + path.str() + "': the entry of '" + key.str() +
              "' is not an object";
      return failure();
    }
    for (const auto &[primitive, time] : *entry) {
      std::optional<double> t = time.getAsNumber();
      if (!t || !std::isfinite(*t) || *t < 0) {
        error = "profile '" + path.str() + "': the time of '" + key.str() +
                "' / " + primitive.str() + " is not a number >= 0";
        return failure();
      }
      profile[key][primitive] = *t;
    }
  }
  return profile;
}

/// A convolution as the profile knows it: its shape key, and when
/// serenity-fuse-requantization computes it in one loop with pointwise
/// consumers (a fused group with this one convolution), those ops: the
/// kernel the profiler measures is the convolution with them, as the
/// network runs it.
struct ProfiledConv {
  Operation *conv = nullptr;
  /// The group's pointwise ops in block order (empty: the conv alone).
  SmallVector<Operation *> epilogue;

  /// getConvShapeKey, plus " + op(operand types), ..." for the epilogue's
  /// ops (the operand types tell a bias add from a residual one, a
  /// per-channel rescale from a per-tensor one).
  std::string key() const {
    std::string key = getConvShapeKey(conv);
    llvm::raw_string_ostream os(key);
    for (Operation *op : epilogue) {
      os << (op == epilogue.front() ? " + " : ", ")
         << op->getName().getStringRef() << "(";
      llvm::interleave(
          op->getOperandTypes(), os, [&](Type t) { os << typeKey(t); }, " ");
      os << ")";
    }
    return key;
  }

  /// `2x3xi8` for a shaped type, the type itself otherwise.
  static std::string typeKey(Type type) {
    std::string text;
    llvm::raw_string_ostream os(text);
    if (auto shaped = dyn_cast<ShapedType>(type)) {
      for (int64_t d : shaped.getShape())
        os << d << "x";
      os << shaped.getElementType();
    } else {
      os << type;
    }
    return text;
  }
};

/// Each convolution of `block` with its epilogue (see ProfiledConv).
DenseMap<Operation *, ProfiledConv>
profiledConvs(Block &block, const DenseMap<Operation *, FusedGroup> &groups) {
  DenseMap<Operation *, ProfiledConv> result;
  for (Operation &op : block)
    if (isPrimitiveConv(&op))
      result[&op].conv = &op;
  for (auto &[last, group] : groups) {
    if (group.tiledConvs.size() != 1 || !result.count(group.tiledConvs[0]))
      continue;
    SmallVector<Operation *> ops(group.inner.begin(), group.inner.end());
    ops.push_back(last);
    llvm::sort(
        ops, [](Operation *a, Operation *b) { return a->isBeforeInBlock(b); });
    result[group.tiledConvs[0]].epilogue = std::move(ops);
  }
  return result;
}

/// The profile's time of `conv` computed by `primitive`, if any: from the
/// entry of its key with the epilogue, or when the profile has none (a
/// profile of bare convolutions), of its shape key.
std::optional<double> profileTime(const Profile &profile,
                                  const ProfiledConv &conv,
                                  ConvPrimitive primitive) {
  auto entry = profile.find(conv.key());
  if (entry == profile.end())
    entry = profile.find(getConvShapeKey(conv.conv));
  if (entry == profile.end())
    return std::nullopt;
  auto time = entry->second.find(stringifyConvPrimitive(primitive));
  if (time == entry->second.end())
    return std::nullopt;
  return time->second;
}

/// A function computing `profiled`'s convolution and its epilogue: constant
/// operands cloned, the others arguments; it returns the last op's result.
std::string kernelText(const ProfiledConv &profiled) {
  Operation *conv = profiled.conv;
  SmallVector<Operation *> ops = {conv};
  llvm::append_range(ops, profiled.epilogue);
  OpBuilder builder(conv->getContext());
  Location loc = conv->getLoc();
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  builder.setInsertionPointToEnd(module->getBody());
  SmallVector<Value> arguments;
  for (Operation *op : ops)
    for (Value operand : op->getOperands()) {
      Operation *def = operand.getDefiningOp();
      if ((!def || !isConstantLike(def)) && !llvm::is_contained(ops, def) &&
          !llvm::is_contained(arguments, operand))
        arguments.push_back(operand);
    }
  auto function = func::FuncOp::create(
      builder, loc, "kernel",
      builder.getFunctionType(ValueRange(arguments).getTypes(),
                              ops.back()->getResultTypes()));
  Block *entry = function.addEntryBlock();
  builder.setInsertionPointToStart(entry);
  IRMapping mapping;
  for (auto [argument, value] : llvm::zip(entry->getArguments(), arguments))
    mapping.map(value, argument);
  for (Operation *op : ops) {
    for (Value operand : op->getOperands())
      if (!mapping.contains(operand))
        mapping.map(operand,
                    builder.clone(*operand.getDefiningOp())->getResult(0));
    builder.clone(*op, mapping);
  }
  mapping.lookup(conv->getResult(0))
      .getDefiningOp()
      ->removeAttr(kPrimitiveAttrName);
  func::ReturnOp::create(
      builder, loc, llvm::map_to_vector(ops.back()->getResults(), [&](Value v) {
        return mapping.lookup(v);
      }));
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os);
  return text;
}

/// Multiply-accumulates of a convolution (output elements x window).
int64_t multiplyAccumulates(Operation *conv) {
  auto output = cast<RankedTensorType>(conv->getResult(0).getType());
  auto weight = cast<RankedTensorType>(conv->getOperand(1).getType());
  int64_t window =
      isa<tosa::DepthwiseConv2DOp>(conv)
          ? weight.getDimSize(0) * weight.getDimSize(1)
          : weight.getDimSize(1) * weight.getDimSize(2) * weight.getDimSize(3);
  return output.getNumElements() * window;
}

std::string combinationName(ArrayRef<ConvPrimitive> combination) {
  return llvm::join(llvm::map_range(combination,
                                    [](ConvPrimitive p) {
                                      return stringifyConvPrimitive(p).str();
                                    }),
                    "+");
}

static_assert(::serenity::kDefaultSelectionWorkLimit == 50000000,
              "work-limit's default in Passes.td is the library's");

struct SerenitySelectPrimitivesPass
    : public CheckedOptions<
          SerenitySelectPrimitivesPass,
          mlir::serenity::impl::SerenitySelectPrimitivesPassBase> {
  using CheckedOptions::CheckedOptions;

  /// time-limit (seconds, 0: off) as the milliseconds of a WorkClock::Scope
  /// safety net: rounded up, so that a positive limit stays on.
  int64_t safetyNetMs() const {
    return static_cast<int64_t>(
        std::ceil(std::min<double>(timeLimit, 1e12) * 1000.0));
  }

  std::optional<std::string> optionError() const {
    if (!uniform.empty() && !symbolizeConvPrimitive(uniform))
      return "serenity-select-primitives: invalid uniform='" + uniform +
             "' (expected one of: " + convPrimitiveNames() + ")";
    if (uniform == "vector" && !vectorUnit)
      return std::string("serenity-select-primitives: uniform=vector needs a "
                         "target with a vector unit (vector-unit=true)");
    if (budgetBytes < -1)
      return std::string("serenity-select-primitives: budget-bytes must be "
                         ">= 0, or -1 (no limit)");
    if (!(budgetTime >= 0 || budgetTime == -1))
      return std::string("serenity-select-primitives: budget-time must be "
                         ">= 0, or -1 (no limit)");
    if (workLimit < -1)
      return std::string("serenity-select-primitives: work-limit must be >= "
                         "0, or -1 (no limit)");
    if (!(timeLimit >= 0))
      return std::string("serenity-select-primitives: time-limit must be >= "
                         "0 seconds (0: off)");
    return std::nullopt;
  }

  void runOnOperation() override {
    if (failed(checkOptions()))
      return signalPassFailure();
    ModuleOp module = getOperation();
    Profile profileTimes;
    std::string unit;
    if (!profile.empty()) {
      std::string error;
      FailureOr<Profile> read = readProfile(profile, unit, error);
      if (failed(read)) {
        module.emitError() << "serenity-select-primitives: " << error;
        return signalPassFailure();
      }
      profileTimes = std::move(*read);
    }
    bool select = uniform.empty() && !profile.empty();
    if (uniform.empty() && profile.empty() && kernels.empty()) {
      module.emitError()
          << "serenity-select-primitives: the selection needs profile=FILE "
             "(measured times: python3 -m serenity profile), or uniform=P";
      return signalPassFailure();
    }

    llvm::json::Array reportFunctions;
    llvm::json::Array kernelEntries;
    llvm::StringSet<> kernelKeys;
    for (auto function : module.getOps<func::FuncOp>()) {
      if (function.isExternal() || isUnoptimized(function))
        continue;
      SmallVector<Operation *> convs;
      function.walk([&](Operation *op) {
        if (isPrimitiveConv(op))
          convs.push_back(op);
      });
      if (!uniform.empty() || select)
        for (Operation *conv : convs)
          conv->removeAttr(kPrimitiveAttrName);
      // The profiler's input: the convolutions (with their epilogues) as
      // the pipeline computes them.
      if (!kernels.empty()) {
        FailureOr<DenseMap<Operation *, ProfiledConv>> profiled =
            profiledConvsOf(function);
        if (failed(profiled))
          return signalPassFailure();
        for (Operation *conv : convs)
          addKernel(lookupProfiled(*profiled, conv), kernelKeys, kernelEntries);
      }
      if (!uniform.empty()) {
        ConvPrimitive primitive = *symbolizeConvPrimitive(uniform);
        // direct elsewhere, tagged: an untagged int8 conv would get the
        // pipeline's default (dot on Cortex-M).
        for (Operation *conv : convs)
          conv->setAttr(kPrimitiveAttrName,
                        ConvPrimitiveAttr::get(
                            &getContext(),
                            isApplicable(conv, primitive, nullptr, vectorUnit)
                                ? primitive
                                : ConvPrimitive::Direct));
        continue;
      }
      if (!select)
        continue;
      FailureOr<llvm::json::Object> report =
          selectFunction(function, profileTimes, unit);
      if (failed(report))
        return signalPassFailure();
      reportFunctions.push_back(std::move(*report));
    }
    if (!kernels.empty()) {
      if (failed(writeJson(
              kernels,
              llvm::json::Object{{"kernels", std::move(kernelEntries)}})))
        return signalPassFailure();
    }
    if (!report.empty() &&
        failed(writeJson(
            report,
            llvm::json::Object{{"unit", unit},
                               {"functions", std::move(reportFunctions)}})))
      return signalPassFailure();
  }

  /// The fused groups of `function` under `options` (none without
  /// fuse-requantization).
  static DenseMap<Operation *, FusedGroup>
  fusedGroupsOf(func::FuncOp function, const MemoryModelOptions &options) {
    if (!options.fuseRequantization || !function.getBody().hasOneBlock())
      return DenseMap<Operation *, FusedGroup>();
    return findFusedGroups(function.getBody().front());
  }

  FailureOr<DenseMap<Operation *, ProfiledConv>>
  profiledConvsOf(func::FuncOp function) {
    MemoryModelOptions options =
        MemoryModelOptions{concat, accumulateInPlace, fuseRequantization,
                           inPlaceConvs};
    if (!function.getBody().hasOneBlock())
      return DenseMap<Operation *, ProfiledConv>();
    return profiledConvs(function.getBody().front(),
                         fusedGroupsOf(function, options));
  }

  static ProfiledConv
  lookupProfiled(const DenseMap<Operation *, ProfiledConv> &profiled,
                 Operation *conv) {
    auto it = profiled.find(conv);
    return it != profiled.end() ? it->second : ProfiledConv{conv, {}};
  }

  void addKernel(const ProfiledConv &profiled, llvm::StringSet<> &keys,
                 llvm::json::Array &entries) {
    Operation *conv = profiled.conv;
    std::string key = profiled.key();
    if (!keys.insert(key).second)
      return;
    llvm::json::Array primitives;
    llvm::json::Object workspace;
    for (ConvPrimitive primitive : applicablePrimitives(conv, vectorUnit)) {
      primitives.push_back(stringifyConvPrimitive(primitive));
      workspace[stringifyConvPrimitive(primitive)] =
          getWorkspaceBytes(conv, primitive);
    }
    entries.push_back(llvm::json::Object{{"key", key},
                                         {"mlir", kernelText(profiled)},
                                         {"primitives", std::move(primitives)},
                                         {"workspace", std::move(workspace)},
                                         {"macs", multiplyAccumulates(conv)}});
  }

  LogicalResult writeJson(StringRef path, llvm::json::Value value) {
    std::string error;
    auto file = mlir::openOutputFile(path, &error);
    if (!file)
      return getOperation().emitError()
             << "serenity-select-primitives: cannot write '" << path
             << "': " << error;
    file->os() << llvm::formatv("{0:2}", value) << "\n";
    if (std::optional<std::string> failure = ::serenity::closeOutputFile(*file))
      return getOperation().emitError()
             << "serenity-select-primitives: cannot write '" << path
             << "': " << *failure;
    return success();
  }

  /// The most bytes live at the steps of `layer` with its convolutions
  /// computed by `combination`: `simple` (the step's live bytes plus the
  /// workspaces) unless a convolution of the layer's fused group (`group`,
  /// ending at `last`) is computed whole (winograd, vector), which splits
  /// the group: its result becomes a buffer. Then the memory model is
  /// rebuilt with the combination tagged and the largest live bytes over
  /// the group's steps taken - exact when no other step lies between the
  /// group's ops (selectFunction moves them together; `model` is the
  /// function's model without tags); otherwise the choice would change
  /// other layers' steps too, and it is left out (std::nullopt).
  FailureOr<std::optional<int64_t>>
  layerPeak(func::FuncOp function, const MemoryModelOptions &options,
            const FunctionMemoryModel &model, const Layer &layer,
            ArrayRef<ConvPrimitive> combination, Operation *last,
            const FusedGroup *group, int64_t simple) {
    if (!group || llvm::none_of(combination, computesConvWhole))
      return std::optional<int64_t>(simple);
    DenseSet<Operation *> members(group->inner.begin(), group->inner.end());
    members.insert(group->tiledConvs.begin(), group->tiledConvs.end());
    members.insert(last);
    Operation *first = last;
    for (Operation *op : members)
      if (op->isBeforeInBlock(first))
        first = op;
    for (Operation *op = first; op != last; op = op->getNextNode())
      if (!members.contains(op) && model.getStep(op) >= 0)
        return std::optional<int64_t>();
    for (auto [conv, primitive] : llvm::zip(layer.convs, combination))
      conv->setAttr(kPrimitiveAttrName,
                    ConvPrimitiveAttr::get(&getContext(), primitive));
    FailureOr<FunctionMemoryModel> tagged =
        FunctionMemoryModel::build(function, options);
    for (Operation *conv : layer.convs)
      conv->removeAttr(kPrimitiveAttrName);
    if (failed(tagged))
      return failure();
    ::serenity::MemoryProfile usage = ::serenity::simulate(
        tagged->graph, ::serenity::programOrder(tagged->graph));
    int64_t peak = 0;
    for (Operation *op : members) {
      int step = tagged->getStep(op);
      if (step >= 0)
        peak = std::max(peak, usage.usage[step]);
    }
    return std::optional<int64_t>(peak);
  }

  /// Chooses the primitives of `function`'s convolutions; returns the
  /// function's report.
  FailureOr<llvm::json::Object>
  selectFunction(func::FuncOp function, const Profile &times, StringRef unit) {
    MemoryModelOptions modelOptions =
        MemoryModelOptions{concat, accumulateInPlace, fuseRequantization,
                           inPlaceConvs};
    // Each fused group's ops moved right before its last op: they are no
    // steps of the model (the group's reads are counted at its last op), so
    // this changes no step; a conv later computed whole (winograd, vector)
    // then runs next to its consumer, and its result is live only between
    // the two (layerPeak).
    DenseMap<Operation *, FusedGroup> groups =
        fusedGroupsOf(function, modelOptions);
    for (auto &[last, group] : groups) {
      SmallVector<Operation *> members(group.inner.begin(), group.inner.end());
      llvm::append_range(members, group.tiledConvs);
      llvm::sort(members, [](Operation *a, Operation *b) {
        return a->isBeforeInBlock(b);
      });
      for (Operation *op : members)
        op->moveBefore(last);
    }
    FailureOr<FunctionMemoryModel> model =
        FunctionMemoryModel::build(function, modelOptions);
    if (failed(model))
      return failure();
    ::serenity::MemoryProfile usage = ::serenity::simulate(
        model->graph, ::serenity::programOrder(model->graph));

    // The step computing each convolution: its own, or its fused group's.
    DenseMap<Operation *, Operation *> computedAt;
    DenseMap<Operation *, ProfiledConv> profiled;
    if (function.getBody().hasOneBlock())
      profiled = profiledConvs(function.getBody().front(), groups);
    for (auto &[last, group] : groups)
      for (Operation *conv : group.tiledConvs)
        computedAt[conv] = last;
    std::map<int, Layer> byStep;
    function.walk([&](Operation *op) {
      if (!isPrimitiveConv(op))
        return;
      Operation *at = computedAt.lookup(op);
      int step = model->getStep(at ? at : op);
      if (step < 0)
        return;
      byStep[step].step = step;
      byStep[step].convs.push_back(op);
    });

    ::serenity::SelectionProblem problem;
    SmallVector<Layer> layers;
    for (auto &[step, layer] : byStep) {
      // Every combination of the convolutions' applicable primitives.
      layer.combinations = {{}};
      for (Operation *conv : layer.convs) {
        SmallVector<SmallVector<ConvPrimitive>> next;
        for (const auto &prefix : layer.combinations)
          for (ConvPrimitive primitive :
               applicablePrimitives(conv, vectorUnit)) {
            next.push_back(prefix);
            next.back().push_back(primitive);
          }
        layer.combinations = std::move(next);
      }
      // The fused group computing the layer's convolutions, if any.
      Operation *groupLast = computedAt.lookup(layer.convs.front());
      const FusedGroup *group =
          groupLast ? &groups.find(groupLast)->second : nullptr;
      ::serenity::SelectionLayer selectionLayer;
      bool any = false;
      SmallVector<int64_t> peaks;
      for (const auto &combination : layer.combinations) {
        ::serenity::PrimitiveChoice choice;
        for (auto [conv, primitive] : llvm::zip(layer.convs, combination)) {
          choice.workspace += getWorkspaceBytes(conv, primitive);
          std::optional<double> time =
              profileTime(times, lookupProfiled(profiled, conv), primitive);
          if (!time) {
            choice.available = false;
            continue;
          }
          choice.time += *time;
        }
        FailureOr<std::optional<int64_t>> peak =
            layerPeak(function, modelOptions, *model, layer, combination,
                      groupLast, group, usage.usage[step] + choice.workspace);
        if (failed(peak))
          return failure();
        if (!*peak)
          choice.available = false;
        peaks.push_back(peak->value_or(usage.usage[step]));
        any |= choice.available;
        selectionLayer.choices.push_back(choice);
      }
      // The selection's model is base + bytes per choice: the least peak
      // of the layer's choices is its base.
      selectionLayer.base = *llvm::min_element(peaks);
      for (auto [choice, peak] : llvm::zip(selectionLayer.choices, peaks))
        choice.workspace = peak - selectionLayer.base;
      if (!any)
        return layer.convs.front()->emitError()
               << "serenity-select-primitives: the profile has no time for "
                  "this convolution's shape '"
               << lookupProfiled(profiled, layer.convs.front()).key()
               << "' (profile it with python3 -m serenity profile)";
      problem.layers.push_back(std::move(selectionLayer));
      layers.push_back(std::move(layer));
    }
    for (auto [step, bytes] : llvm::enumerate(usage.usage))
      if (!byStep.count(static_cast<int>(step)))
        problem.otherPeak = std::max(problem.otherPeak, bytes);

    ::serenity::SelectionBudgets budgets;
    if (budgetBytes >= 0)
      budgets.bytes = static_cast<int64_t>(budgetBytes);
    if (budgetTime >= 0)
      budgets.time = static_cast<double>(budgetTime);
    ::serenity::SelectionResult result;
    {
      ::serenity::WorkClock::Scope clock(safetyNetMs());
      result =
          ::serenity::selectPrimitives(problem, objective, budgets, workLimit);
    }
    if (!result.error.empty())
      return function.emitError()
             << "serenity-select-primitives: " << result.error;
    if (!result.feasible) {
      if (budgets.bytes && *budgets.bytes < result.leastPeak)
        return function.emitError()
               << "serenity-select-primitives: budget-bytes=" << *budgets.bytes
               << " is below the least achievable peak, " << result.leastPeak
               << " bytes";
      return function.emitError()
             << "serenity-select-primitives: budget-time="
             << static_cast<double>(budgetTime)
             << " is below the least achievable time, " << result.leastTime
             << (unit.empty() ? "" : " ") << unit
             << (budgets.bytes ? " (within budget-bytes)" : "");
    }
    if (!result.optimal) {
      InFlightDiagnostic warning =
          function.emitWarning()
          << "serenity-select-primitives: the choice is not proven optimal: "
             "stopped by ";
      if (result.stop == ::serenity::SearchStop::Time)
        warning << "time-limit=" << static_cast<double>(timeLimit) << " s";
      else
        warning << "work-limit=" << static_cast<int64_t>(workLimit);
    }

    llvm::json::Array layerReports;
    for (auto [index, layer] : llvm::enumerate(layers)) {
      const auto &combination = layer.combinations[result.choice[index]];
      for (auto [conv, primitive] : llvm::zip(layer.convs, combination))
        conv->setAttr(kPrimitiveAttrName,
                      ConvPrimitiveAttr::get(&getContext(), primitive));
      llvm::json::Array choices;
      for (auto [combo, choice] :
           llvm::zip(layer.combinations, problem.layers[index].choices)) {
        int64_t workspace = 0;
        for (auto [conv, primitive] : llvm::zip(layer.convs, combo))
          workspace += getWorkspaceBytes(conv, primitive);
        // bytes: above the layer's base (the workspace, plus a result a
        // convolution computed whole no longer fuses away).
        choices.push_back(llvm::json::Object{
            {"primitives", combinationName(combo)},
            {"time", choice.available ? llvm::json::Value(choice.time)
                                      : llvm::json::Value(nullptr)},
            {"workspace", workspace},
            {"bytes", choice.workspace}});
      }
      llvm::json::Array keys;
      for (Operation *conv : layer.convs)
        keys.push_back(lookupProfiled(profiled, conv).key());
      layerReports.push_back(
          llvm::json::Object{{"step", layer.step},
                             {"convs", std::move(keys)},
                             {"base", problem.layers[index].base},
                             {"choices", std::move(choices)},
                             {"chosen", combinationName(combination)}});
    }
    // The time/peak frontier, for the report only.
    llvm::json::Array frontier;
    ::serenity::SelectionFrontier points;
    if (!report.empty()) {
      ::serenity::WorkClock::Scope clock(safetyNetMs());
      points = ::serenity::paretoFrontier(problem, workLimit);
    }
    for (const ::serenity::SelectionResult &point : points.points) {
      llvm::json::Array chosen;
      for (auto [index, layer] : llvm::enumerate(layers))
        chosen.push_back(
            combinationName(layer.combinations[point.choice[index]]));
      frontier.push_back(llvm::json::Object{{"peak", point.peak},
                                            {"time", point.time},
                                            {"choice", std::move(chosen)}});
    }
    return llvm::json::Object{{"function", function.getSymName()},
                              {"objective", stringifyEnum(objective.getValue())},
                              {"optimal", result.optimal},
                              {"stopped_by",
                               ::serenity::getSearchStopName(result.stop)},
                              {"frontier_optimal", points.optimal},
                              {"frontier_stopped_by",
                               ::serenity::getSearchStopName(points.stop)},
                              {"time", result.time},
                              {"peak", result.peak},
                              {"least_peak", result.leastPeak},
                              {"least_time", result.leastTime},
                              {"other_peak", problem.otherPeak},
                              {"layers", std::move(layerReports)},
                              {"frontier", std::move(frontier)}};
  }
};

} // namespace
