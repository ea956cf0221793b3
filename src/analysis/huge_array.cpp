#include "analysis/huge_array.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <new>

namespace grundy::analysis {

void* huge_alloc(size_t bytes) {
    constexpr size_t kHuge = size_t{2} << 20;
    bytes = std::max<size_t>(kHuge, (bytes + kHuge - 1) / kHuge * kHuge);
    void* memory = std::aligned_alloc(kHuge, bytes);
    if (!memory) throw std::bad_alloc();
    madvise(memory, bytes, MADV_HUGEPAGE);  // advice only: failure changes nothing
    return memory;
}

}  // namespace grundy::analysis
