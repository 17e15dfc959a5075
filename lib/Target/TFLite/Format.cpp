//===- Format.cpp - Numbers in diagnostics, as Python prints them ---------===//

#include "Format.h"

#include "llvm/Support/raw_ostream.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace {
/// The shortest digits that read back as `v` (std::to_chars, which breaks
/// ties as Python does), in Python's layout: fixed for decimal exponents in
/// [-4, 16), scientific with a two-digit exponent otherwise.
template <typename F> std::string shortestRepr(F v) {
  if (std::isnan(v))
    return "nan";
  if (std::isinf(v))
    return v > 0 ? "inf" : "-inf";
  if (v == 0)
    return std::signbit(v) ? "-0.0" : "0.0";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::scientific);
  std::string s(buf, res.ptr);
  size_t e = s.find('e');
  int exp = std::stoi(s.substr(e + 1));
  std::string digits;
  for (size_t i = 0; i < e; ++i)
    if (s[i] >= '0' && s[i] <= '9')
      digits += s[i];
  std::string out = v < 0 ? "-" : "";
  if (exp >= -4 && exp < 16) {
    int n = digits.size();
    if (exp < 0)
      return out + "0." + std::string(-exp - 1, '0') + digits;
    if (exp + 1 >= n)
      return out + digits + std::string(exp + 1 - n, '0') + ".0";
    return out + digits.substr(0, exp + 1) + "." + digits.substr(exp + 1);
  }
  out += digits.substr(0, 1);
  if (digits.size() > 1)
    out += "." + digits.substr(1);
  char eb[16];
  std::snprintf(eb, sizeof(eb), "e%c%02d", exp < 0 ? '-' : '+', std::abs(exp));
  return out + eb;
}
} // namespace

std::string mlir::serenity::tflite::pyRepr(double v) { return shortestRepr(v); }
std::string mlir::serenity::tflite::pyReprF32(float v) { return shortestRepr(v); }

namespace {
template <typename T> std::string list(llvm::ArrayRef<T> values) {
  std::string s = "[";
  for (size_t i = 0; i < values.size(); ++i)
    s += (i ? ", " : "") + std::to_string(values[i]);
  return s + "]";
}
} // namespace

std::string mlir::serenity::tflite::listRepr(llvm::ArrayRef<int64_t> values) { return list(values); }
std::string mlir::serenity::tflite::listRepr(llvm::ArrayRef<int> values) { return list(values); }
std::string mlir::serenity::tflite::str(int64_t v) { return std::to_string(v); }

std::string mlir::serenity::tflite::elemName(mlir::Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  t.print(os);
  return s;
}
