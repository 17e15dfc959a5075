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
  int64_t offset = 0;
  int64_t bytes = 0;
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
      variable.offset = llvm::alignTo(size, alignment);
      variable.bytes = bytes->size();
      size = variable.offset + variable.bytes;
    }
    size = std::max<int64_t>(size, 1);
    SmallVector<char> image(size, 0);
    for (auto &entry : variables) {
      Variable &variable = entry.second;
      SmallVector<char> bytes = *bytesOf(variable.initial);
      llvm::copy(bytes, image.begin() + variable.offset);
    }

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
                                builder.getI64IntegerAttr(variable.bytes))}));
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
