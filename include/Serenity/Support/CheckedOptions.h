//===- CheckedOptions.h - Pass options checked beyond parsing ---*- C++ -*-===//
//
// For the passes of lib/Graph and lib/Lowering. A pass whose options need checks their parsers
// cannot do (choices among strings, ranges) derives from
// CheckedOptions<Pass, impl::PassBase> and defines
//   std::optional<std::string> optionError() const;
// The error is reported when the options are parsed (from a pipeline string:
// an error while the pipeline is built, before any IR is touched) and again
// by checkOptions(), which runOnOperation calls first: options set from C++
// through the generated options struct are never parsed.
//
//===----------------------------------------------------------------------===//

#ifndef SERENITY_SUPPORT_CHECKEDOPTIONS_H
#define SERENITY_SUPPORT_CHECKEDOPTIONS_H

#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/Pass.h"

#include <optional>
#include <string>

namespace mlir {
namespace serenity {

template <typename Derived, template <typename> class GeneratedBase>
struct CheckedOptions : public GeneratedBase<Derived> {
  using Generated = GeneratedBase<Derived>;
  using Generated::Generated;

  LogicalResult initializeOptions(
      StringRef options,
      function_ref<LogicalResult(const Twine &)> errorHandler) override {
    if (failed(Generated::initializeOptions(options, errorHandler)))
      return failure();
    if (std::optional<std::string> error =
            static_cast<const Derived *>(this)->optionError())
      return errorHandler(*error);
    return success();
  }

  /// Reports an option error at the operation (without printing it);
  /// failure then means the pass must signal failure and stop.
  LogicalResult checkOptions() {
    std::optional<std::string> error =
        static_cast<const Derived *>(this)->optionError();
    if (!error)
      return success();
    emitError(this->getOperation()->getLoc()) << *error;
    return failure();
  }
};

} // namespace serenity
} // namespace mlir

#endif // SERENITY_SUPPORT_CHECKEDOPTIONS_H
