//===- Int8ConvKernels.cpp - Dot-product kernels for int8 convs -*- C++ -*-===//
//
// convert-linalg-to-loops turns an int8 linalg convolution into one scalar
// multiply-accumulate per loop iteration: two byte loads, two sign
// extensions, a zero-point subtraction, a multiply and an add. On a
// Cortex-M with the DSP extension four int8 pairs fit in two 32-bit loads:
// SXTB16 widens bytes 0/2 (and, on the word rotated by 8, bytes 1/3) into
// two int16 lanes, SSUB16 subtracts the input zero point from both lanes
// (the differences fit int16: [-255, 255]) and SMLAD multiplies both lane
// pairs and adds them to an int32 accumulator. This is how CMSIS-NN's
// kernels reach their speed; here it is a lowering of the convolution
// itself, so the same function runs the same arithmetic.
//
// Exactness: every product and sum is the one the reference lowering
// computes, in int32 wrap-around arithmetic, only in another order; int32
// addition is associative and commutative, so the accumulators are equal bit
// for bit.
//
// The kernels read memory through the buffers' addresses (a 32-bit load at
// any byte offset: ARMv7-M LDR accepts unaligned addresses) and keep a block
// of output-channel accumulators in registers across the whole reduction;
// the input word is widened once for the block.
//
// Size: this file (~1800 lines) is above the ~700-line guideline. It is one
// emitter for three instruction sets (DSP, Helium, plain): KernelBuilder
// holds the builder, the instruction choice and the address arithmetic; the
// conv and depthwise lowerings are one loop structure each (output blocks,
// whole and clipped windows, runs) whose innermost step branches on the
// instruction set, so splitting by instruction set would copy the loop
// structures. What could move out without that cost is the matching and
// fusion (matchOperands, matchFusion, evaluateAt/evaluateLanes, the
// requantization's lane arithmetic: ~500 lines) into a file of its own
// behind an internal header; not done yet.
//
//===----------------------------------------------------------------------===//

#include "Serenity/Support/CheckedOptions.h"

#include "Serenity/Dialect/Serenity/IR/SerenityAttrs.h"
#include "Serenity/Lowering/Kernels.h"
#include "Serenity/Lowering/Passes.h"
#include "Serenity/Selection/Knapsack.h"
#include "Serenity/Support/ConstantTable.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "llvm/ADT/MapVector.h"

#include <array>

namespace mlir {
namespace serenity {
#define GEN_PASS_DEF_SERENITYINT8CONVKERNELSPASS
#include "Serenity/Lowering/Passes.h.inc"
} // namespace serenity
} // namespace mlir

using namespace mlir;
using namespace mlir::serenity;
using mlir::serenity::ConvPrimitive;
using mlir::serenity::getConvPrimitive;

namespace {

/// Static strides of a rank-4 memref whose innermost stride is 1, or
/// nothing.
std::optional<SmallVector<int64_t>> innerContiguousStrides(Value memref) {
  auto type = dyn_cast<MemRefType>(memref.getType());
  if (!type || type.getRank() != 4)
    return std::nullopt;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)) ||
      llvm::any_of(strides, ShapedType::isDynamic) || strides[3] != 1)
    return std::nullopt;
  return strides;
}

/// The arithmetic a kernel is written in: the DSP extension's (four bytes
/// per word, SXTB16/SMLAD), the same sums byte by byte, or 16-byte vectors
/// (Helium's VMLAVA on Cortex-M55; any vector unit on the host).
enum class Isa { Dsp, Scalar, Vector };

/// The kernels' arithmetic and address width for a `target`, and, for the
/// scalar arithmetic, whether the four bytes of a word are four sign-extending
/// byte loads (RISC-V's LB: one instruction each, with an immediate offset)
/// rather than one word load split by shifts (two instructions a byte without
/// a sign-extend instruction; on ARMv6-M LDRSB takes only a register offset,
/// and eight low registers cannot hold the addresses).
struct KernelMode {
  Isa isa;
  bool pointers32;
  bool byteLoads = false;
};
KernelMode kernelMode(KernelTarget target) {
  switch (target) {
  case KernelTarget::CortexM:
    return {Isa::Dsp, true};
  case KernelTarget::Helium:
    return {Isa::Vector, true};
  case KernelTarget::CortexMBaseline:
    return {Isa::Scalar, true};
  case KernelTarget::RiscV32:
    return {Isa::Scalar, true, /*byteLoads=*/true};
  case KernelTarget::Generic:
    return {Isa::Scalar, false};
  case KernelTarget::GenericVector:
    return {Isa::Vector, false};
  }
  llvm_unreachable("unknown kernel target");
}

/// Emits the kernels' arithmetic: the DSP instructions on Cortex-M, the
/// same sums byte by byte (any target; used to test the loop structure on
/// the host), or 16-byte vectors.
class KernelBuilder {
public:
  KernelBuilder(OpBuilder &b, Location loc, KernelMode mode)
      : b(b), loc(loc), dsp(mode.isa == Isa::Dsp),
        vector(mode.isa == Isa::Vector),
        byteLoads(mode.isa == Isa::Scalar && mode.byteLoads),
        i8(b.getI8Type()),
        i32(b.getI32Type()),
        ptrInt(mode.pointers32 ? b.getI32Type() : b.getI64Type()),
        ptr(LLVM::LLVMPointerType::get(b.getContext())),
        bytes16(VectorType::get({16}, i8)) {}

  Value index(int64_t value) {
    return arith::ConstantIndexOp::create(b, loc, value);
  }
  Value int32(int64_t value) {
    return arith::ConstantIntOp::create(b, loc, i32, value);
  }
  Value add(Value a, Value c) { return arith::AddIOp::create(b, loc, a, c); }
  Value mul(Value a, Value c) { return arith::MulIOp::create(b, loc, a, c); }
  Value mul(Value a, int64_t c) { return c == 1 ? a : mul(a, index(c)); }

  /// The pointer to the byte `offsetBytes` past the start of `memref`'s
  /// buffer (its aligned pointer).
  Value pointer(Value memref, Value offsetBytes) {
    Value aligned =
        memref::ExtractAlignedPointerAsIndexOp::create(b, loc, memref);
    Value asInt =
        arith::IndexCastUIOp::create(b, loc, ptrInt, add(aligned, offsetBytes));
    return LLVM::IntToPtrOp::create(b, loc, ptr, asInt);
  }
  /// The address of the element at offset 0 of `memref` (aligned pointer
  /// plus the layout's offset; i8 elements, so offsets are bytes).
  Value basePointer(Value memref) {
    return pointer(
        memref,
        memref::ExtractStridedMetadataOp::create(b, loc, memref).getOffset());
  }

  /// `base` + `byteOffset` (an index).
  Value at(Value base, Value byteOffset) {
    Value offset = arith::IndexCastOp::create(b, loc, ptrInt, byteOffset);
    return LLVM::GEPOp::create(b, loc, ptr, i8, base,
                               ArrayRef<LLVM::GEPArg>{offset});
  }

  /// Four bytes at `address` as one little-endian word (any alignment); with
  /// byte loads, `address` itself, which byteOf loads byte by byte.
  Value loadWord(Value address) {
    if (byteLoads)
      return address;
    return LLVM::LoadOp::create(b, loc, i32, address, /*alignment=*/1);
  }
  /// The sign-extended byte at `address`.
  Value loadByte(Value address) {
    Value byte = LLVM::LoadOp::create(b, loc, i8, address, /*alignment=*/1);
    return arith::ExtSIOp::create(b, loc, i32, byte);
  }

  Value intrinsic(StringRef name, ValueRange args) {
    return LLVM::CallIntrinsicOp::create(b, loc, i32, b.getStringAttr(name),
                                         args)
        .getResult(0);
  }
  /// The word rotated right by 8 bits (SXTB16 folds the rotation).
  Value rotate8(Value word) {
    Value low = arith::ShRUIOp::create(b, loc, word, int32(8));
    Value high = arith::ShLIOp::create(b, loc, word, int32(24));
    return arith::OrIOp::create(b, loc, low, high);
  }
  /// Byte k of `word` (or, with byte loads, at the address loadWord gave),
  /// sign-extended.
  Value byteOf(Value word, int k) {
    if (byteLoads) {
      Value address =
          k ? LLVM::GEPOp::create(b, loc, ptr, i8, word,
                                  ArrayRef<LLVM::GEPArg>{int32_t(k)})
                  .getResult()
            : word;
      return loadByte(address);
    }
    Value shifted =
        k ? arith::ShRUIOp::create(b, loc, word, int32(8 * k)) : word;
    Value byte = arith::TruncIOp::create(b, loc, i8, shifted);
    return arith::ExtSIOp::create(b, loc, i32, byte);
  }

  /// The input word's widened lanes: bytes 0/2 and 1/3 as int16 pairs minus
  /// the zero point (DSP), or the word itself (portable).
  struct Widened {
    Value word, even, odd;
  };
  Widened widenInput(Value word, Value zeroPair) {
    if (!dsp)
      return {word, {}, {}};
    Value even = intrinsic("llvm.arm.sxtb16", word);
    Value odd = intrinsic("llvm.arm.sxtb16", rotate8(word));
    if (zeroPair) {
      even = intrinsic("llvm.arm.ssub16", {even, zeroPair});
      odd = intrinsic("llvm.arm.ssub16", {odd, zeroPair});
    }
    return {word, even, odd};
  }
  /// acc + sum over the four bytes k of (x_k - zero) * w_k.
  Value dot4(const Widened &x, Value zero, Value weights, Value acc) {
    if (dsp) {
      Value even = intrinsic("llvm.arm.sxtb16", weights);
      Value odd = intrinsic("llvm.arm.sxtb16", rotate8(weights));
      acc = intrinsic("llvm.arm.smlad", {x.even, even, acc});
      return intrinsic("llvm.arm.smlad", {x.odd, odd, acc});
    }
    for (int k = 0; k < 4; ++k)
      acc = add(acc, mul(arith::SubIOp::create(b, loc, byteOf(x.word, k), zero),
                         byteOf(weights, k)));
    return acc;
  }
  /// acc + sum over k of (x_k - zero) * w_k, the weights widened at compile
  /// time (WidenedFilters): int16 (w0, w2) at `address`, (w1, w3) 4 bytes on.
  Value dot4Widened(const Widened &x, Value zero, Value address, Value acc) {
    Value even = LLVM::LoadOp::create(b, loc, i32, address, /*alignment=*/4);
    Value odd = LLVM::LoadOp::create(b, loc, i32, at(address, index(4)),
                                     /*alignment=*/4);
    if (dsp) {
      acc = intrinsic("llvm.arm.smlad", {x.even, even, acc});
      return intrinsic("llvm.arm.smlad", {x.odd, odd, acc});
    }
    auto half = [&](Value word, bool high) {
      if (high)
        return arith::ShRSIOp::create(b, loc, word, int32(16)).getResult();
      Value low = arith::TruncIOp::create(b, loc, b.getI16Type(), word);
      return arith::ExtSIOp::create(b, loc, i32, low).getResult();
    };
    Value w[4] = {half(even, false), half(odd, false), half(even, true),
                  half(odd, true)};
    for (int k = 0; k < 4; ++k)
      acc = add(acc, mul(arith::SubIOp::create(b, loc, byteOf(x.word, k), zero),
                         w[k]));
    return acc;
  }

  /// Lane k (0..3) of acc + (x - zero) * w per byte lane, for the
  /// depthwise kernel: the four channels of a word are independent.
  Value lane(const Widened &x, Value zero, Value weights, int k, Value acc) {
    if (dsp) {
      // even lanes hold bytes 0 and 2, odd lanes bytes 1 and 3.
      Value w =
          intrinsic("llvm.arm.sxtb16", k % 2 ? rotate8(weights) : weights);
      return intrinsic(k < 2 ? "llvm.arm.smlabb" : "llvm.arm.smlatt",
                       {k % 2 ? x.odd : x.even, w, acc});
    }
    return add(acc, mul(arith::SubIOp::create(b, loc, byteOf(x.word, k), zero),
                        byteOf(weights, k)));
  }
  /// accs[i] -= zero * sums[first + i]: the folded zero point of a whole
  /// window (sums: the channels' weight sums).
  void subtractZeroTimesSums(SmallVectorImpl<Value> &accs, Value zero,
                             Value sums, Value first) {
    for (int64_t i = 0, e = accs.size(); i < e; ++i) {
      Value sum = memref::LoadOp::create(b, loc, sums, add(first, index(i)));
      accs[i] = arith::SubIOp::create(b, loc, accs[i], mul(zero, sum));
    }
  }

  /// The zero point in both int16 lanes, or null when it is 0.
  Value zeroPair(Value zero) {
    if (!dsp || matchPattern(zero, m_Zero()))
      return {};
    Value low = arith::AndIOp::create(b, loc, zero, int32(0xFFFF));
    Value high = arith::ShLIOp::create(b, loc, zero, int32(16));
    return arith::OrIOp::create(b, loc, low, high);
  }

  /// The byte 0.
  Value i8Zero() { return arith::ConstantIntOp::create(b, loc, i8, 0); }

  /// The four bytes at `address`, sign-extended to int32 lanes (VLDRB.S32).
  Value loadLanes(Value address) {
    Value bytes = LLVM::LoadOp::create(b, loc, VectorType::get({4}, i8),
                                       address, /*alignment=*/1);
    return arith::ExtSIOp::create(b, loc, VectorType::get({4}, i32), bytes);
  }

  /// `scalar` in each of `lanes` lanes (LLVM dialect ops: the Cortex-M
  /// lowering has no vector dialect conversion).
  Value splat(Value scalar, int64_t lanes) {
    auto type = VectorType::get({lanes}, scalar.getType());
    Value lane0 = LLVM::InsertElementOp::create(
        b, loc, type, LLVM::PoisonOp::create(b, loc, type), scalar, int32(0));
    return LLVM::ShuffleVectorOp::create(b, loc, lane0, lane0,
                                         SmallVector<int32_t>(lanes, 0));
  }
  /// `values` (scalars of one type) as the lanes of a vector.
  Value pack(ValueRange values) {
    auto type = VectorType::get({static_cast<int64_t>(values.size())},
                                values.front().getType());
    Value vector = LLVM::PoisonOp::create(b, loc, type);
    for (auto [i, value] : llvm::enumerate(values))
      vector = LLVM::InsertElementOp::create(b, loc, type, vector, value,
                                             int32(i));
    return vector;
  }
  /// Lane `i` of `vector`.
  Value laneOf(Value vector, int64_t i) {
    return LLVM::ExtractElementOp::create(b, loc, vector, int32(i));
  }

  /// 16 bytes at `address` (any alignment: MVE's VLDRB.U8).
  Value loadVector(Value address) {
    return LLVM::LoadOp::create(b, loc, bytes16, address, /*alignment=*/1);
  }
  /// The first `count` (1..15, an index) of the 16 bytes at `address`, the
  /// others 0: a masked load (VCTP.8 + VLDRBT.U8).
  Value loadVectorHead(Value address, Value count) {
    Value iota = arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(
                    bytes16, llvm::to_vector(llvm::map_range(
                                 llvm::seq<int8_t>(0, 16),
                                 [](int8_t i) { return APInt(8, i); }))));
    Value limit = splat(arith::IndexCastOp::create(b, loc, i8, count), 16);
    Value mask = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                                       iota, limit);
    Value zeros = arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(bytes16, APInt(8, 0)));
    return LLVM::MaskedLoadOp::create(b, loc, bytes16, address, mask, zeros,
                                      /*alignment=*/1);
  }
  /// acc + sum over the 16 lanes of (x - zero) * w: the reduce-add of the
  /// sign-extended products (VMLAVA.S8) minus zero times the reduce-add of
  /// the weights (VADDVA.S8), skipped when `zero` is the constant 0.
  Value dot16(Value x, Value zero, Value w, Value acc) {
    auto wide = VectorType::get({16}, i32);
    Value xs = arith::ExtSIOp::create(b, loc, wide, x);
    Value ws = arith::ExtSIOp::create(b, loc, wide, w);
    Value products = arith::MulIOp::create(b, loc, xs, ws);
    acc = add(acc, LLVM::vector_reduce_add::create(b, loc, i32, products));
    if (matchPattern(zero, m_Zero()))
      return acc;
    Value sum = LLVM::vector_reduce_add::create(b, loc, i32, ws);
    return arith::SubIOp::create(b, loc, acc, mul(zero, sum));
  }

  /// scf.if on `cond` yielding what `then` and `otherwise` build.
  SmallVector<Value> ifElse(Value cond, TypeRange types,
                            function_ref<SmallVector<Value>()> then,
                            function_ref<SmallVector<Value>()> otherwise) {
    auto ifOp = scf::IfOp::create(b, loc, types, cond, /*withElseRegion=*/true);
    for (auto [region, build] :
         {std::make_pair(&ifOp.getThenRegion(), then),
          std::make_pair(&ifOp.getElseRegion(), otherwise)}) {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToEnd(&region->front());
      SmallVector<Value> results = build();
      scf::YieldOp::create(b, loc, results);
    }
    return SmallVector<Value>(ifOp.getResults());
  }

  /// The loop `loop` builds, or, when its bounds are constants and it runs
  /// at most `unroll` times, its iterations one after the other (the
  /// Helium kernels' short window loops: LLVM forms low-overhead loops of
  /// them rather than unrolling).
  SmallVector<Value>
  loopOrUnrolled(Value lb, Value ub, Value step, ValueRange values,
                 function_ref<SmallVector<Value>(Value, ValueRange)> body,
                 int64_t unroll) {
    std::optional<int64_t> first = getConstantIntValue(lb),
                           last = getConstantIntValue(ub),
                           stride = getConstantIntValue(step);
    if (!first || !last || !stride || *stride <= 0 ||
        (*last - *first + *stride - 1) / *stride > unroll)
      return loop(lb, ub, step, values, body);
    SmallVector<Value> current(values);
    for (int64_t i = *first; i < *last; i += *stride)
      current = body(index(i), current);
    return current;
  }

  /// scf.for from `lb` to `ub` by `step` carrying `values`.
  SmallVector<Value>
  loop(Value lb, Value ub, Value step, ValueRange values,
       function_ref<SmallVector<Value>(Value, ValueRange)> body) {
    auto forOp = scf::ForOp::create(
        b, loc, lb, ub, step, values,
        [&](OpBuilder &nested, Location, Value iv, ValueRange args) {
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPointToStart(nested.getInsertionBlock());
          SmallVector<Value> results = body(iv, args);
          scf::YieldOp::create(b, loc, results);
        });
    return SmallVector<Value>(forOp.getResults());
  }

  OpBuilder &b;
  Location loc;
  bool dsp, vector, byteLoads;
  Type i8, i32, ptrInt, ptr;
  VectorType bytes16;
};

/// Strides and dilations of a named convolution, as integers.
SmallVector<int64_t> attrValues(DenseIntElementsAttr attr) {
  return llvm::to_vector(attr.getValues<int64_t>());
}

/// The largest block of output channels (4, 2 or 1) that divides `channels`
/// (dynamic counts: 1).
int64_t channelBlock(int64_t channels) {
  if (ShapedType::isDynamic(channels))
    return 1;
  return channels % 4 == 0 ? 4 : channels % 2 == 0 ? 2 : 1;
}

/// SSUB16 computes x - z in int16 lanes: exact for int8 x when z is in
/// [-32640, 32639]. True when `zero` is a constant there.
bool fitsHalfwordLanes(Value zero) {
  APInt value;
  if (!matchPattern(zero, m_ConstantInt(&value)))
    return false;
  int64_t z = value.getSExtValue();
  return z >= -32640 && z <= 32639;
}

/// Common checks: buffer semantics, int8 inputs, int32 accumulator, the
/// filter's zero point a constant 0, inner dimensions contiguous.
struct ConvOperands {
  Value input, filter, inputZero, output;
  SmallVector<int64_t> inStrides, filterStrides, strides, dilations;
};
std::optional<ConvOperands> matchOperands(linalg::LinalgOp op,
                                          DenseIntElementsAttr strides,
                                          DenseIntElementsAttr dilations) {
  // The quantized ops carry the zero points; the others (i8 operands and an
  // i32 result, as tosa-to-linalg-named makes for zero points of 0) none.
  const bool quantized = op.getNumDpsInputs() == 4;
  if (!op.hasPureBufferSemantics() ||
      (op.getNumDpsInputs() != 4 && op.getNumDpsInputs() != 2))
    return std::nullopt;
  ConvOperands operands;
  operands.input = op.getDpsInputs()[0];
  operands.filter = op.getDpsInputs()[1];
  operands.inputZero = quantized ? op.getDpsInputs()[2] : Value();
  operands.output = op.getDpsInits()[0];
  Type i8 = IntegerType::get(op->getContext(), 8);
  Type i32 = IntegerType::get(op->getContext(), 32);
  if (getElementTypeOrSelf(operands.input.getType()) != i8 ||
      getElementTypeOrSelf(operands.filter.getType()) != i8 ||
      getElementTypeOrSelf(operands.output.getType()) != i32 ||
      (quantized && (operands.inputZero.getType() != i32 ||
                     !matchPattern(op.getDpsInputs()[3], m_Zero()))))
    return std::nullopt;
  auto in = innerContiguousStrides(operands.input);
  auto filter = innerContiguousStrides(operands.filter);
  if (!in || !filter)
    return std::nullopt;
  operands.inStrides = *in;
  operands.filterStrides = *filter;
  operands.strides = attrValues(strides);
  operands.dilations = attrValues(dilations);
  return operands;
}

/// The operands when the kernels can compute the op exactly: on Cortex-M
/// the input zero point must fit SSUB16's int16 lanes.
std::optional<ConvOperands> matchKernelOperands(linalg::LinalgOp op,
                                                DenseIntElementsAttr strides,
                                                DenseIntElementsAttr dilations,
                                                bool dsp) {
  std::optional<ConvOperands> operands = matchOperands(op, strides, dilations);
  if (operands && dsp && operands->inputZero &&
      !matchPattern(operands->inputZero, m_Zero()) &&
      !fitsHalfwordLanes(operands->inputZero))
    return std::nullopt;
  return operands;
}

/// `map` applied to the constant `point`, as index constants.
SmallVector<Value> constantIndices(OpBuilder &b, Location loc, AffineMap map,
                                   ArrayRef<int64_t> point) {
  SmallVector<Value> indices;
  for (int64_t i : map.compose(point))
    indices.push_back(arith::ConstantIndexOp::create(b, loc, i));
  return indices;
}

/// The value `generic`'s body computes at the iteration `point` (its inputs
/// loaded there; `acc`, if it is an input, replaced by `accValue`). The body
/// must not read its output or linalg.index.
/// Maps each input block argument of `generic` to `accValue` where the
/// input is `acc`, else to what `read` makes of the input operand.
void mapInputs(linalg::GenericOp generic, Value acc, Value accValue,
               IRMapping &mapping, function_ref<Value(OpOperand *)> read) {
  Block &body = generic.getRegion().front();
  for (OpOperand *operand : generic.getDpsInputOperands())
    mapping.map(body.getArgument(operand->getOperandNumber()),
                operand->get() == acc ? accValue : read(operand));
}

Value evaluateAt(OpBuilder &b, Location loc, linalg::GenericOp generic,
                 ArrayRef<int64_t> point, Value acc, Value accValue) {
  IRMapping mapping;
  Block &body = generic.getRegion().front();
  mapInputs(generic, acc, accValue, mapping, [&](OpOperand *operand) -> Value {
    Value value = operand->get();
    if (!isa<MemRefType>(value.getType()))
      return value;
    return memref::LoadOp::create(
        b, loc, value,
        constantIndices(b, loc, generic.getMatchingIndexingMap(operand),
                        point));
  });
  for (Operation &op : body.without_terminator())
    b.clone(op, mapping);
  return mapping.lookupOrDefault(body.getTerminator()->getOperand(0));
}

/// The table a block argument of `generic` reads (its input's constant
/// values), or the constant values `value` holds; null if unknown.
Attribute tableOf(linalg::GenericOp generic, Value value) {
  if (auto arg = dyn_cast<BlockArgument>(value))
    if (arg.getOwner() == &generic.getRegion().front() &&
        arg.getArgNumber() < generic.getNumDpsInputs())
      return constantTableOf(generic.getDpsInputs()[arg.getArgNumber()]);
  return constantTableOf(value);
}

/// How the Helium kernels apply a tosa.apply_scale to four lanes exactly,
/// from the multipliers and shifts its tables hold: `Rounding` (VQRDMULH
/// and a rounding shift: non-negative multipliers, shifts in [31, 62],
/// DOUBLE_ROUND or shift 31, where both modes are one rounding), or
/// `PowerOfTwo` (one multiplier 2^k, k <= 30, and one shift s: v * 2^(k-s)
/// when k >= s, else a rounding shift right by s - k <= 31; SINGLE_ROUND,
/// or DOUBLE_ROUND with s <= 31 where it is the same; TFLite's ADD scales
/// its inputs so). Nothing otherwise.
struct LaneScale {
  enum Kind { Rounding, PowerOfTwo } kind;
  /// PowerOfTwo: k and s. Rounding: shift 31 when every shift is 31 (then
  /// VQRDMULH alone), else 0.
  int64_t log2Multiplier = 0, shift = 0;
};
std::optional<LaneScale> laneScale(linalg::GenericOp consumer,
                                   tosa::ApplyScaleOp scale) {
  if (!scale.getValue().getType().isInteger(32))
    return std::nullopt;
  auto shifts = integerRange(tableOf(consumer, scale.getShift()),
                             /*isUnsigned=*/true);
  auto multipliers = integerRange(tableOf(consumer, scale.getMultiplier()));
  if (!shifts || !multipliers)
    return std::nullopt;
  const bool doubleRound =
      scale.getRoundingMode() == tosa::RoundingMode::DOUBLE_ROUND;
  // One power-of-two multiplier and one shift first: a shift is cheaper.
  const int64_t m = multipliers->first, s = shifts->first;
  if (m == multipliers->second && s == shifts->second && m > 0 &&
      llvm::isPowerOf2_64(m) && s >= 1 && !(doubleRound && s > 31) &&
      llvm::Log2_64(m) <= 30 && s - static_cast<int64_t>(llvm::Log2_64(m)) <= 31)
    return LaneScale{LaneScale::PowerOfTwo, llvm::Log2_64(m), s};
  if (multipliers->first >= 0 && shifts->first >= 31 && shifts->second <= 62 &&
      (doubleRound || shifts->second == 31))
    return LaneScale{LaneScale::Rounding, 0, shifts->second == 31 ? 31 : 0};
  return std::nullopt;
}

/// Whether the Helium kernels can apply the requantization `consumer` to
/// four channels at once (evaluateLanes): its body holds only elementwise
/// integer arith ops and tosa.apply_scale ops with a laneScale.
bool canEvaluateLanes(linalg::GenericOp consumer) {
  for (Operation &op : consumer.getRegion().front().without_terminator()) {
    if (auto scale = dyn_cast<tosa::ApplyScaleOp>(op)) {
      if (!laneScale(consumer, scale))
        return false;
      continue;
    }
    if (isa<arith::ConstantOp>(op) && isa<IntegerType>(op.getResult(0).getType()))
      continue;
    if (!isa<arith::ArithDialect>(op.getDialect()) ||
        !op.hasTrait<OpTrait::Elementwise>() || op.getNumRegions() != 0 ||
        llvm::any_of(op.getResultTypes(),
                     [](Type t) { return !t.isIntOrIndex(); }))
      return false;
  }
  return true;
}

/// (value + 2^(n-1)) >> n per int32 lane, n = -negativeShift >= 0, in
/// unbounded precision (MVE's VRSHL by a negative amount: no overflow).
Value mveRoundingShiftRight(KernelBuilder &k, Value value,
                            Value negativeShift) {
  return LLVM::CallIntrinsicOp::create(
             k.b, k.loc, value.getType(),
             k.b.getStringAttr("llvm.arm.mve.vshl.vector"),
             ValueRange{value, negativeShift, k.int32(0), k.int32(1),
                        k.int32(0)})
      .getResult(0);
}

/// tosa.apply_scale on four int32 lanes with MVE, for the tables
/// canEvaluateLanes admits: VQRDMULH(v, m) is TFLite's
/// SaturatingRoundingDoublingHighMul, and VRSHL by -(s - 31) after adding
/// -1 to negative values (VAND, VSHR, VQADD) its RoundingDivideByPOT (round
/// half away from zero); together they equal apply_scale's DOUBLE_ROUND for
/// s in [31, 62] and m >= 0, ties and saturation included
/// (test/Integration/helium-requantization.mlir).
Value mveApplyScale(KernelBuilder &k, Value value, Value multiplier,
                    Value shift) {
  OpBuilder &b = k.b;
  Location loc = k.loc;
  auto v4i32 = VectorType::get({4}, k.i32);
  auto splat = [&](int64_t c) {
    return arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(v4i32, APInt(32, c, /*isSigned=*/true)));
  };
  Value wideShift = arith::ExtUIOp::create(b, loc, v4i32, shift);
  Value negativeRight = arith::SubIOp::create(b, loc, splat(31), wideShift);
  Value high = LLVM::CallIntrinsicOp::create(
                   b, loc, v4i32, b.getStringAttr("llvm.arm.mve.vqrdmulh"),
                   ValueRange{value, multiplier})
                   .getResult(0);
  Value fixup = arith::ShRSIOp::create(
      b, loc, arith::AndIOp::create(b, loc, high, negativeRight), splat(31));
  Value fixed = LLVM::SAddSat::create(b, loc, v4i32, high, fixup);
  return mveRoundingShiftRight(k, fixed, negativeRight);
}

/// The buffer `memref` is a view of (through subviews, casts and reshapes).
Value rootOf(Value memref) {
  while (Operation *def = memref.getDefiningOp()) {
    if (auto view = dyn_cast<ViewLikeOpInterface>(def))
      memref = view.getViewSource();
    else
      break;
  }
  return memref;
}

/// The address of the first of the elements of `memref` at the iteration
/// points `pointOf(0..lanes-1)` through `map`, when they are consecutive in
/// memory (static strides), for one vector access; null otherwise.
Value lanesAddress(KernelBuilder &k, Value memref, AffineMap map,
                   int64_t lanes,
                   function_ref<SmallVector<int64_t>(int64_t)> pointOf) {
  auto type = cast<MemRefType>(memref.getType());
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)) ||
      llvm::any_of(strides, ShapedType::isDynamic) ||
      type.getElementTypeBitWidth() % 8 != 0)
    return {};
  auto linear = [&](int64_t i) {
    int64_t element = 0;
    for (auto [index, stride] : llvm::zip(map.compose(pointOf(i)), strides))
      element += index * stride;
    return element;
  };
  const int64_t first = linear(0);
  for (int64_t i = 1; i < lanes; ++i)
    if (linear(i) != first + i)
      return {};
  const int64_t bytes = type.getElementTypeBitWidth() / 8;
  Value elementOffset = k.add(
      memref::ExtractStridedMetadataOp::create(k.b, k.loc, memref).getOffset(),
      k.index(first));
  return k.pointer(memref, k.mul(elementOffset, bytes));
}

/// What `generic`'s body computes at the `lanes` iteration points
/// `pointOf(i)`, as one vector op per body op (canEvaluateLanes must hold):
/// `acc`, if it is an input, replaced by `accLanes`; memref inputs loaded at
/// each point; values from outside the body broadcast.
Value evaluateLanes(KernelBuilder &k, linalg::GenericOp generic, int64_t lanes,
                    function_ref<SmallVector<int64_t>(int64_t)> pointOf,
                    Value acc, Value accLanes) {
  OpBuilder &b = k.b;
  Location loc = k.loc;
  IRMapping mapping;
  Block &body = generic.getRegion().front();
  mapInputs(generic, acc, accLanes, mapping, [&](OpOperand *operand) -> Value {
    Value value = operand->get();
    if (!isa<MemRefType>(value.getType()))
      return k.splat(value, lanes);
    AffineMap map = generic.getMatchingIndexingMap(operand);
    if (Value address = lanesAddress(k, value, map, lanes, pointOf)) {
      // One vector load (VLDRW, or VLDRB.U32 / .S32 with the extension).
      Type element = cast<MemRefType>(value.getType()).getElementType();
      return LLVM::LoadOp::create(b, loc, VectorType::get({lanes}, element),
                                  address,
                                  element.getIntOrFloatBitWidth() / 8);
    }
    SmallVector<Value> loaded;
    for (int64_t i = 0; i < lanes; ++i)
      loaded.push_back(memref::LoadOp::create(
          b, loc, value, constantIndices(b, loc, map, pointOf(i))));
    return k.pack(loaded);
  });
  auto vectorOf = [&](Value scalar) {
    if (Value mapped = mapping.lookupOrNull(scalar))
      return mapped;
    Value lanesValue = k.splat(scalar, lanes);
    mapping.map(scalar, lanesValue);
    return lanesValue;
  };
  for (Operation &op : body.without_terminator()) {
    if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
      auto type = VectorType::get({lanes}, constant.getType());
      mapping.map(constant.getResult(),
                  arith::ConstantOp::create(
                      b, loc,
                      DenseElementsAttr::get(
                          type, cast<IntegerAttr>(constant.getValue())
                                    .getValue())));
      continue;
    }
    if (auto scale = dyn_cast<tosa::ApplyScaleOp>(op)) {
      LaneScale how = *laneScale(generic, scale);
      Value value = vectorOf(scale.getValue());
      if (how.kind == LaneScale::Rounding && how.shift == 31) {
        // Every shift 31: VQRDMULH alone (the rounding shift is by 0).
        value = LLVM::CallIntrinsicOp::create(
                    b, loc, value.getType(),
                    b.getStringAttr("llvm.arm.mve.vqrdmulh"),
                    ValueRange{value, vectorOf(scale.getMultiplier())})
                    .getResult(0);
      } else if (how.kind == LaneScale::Rounding) {
        value = mveApplyScale(k, value, vectorOf(scale.getMultiplier()),
                              vectorOf(scale.getShift()));
      } else if (how.log2Multiplier >= how.shift) {
        if (how.log2Multiplier > how.shift)
          value = arith::ShLIOp::create(
              b, loc, value,
              k.splat(k.int32(how.log2Multiplier - how.shift), lanes));
      } else {
        value = mveRoundingShiftRight(
            k, value, k.splat(k.int32(how.log2Multiplier - how.shift), lanes));
      }
      mapping.map(scale.getResult(), value);
      continue;
    }
    for (Value operand : op.getOperands())
      (void)vectorOf(operand);
    Operation *clone = b.clone(op, mapping);
    for (OpResult result : clone->getResults())
      result.setType(VectorType::get({lanes}, result.getType()));
  }
  return vectorOf(body.getTerminator()->getOperand(0));
}

/// A convolution's accumulator buffer fused away: `init` (a linalg.fill, or
/// a generic such as the bias broadcast) writes it before the convolution,
/// `consumer` (the requantization generic) reads it after, nothing else uses
/// it, and nothing between them but the convolution touches memory. The
/// kernel then starts from init's values and ends with the consumer's
/// results, all in registers: the buffer (a tile of the accumulator,
/// serenity-fuse-requantization) is never allocated.
struct AccumulatorFusion {
  memref::AllocOp alloc;
  Operation *init;
  linalg::GenericOp consumer;
};

/// True when `generic` is all parallel, static, reads neither its output
/// nor linalg.index, and iterates exactly over `shape`.
bool isSimplePointwise(linalg::GenericOp generic, ArrayRef<int64_t> shape) {
  return generic.getNumLoops() == generic.getNumParallelLoops() &&
         generic.getNumDpsInits() == 1 && !generic.hasIndexSemantics() &&
         generic.getRegion().front().getArguments().back().use_empty() &&
         llvm::equal(generic.getStaticLoopRanges(), shape);
}

/// `block`: the kernel's channels per block; the buffer must be one block
/// (one pixel, `block` channels), whose elements are then the constant
/// points (0, 0, 0, i[, 0]).
std::optional<AccumulatorFusion> matchFusion(Operation *conv, Value acc,
                                             int64_t block) {
  auto alloc = acc.getDefiningOp<memref::AllocOp>();
  if (!alloc || alloc->getBlock() != conv->getBlock() ||
      !alloc.getType().hasStaticShape() ||
      !alloc.getType().getLayout().isIdentity() ||
      alloc.getType().getNumElements() != block ||
      alloc.getType().getDimSize(3) != block)
    return std::nullopt;
  ArrayRef<int64_t> shape = alloc.getType().getShape();
  auto identityOn = [&](linalg::GenericOp generic, OpOperand *operand) {
    return generic.getMatchingIndexingMap(operand).isIdentity();
  };
  AccumulatorFusion fusion{alloc, nullptr, {}};
  for (OpOperand &use : alloc->getUses()) {
    Operation *user = use.getOwner();
    if (user == conv)
      continue;
    if (user->getBlock() != conv->getBlock())
      return std::nullopt;
    bool before = user->isBeforeInBlock(conv);
    if (auto fill = dyn_cast<linalg::FillOp>(user)) {
      if (!before || fusion.init)
        return std::nullopt;
      fusion.init = user;
      continue;
    }
    auto generic = dyn_cast<linalg::GenericOp>(user);
    if (!generic || !isSimplePointwise(generic, shape))
      return std::nullopt;
    if (before && !fusion.init && generic.getDpsInits()[0] == acc &&
        identityOn(generic, generic.getDpsInitOperand(0))) {
      fusion.init = user;
      continue;
    }
    if (!before && !fusion.consumer && generic.getDpsInits()[0] != acc &&
        use.getOperandNumber() < generic.getNumDpsInputs() &&
        identityOn(generic, &use)) {
      fusion.consumer = generic;
      continue;
    }
    return std::nullopt;
  }
  if (!fusion.init || !fusion.consumer ||
      llvm::count(fusion.consumer->getOperands(), acc) != 1)
    return std::nullopt;
  for (Operation *op = fusion.init->getNextNode(); op != fusion.consumer;
       op = op->getNextNode())
    if (op != conv && !isMemoryEffectFree(op))
      return std::nullopt;
  return fusion;
}

/// Loops over the output pixels (n, oh, ow) and blocks of `block` channels
/// of `output` ([n, oh, ow, c], or [n, oh, ow, c, 1] for a depthwise conv);
/// `body` gets the pixel indices, the block's first channel and its
/// accumulators and returns them updated. The accumulators come from the
/// output and go back to it, or, with `fusion`, come from its init and go
/// through its consumer.
void forEachOutputBlock(
    KernelBuilder &k, Value output, int64_t block,
    const std::optional<AccumulatorFusion> &fusion,
    function_ref<SmallVector<Value>(ValueRange, Value, ValueRange)> body,
    bool consumerLanes = false) {
  OpBuilder &b = k.b;
  Location loc = k.loc;
  const int64_t rank = cast<MemRefType>(output.getType()).getRank();
  Value zero = k.index(0), one = k.index(1);
  // Static sizes as constants (a fused accumulator buffer then has no use
  // left and goes away).
  auto dim = [&](int d) -> Value {
    int64_t size = cast<MemRefType>(output.getType()).getDimSize(d);
    if (!ShapedType::isDynamic(size))
      return k.index(size);
    return memref::DimOp::create(b, loc, output, d);
  };
  Value n = dim(0), oh = dim(1), ow = dim(2), oc = dim(3);
  // Element i of the block (fused: a constant point of the tile).
  auto indexOf = [&](ValueRange ivs, int64_t i) {
    SmallVector<Value> index{ivs[0], ivs[1], ivs[2], k.add(ivs[3], k.index(i))};
    if (rank == 5)
      index.push_back(zero);
    return index;
  };
  auto pointOf = [&](int64_t i) {
    SmallVector<int64_t> point(rank, 0);
    point[3] = i;
    return point;
  };
  scf::buildLoopNest(
      b, loc, ValueRange{zero, zero, zero, zero}, ValueRange{n, oh, ow, oc},
      ValueRange{one, one, one, k.index(block)},
      [&](OpBuilder &nested, Location, ValueRange ivs) {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPoint(nested.getInsertionBlock(),
                            nested.getInsertionPoint());
        SmallVector<Value> accs;
        for (int64_t i = 0; i < block; ++i) {
          if (!fusion) {
            accs.push_back(
                memref::LoadOp::create(b, loc, output, indexOf(ivs, i)));
          } else if (auto fill = dyn_cast<linalg::FillOp>(fusion->init)) {
            accs.push_back(fill.getInputs()[0]);
          } else {
            accs.push_back(evaluateAt(b, loc,
                                      cast<linalg::GenericOp>(fusion->init),
                                      pointOf(i), Value(), Value()));
          }
        }
        accs = body(ivs.take_front(3), ivs[3], accs);
        if (fusion && consumerLanes) {
          // The consumer once for the block, one lane per channel.
          linalg::GenericOp consumer = fusion->consumer;
          Value results = evaluateLanes(k, consumer, block, pointOf, output,
                                        k.pack(accs));
          Value result = consumer.getDpsInits()[0];
          AffineMap resultMap =
              consumer.getMatchingIndexingMap(consumer.getDpsInitOperand(0));
          // Not into a function argument (an output): serenity-static-alloc
          // finds an output's first write among its memref uses, and a
          // store through a raw address is none.
          Value address;
          if (!isa<BlockArgument>(rootOf(result)))
            address = lanesAddress(k, result, resultMap, block, pointOf);
          if (address) {
            LLVM::StoreOp::create(
                b, loc, results, address,
                cast<MemRefType>(result.getType()).getElementTypeBitWidth() /
                    8);
            return;
          }
          for (int64_t i = 0; i < block; ++i)
            memref::StoreOp::create(
                b, loc, k.laneOf(results, i), consumer.getDpsInits()[0],
                constantIndices(b, loc,
                                consumer.getMatchingIndexingMap(
                                    consumer.getDpsInitOperand(0)),
                                pointOf(i)));
          return;
        }
        for (int64_t i = 0; i < block; ++i) {
          if (!fusion) {
            memref::StoreOp::create(b, loc, accs[i], output, indexOf(ivs, i));
            continue;
          }
          linalg::GenericOp consumer = fusion->consumer;
          Value result =
              evaluateAt(b, loc, consumer, pointOf(i), output, accs[i]);
          memref::StoreOp::create(
              b, loc, result, consumer.getDpsInits()[0],
              constantIndices(b, loc,
                              consumer.getMatchingIndexingMap(
                                  consumer.getDpsInitOperand(0)),
                              pointOf(i)));
        }
      });
}

/// The taps of one output block, by window: `taps(rows, cols, folded,
/// accs)` with constant bounds (the window dimensions `spatial`, `spatial` +
/// 1 of the filter's constant global `root`, and `fold`) where the window is
/// the whole filter, and the window's own bounds `size` (not folded) where
/// it is clipped at the border; the static sizes of the view `filter` may
/// settle it at compile time. Without a `root`: the window's own bounds.
using TapsFn = function_ref<SmallVector<Value>(Value, Value, bool, ValueRange)>;
SmallVector<Value> byWindow(KernelBuilder &k, std::array<Value, 2> size,
                            Value filter, memref::GlobalOp root,
                            unsigned spatial, bool fold, ValueRange accs,
                            TapsFn taps) {
  if (!root)
    return taps(size[0], size[1], false, accs);
  auto filterType = cast<MemRefType>(filter.getType());
  std::array<int64_t, 2> staticSize = {filterType.getDimSize(spatial),
                                       filterType.getDimSize(spatial + 1)};
  std::array<int64_t, 2> whole = {root.getType().getDimSize(spatial),
                                  root.getType().getDimSize(spatial + 1)};
  Value rows = k.index(whole[0]), cols = k.index(whole[1]);
  if (staticSize == whole)
    return taps(rows, cols, fold, accs);
  OpBuilder &b = k.b;
  Value isWhole = arith::AndIOp::create(
      b, k.loc,
      arith::CmpIOp::create(b, k.loc, arith::CmpIPredicate::eq, size[0], rows),
      arith::CmpIOp::create(b, k.loc, arith::CmpIPredicate::eq, size[1], cols));
  return k.ifElse(
      isWhole, accs.getTypes(), [&] { return taps(rows, cols, fold, accs); },
      [&] { return taps(size[0], size[1], false, accs); });
}

/// Erases what a lowered convolution leaves: the op itself and, fused, its
/// accumulator's init, consumer and allocation.
void eraseLowered(Operation *conv,
                  const std::optional<AccumulatorFusion> &fusion) {
  conv->erase();
  if (!fusion)
    return;
  fusion->consumer->erase();
  fusion->init->erase();
  if (fusion->alloc->use_empty())
    fusion->alloc->erase();
}

/// True when the view `filter` has the strides of its contiguous global
/// `root` (unit steps, so an offset divided by a stride is an index), and
/// keeps all of the root's dimension `keep` (e.g. every input channel).
bool viewsWholeRows(Value filter, memref::GlobalOp root, unsigned keep) {
  auto type = cast<MemRefType>(filter.getType());
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)) ||
      type.getRank() != root.getType().getRank())
    return false;
  ArrayRef<int64_t> shape = root.getType().getShape();
  int64_t expected = 1;
  for (int64_t d = type.getRank() - 1; d >= 0; --d) {
    if (strides[d] != expected)
      return false;
    expected *= shape[d];
  }
  return type.getDimSize(keep) == shape[keep];
}

/// Filters widened at compile time: for each constant int8 filter global,
/// a global of int16 values in groups of four reordered (w0, w2, w1, w3), so
/// that the 32-bit words at 8g and 8g + 4 are the lanes SXTB16 makes of the
/// input word (bytes 0/2 and 1/3): the kernel loads them (LDRD) instead of
/// widening the weights for every output pixel. Twice the flash of the
/// filter; the int8 global goes away when nothing else reads it.
class WidenedFilters {
public:
  explicit WidenedFilters(ModuleOp module) : module(module), symbols(module) {}

  /// The int8 global `filter` is a view of (through subviews), or null.
  memref::GlobalOp sourceOf(Value filter) {
    while (auto subview = filter.getDefiningOp<memref::SubViewOp>())
      filter = subview.getSource();
    auto getGlobal = filter.getDefiningOp<memref::GetGlobalOp>();
    if (!getGlobal)
      return {};
    auto global = symbols.lookup<memref::GlobalOp>(getGlobal.getName());
    if (!global || !global.getConstant() ||
        !isa_and_nonnull<DenseElementsAttr>(global.getConstantInitValue()) ||
        !global.getType().getElementType().isInteger(8) ||
        global.getType().getNumElements() % 4 != 0)
      return {};
    return global;
  }

  /// The global of a conv filter view that can be read from a widened copy:
  /// a multiple of four input channels, all of the global's, so that runs
  /// of whole words start at word boundaries. Null otherwise.
  memref::GlobalOp widenable(Value filter) {
    auto type = dyn_cast<MemRefType>(filter.getType());
    if (!type || type.getRank() != 4)
      return {};
    int64_t channels = type.getDimSize(3);
    memref::GlobalOp root = sourceOf(filter);
    if (!root || root.getType().getRank() != 4 ||
        ShapedType::isDynamic(channels) || channels % 4 != 0 ||
        root.getType().getDimSize(3) != channels)
      return {};
    return root;
  }

  /// Whether `global` may be widened (all may, unless restrictTo was
  /// called).
  bool mayWiden(memref::GlobalOp global) const {
    return !restricted || allowed.contains(global.getOperation());
  }
  /// Only the globals in `chosen` may be widened.
  void restrictTo(const llvm::DenseSet<Operation *> &chosen) {
    restricted = true;
    allowed = chosen;
  }

  /// The widened copy of `global` (created once).
  memref::GlobalOp widened(memref::GlobalOp global) {
    auto it = copies.find(global);
    if (it != copies.end())
      return it->second;
    auto values = cast<DenseElementsAttr>(global.getConstantInitValue());
    SmallVector<int16_t> wide;
    wide.reserve(values.getNumElements());
    auto bytes = llvm::to_vector(values.getValues<int8_t>());
    for (size_t g = 0; g + 3 < bytes.size(); g += 4)
      for (int k : {0, 2, 1, 3})
        wide.push_back(bytes[g + k]);
    auto type =
        RankedTensorType::get({static_cast<int64_t>(wide.size())},
                              IntegerType::get(global.getContext(), 16));
    memref::GlobalOp copy = addGlobal(
        global, "_smlad", DenseElementsAttr::get(type, ArrayRef(wide)),
        /*alignment=*/8);
    // Which filter this copy stands for (serenity-profile-marks reports it:
    // per-layer profiles name the widened filters by their int8 global).
    copy->setAttr(mlir::serenity::kWidenedFrom,
                  FlatSymbolRefAttr::get(global.getSymNameAttr()));
    return copies[global] = copy;
  }

  /// A global of the sums of `global`'s weights per channel of its
  /// dimension `channelDim` (0: a conv filter's output channels, 2: a
  /// depthwise filter's channels), created once.
  memref::GlobalOp sums(memref::GlobalOp global, int channelDim = 0) {
    auto key = std::make_pair(global.getOperation(), channelDim);
    auto it = sumCopies.find(key);
    if (it != sumCopies.end())
      return it->second;
    auto values = cast<DenseElementsAttr>(global.getConstantInitValue());
    auto bytes = llvm::to_vector(values.getValues<int8_t>());
    ArrayRef<int64_t> shape = global.getType().getShape();
    int64_t channels = shape[channelDim], inner = 1;
    for (int64_t d = channelDim + 1; d < static_cast<int64_t>(shape.size());
         ++d)
      inner *= shape[d];
    SmallVector<int32_t> sums(channels, 0);
    for (int64_t e = 0, n = static_cast<int64_t>(bytes.size()); e < n; ++e)
      sums[(e / inner) % channels] += bytes[e];
    auto type = RankedTensorType::get(
        {channels}, IntegerType::get(global.getContext(), 32));
    return sumCopies[key] = addGlobal(
               global, channelDim == 0 ? "_sums" : "_channel_sums",
               DenseElementsAttr::get(type, ArrayRef(sums)), /*alignment=*/4);
  }

  /// Erases the int8 globals (and their dead views) nothing reads any more.
  void eraseUnused() {
    if (copies.empty())
      return;
    // The reads of the widened globals, found in one walk.
    SmallVector<memref::GetGlobalOp> reads;
    module.walk([&](memref::GetGlobalOp read) {
      if (auto global = symbols.lookup<memref::GlobalOp>(read.getName()))
        if (copies.count(global))
          reads.push_back(read);
    });
    for (memref::GetGlobalOp read : reads)
      eraseDeadViews(read.getResult());
    for (auto &entry : copies) {
      auto global = cast<memref::GlobalOp>(entry.first);
      if (SymbolTable::symbolKnownUseEmpty(global, module))
        global.erase();
    }
    copies.clear();
  }

private:
  /// A private constant global next to `global`, named after it.
  memref::GlobalOp addGlobal(memref::GlobalOp global, StringRef suffix,
                             DenseElementsAttr value, int64_t alignment) {
    OpBuilder b(global);
    auto type = MemRefType::get(value.getType().getShape(),
                                value.getType().getElementType());
    auto copy = memref::GlobalOp::create(
        b, global.getLoc(), (global.getSymName() + suffix).str(),
        b.getStringAttr("private"), type, value, /*constant=*/true,
        b.getI64IntegerAttr(alignment));
    symbols.insert(copy);
    return copy;
  }

  static void eraseDeadViews(Value value) {
    for (Operation *user : llvm::make_early_inc_range(value.getUsers()))
      if (auto subview = dyn_cast<memref::SubViewOp>(user))
        eraseDeadViews(subview.getResult());
    if (Operation *def = value.getDefiningOp(); def && def->use_empty())
      def->erase();
  }

  ModuleOp module;
  SymbolTable symbols;
  llvm::DenseMap<Operation *, memref::GlobalOp> copies;
  llvm::DenseMap<std::pair<Operation *, int>, memref::GlobalOp> sumCopies;
  bool restricted = false;
  llvm::DenseSet<Operation *> allowed;
};

/// The accumulators `accs` plus the dot products of one run of `length`
/// bytes of the input at `inBase` + `inRun` with the runs of the filter at
/// `filterBase` + `filterRuns[i]`, input zero point `zero` subtracted: 16
/// bytes per step, the last partial vector a masked load (a constant number
/// of lanes when the length is constant, else under an scf.if).
SmallVector<Value> vectorRun(KernelBuilder &k, Value inBase, Value inRun,
                             Value filterBase, ArrayRef<Value> filterRuns,
                             Value length, Value zero, ValueRange accs) {
  OpBuilder &b = k.b;
  Location loc = k.loc;
  Value sixteen = k.index(16);
  Value whole = b.createOrFold<arith::MulIOp>(
      loc, b.createOrFold<arith::DivUIOp>(loc, length, sixteen), sixteen);
  Value rest = b.createOrFold<arith::SubIOp>(loc, length, whole);
  auto step = [&](Value j, ValueRange accs, Value count) {
    auto load = [&](Value address) {
      return count ? k.loadVectorHead(address, count) : k.loadVector(address);
    };
    Value x = load(k.at(inBase, k.add(inRun, j)));
    SmallVector<Value> next;
    for (auto [i, acc] : llvm::enumerate(accs))
      next.push_back(k.dot16(
          x, zero, load(k.at(filterBase, k.add(filterRuns[i], j))), acc));
    return next;
  };
  SmallVector<Value> updated =
      k.loopOrUnrolled(k.index(0), whole, sixteen, accs,
             [&](Value j, ValueRange accs) { return step(j, accs, {}); }, 4);
  std::optional<int64_t> restValue = getConstantIntValue(rest);
  if (restValue == 0)
    return updated;
  if (restValue)
    return step(whole, updated, rest);
  Value any = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, rest,
                                    k.index(0));
  return k.ifElse(
      any, ValueRange(updated).getTypes(),
      [&] { return step(whole, updated, rest); },
      [&] { return updated; });
}

/// A whole convolution window read as one run: `bytes` filter bytes per
/// output channel (rows x cols x channels, contiguous) and the input bytes
/// at `offsets` (< 256) from the window's first input byte.
struct WindowGather {
  int64_t rows, cols, bytes;
  SmallVector<int64_t> offsets;
  /// The window row and column of each byte.
  SmallVector<int64_t> rowOf, colOf;
};

/// A clipped window read as the whole one: only the taps in rows
/// [row0, row0 + rows) and columns [col0, col0 + cols) are loaded, the
/// others (the padding) read as `pad` (the input zero point: they then add
/// nothing once the zero point is folded over the whole window).
struct WindowClip {
  Value row0, rows, col0, cols, pad;
};

/// The gather of a whole window of the filter global `root` when the view
/// `filterType` keeps each output channel's window contiguous (the root's
/// strides, all of its rows, columns and channels) and the input offsets
/// fit VLDRB's 8-bit offsets; nothing otherwise.
std::optional<WindowGather> windowGather(memref::GlobalOp root,
                                         MemRefType filterType,
                                         ArrayRef<int64_t> inStrides,
                                         ArrayRef<int64_t> dilations) {
  ArrayRef<int64_t> shape = root.getType().getShape();
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(filterType.getStridesAndOffset(strides, offset)) ||
      strides[3] != 1 || strides[2] != shape[3] ||
      strides[1] != shape[2] * shape[3] || filterType.getDimSize(3) != shape[3])
    return std::nullopt;
  WindowGather gather{shape[1], shape[2], shape[1] * shape[2] * shape[3], {}, {}, {}};
  for (int64_t r = 0; r < shape[1]; ++r)
    for (int64_t c = 0; c < shape[2]; ++c)
      for (int64_t ch = 0; ch < shape[3]; ++ch) {
        int64_t at = r * dilations[0] * inStrides[1] +
                     c * dilations[1] * inStrides[2] + ch;
        if (at > 255)
          return std::nullopt;
        gather.offsets.push_back(at);
        gather.rowOf.push_back(r);
        gather.colOf.push_back(c);
      }
  return gather;
}

/// `accs` plus the dot products of a whole window: the input gathered
/// from `window` (its first byte) 16 bytes at a time, each channel's filter
/// bytes at `filterBase` + `filterOffsets[i]` read as one run, the last
/// vector masked; input zero point `zero` subtracted (dot16).
SmallVector<Value> gatheredWindow(KernelBuilder &k, const WindowGather &gather,
                                  Value window, Value filterBase,
                                  ArrayRef<Value> filterOffsets, Value zero,
                                  ValueRange accs,
                                  const std::optional<WindowClip> &clip = {}) {
  OpBuilder &b = k.b;
  Location loc = k.loc;
  SmallVector<Value> next(accs);
  auto offsetType = VectorType::get({16}, k.ptrInt);
  auto maskType = VectorType::get({16}, b.getI1Type());
  auto ptrs = VectorType::get({16}, k.ptr);
  // Clipped: lane bounds as int8 lanes (window sizes are below 256).
  auto byteLanes = [&](Value index) {
    return k.splat(arith::IndexCastOp::create(b, loc, k.i8, index), 16);
  };
  Value rowLow, rowHigh, colLow, colHigh, padLanes;
  if (clip) {
    rowLow = byteLanes(clip->row0);
    rowHigh = byteLanes(clip->rows);
    colLow = byteLanes(clip->col0);
    colHigh = byteLanes(clip->cols);
    padLanes = k.splat(clip->pad, 16);
  }
  for (int64_t first = 0; first < gather.bytes; first += 16) {
    const int64_t count = std::min<int64_t>(16, gather.bytes - first);
    SmallVector<APInt> offsets;
    SmallVector<bool> active;
    for (int64_t j = 0; j < 16; ++j) {
      offsets.push_back(APInt(k.ptrInt.getIntOrFloatBitWidth(),
                              j < count ? gather.offsets[first + j] : 0));
      active.push_back(j < count);
    }
    Value offsetVector = arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(offsetType, offsets));
    Value mask = arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(maskType, ArrayRef<bool>(active)));
    Value addresses = LLVM::GEPOp::create(b, loc, ptrs, k.i8, window,
                                          ValueRange{offsetVector});
    Value passThrough = arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(k.bytes16, APInt(8, 0)));
    if (clip) {
      auto lanesOf = [&](ArrayRef<int64_t> values) {
        SmallVector<APInt> lanes;
        for (int64_t j = 0; j < 16; ++j)
          lanes.push_back(APInt(8, j < count ? values[first + j] : 0));
        return arith::ConstantOp::create(
            b, loc, DenseElementsAttr::get(k.bytes16, lanes));
      };
      Value rows = lanesOf(gather.rowOf), cols = lanesOf(gather.colOf);
      // low <= at < high as one unsigned compare: at - low <u high - low.
      auto inside = [&](Value at, Value low, Value size) {
        return arith::CmpIOp::create(
            b, loc, arith::CmpIPredicate::ult,
            arith::SubIOp::create(b, loc, at, low), size);
      };
      mask = arith::AndIOp::create(
          b, loc, mask,
          arith::AndIOp::create(b, loc, inside(rows, rowLow, rowHigh),
                                inside(cols, colLow, colHigh)));
      passThrough = padLanes;
    }
    Value x = LLVM::masked_gather::create(b, loc, k.bytes16, addresses, mask,
                                          passThrough, /*alignment=*/1);
    for (auto [i, offset] : llvm::enumerate(filterOffsets)) {
      Value at = k.at(filterBase, k.add(offset, k.index(first)));
      Value w = count == 16 ? k.loadVector(at)
                            : k.loadVectorHead(at, k.index(count));
      next[i] = k.dot16(x, zero, w, next[i]);
    }
  }
  return next;
}

/// linalg.conv_2d_nhwc_fhwc_q: out[n,oh,ow,f] += sum over (kh, kw, c) of
/// (in[n, oh*sh + kh*dh, ow*sw + kw*dw, c] - zi) * filter[f, kh, kw, c].
/// For each (kh, kw) the c values are contiguous in both operands; with
/// unit column dilation and rows of exactly C elements, so is the whole
/// (kw, c) row of the window: one run of KW*C bytes per kh.
template <typename ConvOp>
LogicalResult lowerConv(ConvOp conv, KernelMode mode,
                        WidenedFilters &filters) {
  const bool vector = mode.isa == Isa::Vector;
  auto operands = matchKernelOperands(conv, conv.getStrides(),
                                      conv.getDilations(), mode.isa == Isa::Dsp);
  if (!operands)
    return failure();
  auto filterType = cast<MemRefType>(operands->filter.getType());
  int64_t channels = filterType.getDimSize(3);
  if (ShapedType::isDynamic(channels))
    return failure();
  const SmallVector<int64_t> &is = operands->inStrides,
                             &fs = operands->filterStrides;
  bool merged =
      operands->dilations[1] == 1 && is[2] == channels && fs[2] == channels;
  int64_t block =
      channelBlock(cast<MemRefType>(operands->output.getType()).getDimSize(3));
  // The filter's constant global, if it is a view of one: whole windows
  // (its [KH, KW]) get loops with constant bounds and, with a non-zero
  // input zero point, the zero point folded into the start values; runs of
  // whole words from word boundaries (a multiple of four input channels,
  // every input channel in the view) read its widened copy.
  memref::GlobalOp root = filters.sourceOf(operands->filter);
  if (root && root.getType().getRank() != 4)
    root = {};
  // (Vector kernels read the int8 filter: no widened copy.)
  memref::GlobalOp source =
      vector ? memref::GlobalOp() : filters.widenable(operands->filter);
  if (source && !filters.mayWiden(source))
    source = {};

  // Fused: emitted where the consumer is (its operands are defined by then).
  std::optional<AccumulatorFusion> fusion =
      matchFusion(conv, operands->output, block);
  OpBuilder b(fusion ? fusion->consumer.getOperation() : conv.getOperation());
  KernelBuilder k(b, conv.getLoc(), mode);
  Location loc = conv.getLoc();
  // Helium: the requantization of a block of four channels in one vector.
  const bool consumerLanes = vector && mode.pointers32 && block == 4 &&
                             fusion && canEvaluateLanes(fusion->consumer);
  Value inBase = k.basePointer(operands->input);
  // The filter view's element offset in its buffer: the int8 global's, or
  // at two bytes per element the int16 copy's.
  auto filterMetadata =
      memref::ExtractStridedMetadataOp::create(b, loc, operands->filter);
  Value filterData = operands->filter;
  if (source) {
    memref::GlobalOp copy = filters.widened(source);
    filterData =
        memref::GetGlobalOp::create(b, loc, copy.getType(), copy.getSymName());
  }
  Value filterBase =
      k.pointer(filterData, k.mul(filterMetadata.getOffset(), source ? 2 : 1));
  Value zeroPoint = operands->inputZero ? operands->inputZero : k.int32(0);
  // In a whole window sum (x - z) w = sum x w - z sum w: the accumulators
  // start at bias - z * (sum of the channel's weights). The view of a whole
  // window starts at [f0, 0, 0, 0], so its offset / stride is f0.
  // The view must hold every input channel (the sums add them all) and
  // have the root's strides (the offset / stride is the first channel).
  const bool fold = root && !matchPattern(zeroPoint, m_Zero()) &&
                    viewsWholeRows(operands->filter, root, /*keep=*/3);
  Value firstChannel, weightSums;
  if (fold) {
    memref::GlobalOp table = filters.sums(root);
    weightSums = memref::GetGlobalOp::create(b, loc, table.getType(),
                                             table.getSymName());
    firstChannel = arith::DivUIOp::create(b, loc, filterMetadata.getOffset(),
                                          k.index(fs[0]));
  }
  Value noZero = k.int32(0), zeroPair = k.zeroPair(zeroPoint);
  Value zero = k.index(0), one = k.index(1), four = k.index(4);
  Value kh = memref::DimOp::create(b, loc, operands->filter, 1);
  Value kw = memref::DimOp::create(b, loc, operands->filter, 2);
  // Vector kernels, windows whose rows are short runs (fewer than 16
  // bytes, e.g. a first layer's 1-3 channels): a whole window is one run of
  // the filter (every column and channel of each filter row in the view)
  // and its input bytes, at constant offsets below 256 from the window's
  // first byte, are gathered 16 at a time (VLDRB.U8 with an offset vector).
  std::optional<WindowGather> gather;
  if (vector && root && (merged ? root.getType().getDimSize(2) * channels
                                : channels) < 16)
    gather = windowGather(root, filterType, is, operands->dilations);
  // The input zero point as the byte clipped windows' padding reads (a
  // constant within int8), or null when it is 0.
  Value pad;
  if (gather && !matchPattern(zeroPoint, m_Zero())) {
    APInt z;
    if (matchPattern(zeroPoint, m_ConstantInt(&z)) && z.getSExtValue() >= -128 &&
        z.getSExtValue() <= 127)
      pad = arith::ConstantIntOp::create(b, loc, k.i8, z.getSExtValue());
    else
      gather.reset();
  }

  forEachOutputBlock(
      k, operands->output, block, fusion,
      [&](ValueRange pixel, Value channel, ValueRange accs) {
        Value rowBase = k.mul(pixel[1], operands->strides[0]);
        Value colBase = k.mul(pixel[2], operands->strides[1]);
        Value pixelOffset = k.mul(pixel[0], is[0]);
        SmallVector<Value> filterOffsets;
        for (int64_t i = 0; i < block; ++i)
          filterOffsets.push_back(k.mul(k.add(channel, k.index(i)), fs[0]));
        // The window's rows x cols taps, the zero point subtracted per
        // input word or (folded) taken out.
        auto taps = [&](Value rows, Value cols, bool folded,
                        ValueRange startValues) {
          Value z = folded ? noZero : zeroPoint;
          Value pair = folded ? Value() : zeroPair;
          Value runLength = merged ? k.mul(cols, channels) : k.index(channels);
          Value columnTrips = merged ? one : cols;
          // Whole words of the run, then the bytes left.
          Value words = arith::MulIOp::create(
              b, loc, arith::DivUIOp::create(b, loc, runLength, four), four);
          SmallVector<Value> start(startValues);
          if (folded)
            k.subtractZeroTimesSums(start, zeroPoint, weightSums,
                                    k.add(firstChannel, channel));
          Value first = k.add(pixelOffset, k.add(k.mul(rowBase, is[1]),
                                                 k.mul(colBase, is[2])));
          if (gather && getConstantIntValue(rows) == gather->rows &&
              getConstantIntValue(cols) == gather->cols)
            return gatheredWindow(k, *gather, k.at(inBase, first), filterBase,
                                  filterOffsets, z, start);
          // (Windows of more than 16 taps only: measured on the M55, kws's
          // first layer (10x4, half its windows clipped) falls from 474k to
          // about 290k instructions this way, while ResNet's first (3x3,
          // few clipped) rises by 45 %: the masks' vector constants spill.)
          if (gather && !folded && (fold || !pad) &&
              gather->rows * gather->cols > 16) {
            // A clipped window as the whole one with its padding read as
            // the zero point (folded over the whole window, as above). The
            // view starts at [f, row0, col0, 0] of the filter global.
            // (modulo the global's window: the view may step over output
            // channels).
            Value inFilter = arith::RemUIOp::create(
                b, loc, filterMetadata.getOffset(), k.index(gather->bytes));
            Value row0 = arith::DivUIOp::create(b, loc, inFilter,
                                                k.index(fs[1]));
            Value col0 = arith::DivUIOp::create(
                b, loc,
                arith::RemUIOp::create(b, loc, inFilter, k.index(fs[1])),
                k.index(fs[2]));
            Value windowStart = arith::SubIOp::create(
                b, loc, first,
                k.add(k.mul(row0, operands->dilations[0] * is[1]),
                      k.mul(col0, operands->dilations[1] * is[2])));
            SmallVector<Value> wholeFilters;
            for (Value offset : filterOffsets)
              wholeFilters.push_back(
                  arith::SubIOp::create(b, loc, offset, inFilter));
            SmallVector<Value> base(startValues);
            if (fold)
              k.subtractZeroTimesSums(base, zeroPoint, weightSums,
                                      k.add(firstChannel, channel));
            return gatheredWindow(
                k, *gather, k.at(inBase, windowStart), filterBase,
                wholeFilters, noZero, base,
                WindowClip{row0, rows, col0, cols, pad ? pad : k.i8Zero()});
          }
          // Helium: whole windows' short row and column loops unrolled.
          const int64_t unroll = vector ? 4 : 0;
          return k.loopOrUnrolled(zero, rows, one, start, [&](Value r, ValueRange accs) {
            Value row = k.add(rowBase, k.mul(r, operands->dilations[0]));
            Value inRow = k.add(pixelOffset, k.mul(row, is[1]));
            return k.loopOrUnrolled(
                zero, columnTrips, one, accs, [&](Value c, ValueRange accs) {
                  Value col = k.add(colBase, k.mul(c, operands->dilations[1]));
                  Value inRun = k.add(inRow, k.mul(col, is[2]));
                  Value filterRun = k.add(k.mul(r, fs[1]), k.mul(c, fs[2]));
                  SmallVector<Value> filterRuns;
                  for (Value offset : filterOffsets)
                    filterRuns.push_back(k.add(offset, filterRun));
                  if (vector)
                    return vectorRun(k, inBase, inRun, filterBase, filterRuns,
                                     runLength, z, accs);
                  SmallVector<Value> updated = k.loop(
                      zero, words, four, accs, [&](Value j, ValueRange accs) {
                        auto x = k.widenInput(
                            k.loadWord(k.at(inBase, k.add(inRun, j))), pair);
                        SmallVector<Value> next;
                        for (int64_t i = 0; i < block; ++i) {
                          Value offset = k.add(filterRuns[i], j);
                          next.push_back(
                              source
                                  ? k.dot4Widened(
                                        x, z,
                                        k.at(filterBase, k.mul(offset, 2)),
                                        accs[i])
                                  : k.dot4(x, z,
                                           k.loadWord(k.at(filterBase, offset)),
                                           accs[i]));
                        }
                        return next;
                      });
                  // Whole words only when the channels are (source).
                  if (source)
                    return updated;
                  return k.loop(
                      words, runLength, one, updated,
                      [&](Value j, ValueRange accs) {
                        Value x = arith::SubIOp::create(
                            b, loc, k.loadByte(k.at(inBase, k.add(inRun, j))),
                            z);
                        SmallVector<Value> next;
                        for (int64_t i = 0; i < block; ++i)
                          next.push_back(
                              k.add(accs[i],
                                    k.mul(x, k.loadByte(k.at(
                                                 filterBase,
                                                 k.add(filterRuns[i], j))))));
                        return next;
                      });
                }, unroll);
          }, unroll);
        };
        return byWindow(k, {kh, kw}, operands->filter, root, /*spatial=*/1,
                        fold, accs, taps);
      },
      consumerLanes);
  eraseLowered(conv, fusion);
  return success();
}

/// linalg.depthwise_conv_2d_nhwc_hwcm_q with one channel per group (m = 1):
/// out[n,oh,ow,c,0] += sum over (kh, kw) of (in[n, ih, iw, c] - zi) *
/// filter[kh, kw, c, 0]. Four consecutive channels are one word of the
/// input and one of the filter: each byte lane is its own accumulator.
template <typename ConvOp>
LogicalResult lowerDepthwise(ConvOp conv, KernelMode mode,
                             WidenedFilters &filters) {
  // Vector kernels: blocks of four channels as int32 lanes (VLDRB.S32 of
  // the input and the filter, VMLA); other channel counts take the DSP
  // kernels (Helium cores have the DSP extension) or the byte loops.
  const bool vector = mode.isa == Isa::Vector;
  const bool dsp = mode.isa == Isa::Dsp || (vector && mode.pointers32);
  auto operands =
      matchKernelOperands(conv, conv.getStrides(), conv.getDilations(), dsp);
  if (!operands)
    return failure();
  auto filterType = cast<MemRefType>(operands->filter.getType());
  auto outType = cast<MemRefType>(operands->output.getType());
  if (filterType.getDimSize(3) != 1 || outType.getRank() != 5 ||
      outType.getDimSize(4) != 1 ||
      ShapedType::isDynamic(outType.getDimSize(3)))
    return failure();
  int64_t channels = outType.getDimSize(3);
  // The filter's [c, m] dimensions: c has stride 1 when m = 1.
  SmallVector<int64_t> fs;
  int64_t offset;
  if (failed(filterType.getStridesAndOffset(fs, offset)) ||
      llvm::any_of(fs, ShapedType::isDynamic) || fs[2] != 1)
    return failure();
  const SmallVector<int64_t> &is = operands->inStrides;
  int64_t block = channels % 4 == 0 ? 4 : 1;
  const bool vectorLanes = vector && block == 4;
  if (vector && !vectorLanes)
    mode.isa = mode.pointers32 ? Isa::Dsp : Isa::Scalar;

  // The whole window (the filter global's [KH, KW]), when the filter is a
  // view of a constant global: windows clipped at the border get loops with
  // the clipped bounds, whole ones constant bounds (fully unrolled) and the
  // input zero point folded into the start values.
  memref::GlobalOp source = filters.sourceOf(operands->filter);
  if (source &&
      (source.getType().getRank() != 4 || source.getType().getDimSize(3) != 1))
    source = {};

  // Fused: emitted where the consumer is (its operands are defined by then).
  std::optional<AccumulatorFusion> fusion =
      matchFusion(conv, operands->output, block);
  OpBuilder b(fusion ? fusion->consumer.getOperation() : conv.getOperation());
  KernelBuilder k(b, conv.getLoc(), mode);
  Location loc = conv.getLoc();
  Value inBase = k.basePointer(operands->input);
  Value filterBase = k.basePointer(operands->filter);
  Value zeroPoint = operands->inputZero ? operands->inputZero : k.int32(0);
  Value zeroPair = k.zeroPair(zeroPoint);
  Value zero = k.index(0), one = k.index(1);
  Value kh = memref::DimOp::create(b, loc, operands->filter, 0);
  Value kw = memref::DimOp::create(b, loc, operands->filter, 1);
  Value weightSums, firstChannel;
  const bool fold = source && !matchPattern(zeroPoint, m_Zero()) &&
                    viewsWholeRows(operands->filter, source, /*keep=*/3);
  if (fold) {
    memref::GlobalOp table = filters.sums(source, /*channelDim=*/2);
    weightSums = memref::GetGlobalOp::create(b, loc, table.getType(),
                                             table.getSymName());
    // In a whole window the view starts at [0, 0, c0, 0]: its offset is c0.
    firstChannel =
        memref::ExtractStridedMetadataOp::create(b, loc, operands->filter)
            .getOffset();
  }
  Value noZero = k.int32(0);
  forEachOutputBlock(
      k, operands->output, block, fusion,
      [&](ValueRange pixel, Value channel, ValueRange accs) {
        Value rowBase = k.mul(pixel[1], operands->strides[0]);
        Value colBase = k.mul(pixel[2], operands->strides[1]);
        Value pixelOffset = k.add(k.mul(pixel[0], is[0]), channel);
        // The taps of a window of rows x cols, the zero point subtracted
        // per tap or (folded) taken out.
        auto taps = [&](Value rows, Value cols, bool folded, ValueRange start) {
          Value z = folded ? noZero : zeroPoint;
          Value pair = folded ? Value() : zeroPair;
          SmallVector<Value> accs(start);
          if (folded)
            k.subtractZeroTimesSums(accs, zeroPoint, weightSums,
                                    k.add(firstChannel, channel));
          // Vector lanes: the block's four accumulators as one int32
          // vector through the window.
          Value zeroLanes;
          if (vectorLanes) {
            if (!matchPattern(z, m_Zero()))
              zeroLanes = k.splat(z, 4);
            accs = {k.pack(accs)};
          }
          SmallVector<Value> result = k.loop(zero, rows, one, accs, [&](Value r, ValueRange accs) {
            Value row = k.add(rowBase, k.mul(r, operands->dilations[0]));
            Value inRow = k.add(pixelOffset, k.mul(row, is[1]));
            return k.loop(zero, cols, one, accs, [&](Value c, ValueRange accs) {
              Value col = k.add(colBase, k.mul(c, operands->dilations[1]));
              Value inAt = k.add(inRow, k.mul(col, is[2]));
              Value filterAt =
                  k.add(k.add(k.mul(r, fs[0]), k.mul(c, fs[1])), channel);
              SmallVector<Value> next;
              if (vectorLanes) {
                Value x = k.loadLanes(k.at(inBase, inAt));
                if (zeroLanes)
                  x = arith::SubIOp::create(b, loc, x, zeroLanes);
                Value w = k.loadLanes(k.at(filterBase, filterAt));
                next.push_back(
                    k.add(accs[0], arith::MulIOp::create(b, loc, x, w)));
                return next;
              }
              if (block == 4) {
                auto x = k.widenInput(k.loadWord(k.at(inBase, inAt)), pair);
                Value w = k.loadWord(k.at(filterBase, filterAt));
                for (int i = 0; i < 4; ++i)
                  next.push_back(k.lane(x, z, w, i, accs[i]));
                return next;
              }
              Value x = arith::SubIOp::create(
                  b, loc, k.loadByte(k.at(inBase, inAt)), z);
              next.push_back(k.add(
                  accs[0], k.mul(x, k.loadByte(k.at(filterBase, filterAt)))));
              return next;
            });
          });
          if (!vectorLanes)
            return result;
          SmallVector<Value> lanes;
          for (int64_t i = 0; i < 4; ++i)
            lanes.push_back(k.laneOf(result[0], i));
          return lanes;
        };
        return byWindow(k, {kh, kw}, operands->filter, source,
                        /*spatial=*/0, fold, accs, taps);
      },
      vectorLanes && mode.pointers32 && fusion &&
          canEvaluateLanes(fusion->consumer));
  eraseLowered(conv, fusion);
  return success();
}

/// Whether `value` is computed from `arg` (through the operands of the ops
/// that define it).
bool dependsOn(Value value, Value arg) {
  SmallVector<Value> work{value};
  llvm::DenseSet<Value> seen;
  while (!work.empty()) {
    Value v = work.pop_back_val();
    if (v == arg)
      return true;
    if (!seen.insert(v).second)
      continue;
    if (Operation *def = v.getDefiningOp())
      llvm::append_range(work, def->getOperands());
  }
  return false;
}

/// A loop nest of serenity-fuse-requantization: output rows, columns, then
/// blocks of channels (outermost first), a convolution's kernel innermost.
struct ChannelNest {
  scf::ForOp rows, cols, blocks;
};

/// `conv`'s nest when its loops may run in another order: the nest is
/// perfect (each loop's body is the next loop), its bounds constant, with
/// no loop-carried values, and its iterations independent: every buffer the
/// body writes that is not allocated in it is read nowhere in it (nests
/// serenity-in-place-convs wrote over their input never qualify) and is
/// written through views that depend on all three loop indices (each
/// iteration its own part). Every op of the body must declare its memory
/// effects. Checked before the kernel is emitted (its raw-pointer accesses
/// name no buffer).
std::optional<ChannelNest> reorderableNest(Operation *conv) {
  auto blocks = dyn_cast<scf::ForOp>(conv->getParentOp());
  auto cols = blocks ? dyn_cast<scf::ForOp>(blocks->getParentOp()) : nullptr;
  auto rows = cols ? dyn_cast<scf::ForOp>(cols->getParentOp()) : nullptr;
  if (!rows)
    return std::nullopt;
  auto perfect = [](scf::ForOp outer, scf::ForOp inner) {
    Block *body = outer.getBody();
    return body->getOperations().size() == 2 &&
           &body->front() == inner.getOperation() &&
           outer.getInitArgs().empty();
  };
  if (!perfect(rows, cols) || !perfect(cols, blocks) ||
      !blocks.getInitArgs().empty())
    return std::nullopt;
  std::optional<APInt> trips = blocks.getStaticTripCount();
  if (!trips || trips->getSExtValue() < 2 || !rows.getStaticTripCount() ||
      !cols.getStaticTripCount())
    return std::nullopt;

  // The body's reads and writes by buffer (local: allocated in the body).
  llvm::DenseSet<Value> read;
  SmallVector<std::pair<Value, Value>> written; // (root, view written)
  bool known = true;
  blocks.getBody()->walk([&](Operation *op) {
    auto effects = dyn_cast<MemoryEffectOpInterface>(op);
    if (!effects) {
      if (!op->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
        known = false;
      return;
    }
    SmallVector<MemoryEffects::EffectInstance> instances;
    effects.getEffects(instances);
    for (const MemoryEffects::EffectInstance &effect : instances) {
      if (isa<MemoryEffects::Allocate, MemoryEffects::Free>(
              effect.getEffect()))
        continue;
      Value value = effect.getValue();
      if (!value) {
        known = false;
        continue;
      }
      Value root = rootOf(value);
      if (blocks->isAncestor(root.getParentBlock()->getParentOp()))
        continue;
      if (isa<MemoryEffects::Write>(effect.getEffect()))
        written.emplace_back(root, value);
      else
        read.insert(root);
    }
  });
  if (!known)
    return std::nullopt;
  for (auto [root, view] : written)
    if (read.contains(root) ||
        !llvm::all_of(std::array<scf::ForOp, 3>{rows, cols, blocks},
                      [&, view = view](scf::ForOp loop) {
                        return dependsOn(view, loop.getInductionVar());
                      }))
      return std::nullopt;
  return ChannelNest{rows, cols, blocks};
}

/// Whether the blocks loop outermost saves work in the emitted kernel of
/// `nest`. Ops of the block's body that depend only on the block (its
/// bias, multipliers, shifts and weight sums read from constant tables)
/// run once per block and layer with the blocks outermost, and once per
/// pixel and block otherwise; ops that depend only on the pixel (its window,
/// clipped at the border, and the addresses in it) the other way round
/// (LLVM hoists each out of the loops it does not depend on). Counted as
/// ops (affine.min/max as one per expression; constants, views of the
/// tables and loop structure as none): the blocks go outermost when the
/// block-only ops outnumber the pixel-only ones. Measured on the Cortex-M4
/// (docs/Deploy.md): vww_96's 3x3 depthwise layers (8 to 32 channels) fall
/// from about 6 to 4 instructions per MAC; kws's first layer (one input
/// channel, a 10x4 window mostly clipped) would rise by 19 % and stays.
bool blocksFirstPays(ChannelNest nest, SymbolTable &symbols) {
  enum : unsigned { Pixel = 1, BlockIndex = 2, Varying = 4 };
  llvm::DenseMap<Value, unsigned> depends;
  Value row = nest.rows.getInductionVar(), col = nest.cols.getInductionVar(),
        block = nest.blocks.getInductionVar();
  auto dependsOf = [&](Value value) -> unsigned {
    if (value == row || value == col)
      return Pixel;
    if (value == block)
      return BlockIndex;
    auto it = depends.find(value);
    if (it != depends.end())
      return it->second;
    // Defined above the nest: 0; a block argument of a region in the body
    // (an inner loop's index or carried value): varying.
    if (nest.blocks->isAncestor(value.getParentBlock()->getParentOp()))
      return Varying;
    return 0;
  };
  // Reads of constant globals are invariant; other memory accesses vary.
  auto readsConstant = [&](Operation *op) {
    Value memref;
    if (auto load = dyn_cast<memref::LoadOp>(op))
      memref = load.getMemRef();
    else
      return false;
    auto global = rootOf(memref).getDefiningOp<memref::GetGlobalOp>();
    if (!global)
      return false;
    auto symbol = symbols.lookup<memref::GlobalOp>(global.getName());
    return symbol && symbol.getConstant();
  };
  int64_t pixelOnly = 0, blockOnly = 0;
  nest.blocks.getBody()->walk<WalkOrder::PreOrder>([&](Operation *op) {
    unsigned mask = 0;
    for (Value operand : op->getOperands())
      mask |= dependsOf(operand);
    bool effects = !isMemoryEffectFree(op) && !readsConstant(op);
    if (effects || op->getNumRegions())
      mask |= Varying;
    for (Value result : op->getResults())
      depends[result] = mask;
    if (op->hasTrait<OpTrait::ConstantLike>() || isa<ViewLikeOpInterface>(op))
      return;
    int64_t weight = 1;
    if (auto min = dyn_cast<affine::AffineMinOp>(op))
      weight = min.getMap().getNumResults();
    else if (auto max = dyn_cast<affine::AffineMaxOp>(op))
      weight = max.getMap().getNumResults();
    if (mask == Pixel)
      pixelOnly += weight;
    else if (mask == BlockIndex)
      blockOnly += weight;
  });
  return blockOnly > pixelOnly;
}

/// Reorders `nest` to blocks, rows, columns: the bounds (constants above
/// the nest) move with their loops, and so do the uses of each index.
void blocksOutermost(ChannelNest nest) {
  std::array<scf::ForOp, 3> loops{nest.rows, nest.cols, nest.blocks};
  std::array<std::array<Value, 3>, 3> bounds;
  std::array<SmallVector<OpOperand *>, 3> uses;
  for (auto [i, loop] : llvm::enumerate(loops)) {
    bounds[i] = {loop.getLowerBound(), loop.getUpperBound(), loop.getStep()};
    for (OpOperand &use : loop.getInductionVar().getUses())
      uses[i].push_back(&use);
  }
  const std::array<int, 3> from{2, 0, 1}; // loop i takes loop from[i]'s
  for (auto [i, loop] : llvm::enumerate(loops)) {
    loop.setLowerBound(bounds[from[i]][0]);
    loop.setUpperBound(bounds[from[i]][1]);
    loop.setStep(bounds[from[i]][2]);
    for (OpOperand *use : uses[from[i]])
      use->set(loop.getInductionVar());
  }
}

/// Multiply-accumulates `conv` performs per call of its function: its own
/// (output elements x window x input channels, the window of the filter's
/// global when the view is clipped) times the trip counts of the constant
/// loops around it (the tiles of serenity-fuse-requantization).
int64_t multiplyAccumulates(linalg::LinalgOp conv, memref::GlobalOp root) {
  auto output = cast<MemRefType>(conv.getDpsInits()[0].getType());
  if (!output.hasStaticShape())
    return 0;
  ArrayRef<int64_t> filter = root.getType().getShape();
  int64_t macs = output.getNumElements() * filter[1] * filter[2] * filter[3];
  for (auto loop = conv->getParentOfType<scf::ForOp>(); loop;
       loop = loop->getParentOfType<scf::ForOp>()) {
    if (std::optional<APInt> trips = loop.getStaticTripCount())
      macs *= trips->getSExtValue();
  }
  return macs;
}

/// The filter globals to widen within `budget` extra bytes (the int16 copy
/// adds the filter's size once its int8 global is gone): the set with the
/// most multiply-accumulates reading widened weights (solveKnapsack, exact
/// for these sizes).
llvm::DenseSet<Operation *>
chooseWidened(ArrayRef<std::pair<memref::GlobalOp, int64_t>> candidates,
              int64_t budget) {
  std::vector<::serenity::KnapsackItem> items;
  for (auto candidate : candidates) {
    memref::GlobalOp global = candidate.first;
    items.push_back({global.getType().getNumElements(), candidate.second});
  }
  ::serenity::KnapsackResult result = ::serenity::solveKnapsack(items, budget);
  llvm::DenseSet<Operation *> chosen;
  for (size_t i = 0; i < items.size(); ++i)
    if (result.taken[i])
      chosen.insert(candidates[i].first);
  return chosen;
}

struct SerenityInt8ConvKernelsPass
    : public mlir::serenity::CheckedOptions<
          SerenityInt8ConvKernelsPass,
          mlir::serenity::impl::SerenityInt8ConvKernelsPassBase> {
  using CheckedOptions::CheckedOptions;

  std::optional<std::string> optionError() const {
    if (widenBudget < -2)
      return std::string("serenity-int8-conv-kernels: widen-budget must be "
                         ">= 0 bytes, -1 (no limit) or -2 (auto)");
    return std::nullopt;
  }

  void runOnOperation() override {
    if (failed(checkOptions()))
      return signalPassFailure();
    const KernelMode mode = kernelMode(target);
    SmallVector<Operation *> convs;
    getOperation().walk([&](func::FuncOp function) {
      // serenity-pipeline leaves this function to the upstream lowering.
      if (mlir::serenity::isUnoptimized(function))
        return;
      function.walk([&](Operation *op) {
        if (!isa<linalg::Conv2DNhwcFhwcQOp, linalg::Conv2DNhwcFhwcOp,
                 linalg::DepthwiseConv2DNhwcHwcmQOp,
                 linalg::DepthwiseConv2DNhwcHwcmOp>(op))
          return;
        // A primitive chosen for this conv (serenity.primitive) decides;
        // untagged convs are lowered unless tagged-only.
        std::optional<ConvPrimitive> primitive = getConvPrimitive(op);
        if (primitive ? *primitive == ConvPrimitive::Dot : !taggedOnly)
          convs.push_back(op);
      });
    });
    WidenedFilters filters(getOperation());
    // Each filter global a widened kernel could read, and the
    // multiply-accumulates of the convolutions that would read it (the
    // value of widening it).
    llvm::MapVector<Operation *, int64_t> value;
    for (Operation *op : convs) {
      if (!isa<linalg::Conv2DNhwcFhwcQOp, linalg::Conv2DNhwcFhwcOp>(op))
        continue;
      auto conv = cast<linalg::LinalgOp>(op);
      if (memref::GlobalOp root = filters.widenable(conv.getDpsInputs()[1]))
        value[root] += multiplyAccumulates(conv, root);
    }
    // auto: the copies may add a quarter of the constants' bytes, at most
    // 32 KiB. Measured on the Cortex-M4 (docs/Deploy.md): every MLPerf
    // Tiny model then stays at or below TFLite Micro + CMSIS-NN in
    // instructions (str_ww needs about 14 KB of copies; with none it is 6 %
    // above) and below TFLite Micro's whole program in flash, which holds
    // the weights once plus about 120 KB of interpreter and kernels (the
    // cap keeps a large model's copies well under that).
    int64_t budget = widenBudget;
    if (budget == -2 && !convs.empty()) {
      int64_t constantBytes = 0;
      for (auto global : getOperation().getOps<memref::GlobalOp>())
        if (global.getConstant() && global.getType().hasStaticShape())
          constantBytes += global.getType().getNumElements() *
                           ((global.getType().getElementTypeBitWidth() + 7) / 8);
      budget = std::min<int64_t>(constantBytes / 4, 32 * 1024);
    }
    if (!widenFilters.empty()) {
      // A decision made elsewhere: exactly these globals.
      llvm::DenseSet<Operation *> chosen;
      SymbolTable symbols(getOperation());
      for (const std::string &name : widenFilters) {
        Operation *global = symbols.lookup(name);
        if (!global || !value.count(global)) {
          std::string names;
          llvm::raw_string_ostream os(names);
          llvm::interleaveComma(value, os, [&](const auto &entry) {
            os << cast<memref::GlobalOp>(entry.first).getSymName();
          });
          getOperation().emitError()
              << "serenity-int8-conv-kernels: widen-filters: '" << name
              << "' is not a filter global a widened kernel reads (the "
                 "widenable ones: "
              << (names.empty() ? std::string("none") : names) << ")";
          return signalPassFailure();
        }
        chosen.insert(global);
      }
      filters.restrictTo(chosen);
    } else if (budget >= 0) {
      SmallVector<std::pair<memref::GlobalOp, int64_t>> candidates;
      for (const auto &[global, macs] : value)
        candidates.emplace_back(cast<memref::GlobalOp>(global), macs);
      filters.restrictTo(chooseWidened(candidates, budget));
    }
    // Nests whose order may change, found before their kernels are emitted
    // (each once: a nest may hold several convolutions).
    SmallVector<ChannelNest> nests;
    if (channelBlocksFirst)
      for (Operation *op : convs)
        if (std::optional<ChannelNest> nest = reorderableNest(op))
          if (llvm::none_of(nests, [&](const ChannelNest &known) {
                return known.blocks == nest->blocks;
              }))
            nests.push_back(*nest);
    for (Operation *op : convs) {
      if (auto conv = dyn_cast<linalg::Conv2DNhwcFhwcQOp>(op))
        (void)lowerConv(conv, mode, filters);
      else if (auto conv = dyn_cast<linalg::Conv2DNhwcFhwcOp>(op))
        (void)lowerConv(conv, mode, filters);
      else if (auto conv = dyn_cast<linalg::DepthwiseConv2DNhwcHwcmQOp>(op))
        (void)lowerDepthwise(conv, mode, filters);
      else
        (void)lowerDepthwise(cast<linalg::DepthwiseConv2DNhwcHwcmOp>(op), mode,
                             filters);
    }
    filters.eraseUnused();
    if (nests.empty())
      return;
    // The module's globals once lowered (the kernels add tables).
    SymbolTable symbols(getOperation());
    for (const ChannelNest &nest : nests)
      if (blocksFirstPays(nest, symbols))
        blocksOutermost(nest);
  }
};

} // namespace
