//===- AllocationCSV.h - MiniMalloc CSV reader and writer -------*- C++ -*-===//
//
// The MiniMalloc benchmark format: a header row naming the columns `id`,
// `lower`, `upper`, `size` and optionally `alignment` and `offset` (any
// order), then one buffer per row live on [lower, upper).
//
//===----------------------------------------------------------------------===//

#ifndef SERENITY_ALLOCATION_ALLOCATIONCSV_H
#define SERENITY_ALLOCATION_ALLOCATIONCSV_H

#include "Serenity/Allocation/Allocator.h"

#include <optional>
#include <string>
#include <vector>

namespace serenity {

/// The contents of one allocation CSV file.
struct AllocCSV {
  std::vector<AllocBuffer> buffers;
  /// Present when the file has an `offset` column.
  std::optional<std::vector<int64_t>> offsets;
  /// The file has an `alignment` column (written back on output).
  bool hasAlignment = false;
};

/// Parses CSV `text`. On malformed input returns nothing and sets `error` to
/// a message that starts with "line N: " (1-based).
std::optional<AllocCSV> parseAllocCSV(const std::string &text,
                                      std::string &error);

/// Prints `buffers` with their `offsets` as CSV: `id,lower,upper,size`, then
/// `alignment` when `withAlignment`, then `offset`.
std::string printAllocCSV(const std::vector<AllocBuffer> &buffers,
                          const std::vector<int64_t> &offsets,
                          bool withAlignment);

} // namespace serenity

#endif // SERENITY_ALLOCATION_ALLOCATIONCSV_H
