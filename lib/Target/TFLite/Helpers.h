//===- Helpers.h - Helpers the operator families share -----------*- C++ -*-===//
//
// Free functions over the Importer used by several operator files: message
// pieces that read the graph, and the weights as the Python importer holds
// them.
//
//===----------------------------------------------------------------------===//

#ifndef SERENITY_LIB_TARGET_TFLITE_HELPERS_H
#define SERENITY_LIB_TARGET_TFLITE_HELPERS_H

#include "Importer.h"

#include "llvm/ADT/STLFunctionalExtras.h"

#include <string>
#include <vector>

namespace mlir::serenity::tflite {

/// Python's repr of the operator's input shapes, e.g. `[[1, 10], None]`.
std::string shapesRepr(Importer &imp, const Operator &op);

/// Python's TYPE_NAMES of an element type ("int8", "float32", "bool", ...;
/// MLIR's spelling for others).
std::string typeName(Importer &imp, Type elem);

/// Weights as the Python importer holds them: the file's data (int8 or
/// float32) or, in float mode, dequantized float32.
struct Weights {
  bool isFloat = false;
  NdArray<float> f;
  NdArray<int64_t> i;

  const std::vector<int64_t> &shape() const { return isFloat ? f.shape : i.shape; }
  int64_t rank() const { return shape().size(); }
  Weights reshape(std::vector<int64_t> s) const;
  Weights transpose(llvm::ArrayRef<int64_t> perm) const;
  NdArray<float> asFloat() const { return isFloat ? f : i.as<float>(); }
  /// numpy's astype(np.int8) is the constant's truncation; int64 here.
  NdArray<int64_t> asInt() const { return isFloat ? f.as<int64_t>() : i; }
};

/// Importer.weights: constant weights, dequantized in float mode; the file's
/// float32 data for a float operator of a quantized model, else INT8 data.
FailureOr<Weights> weights(Importer &imp, const Tensor &wt, const Operator &op);

/// Importer.perTensor of an input and of an output tensor, in that order:
/// ((s_in, z_in), (s_out, z_out)).
FailureOr<std::pair<std::pair<double, int64_t>, std::pair<double, int64_t>>>
inOutQuant(Importer &imp, const Tensor &inT, const Tensor &out);

/// An operator whose result `compute` builds from the value of `op`'s input 0
/// and `op`'s output tensor.
FailureOr<OpResults>
withInput(Importer &imp, const Operator &op,
          llvm::function_ref<FailureOr<OpResults>(Value, const Tensor &)> compute);

} // namespace mlir::serenity::tflite

#endif // SERENITY_LIB_TARGET_TFLITE_HELPERS_H
