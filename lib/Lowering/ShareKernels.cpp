//===- ShareKernels.cpp - One function for identical kernels ----*- C++ -*-===//
//
// See SerenityShareKernelsPass in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "Serenity/Lowering/Kernels.h"
#include "Serenity/Lowering/Passes.h"

#include "Serenity/Support/CheckedOptions.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/Verifier.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

namespace mlir {
namespace serenity {
#define GEN_PASS_DEF_SERENITYSHAREKERNELSPASS
#include "Serenity/Lowering/Passes.h.inc"
} // namespace serenity
} // namespace mlir

using namespace mlir;

namespace {

/// `type` with its offset made dynamic (strides kept): the argument type
/// under which views of one shape at different offsets are interchangeable.
MemRefType withDynamicOffset(MemRefType type) {
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)))
    return type;
  auto layout = StridedLayoutAttr::get(type.getContext(),
                                       ShapedType::kDynamic, strides);
  return MemRefType::get(type.getShape(), type.getElementType(), layout,
                         type.getMemorySpace());
}

/// A kernel and the function it would become.
struct Candidate {
  Operation *kernel;
  func::FuncOp callee;           // detached until shared
  SmallVector<Value> arguments;  // values of the caller, in argument order
  SmallVector<memref::AllocaOp> moved;
};

struct SerenityShareKernelsPass
    : public mlir::serenity::CheckedOptions<
          SerenityShareKernelsPass,
          mlir::serenity::impl::SerenityShareKernelsPassBase> {
  using CheckedOptions::CheckedOptions;

  std::optional<std::string> optionError() const {
    if (minCopies < 0 || minCopies == 1)
      return "serenity-share-kernels: min-copies must be 0 (off) or >= 2 "
             "(got " +
             std::to_string(static_cast<int64_t>(minCopies)) + ")";
    return std::nullopt;
  }

  /// Values a shared kernel rebuilds instead of taking them as arguments:
  /// the same in every copy (constants, constant globals such as weights and
  /// tables, side-effect-free ops on those).
  bool isInvariant(Value value) {
    auto it = invariant.find(value);
    if (it != invariant.end())
      return it->second;
    Operation *def = value.getDefiningOp();
    bool result = false;
    if (def && def->getNumRegions() == 0 && isPure(def)) {
      if (auto get = dyn_cast<memref::GetGlobalOp>(def)) {
        auto global = SymbolTable::lookupNearestSymbolFrom<memref::GlobalOp>(
            def, get.getNameAttr());
        result = global && global.getConstant();
      } else {
        result = llvm::all_of(def->getOperands(),
                              [&](Value operand) { return isInvariant(operand); });
      }
    }
    invariant[value] = result;
    return result;
  }

  /// The function `kernel` would become, detached: its ops on the
  /// arguments themselves where they verify with the dynamic offsets
  /// (linalg ops, loads and stores take any strided memref), else with casts
  /// back to the kernel's own types.
  Candidate build(Operation *kernel) {
    Candidate candidate = build(kernel, /*castBack=*/false);
    // A failed trial is expected (e.g. a memref.view needs its base without
    // an offset): its diagnostics are not the user's.
    LogicalResult verified = success();
    {
      ScopedDiagnosticHandler quiet(kernel->getContext(),
                                    [](Diagnostic &) { return success(); });
      verified = verify(candidate.callee);
    }
    if (succeeded(verified))
      return candidate;
    candidate.callee.erase();
    return build(kernel, /*castBack=*/true);
  }

  Candidate build(Operation *kernel, bool castBack) {
    Candidate candidate{kernel, nullptr, {}, {}};
    llvm::SetVector<Value> captured;
    kernel->walk([&](Operation *op) {
      for (Value operand : op->getOperands())
        if (!kernel->isAncestor(operand.getParentBlock()->getParentOp()))
          captured.insert(operand);
    });
    SmallVector<Type> types;
    for (Value value : captured) {
      if (isInvariant(value))
        continue;
      auto alloca = value.getDefiningOp<memref::AllocaOp>();
      if (alloca && llvm::all_of(alloca->getUsers(), [&](Operation *user) {
            return kernel->isAncestor(user);
          })) {
        candidate.moved.push_back(alloca);
        continue;
      }
      candidate.arguments.push_back(value);
      auto memref = dyn_cast<MemRefType>(value.getType());
      types.push_back(memref ? Type(withDynamicOffset(memref))
                             : value.getType());
    }
    OpBuilder builder(kernel->getContext());
    candidate.callee = func::FuncOp::create(
        kernel->getLoc(), "shared", builder.getFunctionType(types, {}));
    Block *entry = candidate.callee.addEntryBlock();
    builder.setInsertionPointToStart(entry);
    IRMapping mapping;
    for (auto [value, argument] :
         llvm::zip_equal(candidate.arguments, entry->getArguments())) {
      Value inside = argument;
      // Back to the kernel's own type for its ops if needed (a cast that
      // only recovers the static offset, free after lowering).
      if (castBack && argument.getType() != value.getType())
        inside = memref::CastOp::create(builder, kernel->getLoc(),
                                        value.getType(), argument);
      mapping.map(value, inside);
    }
    for (memref::AllocaOp alloca : candidate.moved)
      builder.clone(*alloca, mapping);
    for (Value value : captured)
      if (isInvariant(value))
        mlir::serenity::rebuildInto(value, builder, mapping);
    builder.clone(*kernel, mapping);
    func::ReturnOp::create(builder, kernel->getLoc());
    return candidate;
  }

  /// Moves in front of `kernel` the views it takes of a buffer from outside
  /// at a constant offset (a per-tile accumulator in the arena): loop
  /// invariant, and as arguments they let kernels that differ only in where
  /// their scratch lies share one function.
  static void hoistScratchViews(Operation *kernel) {
    SmallVector<memref::ViewOp> views;
    kernel->walk([&](memref::ViewOp view) {
      // The buffer is defined outside the kernel (not by an op in it nor as
      // an argument of one of its regions).
      Operation *owner = view.getSource().getParentBlock()->getParentOp();
      if (view.getSizes().empty() && !kernel->isAncestor(owner) &&
          matchPattern(view.getByteShift(), m_Constant()))
        views.push_back(view);
    });
    for (memref::ViewOp view : views) {
      OpBuilder builder(kernel);
      Operation *inside = view.getByteShift().getDefiningOp();
      Operation *shift = builder.clone(*inside);
      view->moveBefore(kernel);
      view.getByteShiftMutable().assign(shift->getResult(0));
      if (inside->use_empty())
        inside->erase();
    }
  }

  /// The body of `callee` as text without locations: equal texts are equal
  /// kernels (the same ops on arguments of the same types).
  static std::string fingerprint(func::FuncOp callee) {
    std::string text;
    llvm::raw_string_ostream os(text);
    OpPrintingFlags flags;
    flags.printGenericOpForm().useLocalScope();
    for (Type type : callee.getArgumentTypes())
      os << type << ";";
    callee.getBody().front().walk([&](Operation *op) {
      if (op->getParentOp() == callee.getOperation())
        op->print(os, flags);
    });
    return text;
  }

  void runOnOperation() override {
    if (failed(checkOptions()))
      return signalPassFailure();
    if (minCopies == 0)
      return;
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    int shared = 0;
    for (func::FuncOp function :
         llvm::to_vector(module.getOps<func::FuncOp>())) {
      if (function.isExternal() || !function.getBody().hasOneBlock() ||
          mlir::serenity::isUnoptimized(function) ||
          (onlyStateful && !function->hasAttr("serenity.persistent_bytes")) ||
          (onlyTiled && !function->hasAttr("serenity.tiled")))
        continue;
      invariant.clear();
      llvm::MapVector<StringRef, SmallVector<Candidate>> groups;
      std::vector<std::string> keys;
      SmallVector<Operation *> kernels;
      for (Operation &op : function.getBody().front())
        if (mlir::serenity::isTopLevelKernel(&op))
          kernels.push_back(&op);
      keys.reserve(kernels.size());
      for (Operation *kernel : kernels) {
        hoistScratchViews(kernel);
        Candidate candidate = build(kernel);
        keys.push_back(fingerprint(candidate.callee));
        groups[keys.back()].push_back(std::move(candidate));
      }
      for (auto &entry : groups) {
        SmallVector<Candidate> &copies = entry.second;
        if (static_cast<int64_t>(copies.size()) < minCopies) {
          for (Candidate &candidate : copies)
            candidate.callee.erase();
          continue;
        }
        func::FuncOp callee = copies.front().callee;
        callee.setSymName(
            (function.getSymName() + "_shared" + Twine(shared++)).str());
        callee.setPrivate();
        // Kept out of line (inlining it back would undo the sharing), and
        // internal to the object, so that LLVM drops the arguments every
        // call passes the same constant (sizes, strides of the views).
        Builder attrs(&getContext());
        callee->setAttr("passthrough",
                        attrs.getArrayAttr({attrs.getStringAttr("noinline")}));
        callee->setAttr("llvm.linkage",
                        LLVM::LinkageAttr::get(&getContext(),
                                               LLVM::Linkage::Internal));
        symbols.insert(callee);
        for (Candidate &candidate : copies) {
          OpBuilder builder(candidate.kernel);
          SmallVector<Value> arguments;
          for (auto [value, type] : llvm::zip_equal(
                   candidate.arguments, callee.getArgumentTypes()))
            arguments.push_back(
                value.getType() == type
                    ? value
                    : memref::CastOp::create(builder, candidate.kernel->getLoc(),
                                             type, value)
                          .getResult());
          func::CallOp::create(builder, candidate.kernel->getLoc(), callee,
                               arguments);
          candidate.kernel->erase();
          for (memref::AllocaOp alloca : candidate.moved)
            alloca->erase();
          if (candidate.callee != callee)
            candidate.callee.erase();
        }
      }
      Block &body = function.getBody().front();
      for (Operation &op : llvm::make_early_inc_range(llvm::reverse(body)))
        if (isOpTriviallyDead(&op))
          op.erase();
    }
  }

  DenseMap<Value, bool> invariant;
};

} // namespace
