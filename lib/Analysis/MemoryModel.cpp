//===- MemoryModel.cpp - DESIGN.md memory model over MLIR IR ---*- C++ -*-===//

#include "Serenity/Analysis/MemoryModel.h"
#include "Serenity/Analysis/ElementwiseDags.h"
#include "Serenity/Analysis/Primitives.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tosa/IR/TosaOps.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/MathExtras.h"

#include <functional>

using namespace mlir;
using namespace mlir::serenity;

bool mlir::serenity::isConstantLike(Operation *op) {
  return op->hasTrait<OpTrait::ConstantLike>() ||
         isa<tosa::ConstOp, tosa::ConstShapeOp, arith::ConstantOp>(op);
}

bool mlir::serenity::isViewLike(Operation *op) {
  return op->getNumResults() == 1 && op->getNumOperands() >= 1 &&
         isa<tosa::ReshapeOp, tosa::IdentityOp, tosa::SliceOp, tensor::CastOp,
             tensor::ExpandShapeOp, tensor::CollapseShapeOp, memref::CastOp,
             memref::ExpandShapeOp, memref::CollapseShapeOp>(op);
}

/// Bits of a shaped value's element type, 0 unless int or float.
static unsigned elementBits(Value value) {
  auto type = dyn_cast<ShapedType>(value.getType());
  return type && type.getElementType().isIntOrFloat()
             ? type.getElementType().getIntOrFloatBitWidth()
             : 0;
}

bool mlir::serenity::isPointwise(Operation *op) {
  // tosa.table (the importer's int8 LOGISTIC, TANH, HARD_SWISH, ...) maps each
  // element through a constant 256-entry table: pointwise like a rescale.
  return op && (op->hasTrait<OpTrait::tosa::TosaElementwiseOperator>() ||
                isa<tosa::RescaleOp, tosa::ClampOp, tosa::CastOp, tosa::TableOp>(op));
}

/// The value `value` is a view of (through view-like ops), or itself.
static Value viewRoot(Value value) {
  while (Operation *view = value.getDefiningOp()) {
    if (!isViewLike(view))
      break;
    value = view->getOperand(0);
  }
  return value;
}

/// The result of a conv whose single-use chain of pointwise ops reaches an
/// element type narrower than the conv's (the i32 -> i8 requantization).
static bool reachesNarrowerResult(Value value, unsigned bits) {
  for (int depth = 0; depth < 16; ++depth) {
    if (!value.hasOneUse())
      return false;
    Operation *user = *value.user_begin();
    if (!isPointwise(user))
      return false;
    value = user->getResult(0);
    unsigned resultBits = elementBits(value);
    if (resultBits != 0 && resultBits < bits)
      return true;
  }
  return false;
}

DenseMap<Operation *, FusedGroup>
mlir::serenity::findFusedGroups(Block &block) {
  // The convs serenity-fuse-requantization tiles into their pointwise
  // consumer: it requantizes them, or they read padded input, which a tile
  // of one output pixel reads unpadded (dilation 1).
  auto isTiledConv = [&](Value value) {
    Operation *conv = value.getDefiningOp();
    if (!conv || conv->getBlock() != &block ||
        !isa<tosa::Conv2DOp, tosa::DepthwiseConv2DOp>(conv) ||
        !value.hasOneUse() || !isPointwise(*value.user_begin()) ||
        computesConvWhole(getChosenPrimitive(conv)))
      return false;
    if (reachesNarrowerResult(value, elementBits(value)))
      return true;
    auto pad = conv->getAttrOfType<DenseI64ArrayAttr>("pad");
    auto dilation = conv->getAttrOfType<DenseI64ArrayAttr>("dilation");
    if (!pad || !dilation)
      return false;
    if (llvm::all_of(pad.asArrayRef(), [](int64_t p) { return p == 0; })) {
      // Unpadded, its input smaller than its result (a 1x1 expansion):
      // tiled whatever the widths (serenity-fuse-requantization's
      // expandsItsInput).
      std::optional<int64_t> in = getTypeBytes(conv->getOperand(0).getType());
      std::optional<int64_t> out = getTypeBytes(value.getType());
      return in && out && *in < *out;
    }
    return llvm::all_of(dilation.asArrayRef(),
                        [](int64_t d) { return d == 1; });
  };
  // Conv-chained: computed from a conv result by pointwise ops only
  // (elementwise fusion is restricted to such chains).
  DenseMap<Value, bool> chained;
  std::function<bool(Value, int)> isConvChained = [&](Value value,
                                                      int depth) -> bool {
    if (depth > 16)
      return false;
    auto it = chained.find(value);
    if (it != chained.end())
      return it->second;
    Operation *def = value.getDefiningOp();
    bool result = false;
    if (def && def->getBlock() == &block) {
      if (isa<tosa::Conv2DOp, tosa::DepthwiseConv2DOp>(def))
        result = true;
      else if (isPointwise(def))
        result = llvm::any_of(def->getOperands(), [&](Value operand) {
          return isConvChained(operand, depth + 1);
        });
    }
    chained[value] = result;
    return result;
  };

  // The ops that lower to one parallel linalg.generic: the pointwise ones,
  // tosa.mul (not a TosaElementwiseOperator: it has a shift operand) and
  // tosa.gather (an element-wise table lookup).
  auto isFusable = [](Operation *op) {
    return isPointwise(op) || isa_and_nonnull<tosa::MulOp, tosa::GatherOp>(op);
  };
  // A conv result read directly (or through a reshape): fusing its reader
  // into another op would give the conv a second user, untiled.
  auto isConvResult = [&](Value value) {
    Operation *def = value.getDefiningOp();
    if (def && isa<tosa::ReshapeOp>(def))
      def = def->getOperand(0).getDefiningOp();
    return def && isa<tosa::Conv2DOp, tosa::DepthwiseConv2DOp>(def);
  };
  auto elementCount = [](Value value) -> int64_t {
    auto type = dyn_cast<ShapedType>(value.getType());
    return type && type.hasStaticShape() ? type.getNumElements() : -1;
  };

  // In block order a producer is decided before its consumer: `leaves[op]`
  // are the operands the fused op of `op` (with its fused producers) reads.
  DenseMap<Operation *, SmallVector<Value>> leaves;
  DenseSet<Operation *> fusedIntoUser;
  for (Operation &op : block) {
    if (!isFusable(&op) || op.getNumResults() != 1)
      continue;
    SmallVector<Value> reads;
    for (Value operand : op.getOperands()) {
      Operation *def = operand.getDefiningOp();
      if (def && fusedIntoUser.contains(def))
        llvm::append_range(reads, leaves[def]);
      else if (!llvm::is_contained(reads, operand))
        reads.push_back(operand);
    }
    leaves[&op] = reads;
    // Fused into its single pointwise user when the chain involves a conv
    // (serenity-fuse-requantization's conv chains) and the fused op's inputs
    // (not counting constants and tiled conv results) are not larger than
    // the result they replace. Everything else is left to the element-wise
    // DAG fusion below.
    Value result = op.getResult(0);
    if (!result.hasOneUse())
      continue;
    Operation *user = *result.user_begin();
    if (!isPointwise(user) || user->getBlock() != &block ||
        (!isConvChained(result, 0) && !isConvChained(user->getResult(0), 0)))
      continue;
    // Reads that are views of one value (slices, reshapes) hold its buffer
    // once.
    std::optional<int64_t> resultBytes = getTypeBytes(result.getType());
    DenseMap<Value, int64_t> viewedBytes;
    for (Value read : reads) {
      Operation *def = read.getDefiningOp();
      if ((def && isConstantLike(def)) || isTiledConv(read))
        continue;
      int64_t &bytes = viewedBytes[viewRoot(read)];
      bytes = std::max(bytes, getTypeBytes(read.getType()).value_or(0));
    }
    int64_t inputBytes = 0;
    for (auto &entry : viewedBytes)
      inputBytes += entry.second;
    if (resultBytes && inputBytes <= *resultBytes)
      fusedIntoUser.insert(&op);
  }

  // Element-wise DAGs (serenity-fuse-requantization's fusePointwiseDags): the
  // loops left, each one unit, grouped by groupElementwiseDags. A loop reading
  // a conv result (directly or through a reshape) stays alone: fusing it
  // would give the conv a second user, untiled.
  auto loopOf = [&](Operation *op) {
    while (op && fusedIntoUser.contains(op))
      op = *op->getResult(0).user_begin();
    return op;
  };
  SmallVector<Operation *> unitOps;
  DenseMap<Operation *, unsigned> unitIndex;
  for (Operation &op : block)
    if (leaves.count(&op) && !fusedIntoUser.contains(&op)) {
      unitIndex[&op] = unitOps.size();
      unitOps.push_back(&op);
    }
  SmallVector<DagUnit> units(unitOps.size());
  for (auto [index, op] : llvm::enumerate(unitOps)) {
    DagUnit &unit = units[index];
    Value result = op->getResult(0);
    int64_t elements = elementCount(result);
    unit.resultBytes = getTypeBytes(result.getType()).value_or(0);
    unit.eligible = elements >= 0 && !llvm::any_of(leaves[op], isConvResult);
    for (OpOperand &use : result.getUses()) {
      Operation *reader = use.getOwner();
      Operation *loop = loopOf(reader);
      auto it = loop ? unitIndex.find(loop) : unitIndex.end();
      bool elementwise =
          it != unitIndex.end() && reader->getBlock() == &block &&
          isFusable(reader) && reader->getNumResults() == 1 &&
          elementCount(reader->getResult(0)) == elements &&
          elementCount(loop->getResult(0)) == elements &&
          (!isa<tosa::GatherOp>(reader) || use.getOperandNumber() == 1);
      if (!elementwise) {
        unit.otherUsers = true;
        continue;
      }
      if (!llvm::is_contained(unit.users, it->second))
        unit.users.push_back(it->second);
    }
    for (Value read : leaves[op]) {
      Operation *def = read.getDefiningOp();
      if (def && isConstantLike(def))
        continue;
      DagUnit::Read entry;
      entry.buffer = viewRoot(read).getAsOpaquePointer();
      entry.bytes = getTypeBytes(read.getType()).value_or(0);
      if (auto it = def ? unitIndex.find(def) : unitIndex.end();
          it != unitIndex.end())
        entry.producer = it->second;
      unit.reads.push_back(entry);
    }
  }
  SmallVector<unsigned> dagOf = groupElementwiseDags(units);
  // A unit fused into a DAG is computed by its loop's last unit: that one
  // reads the DAG's leaves (each value once).
  DenseMap<unsigned, SmallVector<Value>> dagLeaves;
  SmallVector<unsigned> dagSize(unitOps.size(), 0);
  for (unsigned root : dagOf)
    ++dagSize[root];
  for (auto [index, op] : llvm::enumerate(unitOps)) {
    unsigned root = dagOf[index];
    if (dagSize[root] == 1)
      continue;
    if (root != index)
      fusedIntoUser.insert(op);
    SmallVector<Value> &reads = dagLeaves[root];
    for (Value read : leaves[op]) {
      Operation *def = read.getDefiningOp();
      auto it = def ? unitIndex.find(def) : unitIndex.end();
      if (it != unitIndex.end() && dagOf[it->second] == root)
        continue;
      if (!llvm::is_contained(reads, read))
        reads.push_back(read);
    }
  }
  for (auto &entry : dagLeaves)
    leaves[unitOps[entry.first]] = std::move(entry.second);

  DenseMap<Operation *, FusedGroup> groups;
  for (Operation &op : block) {
    if (!leaves.count(&op) || fusedIntoUser.contains(&op))
      continue;
    FusedGroup group;
    for (Value read : leaves[&op]) {
      if (isTiledConv(read)) {
        group.tiledConvs.push_back(read.getDefiningOp());
        llvm::append_range(group.reads, read.getDefiningOp()->getOperands());
      } else {
        group.reads.push_back(read);
      }
    }
    // Ops whose results the group computes in registers or per tile.
    SmallVector<Operation *> worklist = {&op};
    DenseSet<Operation *> seen;
    while (!worklist.empty()) {
      Operation *current = worklist.pop_back_val();
      for (Value operand : current->getOperands())
        if (Operation *def = operand.getDefiningOp())
          if (fusedIntoUser.contains(def) && seen.insert(def).second) {
            group.inner.push_back(def);
            worklist.push_back(def);
          }
    }
    if (group.inner.empty() && group.tiledConvs.empty())
      continue;
    groups[&op] = std::move(group);
  }
  return groups;
}

std::optional<InPlaceConv>
mlir::serenity::findInPlaceConv(Operation *last, const FusedGroup &group) {
  if (group.tiledConvs.size() != 1 || last->getNumResults() != 1)
    return std::nullopt;
  // A returned result is written to its out-parameter, and a concatenated
  // one may be produced into its slice of the concat: not over the input.
  for (Operation *user : last->getResult(0).getUsers())
    if (user->hasTrait<OpTrait::IsTerminator>() || isa<tosa::ConcatOp>(user))
      return std::nullopt;
  Operation *conv = group.tiledConvs.front();
  if (getChosenPrimitive(conv) != ConvPrimitive::Direct)
    return std::nullopt;
  Value input = conv->getOperand(0);
  auto type = dyn_cast<RankedTensorType>(input.getType());
  // The result is written where the input was, element for element.
  if (!type || !type.hasStaticShape() || type.getRank() != 4 ||
      type != last->getResult(0).getType())
    return std::nullopt;
  // The input's bytes are an arena buffer that nothing else reads.
  Operation *producer = input.getDefiningOp();
  if (!producer || producer->getBlock() != last->getBlock() ||
      !input.hasOneUse() || isViewLike(producer) ||
      isConstantLike(producer) || isa<tosa::VariableReadOp>(producer) ||
      isStateUpdateInPlace(producer))
    return std::nullopt;
  auto stride = conv->getAttrOfType<DenseI64ArrayAttr>("stride");
  auto dilation = conv->getAttrOfType<DenseI64ArrayAttr>("dilation");
  auto pad = conv->getAttrOfType<DenseI64ArrayAttr>("pad");
  auto ones = [](DenseI64ArrayAttr attr) {
    return attr && llvm::all_of(attr.asArrayRef(),
                                [](int64_t v) { return v == 1; });
  };
  if (!ones(stride) || !ones(dilation) || !pad)
    return std::nullopt;
  std::optional<int64_t> elementBytes = getTypeBytes(
      RankedTensorType::get({1}, type.getElementType()));
  if (!elementBytes)
    return std::nullopt;
  const int64_t rows = type.getDimSize(1), cols = type.getDimSize(2),
                channels = type.getDimSize(3);
  if (isa<tosa::DepthwiseConv2DOp>(conv)) {
    // Output rows wait in a ring until no later window reads the input row
    // they replace: the rows above the window's centre (top padding), plus
    // the one being computed.
    int64_t ring = std::min<int64_t>(pad[0] + 1, rows);
    return InPlaceConv{input, ring * cols * channels * *elementBytes};
  }
  // A 1x1 conv: each output pixel reads its own input pixel only.
  auto weight = dyn_cast<RankedTensorType>(conv->getOperand(1).getType());
  if (!weight || weight.getRank() != 4 || weight.getDimSize(1) != 1 ||
      weight.getDimSize(2) != 1 ||
      llvm::any_of(pad.asArrayRef(), [](int64_t p) { return p != 0; }))
    return std::nullopt;
  return InPlaceConv{input, channels * *elementBytes};
}

bool mlir::serenity::canProduceInPlace(Operation *op) {
  return isa<tosa::Conv2DOp, tosa::DepthwiseConv2DOp, tosa::MaxPool2dOp,
             tosa::AvgPool2dOp, tosa::MulOp, tosa::TableOp>(op) ||
         op->hasTrait<OpTrait::tosa::TosaElementwiseOperator>();
}

/// The variable `value` was read from (through views), or null.
static FlatSymbolRefAttr variableReadBy(Value value) {
  while (Operation *def = value.getDefiningOp()) {
    if (auto read = dyn_cast<tosa::VariableReadOp>(def))
      return FlatSymbolRefAttr::get(read.getNameAttr());
    if (!isViewLike(def))
      return nullptr;
    value = def->getOperand(0);
  }
  return nullptr;
}

bool mlir::serenity::isStateUpdateInPlace(Operation *op) {
  auto concat = dyn_cast<tosa::ConcatOp>(op);
  if (!concat)
    return false;
  // The result, through single-use reshapes, is only written to a variable
  // that one of the operands was read from.
  Value result = concat.getResult();
  while (result.hasOneUse() &&
         isa<tosa::ReshapeOp>(*result.getUsers().begin()))
    result = result.getUsers().begin()->getResult(0);
  if (!result.hasOneUse())
    return false;
  auto write = dyn_cast<tosa::VariableWriteOp>(*result.getUsers().begin());
  if (!write)
    return false;
  return llvm::any_of(concat.getOperands(), [&](Value operand) {
    FlatSymbolRefAttr read = variableReadBy(operand);
    return read && read.getValue() == write.getName();
  });
}

bool mlir::serenity::isInPlaceConcat(Operation *concat, ConcatMode mode) {
  return isa<tosa::ConcatOp>(concat) &&
         (mode == ConcatMode::InPlace ||
          (mode == ConcatMode::Auto && concat->hasAttr(kConcatInPlaceAttr)));
}

bool mlir::serenity::isInPlaceConcatOperand(Value operand, Block &block) {
  Operation *def = operand.getDefiningOp();
  return def && def->getBlock() == &block && operand.hasOneUse() &&
         canProduceInPlace(def);
}

/// True for a constant whose elements are all zero.
static bool isZeroConstant(Value value) {
  DenseElementsAttr attr;
  if (!matchPattern(value, m_Constant(&attr)) || !attr.isSplat())
    return false;
  Type element = attr.getElementType();
  if (isa<FloatType>(element))
    return attr.getSplatValue<APFloat>().isZero();
  if (isa<IntegerType>(element))
    return attr.getSplatValue<APInt>().isZero();
  return false;
}

/// True when `add` = `accOperand` + `convOperand` may be counted as the conv
/// accumulating into `accOperand`, in some order of the block.
static bool isAccumulationCandidate(tosa::AddOp add, Value convOperand,
                                    Value accOperand, Block &block) {
  auto conv = convOperand.getDefiningOp<tosa::Conv2DOp>();
  Operation *accDef = accOperand.getDefiningOp();
  return conv && conv->getBlock() == &block && convOperand.hasOneUse() &&
         isZeroConstant(conv.getBias()) && accDef &&
         accDef->getBlock() == &block && !isConstantLike(accDef) &&
         !isViewLike(accDef) && accOperand.hasOneUse() &&
         convOperand != accOperand && accOperand.getType() == add.getType() &&
         convOperand.getType() == add.getType();
}

DenseMap<Operation *, Value>
mlir::serenity::findInPlaceAccumulations(Block &block) {
  DenseMap<Operation *, Value> accumulations;
  for (auto add : block.getOps<tosa::AddOp>()) {
    for (auto [convOperand, accOperand] :
         {std::pair(add.getInput2(), add.getInput1()),
          std::pair(add.getInput1(), add.getInput2())}) {
      Operation *conv = convOperand.getDefiningOp();
      if (!isAccumulationCandidate(add, convOperand, accOperand, block) ||
          !accOperand.getDefiningOp()->isBeforeInBlock(conv) ||
          accumulations.count(conv))
        continue;
      accumulations[conv] = accOperand;
      break;
    }
  }
  return accumulations;
}

SmallVector<std::pair<Operation *, Operation *>>
mlir::serenity::findBlockedAccumulations(Block &block) {
  SmallVector<std::pair<Operation *, Operation *>> blocked;
  for (auto add : block.getOps<tosa::AddOp>())
    for (auto [convOperand, accOperand] :
         {std::pair(add.getInput2(), add.getInput1()),
          std::pair(add.getInput1(), add.getInput2())}) {
      Operation *conv = convOperand.getDefiningOp();
      if (isAccumulationCandidate(add, convOperand, accOperand, block) &&
          conv->isBeforeInBlock(accOperand.getDefiningOp()))
        blocked.emplace_back(conv, accOperand.getDefiningOp());
    }
  return blocked;
}

/// Bits of one element, rounded up to whole bytes; nullopt when unknown.
static std::optional<int64_t> getElementBytes(Type element) {
  if (auto quant = dyn_cast<quant::QuantizedType>(element))
    return (static_cast<int64_t>(quant.getStorageTypeIntegralWidth()) + 7) / 8;
  if (isa<IndexType>(element))
    return IndexType::kInternalStorageBitWidth / 8;
  // What LLVM allocates per element: an integer of a width its data layout
  // does not list (i48: TOSA's int16 accumulators) takes the next power of
  // two bytes (8), as memref indexing steps over it.
  if (element.isIntOrFloat())
    return static_cast<int64_t>(llvm::PowerOf2Ceil(
        (static_cast<uint64_t>(element.getIntOrFloatBitWidth()) + 7) / 8));
  if (auto complex = dyn_cast<ComplexType>(element)) {
    std::optional<int64_t> part = getElementBytes(complex.getElementType());
    if (!part)
      return std::nullopt;
    return 2 * *part;
  }
  return std::nullopt;
}

std::optional<int64_t> mlir::serenity::getTypeBytes(Type type,
                                                    std::string *reason) {
  auto fail = [&](const Twine &why) -> std::optional<int64_t> {
    if (reason)
      *reason = why.str();
    return std::nullopt;
  };
  if (isa<tosa::shapeType>(type))
    return 0;
  auto shaped = dyn_cast<ShapedType>(type);
  if (!shaped)
    return 0;
  if (!shaped.hasRank())
    return fail("unranked type is outside the memory model (static shapes "
                "only)");
  if (!shaped.hasStaticShape())
    return fail("dynamic shape is outside the memory model (static shapes "
                "only)");
  std::optional<int64_t> elementBytes =
      getElementBytes(shaped.getElementType());
  if (!elementBytes)
    return fail("cannot size element type of this value");
  // Checked, and bounded so that sums of many buffers stay in int64.
  int64_t bytes = *elementBytes;
  for (int64_t dim : shaped.getShape())
    if (llvm::MulOverflow(bytes, dim, bytes) || bytes > kMaxBufferBytes)
      return fail("larger than the memory model's limit of 2^40 "
                  "bytes");
  return bytes;
}

bool FunctionMemoryModel::isAlias(Value value) {
  Operation *def = value.getDefiningOp();
  return def && isViewLike(def);
}

int FunctionMemoryModel::getBuffer(Value value) const {
  auto it = rootBuffer.find(value);
  return it == rootBuffer.end() ? -1 : it->second;
}

int FunctionMemoryModel::getStep(Operation *op) const {
  auto it = stepIndex.find(op);
  return it == stepIndex.end() ? -1 : it->second;
}

/// Emits the model's diagnostic for `value` of an unsizable type.
static LogicalResult checkValueType(Value value, Location loc,
                                    const Twine &what) {
  std::string reason;
  if (getTypeBytes(value.getType(), &reason))
    return success();
  emitError(loc) << "serenity memory model: " << what << " of type "
                 << value.getType() << ": " << reason;
  return failure();
}

FailureOr<FunctionMemoryModel>
FunctionMemoryModel::build(FunctionOpInterface function,
                           const MemoryModelOptions &options) {
  Region &body = function.getFunctionBody();
  if (body.empty())
    return function.emitError("serenity memory model: function has no body");
  if (!body.hasOneBlock())
    return function.emitError()
           << "serenity memory model: function body has "
           << body.getBlocks().size()
           << " blocks; only single-block bodies can be scheduled";
  Block &block = body.front();

  FunctionMemoryModel model;
  ::serenity::MemoryGraph &graph = model.graph;

  for (BlockArgument arg : block.getArguments()) {
    if (failed(checkValueType(arg, arg.getLoc(),
                              "argument #" + Twine(arg.getArgNumber()))))
      return failure();
    int buffer = graph.addInput(*getTypeBytes(arg.getType()));
    model.bufferValues.push_back(arg);
    model.rootBuffer[arg] = buffer;
  }

  // Nodes that define each value (-1 for arguments and constants), so that
  // uses through aliases still order after the alias op itself.
  DenseMap<Value, int> producerNode;
  DenseMap<Operation *, Value> accumulations;
  if (options.accumulateInPlace)
    accumulations = findInPlaceAccumulations(block);
  // Fused groups (serenity-fuse-requantization): the values computed inside
  // a group take no bytes, and the group's last op reads everything the
  // fused loop reads.
  DenseMap<Operation *, FusedGroup> fusedGroups;
  DenseSet<Value> fusedValues;
  if (options.fuseRequantization)
    fusedGroups = findFusedGroups(block);
  for (auto &entry : fusedGroups) {
    for (Operation *inner : entry.second.inner)
      fusedValues.insert(inner->getResult(0));
    for (Operation *conv : entry.second.tiledConvs)
      if (!accumulations.count(conv))
        fusedValues.insert(conv->getResult(0));
  }
  // Workspaces of the convolutions' primitives (im2col, winograd): a buffer
  // live during the step that runs the convolution, the group's last op for
  // a convolution tiled into a fused loop.
  DenseMap<Operation *, int64_t> workspaceBytes;
  for (Operation &op : block)
    if (isPrimitiveConv(&op))
      if (int64_t bytes = getWorkspaceBytes(&op, getChosenPrimitive(&op)))
        workspaceBytes[&op] += bytes;
  for (auto &entry : fusedGroups)
    for (Operation *conv : entry.second.tiledConvs) {
      auto it = workspaceBytes.find(conv);
      if (it == workspaceBytes.end())
        continue;
      workspaceBytes[entry.first] += it->second;
      workspaceBytes.erase(conv);
    }
  // Groups computed over their conv's input: the result takes the input's
  // buffer; the scratch copy is a workspace of the step.
  DenseMap<Operation *, Value> inPlaceInputs;
  if (options.inPlaceConvs && options.fuseRequantization)
    for (Operation &op : block) {
      auto group = fusedGroups.find(&op);
      if (group == fusedGroups.end())
        continue;
      if (std::optional<InPlaceConv> inPlace =
              findInPlaceConv(&op, group->second)) {
        inPlaceInputs[&op] = inPlace->input;
        workspaceBytes[&op] += inPlace->scratchBytes;
      }
    }
  // The adds whose result aliases their accumulator operand.
  DenseMap<Operation *, Value> accumulatingAdds;
  for (auto [conv, acc] : accumulations)
    accumulatingAdds[*conv->getResult(0).getUsers().begin()] = acc;
  Operation *terminator =
      block.mightHaveTerminator() ? block.getTerminator() : nullptr;
  for (Operation &op : block) {
    if (&op == terminator || isConstantLike(&op))
      continue;
    int node = graph.addNode();
    model.steps.push_back(&op);
    model.stepIndex[&op] = node;

    // Every operand of the op or of an op nested in its regions that is
    // defined in the body block is a use by this step.
    auto recordUse = [&](Value used) {
      if (used.getParentBlock() != &block)
        return;
      auto pit = producerNode.find(used);
      if (pit != producerNode.end())
        graph.addDependence(node, pit->second);
      int buffer = model.getBuffer(used);
      if (buffer >= 0)
        graph.addUse(node, buffer);
    };
    // In-place concat operands are not read by the concat: their producer
    // wrote them into the concat's output already.
    SmallVector<Value> inPlace;
    if (isInPlaceConcat(&op, options.concat))
      for (Value operand : op.getOperands())
        if (isInPlaceConcatOperand(operand, block))
          inPlace.push_back(operand);
    // A conv accumulating in place reads the accumulator it writes into.
    auto accumulation = accumulations.find(&op);
    if (accumulation != accumulations.end())
      recordUse(accumulation->second);
    for (Value operand : op.getOperands()) {
      if (llvm::is_contained(inPlace, operand)) {
        graph.addDependence(node, producerNode.lookup(operand));
        continue;
      }
      recordUse(operand);
    }
    auto fused = fusedGroups.find(&op);
    if (fused != fusedGroups.end())
      for (Value read : fused->second.reads)
        recordUse(read);
    if (op.getNumRegions() != 0)
      op.walk([&](Operation *nested) {
        if (nested == &op)
          return;
        for (Value operand : nested->getOperands())
          recordUse(operand);
      });

    for (OpResult result : op.getResults()) {
      if (failed(checkValueType(result, op.getLoc(),
                                "result #" + Twine(result.getResultNumber()))))
        return failure();
      producerNode[result] = node;
      // The accumulating conv and its add write the accumulator's buffer.
      Value accumulator = accumulation != accumulations.end()
                              ? accumulation->second
                              : accumulatingAdds.lookup(&op);
      if (accumulator) {
        model.rootBuffer[result] = model.getBuffer(accumulator);
        continue;
      }
      if (Value input = inPlaceInputs.lookup(&op)) {
        model.rootBuffer[result] = model.getBuffer(input);
        continue;
      }
      if (isViewLike(&op)) {
        // A view of an activation aliases it; a view of a constant stays in
        // ROM like the constant itself.
        int source = model.getBuffer(op.getOperand(0));
        if (source >= 0)
          model.rootBuffer[result] = source;
        continue;
      }
      // A fused value takes no bytes; nor does a read of a TOSA variable
      // (the persistent state itself, outside the arena) or a shift-register
      // update of one (serenity-persistent-state writes it in the state).
      int buffer = graph.addResult(node, fusedValues.contains(result) ||
                                                 isa<tosa::VariableReadOp>(op) ||
                                                 isStateUpdateInPlace(&op)
                                             ? 0
                                             : *getTypeBytes(result.getType()));
      model.bufferValues.push_back(result);
      model.rootBuffer[result] = buffer;
      // Each in-place operand becomes a slice of this buffer: its own
      // buffer keeps 0 bytes and its producer allocates the whole output
      // when it runs first.
      for (Value operand : inPlace) {
        graph.buffers[model.getBuffer(operand)].bytes = 0;
        graph.addPartialProducer(buffer, producerNode.lookup(operand));
        model.rootBuffer[operand] = buffer;
      }
    }
    if (int64_t bytes = workspaceBytes.lookup(&op)) {
      int buffer = graph.addResult(node, bytes);
      graph.buffers[buffer].workspace = true;
      model.bufferValues.push_back(op.getResult(0));
    }
  }

  if (terminator)
    for (Value returned : terminator->getOperands()) {
      int buffer = model.getBuffer(returned);
      if (buffer >= 0)
        graph.buffers[buffer].returned = true;
    }
  return model;
}
