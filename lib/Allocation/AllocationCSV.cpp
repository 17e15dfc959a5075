//===- AllocationCSV.cpp - MiniMalloc CSV reader and writer -----*- C++ -*-===//
//
// Strict parsing: every malformed row is reported with its line number rather
// than skipped, because a silently dropped buffer makes any placement look
// valid.
//
//===----------------------------------------------------------------------===//

#include "Serenity/Allocation/AllocationCSV.h"

#include <cerrno>
#include <cstdlib>
#include <sstream>
#include <unordered_map>

using namespace serenity;

namespace {

std::string trim(const std::string &s) {
  size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos)
    return "";
  size_t e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

std::vector<std::string> splitFields(const std::string &line) {
  std::vector<std::string> fields;
  std::string field;
  std::istringstream in(line);
  while (std::getline(in, field, ','))
    fields.push_back(trim(field));
  // getline drops a trailing empty field ("a,b," has three fields).
  if (!line.empty() && line.back() == ',')
    fields.push_back("");
  return fields;
}

bool parseInt(const std::string &text, int64_t &value) {
  if (text.empty())
    return false;
  errno = 0;
  char *end = nullptr;
  long long v = std::strtoll(text.c_str(), &end, 10);
  // The whole field must be the number (an embedded NUL ends c_str early).
  if (errno != 0 || end != text.c_str() + text.size())
    return false;
  value = v;
  return true;
}

} // namespace

std::optional<AllocCSV> serenity::parseAllocCSV(const std::string &text,
                                                std::string &error) {
  enum Column { Id, Lower, Upper, Size, Alignment, Offset, NumColumns };
  static const char *names[NumColumns] = {"id",   "lower",     "upper",
                                          "size", "alignment", "offset"};
  std::istringstream in(text);
  std::string line;
  int lineNo = 0;
  std::vector<int> columnOf(NumColumns, -1);
  size_t numFields = 0;
  bool haveHeader = false;
  AllocCSV csv;
  std::vector<int64_t> offsets;
  std::unordered_map<std::string, int> lineOfId;
  auto fail = [&](int at, const std::string &msg) {
    error = "line " + std::to_string(at) + ": " + msg;
    return std::nullopt;
  };
  while (std::getline(in, line)) {
    ++lineNo;
    if (trim(line).empty())
      continue;
    std::vector<std::string> fields = splitFields(line);
    if (!haveHeader) {
      haveHeader = true;
      numFields = fields.size();
      for (size_t i = 0; i < fields.size(); ++i) {
        int column = -1;
        for (int c = 0; c < NumColumns; ++c)
          if (fields[i] == names[c])
            column = c;
        if (column < 0)
          return fail(lineNo, "unknown column '" + fields[i] +
                                  "' (expected id, lower, upper, size, "
                                  "alignment, offset)");
        if (columnOf[column] >= 0)
          return fail(lineNo, "duplicate column '" + fields[i] + "'");
        columnOf[column] = static_cast<int>(i);
      }
      for (int c = Id; c <= Size; ++c)
        if (columnOf[c] < 0)
          return fail(lineNo, std::string("missing column '") + names[c] +
                                  "' in header");
      csv.hasAlignment = columnOf[Alignment] >= 0;
      continue;
    }
    if (fields.size() != numFields)
      return fail(lineNo, "expected " + std::to_string(numFields) +
                              " fields, found " +
                              std::to_string(fields.size()));
    AllocBuffer buffer;
    buffer.id = fields[columnOf[Id]];
    if (buffer.id.empty())
      return fail(lineNo, "empty id");
    auto [it, inserted] = lineOfId.emplace(buffer.id, lineNo);
    if (!inserted)
      return fail(lineNo, "duplicate id '" + buffer.id + "' (first on line " +
                              std::to_string(it->second) + ")");
    int64_t *targets[] = {&buffer.lower, &buffer.upper, &buffer.size};
    for (int c = Lower; c <= Size; ++c)
      if (!parseInt(fields[columnOf[c]], *targets[c - Lower]))
        return fail(lineNo, std::string("invalid integer '") +
                                fields[columnOf[c]] + "' in column '" +
                                names[c] + "'");
    if (csv.hasAlignment &&
        !parseInt(fields[columnOf[Alignment]], buffer.alignment))
      return fail(lineNo, "invalid integer '" + fields[columnOf[Alignment]] +
                              "' in column 'alignment'");
    if (columnOf[Offset] >= 0) {
      int64_t offset;
      if (!parseInt(fields[columnOf[Offset]], offset))
        return fail(lineNo, "invalid integer '" + fields[columnOf[Offset]] +
                                "' in column 'offset'");
      offsets.push_back(offset);
    }
    // Bounded so that offsets, ends and sums of sizes stay in int64.
    constexpr int64_t kMaxBytes = int64_t(1) << 40;
    if (buffer.size < 0)
      return fail(lineNo, "negative size");
    if (buffer.size > kMaxBytes)
      return fail(lineNo, "size larger than 2^40 bytes");
    if (buffer.alignment <= 0)
      return fail(lineNo, "alignment must be positive");
    if (buffer.alignment > kMaxBytes)
      return fail(lineNo, "alignment larger than 2^40 bytes");
    if (!offsets.empty() && (offsets.back() < 0 || offsets.back() > kMaxBytes))
      return fail(lineNo, "offset outside [0, 2^40]");
    if (buffer.lower > buffer.upper)
      return fail(lineNo, "lower > upper (intervals are [lower, upper))");
    csv.buffers.push_back(std::move(buffer));
  }
  if (!haveHeader) {
    error = "line 1: empty input (expected header id,lower,upper,size)";
    return std::nullopt;
  }
  if (columnOf[Offset] >= 0)
    csv.offsets = std::move(offsets);
  if (std::optional<std::string> problem = validateBuffers(csv.buffers)) {
    error = *problem;
    return std::nullopt;
  }
  return csv;
}

std::string serenity::printAllocCSV(const std::vector<AllocBuffer> &buffers,
                                    const std::vector<int64_t> &offsets,
                                    bool withAlignment) {
  std::ostringstream out;
  out << "id,lower,upper,size" << (withAlignment ? ",alignment" : "")
      << ",offset\n";
  for (size_t i = 0; i < buffers.size(); ++i) {
    const AllocBuffer &b = buffers[i];
    out << b.id << ',' << b.lower << ',' << b.upper << ',' << b.size;
    if (withAlignment)
      out << ',' << b.alignment;
    out << ',' << offsets[i] << '\n';
  }
  return out.str();
}
