//===- PersistentState.cpp - State kept between invocations -----*- C++ -*-===//
//
// See SerenityPersistentStatePass in Passes.td: the mutable globals of a
// bufferized model (its TOSA variables) packed into one region outside the
// arena, with a reset function.
//
//===----------------------------------------------------------------------===//

#include "Serenity/Lowering/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/Support/MathExtras.h"

namespace mlir {
namespace serenity {
#define GEN_PASS_DEF_SERENITYPERSISTENTSTATEPASS
#include "Serenity/Lowering/Passes.h.inc"
} // namespace serenity
} // namespace mlir

using namespace mlir;

namespace {

/// One variable of the packed region.
struct Variable {
  memref::GlobalOp global;
  DenseElementsAttr initial;
  SmallVector<char> image;  // the initial value's bytes
  int64_t offset = 0;
};

/// Little-endian bytes of `attr`'s elements (integers and floats of whole
/// bytes), or failure.
FailureOr<SmallVector<char>> bytesOf(DenseElementsAttr attr) {
  Type element = attr.getElementType();
  unsigned bits = element.getIntOrFloatBitWidth();
  if (bits % 8 != 0)
    return failure();
  SmallVector<char> bytes;
  bytes.reserve(attr.getNumElements() * bits / 8);
  auto append = [&](const APInt &value) {
    for (unsigned byte = 0; byte < bits / 8; ++byte)
      bytes.push_back(
          static_cast<char>(value.extractBitsAsZExtValue(8, 8 * byte)));
  };
  if (isa<IntegerType>(element)) {
    for (const APInt &value : attr.getValues<APInt>())
      append(value);
  } else if (isa<FloatType>(element)) {
    for (const APFloat &value : attr.getValues<APFloat>())
      append(value.bitcastToAPInt());
  } else {
    return failure();
  }
  return bytes;
}

/// The value `value` is a view of (through view-like ops), or `value`.
Value rootOf(Value value) {
  while (Operation *def = value.getDefiningOp()) {
    if (!isa<memref::SubViewOp, memref::ExpandShapeOp, memref::CollapseShapeOp,
             memref::CastOp, memref::ReinterpretCastOp>(def))
      break;
    value = def->getOperand(0);
  }
  return value;
}

/// The range of linear element indices of the root buffer `type` (a view of
/// it with a static strided layout) touches: [lo, hi], or nullopt.
std::optional<std::pair<int64_t, int64_t>> linearRange(MemRefType type) {
  SmallVector<int64_t> strides;
  int64_t offset;
  if (!type.hasStaticShape() ||
      failed(type.getStridesAndOffset(strides, offset)) ||
      ShapedType::isDynamic(offset) ||
      llvm::any_of(strides, [](int64_t s) { return s < 0 || ShapedType::isDynamic(s); }))
    return std::nullopt;
  int64_t hi = offset;
  for (auto [size, stride] : llvm::zip_equal(type.getShape(), strides)) {
    if (size == 0)
      return std::nullopt;
    hi += (size - 1) * stride;
  }
  return std::make_pair(offset, hi);
}

/// Whether a copy from `source` to `target`, views of one buffer with the
/// same shape and strides, reads no element an earlier iteration of its
/// ascending (row-major) loop nest wrote: the source lies at or after the
/// target and the layout visits increasing addresses.
bool ascendingSafe(MemRefType source, MemRefType target) {
  SmallVector<int64_t> sourceStrides, targetStrides;
  int64_t sourceOffset, targetOffset;
  if (source.getShape() != target.getShape() ||
      failed(source.getStridesAndOffset(sourceStrides, sourceOffset)) ||
      failed(target.getStridesAndOffset(targetStrides, targetOffset)) ||
      sourceStrides != targetStrides || ShapedType::isDynamic(sourceOffset) ||
      ShapedType::isDynamic(targetOffset) || sourceOffset < targetOffset)
    return false;
  // Row-major order is address order: each stride exceeds the extent of
  // the dimensions inside it.
  int64_t inner = 0;
  for (int64_t d = source.getRank() - 1; d >= 0; --d) {
    if (source.getShape()[d] == 1)
      continue;
    if (ShapedType::isDynamic(sourceStrides[d]) || sourceStrides[d] <= inner)
      return false;
    inner += (source.getShape()[d] - 1) * sourceStrides[d];
  }
  return true;
}

/// A state variable updated from a copy of itself, as a shift register
/// (SVDF's state: the old values moved by one place, the new column
/// appended):
///   %a = memref.alloc                      (the new state, in the arena)
///   memref.copy %shifted_view_of_state, %view_of_a
///   memref.copy %new_values, %other_view_of_a
///   memref.copy %a, %state                 (the write-back)
/// is done in the state itself: %a becomes the state, the write-back goes.
/// Only when every access to %a before the write-back is a copy into it,
/// the state is read in that span only by those copies, each copy reads
/// nothing an earlier one wrote, and each self-overlapping copy reads at or
/// after where it writes (its ascending loop never reads a written element).
/// Returns the number of write-backs elided.
int updateInPlace(func::FuncOp function, const DenseSet<StringRef> &state) {
  int elided = 0;
  SmallVector<memref::CopyOp> writeBacks;
  for (Operation &op : function.getBody().front())
    if (auto copy = dyn_cast<memref::CopyOp>(op))
      if (auto get = rootOf(copy.getTarget()).getDefiningOp<memref::GetGlobalOp>())
        if (state.contains(get.getName()) &&
            copy.getTarget().getType() == get.getType())
          writeBacks.push_back(copy);
  for (memref::CopyOp writeBack : writeBacks) {
    Block *block = writeBack->getBlock();
    auto alloc = rootOf(writeBack.getSource()).getDefiningOp<memref::AllocOp>();
    auto global = rootOf(writeBack.getTarget()).getDefiningOp<memref::GetGlobalOp>();
    if (!alloc || alloc->getBlock() != block ||
        !alloc.getType().getLayout().isIdentity() ||
        !alloc.getType().hasStaticShape() ||
        alloc.getType().getElementType() != global.getType().getElementType() ||
        alloc.getType().getNumElements() != global.getType().getNumElements())
      continue;
    // Every access to the alloc: copies into it, before the write-back.
    struct Access {
      Operation *op;
      std::pair<int64_t, int64_t> writes;
      std::optional<std::pair<int64_t, int64_t>> readsState;
    };
    SmallVector<Access> accesses;
    bool ok = true;
    SmallVector<Value> aliases{alloc.getResult()};
    while (ok && !aliases.empty()) {
      Value alias = aliases.pop_back_val();
      for (OpOperand &use : alias.getUses()) {
        Operation *user = use.getOwner();
        if (user == writeBack.getOperation())
          continue;
        if (user->getBlock() != block) {
          ok = false;
          continue;
        }
        if (isa<memref::SubViewOp, memref::ExpandShapeOp,
                memref::CollapseShapeOp, memref::CastOp>(user)) {
          aliases.push_back(user->getResult(0));
          continue;
        }
        auto copy = dyn_cast<memref::CopyOp>(user);
        if (!copy || copy.getTarget() != alias ||
            !user->isBeforeInBlock(writeBack)) {
          ok = false;
          continue;
        }
        auto writes = linearRange(cast<MemRefType>(alias.getType()));
        if (!writes) {
          ok = false;
          continue;
        }
        Access access{user, *writes, std::nullopt};
        if (auto source = rootOf(copy.getSource()).getDefiningOp<memref::GetGlobalOp>()) {
          auto reads = linearRange(cast<MemRefType>(copy.getSource().getType()));
          if (source.getName() != global.getName() || !reads) {
            ok = false;
            continue;
          }
          access.readsState = *reads;
          // Its own overlap: ascending-safe in one space (same element
          // count, identity roots).
          if (reads->second >= writes->first && writes->second >= reads->first &&
              !ascendingSafe(cast<MemRefType>(copy.getSource().getType()),
                             cast<MemRefType>(alias.getType())))
            ok = false;
        }
        accesses.push_back(access);
      }
    }
    if (!ok || accesses.empty())
      continue;
    llvm::sort(accesses, [](const Access &a, const Access &b) {
      return a.op->isBeforeInBlock(b.op);
    });
    Operation *first = accesses.front().op;
    // The state is read in [first, write-back) only by those copies.
    function.walk([&](memref::GetGlobalOp get) {
      if (get.getName() != global.getName())
        return;
      SmallVector<Value> views{get.getResult()};
      while (!views.empty()) {
        Value view = views.pop_back_val();
        for (Operation *user : view.getUsers()) {
          if (isa<memref::SubViewOp, memref::ExpandShapeOp,
                  memref::CollapseShapeOp, memref::CastOp>(user)) {
            views.push_back(user->getResult(0));
            continue;
          }
          Operation *top = block->findAncestorOpInBlock(*user);
          if (!top || top == writeBack.getOperation())
            continue;
          bool inSpan = !top->isBeforeInBlock(first) &&
                        top->isBeforeInBlock(writeBack);
          if (inSpan && !llvm::any_of(accesses, [&](const Access &a) {
                return a.op == user && a.readsState;
              }))
            ok = false;
        }
      }
    });
    // No copy reads what an earlier one wrote.
    for (auto [index, access] : llvm::enumerate(accesses)) {
      if (!access.readsState)
        continue;
      for (const Access &earlier : ArrayRef<Access>(accesses).take_front(index))
        if (earlier.writes.second >= access.readsState->first &&
            access.readsState->second >= earlier.writes.first)
          ok = false;
    }
    if (!ok)
      continue;
    OpBuilder builder(alloc);
    Value state = memref::GetGlobalOp::create(builder, alloc.getLoc(),
                                              global.getType(), global.getName());
    if (global.getType() != alloc.getType()) {
      SmallVector<int64_t> strides(alloc.getType().getRank(), 1);
      for (int64_t d = alloc.getType().getRank() - 2; d >= 0; --d)
        strides[d] = strides[d + 1] * alloc.getType().getShape()[d + 1];
      state = memref::ReinterpretCastOp::create(
          builder, alloc.getLoc(), alloc.getType(), state, /*offset=*/0,
          alloc.getType().getShape(), strides);
    }
    alloc.getResult().replaceAllUsesWith(state);
    writeBack.erase();
    alloc.erase();
    ++elided;
  }
  return elided;
}

struct SerenityPersistentStatePass
    : public mlir::serenity::impl::SerenityPersistentStatePassBase<
          SerenityPersistentStatePass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (alignment < 1 || !llvm::isPowerOf2_64(alignment)) {
      module.emitError() << "serenity-persistent-state: alignment must be a "
                            "power of two, not "
                         << alignment;
      return signalPassFailure();
    }
    // The state: mutable, initialized, statically shaped globals read or
    // written by a function (the arena of serenity-static-alloc is
    // uninitialized and not state).
    llvm::MapVector<StringRef, Variable> variables;
    for (auto global : module.getOps<memref::GlobalOp>()) {
      auto initial =
          dyn_cast_or_null<DenseElementsAttr>(global.getInitialValueAttr());
      MemRefType type = global.getType();
      if (global.getConstant() || !initial || !type.hasStaticShape() ||
          !type.getLayout().isIdentity() || type.getMemorySpace())
        continue;
      Variable variable;
      variable.global = global;
      variable.initial = initial;
      variables.insert({global.getSymName(), variable});
    }
    SmallVector<memref::GetGlobalOp> reads;
    func::FuncOp owner;
    llvm::SetVector<func::FuncOp> users;
    module.walk([&](memref::GetGlobalOp get) {
      if (!variables.count(get.getName()))
        return;
      reads.push_back(get);
      auto function = get->getParentOfType<func::FuncOp>();
      if (function)
        users.insert(function);
      if (!owner)
        owner = function;
    });
    if (reads.empty() || !owner)
      return;
    // Shift-register updates in the state itself (no copy in the arena).
    DenseSet<StringRef> names;
    for (auto &entry : variables)
      names.insert(entry.first);
    bool changed = false;
    for (func::FuncOp function : users)
      changed |= updateInPlace(function, names) > 0;
    if (changed) {
      reads.clear();
      module.walk([&](memref::GetGlobalOp get) {
        if (variables.count(get.getName()))
          reads.push_back(get);
      });
    }

    // Offsets: in declaration order, each aligned.
    int64_t size = 0;
    for (auto &entry : variables) {
      Variable &variable = entry.second;
      FailureOr<SmallVector<char>> bytes = bytesOf(variable.initial);
      if (failed(bytes)) {
        variable.global.emitError()
            << "serenity-persistent-state: cannot place state of element "
               "type "
            << variable.initial.getElementType();
        return signalPassFailure();
      }
      variable.image = std::move(*bytes);
      variable.offset = llvm::alignTo(size, alignment);
      size = variable.offset + variable.image.size();
    }
    size = std::max<int64_t>(size, 1);
    SmallVector<char> image(size, 0);
    for (auto &entry : variables)
      llvm::copy(entry.second.image, image.begin() + entry.second.offset);

    MLIRContext *context = &getContext();
    OpBuilder builder(context);
    builder.setInsertionPoint(owner);
    Location loc = owner.getLoc();
    std::string name = (owner.getSymName() + "_state").str();
    std::string resetName = (owner.getSymName() + "_reset").str();
    for (StringRef taken : {StringRef(name), StringRef(resetName)})
      if (SymbolTable::lookupSymbolIn(module, taken)) {
        module.emitError() << "serenity-persistent-state: symbol @" << taken
                           << " already exists";
        return signalPassFailure();
      }
    auto i8 = builder.getI8Type();
    auto regionType = MemRefType::get({size}, i8);
    auto imageType = RankedTensorType::get({size}, i8);
    DenseElementsAttr initial =
        llvm::all_of(image, [](char byte) { return byte == 0; })
            ? DenseElementsAttr::get(imageType, builder.getI8IntegerAttr(0))
            : DenseElementsAttr::getFromRawBuffer(imageType, image);
    memref::GlobalOp::create(builder, loc, name, /*sym_visibility=*/nullptr,
                             regionType, initial, /*constant=*/false,
                             builder.getI64IntegerAttr(alignment));

    // Every access becomes a view of the region.
    auto viewOf = [&](OpBuilder &b, Location at, Variable &variable) {
      Value region = memref::GetGlobalOp::create(b, at, regionType, name);
      Value offset = arith::ConstantIndexOp::create(b, at, variable.offset);
      return memref::ViewOp::create(b, at, variable.global.getType(), region,
                                    offset, ValueRange{})
          .getResult();
    };
    for (memref::GetGlobalOp get : reads) {
      OpBuilder b(get);
      Value view = viewOf(b, get.getLoc(), variables[get.getName()]);
      get.getResult().replaceAllUsesWith(view);
      get.erase();
    }

    // F_reset(): every variable back to its initial value.
    builder.setInsertionPointAfter(owner);
    auto reset = func::FuncOp::create(builder, loc, resetName,
                                      builder.getFunctionType({}, {}));
    OpBuilder body = OpBuilder::atBlockBegin(reset.addEntryBlock());
    int constants = 0;
    for (auto &entry : variables) {
      Variable &variable = entry.second;
      Value view = viewOf(body, loc, variable);
      if (variable.initial.isSplat()) {
        Type element = variable.initial.getElementType();
        Value value = arith::ConstantOp::create(
            body, loc, element,
            cast<TypedAttr>(variable.initial.getSplatValue<Attribute>()));
        linalg::FillOp::create(body, loc, ValueRange{value}, ValueRange{view});
        continue;
      }
      // A non-splat initial value is kept once more as a constant.
      std::string initName =
          (name + "_init" + Twine(constants++)).str();
      OpBuilder globals(context);
      globals.setInsertionPoint(reset);
      memref::GlobalOp::create(globals, loc, initName,
                               globals.getStringAttr("private"),
                               variable.global.getType(), variable.initial,
                               /*constant=*/true, IntegerAttr());
      Value source = memref::GetGlobalOp::create(
          body, loc, variable.global.getType(), initName);
      memref::CopyOp::create(body, loc, source, view);
    }
    func::ReturnOp::create(body, loc);

    // The report's view of the region, on every function using it.
    SmallVector<Attribute> entries;
    for (auto &entry : variables) {
      Variable &variable = entry.second;
      entries.push_back(builder.getDictionaryAttr(
          {builder.getNamedAttr("name", builder.getStringAttr(entry.first)),
           builder.getNamedAttr("offset",
                                builder.getI64IntegerAttr(variable.offset)),
           builder.getNamedAttr("size",
                                builder.getI64IntegerAttr(variable.image.size()))}));
    }
    for (func::FuncOp function : users) {
      function->setAttr("serenity.persistent_bytes",
                        builder.getI64IntegerAttr(size));
      function->setAttr("serenity.persistent", builder.getArrayAttr(entries));
    }
    for (auto &entry : variables)
      entry.second.global.erase();
  }
};

} // namespace
