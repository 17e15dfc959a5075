//===- Schema.cpp - TFLite flatbuffer reader ------------------------------===//
//
// Field i of a table lives at vtable slot 4 + 2 * i (schema.fbs order). Every
// table is checked with flatbuffers::Verifier before a field is read: scalars
// with VerifyField, vectors and strings with VerifyOffset + VerifyVector,
// sub-tables with VerifyTableStart.
//
//===----------------------------------------------------------------------===//

#include "Schema.h"

#include "flatbuffers/flatbuffers.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Endian.h"

#include <cstring>

using namespace mlir::serenity::tflite;
using flatbuffers::Table;
using flatbuffers::Verifier;

namespace {
constexpr flatbuffers::voffset_t slot(unsigned field) { return 4 + 2 * field; }

const char *const kBuiltinNames[] = {
    "ADD", "AVERAGE_POOL_2D", "CONCATENATION", "CONV_2D", "DEPTHWISE_CONV_2D",
    "DEPTH_TO_SPACE", "DEQUANTIZE", "EMBEDDING_LOOKUP", "FLOOR", "FULLY_CONNECTED",
    "HASHTABLE_LOOKUP", "L2_NORMALIZATION", "L2_POOL_2D",
    "LOCAL_RESPONSE_NORMALIZATION", "LOGISTIC", "LSH_PROJECTION", "LSTM",
    "MAX_POOL_2D", "MUL", "RELU", "RELU_N1_TO_1", "RELU6", "RESHAPE",
    "RESIZE_BILINEAR", "RNN", "SOFTMAX", "SPACE_TO_DEPTH", "SVDF", "TANH",
    "CONCAT_EMBEDDINGS", "SKIP_GRAM", "CALL", "CUSTOM", "EMBEDDING_LOOKUP_SPARSE",
    "PAD", "UNIDIRECTIONAL_SEQUENCE_RNN", "GATHER", "BATCH_TO_SPACE_ND",
    "SPACE_TO_BATCH_ND", "TRANSPOSE", "MEAN", "SUB", "DIV", "SQUEEZE",
    "UNIDIRECTIONAL_SEQUENCE_LSTM", "STRIDED_SLICE", "BIDIRECTIONAL_SEQUENCE_RNN",
    "EXP", "TOPK_V2", "SPLIT", "LOG_SOFTMAX", "DELEGATE",
    "BIDIRECTIONAL_SEQUENCE_LSTM", "CAST", "PRELU", "MAXIMUM", "ARG_MAX",
    "MINIMUM", "LESS", "NEG", "PADV2", "GREATER", "GREATER_EQUAL", "LESS_EQUAL",
    "SELECT", "SLICE", "SIN", "TRANSPOSE_CONV", "SPARSE_TO_DENSE", "TILE",
    "EXPAND_DIMS", "EQUAL", "NOT_EQUAL", "LOG", "SUM", "SQRT", "RSQRT", "SHAPE",
    "POW", "ARG_MIN", "FAKE_QUANT", "REDUCE_PROD", "REDUCE_MAX", "PACK",
    "LOGICAL_OR", "ONE_HOT", "LOGICAL_AND", "LOGICAL_NOT", "UNPACK", "REDUCE_MIN",
    "FLOOR_DIV", "REDUCE_ANY", "SQUARE", "ZEROS_LIKE", "FILL", "FLOOR_MOD",
    "RANGE", "RESIZE_NEAREST_NEIGHBOR", "LEAKY_RELU", "SQUARED_DIFFERENCE",
    "MIRROR_PAD", "ABS", "SPLIT_V", "UNIQUE", "CEIL", "REVERSE_V2", "ADD_N",
    "GATHER_ND", "COS", "WHERE", "RANK", "ELU", "REVERSE_SEQUENCE", "MATRIX_DIAG",
    "QUANTIZE", "MATRIX_SET_DIAG", "ROUND", "HARD_SWISH", "IF", "WHILE",
    "NON_MAX_SUPPRESSION_V4", "NON_MAX_SUPPRESSION_V5", "SCATTER_ND", "SELECT_V2",
    "DENSIFY", "SEGMENT_SUM", "BATCH_MATMUL"};

const char *const kTypeNames[] = {"FLOAT32", "FLOAT16", "INT32", "UINT8",
                                  "INT64", "STRING", "BOOL", "INT16",
                                  "COMPLEX64", "INT8", "FLOAT64"};

llvm::Error malformed(const llvm::Twine &what) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), what.str());
}

/// Reads one verified buffer's tables; the first failed check is the error.
class Reader {
public:
  explicit Reader(Verifier &v) : v(v) {}

  llvm::Expected<const Table *> table(const uint8_t *p, const char *what) {
    auto *t = reinterpret_cast<const Table *>(p);
    if (!t->VerifyTableStart(v))
      return malformed(llvm::Twine(what) +
                       " table lies outside the file: file is truncated or corrupt");
    // Tables are read one after another, not nested: undo the depth count.
    v.EndTable();
    return t;
  }

  template <typename T>
  llvm::Expected<T> scalar(const Table *t, unsigned field, T def, const char *what) {
    if (!t->VerifyField<T>(v, slot(field), sizeof(T)))
      return malformed(llvm::Twine(what) + " field " + llvm::Twine(field) +
                       " lies outside the file: file is truncated or corrupt");
    return t->GetField<T>(slot(field), def);
  }

  /// A vector field as (data, length); length 0 when absent.
  template <typename T>
  llvm::Expected<const flatbuffers::Vector<T> *> vector(const Table *t, unsigned field,
                                                        const char *what) {
    if (!t->VerifyOffset(v, slot(field)))
      return malformed(llvm::Twine(what) + " field " + llvm::Twine(field) +
                       " points outside the file: file is truncated or corrupt");
    auto *vec = t->GetPointer<const flatbuffers::Vector<T> *>(slot(field));
    if (!v.VerifyVector(vec))
      return malformed(llvm::Twine(what) + " field " + llvm::Twine(field) +
                       " (a vector) runs past the end of the file: file is "
                       "truncated or corrupt");
    // flatbuffers 2.0's VerifyVector checks the alignment of the length word
    // only; a builder aligns the elements too (8-byte zero points), and they
    // are read in place.
    if (vec && (vec->Data() - bufStart) % alignof(T) != 0)
      return malformed(llvm::Twine(what) + " field " + llvm::Twine(field) + " (a vector of " +
                       llvm::Twine(sizeof(T)) +
                       "-byte elements) is misaligned: file is truncated or corrupt");
    return vec;
  }

  template <typename T>
  llvm::Expected<std::vector<T>> numbers(const Table *t, unsigned field, const char *what) {
    auto vec = vector<T>(t, field, what);
    if (!vec)
      return vec.takeError();
    std::vector<T> out;
    if (*vec)
      for (flatbuffers::uoffset_t i = 0; i < (*vec)->size(); ++i)
        out.push_back((*vec)->Get(i));
    return out;
  }

  llvm::Expected<std::vector<const Table *>> tables(const Table *t, unsigned field,
                                                    const char *what) {
    auto vec = vector<flatbuffers::Offset<Table>>(t, field, what);
    if (!vec)
      return vec.takeError();
    std::vector<const Table *> out;
    if (!*vec)
      return out;
    for (flatbuffers::uoffset_t i = 0; i < (*vec)->size(); ++i) {
      // Each element is an offset relative to its own position.
      const uint8_t *elem = (*vec)->Data() + i * sizeof(flatbuffers::uoffset_t);
      if (!v.VerifyOffset(static_cast<size_t>(elem - bufStart)))
        return malformed(llvm::Twine(what) + " " + llvm::Twine(i) +
                         " points outside the file: file is truncated or corrupt");
      auto sub = table(elem + flatbuffers::ReadScalar<flatbuffers::uoffset_t>(elem), what);
      if (!sub)
        return sub.takeError();
      out.push_back(*sub);
    }
    return out;
  }

  llvm::Expected<const Table *> subtable(const Table *t, unsigned field, const char *what) {
    if (!t->VerifyOffset(v, slot(field)))
      return malformed(llvm::Twine(what) + " points outside the file: file is truncated or corrupt");
    auto *p = t->GetPointer<const uint8_t *>(slot(field));
    if (!p)
      return nullptr;
    return table(p, what);
  }

  llvm::Expected<std::string> string(const Table *t, unsigned field, const char *what) {
    auto vec = vector<uint8_t>(t, field, what);
    if (!vec)
      return vec.takeError();
    if (!*vec)
      return std::string();
    return std::string(reinterpret_cast<const char *>((*vec)->Data()), (*vec)->size());
  }

  const uint8_t *bufStart = nullptr;

private:
  Verifier &v;
};

#define SERENITY_TRY(var, expr)                                                \
  auto var##OrErr = (expr);                                                    \
  if (!var##OrErr)                                                             \
    return var##OrErr.takeError();                                             \
  auto var = std::move(*var##OrErr);

} // namespace

std::string mlir::serenity::tflite::tensorTypeName(int type) {
  if (type >= 0 && type < static_cast<int>(std::size(kTypeNames)))
    return kTypeNames[type];
  return "TYPE_" + std::to_string(type);
}

unsigned mlir::serenity::tflite::tensorTypeBytes(int type) {
  switch (type) {
  case kFloat32: case kInt32: return 4;
  case kFloat16: case kInt16: return 2;
  case kUInt8: case kInt8: case kBool: return 1;
  case kInt64: case kFloat64: return 8;
  default: return 0;
  }
}

std::string mlir::serenity::tflite::builtinName(int code) {
  if (code >= 0 && code < static_cast<int>(std::size(kBuiltinNames)))
    return kBuiltinNames[code];
  return "BUILTIN_" + std::to_string(code);
}

std::string Operator::name() const {
  if (opcode == 32 && !customCode.empty())
    return "CUSTOM(" + customCode + ")";
  return builtinName(opcode);
}

int64_t Tensor::numElements() const { return product(shape); }

namespace {
template <typename S, typename T> void convert(const uint8_t *p, int64_t n, std::vector<T> &out) {
  out.resize(n);
  for (int64_t i = 0; i < n; ++i) {
    S s;
    std::memcpy(&s, p + i * sizeof(S), sizeof(S)); // little-endian host
    out[i] = static_cast<T>(s);
  }
}
} // namespace

template <typename T> NdArray<T> Tensor::data() const {
  assert(hasData() && "tensor has no constant data");
  std::vector<T> out;
  int64_t n = numElements();
  const uint8_t *p = bytes.data();
  switch (type) {
  case kFloat32: convert<float>(p, n, out); break;
  case kInt32: convert<int32_t>(p, n, out); break;
  case kUInt8: convert<uint8_t>(p, n, out); break;
  case kInt64: convert<int64_t>(p, n, out); break;
  case kBool: convert<uint8_t>(p, n, out); break;
  case kInt16: convert<int16_t>(p, n, out); break;
  case kInt8: convert<int8_t>(p, n, out); break;
  case kFloat64: convert<double>(p, n, out); break;
  default: llvm_unreachable("tensor type without data conversion");
  }
  return NdArray<T>(shape, std::move(out));
}

namespace mlir::serenity::tflite {
template NdArray<int8_t> Tensor::data() const;
template NdArray<int16_t> Tensor::data() const;
template NdArray<int32_t> Tensor::data() const;
template NdArray<int64_t> Tensor::data() const;
template NdArray<uint8_t> Tensor::data() const;
template NdArray<float> Tensor::data() const;
template NdArray<double> Tensor::data() const;
template NdArray<bool> Tensor::data() const;
} // namespace mlir::serenity::tflite

// Option tables were verified as tables when the model was read; each field is
// checked against the buffer when it is read.
namespace {
template <typename T>
T optionField(const Table *t, llvm::ArrayRef<uint8_t> file, unsigned field, T def) {
  if (!t)
    return def;
  Verifier v(file.data(), file.size(), 64, 1000000, /*check_alignment=*/true);
  if (!t->VerifyField<T>(v, slot(field), sizeof(T)))
    return def;
  return t->GetField<T>(slot(field), def);
}
} // namespace

int8_t OptionReader::i8(unsigned field, int8_t def) const {
  return optionField<int8_t>(table, file, field, def);
}
int32_t OptionReader::i32(unsigned field, int32_t def) const {
  return optionField<int32_t>(table, file, field, def);
}
float OptionReader::f32(unsigned field, float def) const {
  return optionField<float>(table, file, field, def);
}
bool OptionReader::boolean(unsigned field, bool def) const {
  return optionField<uint8_t>(table, file, field, def) != 0;
}
std::vector<int32_t> OptionReader::i32Vector(unsigned field) const {
  if (!table)
    return {};
  Verifier v(file.data(), file.size(), 64, 1000000, /*check_alignment=*/true);
  if (!table->VerifyOffset(v, slot(field)))
    return {};
  auto *vec = table->GetPointer<const flatbuffers::Vector<int32_t> *>(slot(field));
  if (!vec || !v.VerifyVector(vec))
    return {};
  return std::vector<int32_t>(vec->begin(), vec->end());
}

llvm::Expected<Model> mlir::serenity::tflite::readModel(llvm::ArrayRef<uint8_t> buf) {
  if (buf.size() < 8)
    return malformed("file is too small to be a TFLite model (" + llvm::Twine(buf.size()) +
                     " bytes)");
  if (buf.size() >= FLATBUFFERS_MAX_BUFFER_SIZE)
    return malformed("file is too large for a flatbuffer");
  if (std::memcmp(buf.data() + 4, "TFL3", 4) != 0)
    return malformed("not a TFLite model: file identifier is '" +
                     llvm::StringRef(reinterpret_cast<const char *>(buf.data() + 4), 4) +
                     "', expected 'TFL3'");
  // Bounds and alignment: flatbuffers' accessors read scalars and vectors in
  // place, so a misaligned offset in a damaged file is refused, not read.
  Verifier verifier(buf.data(), buf.size(), /*max_depth=*/64, /*max_tables=*/10000000,
                    /*check_alignment=*/true);
  Reader r(verifier);
  r.bufStart = buf.data();
  if (!verifier.VerifyOffset(0))
    return malformed("the root offset points outside the file: file is truncated or corrupt");
  SERENITY_TRY(root, r.table(buf.data() + flatbuffers::ReadScalar<uint32_t>(buf.data()), "model"));
  Model model;
  // Model: 0 version, 1 operator_codes, 2 subgraphs, 3 description, 4 buffers.
  SERENITY_TRY(version, r.scalar<uint32_t>(root, 0, 0, "model"));
  if (version != 3)
    return malformed("unsupported TFLite schema version " + llvm::Twine(version) +
                     " (expected 3)");
  model.version = version;
  std::vector<std::pair<int, std::string>> opcodes;
  SERENITY_TRY(codeTables, r.tables(root, 1, "operator code"));
  for (const Table *oc : codeTables) {
    // OperatorCode: 0 deprecated_builtin_code (byte), 1 custom_code,
    // 2 version, 3 builtin_code (int32, authoritative when larger).
    SERENITY_TRY(dep, r.scalar<int8_t>(oc, 0, 0, "operator code"));
    SERENITY_TRY(full, r.scalar<int32_t>(oc, 3, 0, "operator code"));
    SERENITY_TRY(custom, r.string(oc, 1, "operator code"));
    opcodes.emplace_back(std::max<int>(dep, full), custom);
  }
  std::vector<llvm::ArrayRef<uint8_t>> buffers;
  SERENITY_TRY(bufferTables, r.tables(root, 4, "buffer"));
  for (const Table *b : bufferTables) {
    // Buffer: 0 data [ubyte]; 1 offset / 2 size for models > 2 GB.
    SERENITY_TRY(offset, r.scalar<uint64_t>(b, 1, 0, "buffer"));
    if (offset)
      return malformed("buffers stored outside the flatbuffer (offset/size) are not supported");
    SERENITY_TRY(vec, r.vector<uint8_t>(b, 0, "buffer"));
    buffers.push_back(vec ? llvm::ArrayRef<uint8_t>(vec->Data(), vec->size())
                          : llvm::ArrayRef<uint8_t>());
  }
  SERENITY_TRY(subgraphTables, r.tables(root, 2, "subgraph"));
  for (const Table *sgt : subgraphTables) {
    SubGraph sg;
    SERENITY_TRY(tensorTables, r.tables(sgt, 0, "tensor"));
    for (const Table *tt : tensorTables) {
      // Tensor: 0 shape, 1 type, 2 buffer, 3 name, 4 quantization, 5 is_variable.
      Tensor t;
      t.index = sg.tensors.size();
      SERENITY_TRY(shape, r.numbers<int32_t>(tt, 0, "tensor"));
      t.shape.assign(shape.begin(), shape.end());
      SERENITY_TRY(type, r.scalar<int8_t>(tt, 1, 0, "tensor"));
      t.type = type;
      SERENITY_TRY(bidx, r.scalar<uint32_t>(tt, 2, 0, "tensor"));
      t.buffer = bidx;
      SERENITY_TRY(name, r.string(tt, 3, "tensor"));
      t.name = name;
      SERENITY_TRY(isVariable, r.scalar<uint8_t>(tt, 5, 0, "tensor"));
      t.isVariable = isVariable != 0;
      SERENITY_TRY(qt, r.subtable(tt, 4, "quantization"));
      if (qt) {
        // QuantizationParameters: 0 min, 1 max, 2 scale, 3 zero_point,
        // 4/5 details union, 6 quantized_dimension.
        SERENITY_TRY(scale, r.numbers<float>(qt, 2, "quantization"));
        SERENITY_TRY(zp, r.numbers<int64_t>(qt, 3, "quantization"));
        SERENITY_TRY(axis, r.scalar<int32_t>(qt, 6, 0, "quantization"));
        if (!scale.empty()) {
          if (zp.empty())
            zp.assign(scale.size(), 0);
          t.quant = Quantization{scale, zp, axis};
        }
      }
      int64_t elements = 1;
      for (int64_t d : t.shape) {
        if (d < 0)
          return malformed("tensor " + llvm::Twine(t.index) + " '" + t.name +
                           "' has a dynamic or negative dimension (" + llvm::Twine(d) +
                           "): only static shapes are supported");
        // A microcontroller tensor is far below 2^32 elements; a larger
        // count is a damaged shape (and would overflow the arithmetic on it).
        if (__builtin_mul_overflow(elements, d, &elements) || elements > (int64_t(1) << 32))
          return malformed("tensor " + llvm::Twine(t.index) + " '" + t.name +
                           "' has more than 2^32 elements: file is corrupt");
      }
      if (bidx >= buffers.size())
        return malformed("tensor " + llvm::Twine(t.index) + " '" + t.name +
                         "' refers to buffer " + llvm::Twine(bidx) + " but the model has " +
                         llvm::Twine(buffers.size()));
      llvm::ArrayRef<uint8_t> raw = buffers[bidx];
      if (!raw.empty()) {
        unsigned bytes = tensorTypeBytes(t.type);
        if (!bytes || t.type == kFloat16)
          return malformed("tensor " + llvm::Twine(t.index) + " '" + t.name +
                           "' has unsupported type " + t.typeName());
        int64_t count = t.numElements();
        if (static_cast<int64_t>(raw.size()) != count * bytes)
          return malformed("tensor " + llvm::Twine(t.index) + " '" + t.name + "': buffer has " +
                           llvm::Twine(raw.size()) + " bytes, its shape of " + t.typeName() +
                           " needs " + llvm::Twine(count * bytes));
        t.bytes = raw;
      }
      sg.tensors.push_back(std::move(t));
    }
    int numTensors = sg.tensors.size();
    SERENITY_TRY(opTables, r.tables(sgt, 3, "operator"));
    for (const Table *ot : opTables) {
      // Operator: 0 opcode_index, 1 inputs, 2 outputs, 3 options type, 4 options.
      Operator op;
      op.index = sg.operators.size();
      SERENITY_TRY(idx, r.scalar<uint32_t>(ot, 0, 0, "operator"));
      if (idx >= opcodes.size())
        return malformed("operator " + llvm::Twine(op.index) + " uses opcode index " +
                         llvm::Twine(idx) + " but the model has " +
                         llvm::Twine(opcodes.size()) + " operator codes");
      op.opcode = opcodes[idx].first;
      op.customCode = opcodes[idx].second;
      SERENITY_TRY(ins, r.numbers<int32_t>(ot, 1, "operator"));
      SERENITY_TRY(outs, r.numbers<int32_t>(ot, 2, "operator"));
      op.inputs.assign(ins.begin(), ins.end());
      op.outputs.assign(outs.begin(), outs.end());
      for (int x : op.inputs)
        if (x >= numTensors || x < -1)
          return malformed("operator " + llvm::Twine(op.index) + " (" + op.name() +
                           ") refers to tensor " + llvm::Twine(x) + " but the subgraph has " +
                           llvm::Twine(numTensors));
      for (int x : op.outputs)
        if (x >= numTensors || x < 0)
          return malformed("operator " + llvm::Twine(op.index) + " (" + op.name() +
                           ") refers to tensor " + llvm::Twine(x) + " but the subgraph has " +
                           llvm::Twine(numTensors));
      SERENITY_TRY(options, r.subtable(ot, 4, "operator options"));
      op.optionsTable = options;
      op.file = buf;
      sg.operators.push_back(std::move(op));
    }
    SERENITY_TRY(inputs, r.numbers<int32_t>(sgt, 1, "subgraph"));
    SERENITY_TRY(outputs, r.numbers<int32_t>(sgt, 2, "subgraph"));
    sg.inputs.assign(inputs.begin(), inputs.end());
    sg.outputs.assign(outputs.begin(), outputs.end());
    for (int x : sg.inputs)
      if (x < 0 || x >= numTensors)
        return malformed("subgraph " + llvm::Twine(model.subgraphs.size()) + " lists tensor " +
                         llvm::Twine(x) + " as an input or output but has " +
                         llvm::Twine(numTensors) + " tensors");
    for (int x : sg.outputs)
      if (x < 0 || x >= numTensors)
        return malformed("subgraph " + llvm::Twine(model.subgraphs.size()) + " lists tensor " +
                         llvm::Twine(x) + " as an input or output but has " +
                         llvm::Twine(numTensors) + " tensors");
    SERENITY_TRY(name, r.string(sgt, 4, "subgraph"));
    sg.name = name;
    model.subgraphs.push_back(std::move(sg));
  }
  if (model.subgraphs.empty())
    return malformed("model has no subgraphs");
  SERENITY_TRY(description, r.string(root, 3, "model"));
  model.description = description;
  for (const Operator &op : model.subgraphs[0].operators) {
    std::string name = op.name();
    auto it = std::find_if(model.opCounts.begin(), model.opCounts.end(),
                           [&](const auto &kv) { return kv.first == name; });
    if (it == model.opCounts.end())
      model.opCounts.emplace_back(name, 1);
    else
      ++it->second;
  }
  return model;
}
