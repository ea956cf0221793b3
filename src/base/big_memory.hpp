// Big buffers, and the page size each is given.
//
// Which page size pays depends on the buffer and the machine. 2 MiB pages save a TLB miss per
// access to buffers walked at random or down a band. But every page is cleared on its first
// touch, and on a virtual machine whose host takes freed memory back (virtio-balloon free page
// reporting, as on the project's machine) only whole free 2 MiB blocks are given back to it:
// a 2 MiB page is always memory the host must supply again, fault by fault, while 4 KiB pages
// come first from the smaller free blocks that the guest kept.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>
#include <utility>

namespace grundy::base {

// Memory in 2 MiB pages where the system gives them on request (transparent huge pages in
// `madvise` mode). Aligned to 2 MiB, rounded up to a multiple of it; not zeroed; throws
// std::bad_alloc. Given back with std::free (FreeDeleter).
void* huge_alloc(size_t bytes);
// The same, or nullptr where there is no such memory: for buffers that only speed a write up,
// whose callers do without.
void* try_huge_alloc(size_t bytes) noexcept;

struct FreeDeleter {
    void operator()(void* p) const { std::free(p); }
};
template <typename T>
using HugeArray = std::unique_ptr<T[], FreeDeleter>;

// n values of T from huge_alloc, uninitialised.
template <typename T>
HugeArray<T> huge_array(size_t n) {
    if (n > SIZE_MAX / sizeof(T)) throw std::bad_alloc();
    return HugeArray<T>(static_cast<T*>(huge_alloc(n * sizeof(T))));
}

// Advises the whole 2 MiB pages inside [data, data + bytes) for huge pages, where the system
// gives them on request, for a buffer from malloc or calloc that is read and written over and
// over. Advice only: failure changes nothing.
void advise_huge_pages(void* data, size_t bytes);

// A mapping of its own in 4 KiB pages, never huge ones (whatever the system's default), for a
// big buffer written once from end to end: the first touch is all it costs. Zeroed (fresh
// pages); unmapped when destroyed; throws std::bad_alloc.
class SmallPageBlock {
  public:
    explicit SmallPageBlock(size_t bytes);
    ~SmallPageBlock();
    SmallPageBlock(SmallPageBlock&& from) noexcept
        : data_(std::exchange(from.data_, nullptr)), bytes_(std::exchange(from.bytes_, 0)) {}
    SmallPageBlock& operator=(SmallPageBlock&&) = delete;
    SmallPageBlock(const SmallPageBlock&) = delete;
    SmallPageBlock& operator=(const SmallPageBlock&) = delete;
    void* data() const { return data_; }
    size_t bytes() const { return bytes_; }

  private:
    void* data_ = nullptr;
    size_t bytes_ = 0;
};

// Makes every page of [data, data + bytes) present and writable now, 64 MiB at a time, each
// piece cut in parts for `threads` threads (MADV_POPULATE_WRITE, else a write of one byte per
// page: the contents are then undefined, so only for a buffer about to be overwritten whole).
// A buffer filled in scattered pieces, such as a table from its tiles, otherwise takes one page
// fault per 4 KiB page in the middle of the work that writes it. Stops between pieces once
// `*cancel` is set (a gigabyte takes seconds where the host supplies the pages).
void prefault(void* data, size_t bytes, int threads, const std::atomic<bool>* cancel = nullptr);

}  // namespace grundy::base
