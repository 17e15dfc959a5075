//===- EnumTable.h - An enum's one table of spellings -----------*- C++ -*-===//
//
// An enumerated choice (an algorithm, a mode, a target) is a C++ enum with ONE
// table of its spellings, from which parsing, printing and the list of choices
// in error messages all come. Plain C++ (no LLVM), so that the algorithm
// libraries (Scheduling, Allocation) declare their enums' tables next to the
// enums; Serenity/Support/EnumOption.h turns a table into the llvm::cl parser
// of pass and pipeline options.
//
// An enum joins by declaring, next to it and in its namespace,
//   SERENITY_ENUM_NAMES(E, {E::A, "a"}, {E::B, "b"})
// which defines its table kENames and enumEntries(E), found by lookup.
//
//===----------------------------------------------------------------------===//

#ifndef SERENITY_SUPPORT_ENUMTABLE_H
#define SERENITY_SUPPORT_ENUMTABLE_H

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace serenity {

/// One spelling of an enumerated choice.
template <typename E> struct EnumEntry {
  E value;
  const char *name;
};

/// The table of an enum's spellings (begin/end over a static array).
template <typename E> class EnumTable {
public:
  template <std::size_t N>
  constexpr EnumTable(const EnumEntry<E> (&entries)[N])
      : first(entries), last(entries + N) {}
  constexpr const EnumEntry<E> *begin() const { return first; }
  constexpr const EnumEntry<E> *end() const { return last; }
  constexpr std::size_t size() const { return last - first; }

private:
  const EnumEntry<E> *first;
  const EnumEntry<E> *last;
};

/// The value spelled `text`, if any.
template <typename E> std::optional<E> parseEnum(std::string_view text) {
  for (const EnumEntry<E> &entry : enumEntries(E{}))
    if (text == entry.name)
      return entry.value;
  return std::nullopt;
}

/// The spelling of `value` ("" for a value outside the table).
template <typename E> const char *stringifyEnum(E value) {
  for (const EnumEntry<E> &entry : enumEntries(E{}))
    if (entry.value == value)
      return entry.name;
  return "";
}

/// The spellings, in table order: "a, b, c".
template <typename E> std::string enumChoices() {
  std::string choices;
  for (const EnumEntry<E> &entry : enumEntries(E{})) {
    if (!choices.empty())
      choices += ", ";
    choices += entry.name;
  }
  return choices;
}

} // namespace serenity

/// Defines the table of spellings kENames of the enum E and enumEntries(E),
/// in E's namespace: SERENITY_ENUM_NAMES(E, {E::A, "a"}, {E::B, "b"}).
#define SERENITY_ENUM_NAMES(E, ...)                                            \
  inline constexpr ::serenity::EnumEntry<E> k##E##Names[] = {__VA_ARGS__};     \
  constexpr ::serenity::EnumTable<E> enumEntries(E) { return k##E##Names; }

#endif // SERENITY_SUPPORT_ENUMTABLE_H
