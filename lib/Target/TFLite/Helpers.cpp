//===- Helpers.cpp - Helpers the operator families share ------------------===//

#include "Helpers.h"
#include "Format.h"

using namespace mlir::serenity::tflite;

std::string mlir::serenity::tflite::shapesRepr(Importer &imp, const Operator &op) {
  std::string s = "[";
  for (size_t k = 0; k < op.inputs.size(); ++k) {
    if (k)
      s += ", ";
    s += op.inputs[k] < 0 ? std::string("None") : listRepr(imp.tensor(op.inputs[k]).shape);
  }
  return s + "]";
}

std::string mlir::serenity::tflite::typeName(Importer &imp, Type elem) {
  if (elem == imp.i8)
    return "int8";
  if (elem == imp.i16)
    return "int16";
  if (elem == imp.i32)
    return "int32";
  if (elem == imp.i1)
    return "bool";
  if (elem == imp.f32)
    return "float32";
  return elemName(elem);
}

/// A copy of `w` with `fn` applied to the array that holds its data.
template <typename Fn>
static Weights mapData(const Weights &w, Fn fn) {
  Weights r = w;
  if (w.isFloat)
    r.f = fn(w.f);
  else
    r.i = fn(w.i);
  return r;
}

Weights Weights::reshape(std::vector<int64_t> s) const {
  return mapData(*this, [&](const auto &a) { return a.reshape(s); });
}

Weights Weights::transpose(llvm::ArrayRef<int64_t> perm) const {
  return mapData(*this, [&](const auto &a) { return a.transpose(perm); });
}

FailureOr<Weights> mlir::serenity::tflite::weights(Importer &imp, const Tensor &wt, const Operator &op) {
  Weights w;
  if (imp.floatMode || (wt.type == kFloat32 && imp.tensor(op.inputs[0]).type == kFloat32)) {
    auto f = imp.weightsFloat(wt);
    if (failed(f))
      return mlir::failure();
    w.isFloat = true;
    w.f = std::move(*f);
    return w;
  }
  auto i = imp.weightsInt(wt);
  if (failed(i))
    return mlir::failure();
  w.i = std::move(*i);
  return w;
}

FailureOr<std::pair<std::pair<double, int64_t>, std::pair<double, int64_t>>>
mlir::serenity::tflite::inOutQuant(Importer &imp, const Tensor &inT, const Tensor &out) {
  auto qi = imp.perTensor(inT);
  if (failed(qi))
    return mlir::failure();
  auto qo = imp.perTensor(out);
  if (failed(qo))
    return mlir::failure();
  return std::make_pair(*qi, *qo);
}

FailureOr<OpResults> mlir::serenity::tflite::withInput(
    Importer &imp, const Operator &op,
    llvm::function_ref<FailureOr<OpResults>(Value, const Tensor &)> compute) {
  auto xv = imp.value(op.inputs[0]);
  if (failed(xv))
    return mlir::failure();
  return compute(*xv, imp.tensor(op.outputs[0]));
}
