//===- LargeAllocator.h - Allocator for the search tables -------*- C++ -*-===//
//
// Internal to lib/Scheduling. The exact searches' state tables grow to
// hundreds of megabytes by doubling, and their hash tables are read at
// random: on 4 KiB pages, page faults on fresh memory took 14 % of a long
// decision and the table lookups 29 % (perf). Blocks of at least
// kLargeBytes are aligned to 2 MiB and marked for transparent huge pages
// (MADV_HUGEPAGE, which the kernel's "madvise" and "always" settings
// honour; with "never" it changes nothing): the decision at 7311360 bytes
// on the 100-node fan-in-6 DAG of seed 12 (13.5 million states) took 13-14
// s instead of 24 s (docs/Scheduling.md).
//
//===----------------------------------------------------------------------===//

#ifndef SERENITY_LIB_SCHEDULING_LARGEALLOCATOR_H
#define SERENITY_LIB_SCHEDULING_LARGEALLOCATOR_H

#include <cstddef>
#include <cstdlib>
#include <new>
#include <vector>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace serenity {
namespace detail {

template <typename T> struct LargeAllocator {
  using value_type = T;
  static constexpr size_t kHugePage = size_t(2) << 20;
  static constexpr size_t kLargeBytes = size_t(4) << 20;

  LargeAllocator() = default;
  template <typename U> LargeAllocator(const LargeAllocator<U> &) {}

  T *allocate(size_t n) {
    const size_t bytes = n * sizeof(T);
    if (bytes < kLargeBytes)
      return static_cast<T *>(::operator new(bytes));
    const size_t rounded = (bytes + kHugePage - 1) / kHugePage * kHugePage;
    void *p = std::aligned_alloc(kHugePage, rounded);
    if (!p)
      throw std::bad_alloc();
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    madvise(p, rounded, MADV_HUGEPAGE);
#endif
    return static_cast<T *>(p);
  }
  void deallocate(T *p, size_t n) {
    if (n * sizeof(T) < kLargeBytes)
      ::operator delete(p);
    else
      std::free(p);
  }
  template <typename U> bool operator==(const LargeAllocator<U> &) const {
    return true;
  }
  template <typename U> bool operator!=(const LargeAllocator<U> &) const {
    return false;
  }
};

/// A vector whose large blocks are backed by huge pages where possible.
template <typename T> using LargeVector = std::vector<T, LargeAllocator<T>>;

} // namespace detail
} // namespace serenity

#endif // SERENITY_LIB_SCHEDULING_LARGEALLOCATOR_H
