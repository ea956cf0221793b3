#include "engine/big_memory.hpp"

#include <sys/mman.h>

#include <algorithm>

namespace grundy::engine {

void* huge_alloc(size_t bytes) {
    constexpr size_t kHuge = size_t{2} << 20;
    if (bytes > SIZE_MAX - kHuge) throw std::bad_alloc();
    bytes = std::max<size_t>(kHuge, (bytes + kHuge - 1) / kHuge * kHuge);
    void* memory = std::aligned_alloc(kHuge, bytes);
    if (!memory) throw std::bad_alloc();
    madvise(memory, bytes, MADV_HUGEPAGE);  // advice only: failure changes nothing
    return memory;
}

SmallPageBlock::SmallPageBlock(size_t bytes) : bytes_(std::max<size_t>(bytes, 1)) {
    data_ = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (data_ == MAP_FAILED) throw std::bad_alloc();
    madvise(data_, bytes_, MADV_NOHUGEPAGE);  // advice only: failure changes nothing
}

SmallPageBlock::~SmallPageBlock() {
    if (data_) munmap(data_, bytes_);
}

}  // namespace grundy::engine
