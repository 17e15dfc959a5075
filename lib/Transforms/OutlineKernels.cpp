//===- OutlineKernels.cpp - One private function per kernel ----*- C++ -*-===//
//
// See SerenityOutlineKernelsPass in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "Serenity/Transforms/Passes.h"

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
#include "Serenity/Transforms/Passes.h.inc"
} // namespace serenity
} // namespace mlir

using namespace mlir;

namespace {

/// A top-level op that does the work of one layer.
bool isKernel(Operation *op) {
  if (op->getNumResults() != 0 || op->hasTrait<OpTrait::IsTerminator>() ||
      isa<CallOpInterface>(op))
    return false;
  return op->getNumRegions() != 0 || isa<linalg::LinalgOp>(op) ||
         isa<memref::CopyOp>(op);
}

/// Outlines the kernels of one function.
class KernelOutliner {
public:
  KernelOutliner(func::FuncOp function, SymbolTable &symbols)
      : function(function), symbols(symbols), lastInserted(function) {}

  void outline(Operation *kernel, int index);
  /// Erases the ops of the function body that nothing uses any more.
  void eraseDeadOps();

private:
  /// True when `value` can be recomputed inside a kernel: the result of a
  /// side-effect-free op without regions whose operands can be too
  /// (constants, the arena global, views of it).
  bool isRebuildable(Value value);
  /// The value standing for `value` in the kernel being built.
  Value materialize(Value value, OpBuilder &builder, IRMapping &mapping);

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
                llvm::all_of(def->getOperands(),
                             [&](Value operand) { return isRebuildable(operand); });
  rebuildable[value] = result;
  return result;
}

Value KernelOutliner::materialize(Value value, OpBuilder &builder,
                                  IRMapping &mapping) {
  if (Value mapped = mapping.lookupOrNull(value))
    return mapped;
  Operation *def = value.getDefiningOp();
  for (Value operand : def->getOperands())
    materialize(operand, builder, mapping);
  builder.clone(*def, mapping);
  return mapping.lookup(value);
}

void KernelOutliner::outline(Operation *kernel, int index) {
  // Values the kernel reads from the function, in first-use order.
  llvm::SetVector<Value> captured;
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
    if (alloca && llvm::all_of(alloca->getUsers(), [&](Operation *user) {
          return kernel->isAncestor(user);
        })) {
      moved.push_back(alloca);
      continue;
    }
    arguments.push_back(value);
  }

  OpBuilder builder(kernel->getContext());
  SmallVector<Type> argumentTypes;
  for (Value value : arguments)
    argumentTypes.push_back(value.getType());
  auto callee = func::FuncOp::create(
      kernel->getLoc(),
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
    materialize(value, builder, mapping);
  builder.clone(*kernel, mapping);
  func::ReturnOp::create(builder, kernel->getLoc());

  builder.setInsertionPoint(kernel);
  func::CallOp::create(builder, kernel->getLoc(), callee, arguments);
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
    : public mlir::serenity::impl::SerenityOutlineKernelsPassBase<
          SerenityOutlineKernelsPass> {
  using Base::Base;

  LogicalResult initializeOptions(
      StringRef options,
      function_ref<LogicalResult(const Twine &)> errorHandler) override {
    if (failed(Pass::initializeOptions(options, errorHandler)))
      return failure();
    if (minOps < 0)
      return errorHandler("serenity-outline-kernels: min-ops must be >= 0 (got " +
                          Twine(static_cast<int64_t>(minOps)) + ")");
    return success();
  }

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    SmallVector<func::FuncOp> functions(module.getOps<func::FuncOp>());
    for (func::FuncOp function : functions) {
      if (function.isExternal() || !function.getBody().hasOneBlock() ||
          mlir::serenity::isUnoptimized(function))
        continue;
      SmallVector<Operation *> kernels;
      for (Operation &op : function.getBody().front())
        if (isKernel(&op))
          kernels.push_back(&op);
      if (kernels.empty() || static_cast<int64_t>(kernels.size()) < minOps)
        continue;
      KernelOutliner outliner(function, symbols);
      for (auto [index, kernel] : llvm::enumerate(kernels))
        outliner.outline(kernel, static_cast<int>(index));
      outliner.eraseDeadOps();
    }
  }
};

} // namespace
