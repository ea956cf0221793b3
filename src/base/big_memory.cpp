#include "base/big_memory.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>

namespace grundy::base {

void* huge_alloc(size_t bytes) {
    constexpr size_t kHuge = size_t{2} << 20;
    if (bytes > SIZE_MAX - kHuge) throw std::bad_alloc();
    bytes = std::max<size_t>(kHuge, (bytes + kHuge - 1) / kHuge * kHuge);
    void* memory = std::aligned_alloc(kHuge, bytes);
    if (!memory) throw std::bad_alloc();
    advise_huge_pages(memory, bytes);  // aligned: the whole buffer
    return memory;
}

void* try_huge_alloc(size_t bytes) noexcept {
    try {
        return huge_alloc(bytes);
    } catch (const std::bad_alloc&) {
        return nullptr;
    }
}

void advise_huge_pages(void* data, size_t bytes) {
    constexpr uintptr_t kHuge = uintptr_t{2} << 20;
    const uintptr_t first = (reinterpret_cast<uintptr_t>(data) + kHuge - 1) & ~(kHuge - 1);
    const uintptr_t end = (reinterpret_cast<uintptr_t>(data) + bytes) & ~(kHuge - 1);
    if (end > first) madvise(reinterpret_cast<void*>(first), end - first, MADV_HUGEPAGE);
}

SmallPageBlock::SmallPageBlock(size_t bytes) : bytes_(std::max<size_t>(bytes, 1)) {
    data_ = mmap(nullptr, bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (data_ == MAP_FAILED) throw std::bad_alloc();
    madvise(data_, bytes_, MADV_NOHUGEPAGE);  // advice only: failure changes nothing
}

SmallPageBlock::~SmallPageBlock() {
    if (data_) munmap(data_, bytes_);
}

void prefault(void* data, size_t bytes, int threads, const std::atomic<bool>* cancel) {
    if (bytes == 0) return;
    const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    constexpr size_t kPiece = size_t{64} << 20;
    // madvise needs a page-aligned start: the first part begins at the page holding `data`.
    const uintptr_t first = reinterpret_cast<uintptr_t>(data);
    const uintptr_t end = first + bytes;
    for (uintptr_t begin = first / page * page; begin < end; begin += kPiece) {
        if (cancel && cancel->load(std::memory_order_relaxed)) return;
        const uintptr_t piece_end = std::min<uintptr_t>(begin + kPiece, end);
        const size_t pages = (piece_end - begin + page - 1) / page;
        const int parts =
            static_cast<int>(std::clamp<size_t>(pages / 256, 1, std::max(threads, 1)));
#pragma omp parallel for num_threads(parts) schedule(static)
        for (int k = 0; k < parts; ++k) {
            const uintptr_t from = begin + pages * k / parts * page;
            const uintptr_t to = std::min<uintptr_t>(begin + pages * (k + 1) / parts * page, end);
            if (madvise(reinterpret_cast<void*>(from), to - from, MADV_POPULATE_WRITE) == 0)
                continue;
            // An older kernel: one write per page, at addresses inside the buffer.
            for (uintptr_t a = std::max(from, first); a < to; a = (a / page + 1) * page)
                *reinterpret_cast<volatile char*>(a) = 0;
        }
    }
}

}  // namespace grundy::base
