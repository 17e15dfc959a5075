//===- StaticAlloc.cpp - Arena allocation of memref.alloc -------*- C++ -*-===//
//
// A thin adapter: IR -> buffers with live intervals -> SerenityAllocation ->
// views into one arena. All placement decisions are the library's; this file
// only derives conservative lifetimes and rewrites the IR.
//
//===----------------------------------------------------------------------===//

#include "Serenity/Allocation/Allocator.h"
#include "Serenity/Analysis/MemoryModel.h"
#include "Serenity/Support/OutputFile.h"
#include "Serenity/Lowering/Passes.h"

#include "Serenity/Support/CheckedOptions.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/ToolOutputFile.h"

namespace mlir {
namespace serenity {
#define GEN_PASS_DEF_SERENITYSTATICALLOCPASS
#include "Serenity/Lowering/Passes.h.inc"
} // namespace serenity
} // namespace mlir

using namespace mlir;
using namespace mlir::serenity;

namespace {

/// One alloc the pass will place.
struct PlannedAlloc {
  memref::AllocOp alloc;
  /// io=arena: the function argument this buffer realizes (no alloc).
  BlockArgument argument;
  bool isOutput = false;
  int64_t bytes = 0;
  int64_t alignment = 1;
  int64_t first = 0;
  int64_t last = 0;
  /// The op in the alloc's block whose nested extent ends at `last`.
  Operation *lastOp = nullptr;
  /// memref.dealloc ops of this buffer or its aliases, erased on rewrite.
  SmallVector<Operation *> deallocs;
};

/// Pre-order numbering of every op in a function, and for each op the number
/// of the last op nested in it (itself when it has no regions).
struct OpNumbering {
  DenseMap<Operation *, int64_t> index, end;

  explicit OpNumbering(func::FuncOp func) {
    int64_t next = 0;
    func.getBody().walk<WalkOrder::PreOrder>(
        [&](Operation *op) { index[op] = next++; });
    func.getBody().walk<WalkOrder::PostOrder>([&](Operation *op) {
      int64_t last = index[op];
      for (Region &region : op->getRegions())
        for (Block &block : region)
          for (Operation &inner : block)
            last = std::max(last, end[&inner]);
      end[op] = last;
    });
  }
};

/// Calls `visit` on every use of `root` and of every memref an op derives
/// from it (subview, casts, reshapes, view, ...: any may alias it); returns
/// the first reason `visit` gives not to go on.
std::optional<std::string> forEachAliasUse(
    Value root,
    llvm::function_ref<std::optional<std::string>(OpOperand &)> visit) {
  SmallVector<Value> worklist = {root};
  DenseSet<Value> seen = {root};
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    for (OpOperand &use : value.getUses()) {
      if (std::optional<std::string> why = visit(use))
        return why;
      for (Value result : use.getOwner()->getResults())
        if (isa<BaseMemRefType>(result.getType()) && seen.insert(result).second)
          worklist.push_back(result);
    }
  }
  return std::nullopt;
}

/// Bytes of a statically shaped memref, as the LLVM lowering indexes it:
/// an integer or float element of a width that is not a power of two bytes
/// (i48) steps by the next power of two (MLIR's default layout says 6 bytes
/// for i48, LLVM's data layouts allocate 8).
int64_t bufferBytes(MemRefType type, const DataLayout &layout) {
  uint64_t element = layout.getTypeSize(type.getElementType());
  if (type.getElementType().isIntOrFloat())
    element = llvm::PowerOf2Ceil(element);
  return type.getNumElements() * static_cast<int64_t>(element);
}

/// Why an alloc cannot be placed, or nothing when it can; fills the
/// interval and deallocs of `plan`.
std::optional<std::string> computeLifetime(PlannedAlloc &plan,
                                           const OpNumbering &numbering) {
  Block *home = plan.alloc->getBlock();
  plan.first = numbering.index.lookup(plan.alloc);
  plan.last = plan.first;
  plan.lastOp = plan.alloc;
  return forEachAliasUse(
      plan.alloc.getResult(),
      [&](OpOperand &use) -> std::optional<std::string> {
        Operation *user = use.getOwner();
        if (isa<memref::DeallocOp>(user)) {
          plan.deallocs.push_back(user);
          return std::nullopt;
        }
        if (user->hasTrait<OpTrait::IsTerminator>())
          return "it escapes through '" + user->getName().getStringRef().str() +
                 "'";
        if (user->getName().getStringRef() == "bufferization.dealloc" ||
            isa<memref::ReallocOp>(user))
          return "it is freed or resized by '" +
                 user->getName().getStringRef().str() + "'";
        // A use nested in a region (a loop body) keeps the buffer live until
        // the end of the enclosing op in the alloc's block: every iteration.
        Operation *ancestor = home->findAncestorOpInBlock(*user);
        if (!ancestor)
          return "it is used outside its block by '" +
                 user->getName().getStringRef().str() + "'";
        if (numbering.end.lookup(ancestor) > plan.last) {
          plan.last = numbering.end.lookup(ancestor);
          plan.lastOp = ancestor;
        }
        return std::nullopt;
      });
}

/// True when `user` may write through `value` (an out-parameter).
bool writes(Operation *user, Value value) {
  auto iface = dyn_cast<MemoryEffectOpInterface>(user);
  if (!iface)
    return true; // unknown: assume it writes
  SmallVector<MemoryEffects::EffectInstance> effects;
  iface.getEffectsOnValue(value, effects);
  return llvm::any_of(effects, [](const MemoryEffects::EffectInstance &e) {
    return isa<MemoryEffects::Write>(e.getEffect());
  });
}

/// io=arena: the interval of a memref argument. An input (never written) is
/// live from the entry to its last use; an output (written, through any
/// alias) from its first write to the end of the function, where the caller
/// reads it. Why it cannot be planned otherwise.
std::optional<std::string>
computeArgumentLifetime(PlannedAlloc &plan, func::FuncOp func,
                        const OpNumbering &numbering) {
  Block &entry = func.getBody().front();
  int64_t lastUse = 0, firstWrite = -1;
  if (std::optional<std::string> why = forEachAliasUse(
          plan.argument, [&](OpOperand &use) -> std::optional<std::string> {
            Operation *user = use.getOwner();
            if (isa<func::ReturnOp>(user))
              return std::string("it is returned");
            Operation *ancestor = entry.findAncestorOpInBlock(*user);
            if (!ancestor)
              return std::string("it is used outside the function body");
            int64_t at = numbering.index.lookup(ancestor);
            lastUse = std::max(lastUse, numbering.end.lookup(ancestor));
            if (writes(user, use.get()) && (firstWrite < 0 || at < firstWrite))
              firstWrite = at;
            return std::nullopt;
          }))
    return why;
  plan.isOutput = firstWrite >= 0;
  if (plan.isOutput) {
    plan.first = firstWrite;
    plan.last = numbering.end.lookup(entry.getTerminator());
  } else {
    plan.first = 0;
    plan.last = lastUse;
  }
  return std::nullopt;
}

/// What an arena buffer holds, for the report: the kind of buffer and the op
/// it belongs to (with the location of the source op the lowering kept).
struct BufferOrigin {
  /// tensor (an op's result), accumulator (a reduction's wide partial result
  /// that a narrower op reads, e.g. a conv's i32 before its requantization),
  /// padded-copy (filled with the pad value, the input copied into its
  /// interior), concat-copy (operands copied into slices), reshape-copy
  /// (a copy made so a reshape can be a view), copy (any other copy),
  /// in-place-scratch (serenity-in-place-convs' held rows or pixel).
  StringRef kind = "tensor";
  Operation *op = nullptr;
};

/// True for a linalg op that only writes constants or scalars into its init
/// (a fill, or the linalg.map of a tensor.pad's yield).
bool isFillLike(linalg::LinalgOp op) {
  return llvm::none_of(op.getDpsInputs(), [](Value input) {
    return isa<ShapedType>(input.getType());
  });
}

bool isCopy(Operation *op) { return isa<memref::CopyOp, linalg::CopyOp>(op); }

/// Classifies `buffer` by how the lowering writes and reads it.
BufferOrigin classifyBuffer(Value buffer) {
  BufferOrigin origin;
  // serenity-in-place-convs' ring of output rows or pixel copy.
  if (Operation *def = buffer.getDefiningOp())
    if (def->hasAttr("serenity.in_place_scratch"))
      return {"in-place-scratch", nullptr};
  Operation *reduction = nullptr, *writer = nullptr, *reader = nullptr;
  bool filled = false, narrowedByReader = false, reshaped = false;
  int wholeCopies = 0, sliceCopies = 0;
  unsigned bits =
      getElementTypeOrSelf(buffer.getType()).getIntOrFloatBitWidth();
  // Copies from this buffer (a copy of a tile onto itself is no copy in).
  llvm::SmallPtrSet<Operation *, 8> copiesOut;
  forEachAliasUse(buffer, [&](OpOperand &use) -> std::optional<std::string> {
    if (isCopy(use.getOwner()) && use.getOperandNumber() == 0)
      copiesOut.insert(use.getOwner());
    return std::nullopt;
  });
  forEachAliasUse(buffer, [&](OpOperand &use) -> std::optional<std::string> {
    Operation *user = use.getOwner();
    if (isa<memref::ExpandShapeOp, memref::CollapseShapeOp>(user))
      reshaped = true;
    if (isCopy(user) && use.getOperandNumber() == 1) {
      // Rows held by an in-place conv, copied back over its input.
      Value from = user->getOperand(0);
      while (Operation *def = from.getDefiningOp()) {
        if (def->hasAttr("serenity.in_place_scratch"))
          return std::nullopt;
        if (def->getNumOperands() == 0 ||
            !isa<BaseMemRefType>(def->getOperand(0).getType()))
          break;
        from = def->getOperand(0);
      }
      if (!copiesOut.contains(user))
        (use.get() == buffer ? wholeCopies : sliceCopies)++;
      return std::nullopt;
    }
    auto linalgOp = dyn_cast<linalg::LinalgOp>(user);
    if (!linalgOp)
      return std::nullopt;
    if (linalgOp.isDpsInit(&use)) {
      if (!writer)
        writer = user;
      if (isFillLike(linalgOp))
        filled = true;
      else if (linalgOp.getNumReductionLoops() > 0 && !reduction)
        reduction = user;
      return std::nullopt;
    }
    if (!reader)
      reader = user;
    for (Value init : linalgOp.getDpsInits()) {
      Type element = getElementTypeOrSelf(init.getType());
      if (element.isIntOrFloat() && element.getIntOrFloatBitWidth() < bits)
        narrowedByReader = true;
    }
    return std::nullopt;
  });
  if (reduction && narrowedByReader)
    return {"accumulator", reduction};
  if (filled && sliceCopies == 1 && wholeCopies == 0)
    return {"padded-copy", reader};
  if (sliceCopies >= 2)
    return {"concat-copy", reader ? reader : writer};
  if (wholeCopies > 0)
    return {reshaped ? "reshape-copy" : "copy", reader ? reader : writer};
  origin.op = writer ? writer : reader;
  return origin;
}

/// The report's description of `origin` at `loc`.
llvm::json::Object describeOrigin(const BufferOrigin &origin, Location loc) {
  std::string where;
  llvm::raw_string_ostream os(where);
  if (auto fileLoc = dyn_cast<FileLineColLoc>(loc))
    os << fileLoc.getFilename().getValue() << ":" << fileLoc.getLine() << ":"
       << fileLoc.getColumn();
  else if (auto nameLoc = dyn_cast<NameLoc>(loc)) {
    // The TFLite importer's: "model.tflite: operator 3 CONV_2D 'name'".
    if (auto child = dyn_cast<FileLineColLoc>(nameLoc.getChildLoc()))
      os << child.getFilename().getValue() << ": ";
    os << nameLoc.getName().getValue();
  } else
    loc.print(os);
  return llvm::json::Object{
      {"kind", origin.kind},
      {"op", origin.op ? origin.op->getName().getStringRef().str() : ""},
      {"loc", where}};
}

/// registers=true: a one-element buffer used only by linalg ops, loads and
/// stores (no views, calls or returns) is a scalar the lowering keeps in a
/// register: it becomes a memref.alloca at the function entry (once, not per
/// loop iteration), which mem2reg turns into SSA values after the loops are
/// lowered (serenity-pipeline runs it). Returns the buffers promoted.
SmallVector<memref::AllocaOp> promoteScalarsToRegisters(func::FuncOp func) {
  SmallVector<memref::AllocOp> scalars;
  func.walk([&](memref::AllocOp alloc) {
    MemRefType type = alloc.getType();
    if (!type.hasStaticShape() || type.getNumElements() != 1 ||
        !type.getLayout().isIdentity() || type.getMemorySpace() ||
        !type.getElementType().isIntOrFloat())
      return;
    bool direct = llvm::all_of(alloc->getUsers(), [](Operation *user) {
      return isa<linalg::LinalgOp, memref::LoadOp, memref::StoreOp,
                 memref::DeallocOp>(user);
    });
    if (direct)
      scalars.push_back(alloc);
  });
  SmallVector<memref::AllocaOp> promoted;
  OpBuilder builder = OpBuilder::atBlockBegin(&func.getBody().front());
  for (memref::AllocOp alloc : scalars) {
    for (Operation *user : llvm::make_early_inc_range(alloc->getUsers()))
      if (isa<memref::DeallocOp>(user))
        user->erase();
    auto alloca =
        memref::AllocaOp::create(builder, alloc.getLoc(), alloc.getType(),
                                 ValueRange(), alloc.getAlignmentAttr());
    alloc.getResult().replaceAllUsesWith(alloca.getResult());
    alloc.erase();
    promoted.push_back(alloca);
  }
  return promoted;
}

struct SerenityStaticAllocPass
    : public mlir::serenity::CheckedOptions<
          SerenityStaticAllocPass,
          mlir::serenity::impl::SerenityStaticAllocPassBase> {
  using CheckedOptions::CheckedOptions;

  std::optional<std::string> optionError() const {
    if (alignment <= 0 || !llvm::isPowerOf2_64(alignment))
      return "serenity-static-alloc: alignment must be a positive power of "
             "two, got " +
             std::to_string(static_cast<int64_t>(alignment));
    if (!(timeLimit >= 0))
      return std::string(
          "serenity-static-alloc: time-limit must be non-negative (seconds)");
    if (workLimit < 0)
      return std::string(
          "serenity-static-alloc: work-limit must be non-negative");
    return std::nullopt;
  }

  void runOnOperation() override;

private:
  /// Plans and rewrites one function; returns its JSON report entry, or
  /// nothing when it has no planned buffers.
  FailureOr<std::optional<llvm::json::Object>>
  allocateFunction(func::FuncOp func, ::serenity::AllocAlgorithm algo,
                   SymbolTable &symbols);
};

void SerenityStaticAllocPass::runOnOperation() {
  ModuleOp module = getOperation();
  if (failed(checkOptions()))
    return signalPassFailure();
  const ::serenity::AllocAlgorithm algo = algorithm;

  SymbolTable symbols(module);
  llvm::json::Array reports;
  for (func::FuncOp func : llvm::to_vector(module.getOps<func::FuncOp>())) {
    // Unoptimized functions (serenity-prepare-input) keep their allocations.
    if (func.isExternal() || mlir::serenity::isUnoptimized(func))
      continue;
    // io=arena moves the inputs and outputs into the arena: a caller in the
    // module passing its own buffers would no longer match (arena=argument
    // is checked where the argument is added).
    if (io == IOPlacement::Arena) {
      std::optional<SymbolTable::UseRange> uses =
          SymbolTable::getSymbolUses(func, module);
      if (uses && !uses->empty()) {
        InFlightDiagnostic diagnostic =
            uses->begin()->getUser()->emitError()
            << "serenity-static-alloc: @" << func.getSymName()
            << " is called here, but io=arena plans its inputs and outputs "
               "in the arena; use io=caller for a module with callers";
        diagnostic.attachNote(func.getLoc()) << "the function";
        return signalPassFailure();
      }
    }
    FailureOr<std::optional<llvm::json::Object>> entry =
        allocateFunction(func, algo, symbols);
    if (failed(entry))
      return signalPassFailure();
    if (*entry)
      reports.push_back(std::move(**entry));
  }

  if (report.empty())
    return;
  std::error_code ec;
  llvm::ToolOutputFile file(report, ec, llvm::sys::fs::OF_Text);
  if (ec) {
    module.emitError() << "serenity-static-alloc: cannot write report '"
                       << report << "': " << ec.message();
    return signalPassFailure();
  }
  llvm::json::Value json = reports.size() == 1
                               ? llvm::json::Value(std::move(reports[0]))
                               : llvm::json::Value(llvm::json::Object{
                                     {"functions", std::move(reports)}});
  file.os() << llvm::formatv("{0:2}", json) << "\n";
  if (std::optional<std::string> error = ::serenity::closeOutputFile(file)) {
    module.emitError() << "serenity-static-alloc: cannot write report '"
                       << report << "': " << *error;
    return signalPassFailure();
  }
}

FailureOr<std::optional<llvm::json::Object>>
SerenityStaticAllocPass::allocateFunction(func::FuncOp func,
                                          ::serenity::AllocAlgorithm algo,
                                          SymbolTable &symbols) {
  // Program order is a valid timeline only for structured control flow:
  // with several blocks a branch back would revive "dead" buffers.
  bool multiBlock = false;
  func->walk([&](Operation *op) {
    for (Region &region : op->getRegions())
      multiBlock |= !region.empty() && !region.hasOneBlock();
  });
  if (multiBlock) {
    mlir::emitRemark(func.getLoc())
        << "serenity-static-alloc: function left unchanged: "
           "it has a region with several blocks";
    return std::optional<llvm::json::Object>();
  }
  DataLayout layout = DataLayout::closest(func);
  SmallVector<memref::AllocaOp> registerBuffers;
  if (registers)
    registerBuffers = promoteScalarsToRegisters(func);
  OpNumbering numbering(func);
  SmallVector<PlannedAlloc> plans;
  func.walk([&](memref::AllocOp alloc) {
    MemRefType type = alloc.getType();
    auto skip = [&](const Twine &why) {
      mlir::emitRemark(alloc.getLoc())
          << "serenity-static-alloc: left in place: " << why;
    };
    if (!type.hasStaticShape())
      return skip("dynamically sized");
    if (!type.getLayout().isIdentity())
      return skip("non-identity layout");
    if (type.getMemorySpace())
      return skip("non-default memory space");
    std::string tooLarge;
    if (!mlir::serenity::getTypeBytes(type, &tooLarge))
      return skip(tooLarge);
    PlannedAlloc plan;
    plan.alloc = alloc;
    plan.bytes = bufferBytes(type, layout);
    // A pooling window (tosa-to-linalg's tensor.empty giving linalg.pooling_*
    // the window's shape) is never read or written: no bytes.
    if (!alloc->use_empty() &&
        llvm::all_of(alloc->getUses(), [](OpOperand &use) {
          auto pool = dyn_cast<linalg::LinalgOp>(use.getOwner());
          return pool && pool->getName().getStringRef().starts_with(
                             "linalg.pooling_") &&
                 pool.getNumDpsInputs() == 2 &&
                 &use == pool.getDpsInputOperand(1);
        }))
      plan.bytes = 0;
    plan.alignment = alignment;
    if (std::optional<uint64_t> own = alloc.getAlignment())
      plan.alignment = std::max<int64_t>(plan.alignment, *own);
    if (std::optional<std::string> why = computeLifetime(plan, numbering))
      return skip(*why);
    plans.push_back(std::move(plan));
  });
  // io=arena: the memref arguments join the plan (their bytes are counted
  // once, in the arena); io=caller: they are the caller's, reported as
  // io_bytes outside the arena.
  int64_t ioBytes = 0;
  SmallVector<int64_t> argBytes(func.getNumArguments(), -1);
  for (BlockArgument arg : func.getArguments()) {
    auto type = dyn_cast<MemRefType>(arg.getType());
    if (!type || !type.hasStaticShape())
      continue;
    argBytes[arg.getArgNumber()] = bufferBytes(type, layout);
  }
  if (io == IOPlacement::Arena) {
    for (BlockArgument arg : func.getArguments()) {
      auto type = dyn_cast<MemRefType>(arg.getType());
      if (!type)
        continue;
      if (!type.hasStaticShape() || !type.getLayout().isIdentity() ||
          type.getMemorySpace()) {
        func.emitError() << "serenity-static-alloc: io=arena needs statically "
                            "shaped, identity-layout memref arguments; "
                            "argument "
                         << arg.getArgNumber() << " is " << type;
        return failure();
      }
      PlannedAlloc plan;
      plan.argument = arg;
      plan.bytes = argBytes[arg.getArgNumber()];
      plan.alignment = alignment;
      if (std::optional<std::string> why =
              computeArgumentLifetime(plan, func, numbering)) {
        func.emitError() << "serenity-static-alloc: io=arena cannot place "
                            "argument "
                         << arg.getArgNumber() << ": " << *why;
        return failure();
      }
      plans.push_back(std::move(plan));
    }
  } else {
    for (int64_t bytes : argBytes)
      ioBytes += std::max<int64_t>(bytes, 0);
  }
  if (plans.empty())
    return std::optional<llvm::json::Object>();
  // Origins before the rewrite (views of the arena hide the writers' view).
  SmallVector<llvm::json::Object> origins;
  for (PlannedAlloc &plan : plans)
    if (plan.alloc)
      origins.push_back(describeOrigin(classifyBuffer(plan.alloc.getResult()),
                                       plan.alloc.getLoc()));
    else
      origins.push_back(
          llvm::json::Object{{"kind", plan.isOutput ? "output" : "input"},
                             {"op", ""},
                             {"loc", ""}});
  llvm::json::Array registerReports;
  for (memref::AllocaOp alloca : registerBuffers) {
    llvm::json::Object entry =
        describeOrigin(classifyBuffer(alloca.getResult()), alloca.getLoc());
    entry["size"] = bufferBytes(alloca.getType(), layout);
    registerReports.push_back(std::move(entry));
  }

  // Names as the printer shows them, for the report.
  AsmState asmState(func);
  std::vector<::serenity::AllocBuffer> buffers;
  for (auto [i, plan] : llvm::enumerate(plans)) {
    std::string name;
    llvm::raw_string_ostream os(name);
    if (plan.alloc)
      plan.alloc.getResult().printAsOperand(os, asmState);
    else
      plan.argument.printAsOperand(os, asmState);
    buffers.push_back(
        {name, plan.first, plan.last + 1, plan.bytes, plan.alignment});
  }
  ::serenity::AllocOptions options;
  options.algorithm = algo;
  options.workLimit = workLimit;
  options.timeLimitSeconds = timeLimit;
  ::serenity::AllocResult result = ::serenity::allocate(buffers, options);
  if (result.status != ::serenity::AllocResult::Status::Placed) {
    func.emitError() << "serenity-static-alloc: " << result.message;
    return failure();
  }
  if (std::optional<std::string> problem =
          ::serenity::validatePlacement(buffers, result.offsets)) {
    func.emitError() << "serenity-static-alloc: invalid placement: "
                     << *problem;
    return failure();
  }

  MLIRContext *ctx = func.getContext();
  auto arenaType =
      MemRefType::get({result.arenaSize}, IntegerType::get(ctx, 8));
  OpBuilder builder(ctx);
  Value arenaValue;
  if (arena == ArenaStorage::Argument) {
    if (!SymbolTable::symbolKnownUseEmpty(func, getOperation())) {
      func.emitError() << "serenity-static-alloc: arena=argument changes the "
                          "signature of @"
                       << func.getSymName()
                       << ", which is called in this module";
      return failure();
    }
    if (failed(func.insertArgument(0, arenaType, {}, func.getLoc())))
      return failure();
    arenaValue = func.getArgument(0);
  } else {
    builder.setInsertionPoint(func);
    auto global = memref::GlobalOp::create(
        builder, func.getLoc(),
        builder.getStringAttr("__serenity_arena_" + func.getSymName().str()),
        builder.getStringAttr("private"), TypeAttr::get(arenaType),
        builder.getUnitAttr(), /*constant=*/nullptr,
        builder.getI64IntegerAttr(alignment));
    // Renames on a clash with an existing symbol.
    symbols.insert(global, Block::iterator(func));
    builder.setInsertionPointToStart(&func.getBody().front());
    arenaValue = memref::GetGlobalOp::create(builder, func.getLoc(), arenaType,
                                             global.getSymName());
  }

  SmallVector<Operation *> views;
  SmallVector<int64_t> ioOffsets(func.getNumArguments(), -1);
  if (arena == ArenaStorage::Argument)
    ioOffsets.insert(ioOffsets.begin(), -1);
  llvm::json::Array ioReports;
  for (auto [plan, offset] : llvm::zip_equal(plans, result.offsets)) {
    if (!plan.alloc) {
      // The caller places the argument at `offset`; the body is unchanged.
      unsigned index = plan.argument.getArgNumber();
      ioOffsets[index] = offset;
      ioReports.push_back(
          llvm::json::Object{{"argument", static_cast<int64_t>(index)},
                             {"kind", plan.isOutput ? "output" : "input"},
                             {"offset", offset},
                             {"size", plan.bytes}});
      views.push_back(nullptr);
      continue;
    }
    builder.setInsertionPoint(plan.alloc);
    Location loc = plan.alloc.getLoc();
    Value byteShift = arith::ConstantIndexOp::create(builder, loc, offset);
    auto view = memref::ViewOp::create(builder, loc, plan.alloc.getType(),
                                       arenaValue, byteShift, ValueRange());
    plan.alloc.getResult().replaceAllUsesWith(view.getResult());
    if (plan.lastOp == plan.alloc.getOperation())
      plan.lastOp = view;
    plan.alloc.erase();
    for (Operation *dealloc : plan.deallocs)
      dealloc->erase();
    views.push_back(view);
  }
  // Steps in the report are those of the rewritten function. Inserting ops
  // keeps the relative order of the others, so intervals keep overlapping
  // exactly as planned.
  OpNumbering final(func);
  llvm::json::Array bufferReports;
  for (auto [plan, offset, buffer, view, origin] :
       llvm::zip_equal(plans, result.offsets, buffers, views, origins)) {
    if (!view) {
      // An io=arena argument, reported under "io_buffers": its steps in the
      // rewritten function.
      PlannedAlloc renumbered = plan;
      if (!computeArgumentLifetime(renumbered, func, final))
        for (llvm::json::Value &entry : ioReports)
          if (entry.getAsObject()->getInteger("argument") ==
              static_cast<int64_t>(plan.argument.getArgNumber())) {
            (*entry.getAsObject())["first"] = renumbered.first;
            (*entry.getAsObject())["last"] = renumbered.last;
          }
      continue;
    }
    llvm::json::Object entry{{"name", buffer.id},
                             {"offset", offset},
                             {"size", buffer.size},
                             {"first", final.index.lookup(view)},
                             {"last", final.end.lookup(plan.lastOp)}};
    for (auto &field : origin)
      entry[field.first] = std::move(field.second);
    bufferReports.push_back(std::move(entry));
  }
  if (io == IOPlacement::Arena)
    func->setAttr("serenity.io_offsets",
                  builder.getDenseI64ArrayAttr(ioOffsets));
  func->setAttr("serenity.arena_bytes",
                builder.getI64IntegerAttr(result.arenaSize));
  func->setAttr("serenity.arena_lower_bound",
                builder.getI64IntegerAttr(result.lowerBound));
  // State kept between invocations (serenity-persistent-state): outside
  // the arena, counted in RAM.
  int64_t persistentBytes = 0;
  llvm::json::Array persistentReports;
  if (auto bytes =
          func->getAttrOfType<IntegerAttr>("serenity.persistent_bytes"))
    persistentBytes = bytes.getInt();
  if (auto entries = func->getAttrOfType<ArrayAttr>("serenity.persistent"))
    for (auto entry : entries.getAsRange<DictionaryAttr>()) {
      auto name = entry.getAs<StringAttr>("name");
      auto offset = entry.getAs<IntegerAttr>("offset");
      auto size = entry.getAs<IntegerAttr>("size");
      if (name && offset && size)
        persistentReports.push_back(
            llvm::json::Object{{"name", name.getValue().str()},
                               {"offset", offset.getInt()},
                               {"size", size.getInt()}});
    }
  return std::optional<llvm::json::Object>(
      llvm::json::Object{{"function", func.getSymName().str()},
                         {"arena_bytes", result.arenaSize},
                         {"lower_bound", result.lowerBound},
                         {"proven_optimal", result.provenOptimal},
                         {"stopped_by", ::serenity::getSearchStopName(
                                            result.stop)},
                         {"algorithm", ::serenity::allocAlgorithmName(algo)},
                         {"io", stringifyEnum(io.getValue())},
                         {"io_bytes", ioBytes},
                         {"persistent_bytes", persistentBytes},
                         {"persistent_buffers", std::move(persistentReports)},
                         {"ram_bytes",
                          result.arenaSize + ioBytes + persistentBytes},
                         {"io_buffers", std::move(ioReports)},
                         {"register_buffers", std::move(registerReports)},
                         {"buffers", std::move(bufferReports)}});
}

} // namespace
