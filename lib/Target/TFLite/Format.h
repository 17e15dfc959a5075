//===- Format.h - Numbers in diagnostics, as Python prints them --*- C++ -*-===//
//
// The importer's messages print floats and shapes the way the Python tools
// (and TFLite's own messages) show them: "0.1", "[1, 96, 96, 1]".
//
//===----------------------------------------------------------------------===//

#ifndef SERENITY_LIB_TARGET_TFLITE_FORMAT_H
#define SERENITY_LIB_TARGET_TFLITE_FORMAT_H

#include "mlir/IR/Types.h"

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <string>

namespace mlir::serenity::tflite {

/// Python's repr of a float: the shortest digits that read back as `v`,
/// fixed notation for decimal exponents in [-4, 16), scientific otherwise.
std::string pyRepr(double v);
/// str() of a numpy float32: the shortest digits that read back as `f` in
/// float32, fixed notation for 1e-4 <= |f| < 1e16 (with ".0" for integers),
/// scientific otherwise ("1e-05").
std::string pyReprF32(float f);
/// A list as Python prints it: "[1, 2, 3]".
std::string listRepr(llvm::ArrayRef<int64_t> values);
/// A list of ints as Python prints it.
std::string listRepr(llvm::ArrayRef<int> values);
/// Python's str of an int.
std::string str(int64_t v);
/// An element type as MLIR spells it: "i8", "f32", ...
std::string elemName(mlir::Type t);

} // namespace mlir::serenity::tflite

#endif // SERENITY_LIB_TARGET_TFLITE_FORMAT_H
