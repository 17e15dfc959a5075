//===- ProfileMarks.cpp - Timer hooks between kernels -----------*- C++ -*-===//
//
// Per-layer instruction counts on a board: a call to an external hook
// before each kernel of a lowered network function and before its return,
// the hook's id telling the program which kernel just ended. The kernels'
// op names and source locations go to a JSON file so that a tool can name
// each interval (examples/deploy/measure.py --per-layer).
//
//===----------------------------------------------------------------------===//

#include "Serenity/Lowering/Kernels.h"
#include "Serenity/Lowering/Passes.h"
#include "Serenity/Support/Unoptimized.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/ADT/SetVector.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/ToolOutputFile.h"

#include <set>
#include <vector>

namespace mlir {
namespace serenity {
#define GEN_PASS_DEF_SERENITYPROFILEMARKSPASS
#include "Serenity/Lowering/Passes.h.inc"
} // namespace serenity
} // namespace mlir

using namespace mlir;

namespace {

constexpr llvm::StringLiteral kHook = "serenity_profile_mark";

/// `loc` as file:line:col (the first file location inside it), or its
/// printed form.
std::string describe(Location loc) {
  std::string text;
  loc->walk([&](Location inner) {
    if (auto file = dyn_cast<FileLineColLoc>(inner)) {
      text = (file.getFilename().getValue() + ":" + Twine(file.getLine()) +
              ":" + Twine(file.getColumn()))
                 .str();
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (text.empty())
    llvm::raw_string_ostream(text) << loc;
  return text;
}

/// The distinct file locations of `kernel` and the ops inside it (a fused
/// kernel holds the ops of several source ops), in order of appearance.
llvm::json::Array sourcesOf(Operation *kernel) {
  llvm::SetVector<std::string, std::vector<std::string>, std::set<std::string>>
      sources;
  kernel->walk<WalkOrder::PreOrder>([&](Operation *op) {
    op->getLoc()->walk([&](Location inner) {
      if (auto file = dyn_cast<FileLineColLoc>(inner)) {
        sources.insert(describe(file));
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
  });
  llvm::json::Array array;
  for (const std::string &source : sources)
    array.push_back(source);
  return array;
}

/// The distinct names of the named locations of `kernel` and the ops inside
/// it, in order of appearance: the source model's operators where the
/// importer names them (a .tflite model: "operator N BUILTIN 'tensor'").
llvm::json::Array operatorsOf(Operation *kernel) {
  llvm::SetVector<std::string, std::vector<std::string>, std::set<std::string>>
      names;
  kernel->walk<WalkOrder::PreOrder>([&](Operation *op) {
    op->getLoc()->walk([&](Location inner) {
      if (auto name = dyn_cast<NameLoc>(inner))
        names.insert(name.getName().str());
      return WalkResult::advance();
    });
  });
  llvm::json::Array array;
  for (const std::string &name : names)
    array.push_back(name);
  return array;
}

/// The filters `kernel` reads through a copy widened at compile time
/// (serenity-int8-conv-kernels): for each, the int8 global the copy stands
/// for and its bytes. The copy may be read inside the kernel or through a
/// view made before it.
llvm::json::Array widenedFiltersOf(Operation *kernel, SymbolTable &symbols) {
  llvm::SetVector<Operation *> globals;
  auto note = [&](Value value) {
    while (Operation *def = value.getDefiningOp()) {
      if (auto read = dyn_cast<memref::GetGlobalOp>(def)) {
        if (Operation *global = symbols.lookup(read.getName()))
          if (global->hasAttr(mlir::serenity::kWidenedFrom))
            globals.insert(global);
        return;
      }
      auto view = dyn_cast<ViewLikeOpInterface>(def);
      if (!view)
        return;
      value = view.getViewSource();
    }
  };
  kernel->walk([&](Operation *op) {
    for (Value operand : op->getOperands())
      note(operand);
  });
  llvm::json::Array array;
  for (Operation *global : globals) {
    auto source = global->getAttrOfType<FlatSymbolRefAttr>(
        mlir::serenity::kWidenedFrom);
    // The int8 filter's bytes: one int16 per weight in the copy.
    int64_t bytes = cast<memref::GlobalOp>(global).getType().getNumElements();
    array.push_back(llvm::json::Object{
        {"filter", source.getValue()},
        {"copy", cast<memref::GlobalOp>(global).getSymName()},
        {"bytes", bytes}});
  }
  return array;
}

struct SerenityProfileMarksPass
    : public mlir::serenity::impl::SerenityProfileMarksPassBase<
          SerenityProfileMarksPass> {
  using SerenityProfileMarksPassBase::SerenityProfileMarksPassBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    MLIRContext *context = module.getContext();
    SymbolTable symbols(module);
    if (Operation *existing = symbols.lookup(kHook)) {
      auto hook = dyn_cast<func::FuncOp>(existing);
      if (!hook || !hook.isExternal() ||
          hook.getFunctionType() !=
              FunctionType::get(context, {IntegerType::get(context, 32)}, {})) {
        existing->emitError() << "serenity-profile-marks: @" << kHook
                              << " must be an external func (i32) -> ()";
        return signalPassFailure();
      }
    }
    llvm::json::Array kernels;
    int64_t next = 0;
    bool declared = symbols.lookup(kHook) != nullptr;
    SmallVector<func::FuncOp> functions(module.getOps<func::FuncOp>());
    for (func::FuncOp function : functions) {
      if (function.isExternal() || function.isPrivate() ||
          !function.getBody().hasOneBlock() ||
          mlir::serenity::isUnoptimized(function))
        continue;
      Block &body = function.getBody().front();
      SmallVector<Operation *> marked;
      for (Operation &op : body)
        if (mlir::serenity::isTopLevelKernel(&op))
          marked.push_back(&op);
      if (marked.empty())
        continue;
      marked.push_back(body.getTerminator());
      if (!declared) {
        OpBuilder b(module.getBodyRegion());
        b.setInsertionPointToStart(module.getBody());
        auto hook = func::FuncOp::create(
            b, module.getLoc(), kHook,
            FunctionType::get(context, {IntegerType::get(context, 32)}, {}));
        hook.setPrivate();
        declared = true;
      }
      for (auto [index, op] : llvm::enumerate(marked)) {
        OpBuilder b(op);
        Value id = arith::ConstantIntOp::create(b, op->getLoc(),
                                                b.getI32Type(), next + index);
        func::CallOp::create(b, op->getLoc(), kHook, TypeRange{},
                             ValueRange{id});
        if (index + 1 == marked.size())
          break;
        kernels.push_back(llvm::json::Object{
            {"function", function.getSymName()},
            {"begin", next + static_cast<int64_t>(index)},
            {"end", next + static_cast<int64_t>(index) + 1},
            {"op", op->getName().getStringRef()},
            {"location", describe(op->getLoc())},
            {"sources", sourcesOf(op)},
            {"operators", operatorsOf(op)},
            {"widened", widenedFiltersOf(op, symbols)}});
      }
      next += marked.size();
    }
    if (labels.empty())
      return;
    std::string error;
    auto file = openOutputFile(labels, &error);
    if (!file) {
      module.emitError() << "serenity-profile-marks: " << error;
      return signalPassFailure();
    }
    file->os() << llvm::formatv(
        "{0:2}\n", llvm::json::Value(llvm::json::Object{
                       {"marks", next}, {"kernels", std::move(kernels)}}));
    file->keep();
  }
};

} // namespace
