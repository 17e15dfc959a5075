//===- Schema.h - TFLite flatbuffer reader -----------------------*- C++ -*-===//
//
// The fields of tensorflow/lite/schema/schema.fbs (version 3) that the importer
// reads, declared here by their vtable slot and decoded eagerly into plain
// structs over flatbuffers' Table and Verifier: any structural damage
// (truncation, offsets outside the file, vectors past its end) is a clear error
// while the file is read, never a crash later.
//
//===----------------------------------------------------------------------===//

#ifndef SERENITY_TARGET_TFLITE_SCHEMA_H
#define SERENITY_TARGET_TFLITE_SCHEMA_H

#include "NdArray.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace flatbuffers {
class Table;
} // namespace flatbuffers

namespace mlir::serenity::tflite {

/// TensorType enum values of the schema.
enum TensorType : int {
  kFloat32 = 0,
  kFloat16 = 1,
  kInt32 = 2,
  kUInt8 = 3,
  kInt64 = 4,
  kString = 5,
  kBool = 6,
  kInt16 = 7,
  kComplex64 = 8,
  kInt8 = 9,
  kFloat64 = 10,
};

/// The schema name of a TensorType ("INT8"), or "TYPE_<n>".
std::string tensorTypeName(int type);
/// Bytes per element of a TensorType the importer can read, 0 otherwise.
unsigned tensorTypeBytes(int type);
/// The schema name of a BuiltinOperator value ("CONV_2D"), or "BUILTIN_<n>".
std::string builtinName(int code);

/// Affine quantization: real = scale * (q - zero_point), per tensor or per axis.
struct Quantization {
  std::vector<float> scale;
  std::vector<int64_t> zeroPoint;
  int axis = 0;
};

struct Tensor {
  int index = 0;
  std::string name;
  std::vector<int64_t> shape;
  int type = 0;
  unsigned buffer = 0;
  std::optional<Quantization> quant;
  /// Constant contents (little-endian bytes of `type`), empty when none.
  llvm::ArrayRef<uint8_t> bytes;
  /// A variable tensor: state kept between invocations.
  bool isVariable = false;

  std::string typeName() const { return tensorTypeName(type); }
  bool hasData() const { return !bytes.empty(); }
  int64_t numElements() const;
  /// The constant contents converted element by element to T (numpy's
  /// `data.astype(T)`), shaped as the tensor. Requires hasData().
  template <typename T> NdArray<T> data() const;
};

/// Typed access to an operator's builtin_options table by field index (the
/// schema's field order); absent tables and fields give the default.
class OptionReader {
public:
  OptionReader(const flatbuffers::Table *table, llvm::ArrayRef<uint8_t> file)
      : table(table), file(file) {}
  int8_t i8(unsigned field, int8_t def = 0) const;
  int32_t i32(unsigned field, int32_t def = 0) const;
  float f32(unsigned field, float def = 0.0f) const;
  bool boolean(unsigned field, bool def = false) const;
  std::vector<int32_t> i32Vector(unsigned field) const;

private:
  const flatbuffers::Table *table;
  llvm::ArrayRef<uint8_t> file; // the whole buffer, for bounds checks
};

struct Operator {
  int index = 0;
  int opcode = 0; // BuiltinOperator value
  std::string customCode;
  std::vector<int> inputs;
  std::vector<int> outputs;
  const flatbuffers::Table *optionsTable = nullptr; // verified table start
  llvm::ArrayRef<uint8_t> file;                     // the model's buffer
  /// "CONV_2D", or "CUSTOM(code)".
  std::string name() const;
  OptionReader options() const { return OptionReader(optionsTable, file); }
};

struct SubGraph {
  std::vector<Tensor> tensors;
  std::vector<int> inputs;
  std::vector<int> outputs;
  std::vector<Operator> operators;
  std::string name;
};

/// A decoded model. It points into the buffer it was read from, which must
/// outlive it.
struct Model {
  unsigned version = 0;
  std::vector<SubGraph> subgraphs;
  std::string description;
  /// Operator name -> count in subgraph 0, in first-use order.
  std::vector<std::pair<std::string, int>> opCounts;
};

/// Decodes a TFLite flatbuffer; a malformed one is an error naming what is
/// wrong.
llvm::Expected<Model> readModel(llvm::ArrayRef<uint8_t> buffer);

} // namespace mlir::serenity::tflite

#endif // SERENITY_TARGET_TFLITE_SCHEMA_H
