//===- EnumOption.h - Enumerated options from one name table ----*- C++ -*-===//
//
// The llvm::cl parser of an enum with a table of spellings
// (Serenity/Support/EnumTable.h), for pass options (Passes.td) and pipeline
// options of that enum type: a bad value is reported when the options are
// parsed,
//   serenity-opt: for the --schedule option: invalid value 'fastest'
//   (expected one of: dp, kahn, greedy, program-order, none)
// and C++ sets the option with an enumerator (a wrong type does not compile).
// Declare, at global scope, SERENITY_ENUM_OPTION(qualified::E).
//
//===----------------------------------------------------------------------===//

#ifndef SERENITY_SUPPORT_ENUMOPTION_H
#define SERENITY_SUPPORT_ENUMOPTION_H

#include "Serenity/Support/EnumTable.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"

namespace mlir {
namespace serenity {

using ::serenity::EnumEntry;
using ::serenity::EnumTable;
using ::serenity::enumChoices;
using ::serenity::parseEnum;
using ::serenity::stringifyEnum;

/// The llvm::cl parser of an enum with a table: llvm::cl::parser<E>'s
/// interface (MLIR's pass options print values through `Values`), filled
/// from the table, with an error that lists the choices.
template <typename E>
class EnumOptionParser : public llvm::cl::generic_parser_base {
protected:
  class OptionInfo : public GenericOptionInfo {
  public:
    OptionInfo(llvm::StringRef name, E value)
        : GenericOptionInfo(name, /*helpStr=*/""), V(value) {}
    llvm::cl::OptionValue<E> V;
  };
  llvm::SmallVector<OptionInfo, 8> Values;

public:
  EnumOptionParser(llvm::cl::Option &option) : generic_parser_base(option) {
    for (const EnumEntry<E> &entry : enumEntries(E{}))
      Values.push_back(OptionInfo(llvm::StringRef(entry.name), entry.value));
  }

  using parser_data_type = E;

  unsigned getNumOptions() const override { return Values.size(); }
  llvm::StringRef getOption(unsigned n) const override {
    return Values[n].Name;
  }
  llvm::StringRef getDescription(unsigned n) const override {
    return Values[n].HelpStr;
  }
  const llvm::cl::GenericOptionValue &
  getOptionValue(unsigned n) const override {
    return Values[n].V;
  }

  /// Returns true on error (llvm::cl's convention).
  bool parse(llvm::cl::Option &option, llvm::StringRef, llvm::StringRef arg,
             E &value) {
    if (std::optional<E> parsed =
            parseEnum<E>(std::string_view(arg.data(), arg.size()))) {
      value = *parsed;
      return false;
    }
    return option.error("invalid value '" + arg +
                        "' (expected one of: " + enumChoices<E>() + ")");
  }
};

} // namespace serenity
} // namespace mlir

/// Makes `llvm::cl::parser<E>` (and so MLIR's pass options of type E) parse
/// and print E through its table. Use at global scope.
#define SERENITY_ENUM_OPTION(E)                                                \
  template <>                                                                  \
  class llvm::cl::parser<E> : public ::mlir::serenity::EnumOptionParser<E> {   \
  public:                                                                      \
    using ::mlir::serenity::EnumOptionParser<E>::EnumOptionParser;             \
  };

#endif // SERENITY_SUPPORT_ENUMOPTION_H
