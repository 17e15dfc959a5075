//===- OutlineKernels.cpp - One private function per kernel ----*- C++ -*-===//
//
// See SerenityOutlineKernelsPass in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "Serenity/Lowering/Kernels.h"
#include "Serenity/Lowering/Passes.h"

#include "Serenity/Support/CheckedOptions.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SetVector.h"

namespace mlir {
namespace serenity {
#define GEN_PASS_DEF_SERENITYOUTLINEKERNELSPASS
#include "Serenity/Lowering/Passes.h.inc"
} // namespace serenity
} // namespace mlir

using namespace mlir;

namespace {

/// Outlines the kernels of one function.
class KernelOutliner {
public:
  KernelOutliner(func::FuncOp function, SymbolTable &symbols)
      : function(function), symbols(symbols), lastInserted(function) {}

  /// Moves `group` (kernels of the function body in order, with only
  /// side-effect free ops or allocas between them) into one new function.
  void outline(ArrayRef<Operation *> group, int index);
  /// Erases the ops of the function body that nothing uses any more.
  void eraseDeadOps();

private:
  /// True when `value` can be recomputed inside a kernel: the result of a
  /// side-effect-free op without regions whose operands can be too
  /// (constants, the arena global, views of it).
  bool isRebuildable(Value value);

  func::FuncOp function;
  SymbolTable &symbols;
  Operation *lastInserted;
  DenseMap<Value, bool> rebuildable;
};

bool KernelOutliner::isRebuildable(Value value) {
  auto it = rebuildable.find(value);
  if (it != rebuildable.end())
    return it->second;
  Operation *def = value.getDefiningOp();
  bool result = def && def->getNumRegions() == 0 && isPure(def) &&
                llvm::all_of(def->getOperands(), [&](Value operand) {
                  return isRebuildable(operand);
                });
  rebuildable[value] = result;
  return result;
}

void KernelOutliner::outline(ArrayRef<Operation *> group, int index) {
  auto inGroup = [&](Operation *op) {
    return llvm::any_of(
        group, [&](Operation *kernel) { return kernel->isAncestor(op); });
  };
  // Values the kernels read from the function, in first-use order (kernels
  // have no results, so a value defined in one is used only there).
  llvm::SetVector<Value> captured;
  for (Operation *kernel : group)
    kernel->walk([&](Operation *op) {
      for (Value operand : op->getOperands())
        if (!kernel->isAncestor(operand.getParentBlock()->getParentOp()))
          captured.insert(operand);
    });
  SmallVector<Value> arguments;
  SmallVector<memref::AllocaOp> moved;
  for (Value value : captured) {
    if (isRebuildable(value))
      continue;
    auto alloca = value.getDefiningOp<memref::AllocaOp>();
    if (alloca && llvm::all_of(alloca->getUsers(), inGroup)) {
      moved.push_back(alloca);
      continue;
    }
    arguments.push_back(value);
  }

  Operation *last = group.back();
  OpBuilder builder(last->getContext());
  SmallVector<Type> argumentTypes;
  for (Value value : arguments)
    argumentTypes.push_back(value.getType());
  auto callee = func::FuncOp::create(
      group.front()->getLoc(),
      (function.getSymName() + "_kernel" + Twine(index)).str(),
      builder.getFunctionType(argumentTypes, {}));
  callee.setPrivate();
  // After the function and the kernels outlined before, in order.
  symbols.insert(callee, std::next(Block::iterator(lastInserted)));
  lastInserted = callee;
  Block *entry = callee.addEntryBlock();
  IRMapping mapping;
  for (auto [value, argument] : llvm::zip(arguments, entry->getArguments()))
    mapping.map(value, argument);
  builder.setInsertionPointToStart(entry);
  for (memref::AllocaOp alloca : moved)
    builder.clone(*alloca, mapping);
  for (Value value : captured)
    mlir::serenity::rebuildInto(value, builder, mapping);
  for (Operation *kernel : group)
    builder.clone(*kernel, mapping);
  func::ReturnOp::create(builder, last->getLoc());

  // At the last kernel, where every argument is defined (only side-effect
  // free ops or allocas lie between the kernels of a group).
  builder.setInsertionPoint(last);
  func::CallOp::create(builder, group.front()->getLoc(), callee, arguments);
  for (Operation *kernel : group)
    kernel->erase();
  for (memref::AllocaOp alloca : moved)
    alloca->erase();
}

void KernelOutliner::eraseDeadOps() {
  Block &body = function.getBody().front();
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(body)))
    if (isOpTriviallyDead(&op))
      op.erase();
}

struct SerenityOutlineKernelsPass
    : public mlir::serenity::CheckedOptions<
          SerenityOutlineKernelsPass,
          mlir::serenity::impl::SerenityOutlineKernelsPassBase> {
  using CheckedOptions::CheckedOptions;

  std::optional<std::string> optionError() const {
    if (minOps < 0)
      return "serenity-outline-kernels: min-ops must be >= 0 (got " +
             std::to_string(static_cast<int64_t>(minOps)) + ")";
    if (groupSize < 1)
      return "serenity-outline-kernels: group-size must be >= 1 (got " +
             std::to_string(static_cast<int64_t>(groupSize)) + ")";
    return std::nullopt;
  }

  void runOnOperation() override {
    if (failed(checkOptions()))
      return signalPassFailure();
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    SmallVector<func::FuncOp> functions(module.getOps<func::FuncOp>());
    for (func::FuncOp function : functions) {
      if (function.isExternal() || !function.getBody().hasOneBlock() ||
          mlir::serenity::isUnoptimized(function))
        continue;
      // Consecutive kernels in groups of at most group-size; an op between
      // them that has effects (other than allocating) ends a group.
      SmallVector<SmallVector<Operation *>> groups(1);
      int64_t kernels = 0;
      for (Operation &op : function.getBody().front()) {
        if (mlir::serenity::isTopLevelKernel(&op)) {
          if (static_cast<int64_t>(groups.back().size()) >= groupSize)
            groups.emplace_back();
          groups.back().push_back(&op);
          ++kernels;
        } else if (!isPure(&op) && !isa<memref::AllocaOp>(op) &&
                   !groups.back().empty()) {
          groups.emplace_back();
        }
      }
      if (kernels == 0 || kernels < minOps)
        continue;
      KernelOutliner outliner(function, symbols);
      int index = 0;
      for (ArrayRef<Operation *> group : groups)
        if (!group.empty())
          outliner.outline(group, index++);
      outliner.eraseDeadOps();
    }
  }
};

} // namespace
