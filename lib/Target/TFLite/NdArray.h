//===- NdArray.h - Small dense arrays for the importer -----------*- C++ -*-===//
//
// The importer derives weights, tables and constants from the file's buffers
// at compile time (transposes, per-channel sums, lookup tables). NdArray is
// the row-major array these computations use: a shape and a flat vector.
//
//===----------------------------------------------------------------------===//

#ifndef SERENITY_TARGET_TFLITE_NDARRAY_H
#define SERENITY_TARGET_TFLITE_NDARRAY_H

#include "llvm/ADT/ArrayRef.h"

#include <cassert>
#include <cstdint>
#include <functional>
#include <numeric>
#include <vector>

namespace mlir::serenity::tflite {

inline int64_t product(llvm::ArrayRef<int64_t> dims) {
  int64_t n = 1;
  for (int64_t d : dims)
    n *= d;
  return n;
}

template <typename T> struct NdArray {
  std::vector<int64_t> shape;
  std::vector<T> data;

  NdArray() = default;
  NdArray(std::vector<int64_t> shape, std::vector<T> data)
      : shape(std::move(shape)), data(std::move(data)) {
    assert(product(this->shape) == static_cast<int64_t>(this->data.size()));
  }
  /// An array of `shape` filled with `value`.
  static NdArray full(std::vector<int64_t> shape, T value) {
    int64_t n = product(shape);
    return NdArray(std::move(shape), std::vector<T>(n, value));
  }
  /// A 1-D array.
  static NdArray vector(std::vector<T> values) {
    int64_t n = values.size();
    return NdArray({n}, std::move(values));
  }

  int64_t size() const { return data.size(); }
  int64_t rank() const { return shape.size(); }
  T &operator[](int64_t i) { return data[i]; }
  const T &operator[](int64_t i) const { return data[i]; }

  /// The same elements with another shape (-1 infers one dimension).
  NdArray reshape(std::vector<int64_t> newShape) const {
    int64_t known = 1, infer = -1;
    for (size_t i = 0; i < newShape.size(); ++i) {
      if (newShape[i] == -1)
        infer = i;
      else
        known *= newShape[i];
    }
    if (infer >= 0)
      newShape[infer] = known ? size() / known : 0;
    return NdArray(std::move(newShape), data);
  }

  /// numpy's transpose(perm): result dimension i is source dimension perm[i].
  NdArray transpose(llvm::ArrayRef<int64_t> perm) const {
    assert(perm.size() == shape.size());
    std::vector<int64_t> outShape(perm.size());
    for (size_t i = 0; i < perm.size(); ++i)
      outShape[i] = shape[perm[i]];
    std::vector<int64_t> srcStride(shape.size(), 1);
    for (int64_t i = static_cast<int64_t>(shape.size()) - 2; i >= 0; --i)
      srcStride[i] = srcStride[i + 1] * shape[i + 1];
    std::vector<T> out(data.size());
    std::vector<int64_t> idx(perm.size(), 0);
    for (int64_t flat = 0, n = size(); flat < n; ++flat) {
      int64_t src = 0;
      for (size_t i = 0; i < perm.size(); ++i)
        src += idx[i] * srcStride[perm[i]];
      out[flat] = data[src];
      for (int64_t i = static_cast<int64_t>(perm.size()) - 1; i >= 0; --i) {
        if (++idx[i] < outShape[i])
          break;
        idx[i] = 0;
      }
    }
    return NdArray(std::move(outShape), std::move(out));
  }

  /// Element-wise conversion (numpy's astype, a C++ static_cast per element).
  template <typename U> NdArray<U> as() const {
    std::vector<U> out(data.size());
    for (size_t i = 0; i < data.size(); ++i)
      out[i] = static_cast<U>(data[i]);
    return NdArray<U>(shape, std::move(out));
  }

  /// Element-wise map to another element type.
  template <typename U> NdArray<U> map(const std::function<U(T)> &fn) const {
    std::vector<U> out(data.size());
    for (size_t i = 0; i < data.size(); ++i)
      out[i] = fn(data[i]);
    return NdArray<U>(shape, std::move(out));
  }
};

} // namespace mlir::serenity::tflite

#endif // SERENITY_TARGET_TFLITE_NDARRAY_H
