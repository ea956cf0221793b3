#include "engine/window_memory.hpp"

#include <sys/mman.h>

#include <array>
#include <cstddef>
#include <mutex>
#include <new>
#include <vector>

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define GRUNDY_POISON(p, n) ASAN_POISON_MEMORY_REGION(p, n)
#define GRUNDY_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define GRUNDY_POISON(p, n) ((void)(p), (void)(n))
#define GRUNDY_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

namespace grundy::engine {
namespace {

// Size classes: multiples of 64 bytes up to 1 KiB, then four per doubling, each one cache line
// short of a multiple of a quarter of its power of two (at most 25% more than asked, and
// BitWindow turns the excess into capacity). An odd number of cache lines apart, the blocks of
// one slab start in different cache sets: a tile's windows are a thousand blocks of one class,
// each read at the same offsets (its summary after its words, the word of the cell's lower
// bound), and blocks a multiple of 2 KiB apart put those lines in a sixteenth of the sets of
// a 1 MiB L2 cache, where they evicted each other (cachegrind, 16384^2: twice the misses per
// cell of 8192^2). Blocks of powers of two that merge with their buddies cost a fifth more CPU
// for the same reason.
constexpr uint64_t kLine = 64;
constexpr uint64_t kSmallStep = kLine;
constexpr uint64_t kSmallLimit = 1024;
constexpr int kSmallClasses = static_cast<int>(kSmallLimit / kSmallStep);
constexpr int kLog2SmallLimit = 10;
constexpr int kLog2Largest = 16;
constexpr int kClasses = kSmallClasses + 4 * (kLog2Largest - kLog2SmallLimit);
static_assert(kWindowBlockLargest == (uint64_t{1} << kLog2Largest) - kLine);

// Mappings are large, so that a run needs few of them. For a run whose windows will be large
// they are aligned to the huge page size and advised for transparent huge pages: a tile's
// windows are a thousand blocks, each read near the values of its cells, and in a large table
// they span more 4 KiB pages than the TLB holds. In 2 MiB pages 65536^2 took 0.91-0.95 times
// the time (2 threads) with half the system time, 32768^2 0.87-0.95. 16384^2 (94 MiB
// estimated) gained nothing on one machine (noise of +-12%) and 0.94 times the time on
// another (8 alternated rounds on 2 threads, user time 0.94 times; on one thread no change),
// where touching fresh memory cost 2.8 ms per MiB in 4 KiB pages and under 1.5 in 2 MiB pages.
// Below 64 MiB (12288^2 and smaller) runs are short and gain nothing. The first mappings are
// the ones every later tile reuses, so advising only those beyond the first 128 MiB gained
// nothing: the run says up front what it expects (expect_window_bytes). The module loses
// nothing by it: its result array is in 4 KiB pages of its own (base::SmallPageBlock), so the
// two no longer compete for huge pages (they did, 2026-11-24).
constexpr uint64_t kMappingBytes = uint64_t{32} << 20;
constexpr uint64_t kHugePage = uint64_t{2} << 20;
constexpr uint64_t kHugePagesFrom = uint64_t{64} << 20;
constexpr uint64_t kPage = 4096;

struct SizeClass {
    int index;
    uint64_t bytes;
};

SizeClass size_class(uint64_t bytes) {
    if (bytes <= kSmallLimit) {
        const uint64_t steps = bytes == 0 ? 1 : (bytes + kSmallStep - 1) / kSmallStep;
        return {static_cast<int>(steps) - 1, steps * kSmallStep};
    }
    const uint64_t b = bytes + kLine;           // the class's size plus its missing line
    const int k = 63 - __builtin_clzll(b - 1);  // 2^k <= b - 1 < 2^(k + 1)
    const uint64_t step = uint64_t{1} << (k - 2);
    const uint64_t m = (b - 1) / step;  // 4..7
    return {kSmallClasses + 4 * (k - kLog2SmallLimit) + static_cast<int>(m - 4),
            (m + 1) * step - kLine};
}

uint64_t round_to_pages(uint64_t bytes) {
    return (bytes + kPage - 1) / kPage * kPage;
}

// `bytes` of fresh zero pages, aligned to `alignment` (a multiple of the page size).
void* map_aligned(uint64_t bytes, uint64_t alignment) {
    const uint64_t padded = bytes + alignment - kPage;
    void* p = mmap(nullptr, padded, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) throw std::bad_alloc();
    const auto start = reinterpret_cast<uintptr_t>(p);
    const uintptr_t aligned = (start + alignment - 1) / alignment * alignment;
    if (aligned > start) munmap(p, aligned - start);
    const uintptr_t end = start + padded, aligned_end = aligned + bytes;
    if (end > aligned_end) munmap(reinterpret_cast<void*>(aligned_end), end - aligned_end);
    return reinterpret_cast<void*>(aligned);
}

// Blocks of a class are cut from slabs of kSlabBytes (aligned, so a block finds its slab from
// its address) holding blocks of that class only. A slab whose blocks are all free again goes
// back to a pool that serves any class. Without that, the blocks that growing windows leave
// behind stayed in their classes while the demand moved to larger ones, and a 16384^2 run kept
// as much memory in free lists as in windows. Larger blocks would be too few per slab: they are
// mapped on their own.
constexpr uint64_t kSlabBytes = uint64_t{256} << 10;

struct Slab {  // at the start of its slab, which its blocks follow
    Slab* prev;
    Slab* next;       // in its class's list of slabs with a free block, or the pool of empty ones
    void* free_list;  // freed blocks, linked through their first bytes
    uint64_t unused;  // offset of the first never-used byte
    uint64_t live;    // blocks taken
    int index;        // size class
};
constexpr uint64_t kSlabHeader = 64;
static_assert(sizeof(Slab) <= kSlabHeader);

Slab* slab_of(void* block) {
    return reinterpret_cast<Slab*>(reinterpret_cast<uintptr_t>(block) & ~(kSlabBytes - 1));
}

// A doubly linked list of slabs.
struct SlabList {
    Slab* head = nullptr;
    void push(Slab* s) {
        s->prev = nullptr;
        s->next = head;
        if (head) head->prev = s;
        head = s;
    }
    void remove(Slab* s) {
        (s->prev ? s->prev->next : head) = s->next;
        if (s->next) s->next->prev = s->prev;
    }
};

// One allocator for the process, behind one lock: a run makes a few allocations per tile and
// per window growth, far too few for the lock to matter, and any thread may free any block.
// What takes long, a new slab's pages zeroed by the kernel, is done without it (empty_slab).
class WindowMemory {
  public:
    void* allocate(uint64_t bytes) {
        if (bytes > kWindowBlockLargest) return allocate_mapped(bytes);
        const SizeClass c = size_class(bytes);
        std::unique_lock<std::mutex> lock(mutex_);
        Slab* s = partial_[c.index].head;
        if (!s) {
            s = empty_slab(lock);
            start_slab(s, c);
            partial_[c.index].push(s);
        }
        void* p = s->free_list;
        if (p) {
            GRUNDY_UNPOISON(p, c.bytes);
            s->free_list = *static_cast<void**>(p);
            ++stats_.reused_blocks;
        } else {
            p = reinterpret_cast<char*>(s) + s->unused;
            s->unused += c.bytes;
            GRUNDY_UNPOISON(p, c.bytes);
        }
        ++s->live;
        if (!s->free_list && s->unused + c.bytes > kSlabBytes) partial_[c.index].remove(s);
        ++stats_.live_blocks;
        return p;
    }

    void free(void* block, uint64_t bytes) {
        if (!block) return;
        if (bytes > kWindowBlockLargest) return free_mapped(block, bytes);
        const SizeClass c = size_class(bytes);
        std::lock_guard<std::mutex> lock(mutex_);
        Slab* s = slab_of(block);
        const bool was_full = !s->free_list && s->unused + c.bytes > kSlabBytes;
        *static_cast<void**>(block) = s->free_list;
        s->free_list = block;
        GRUNDY_POISON(block, c.bytes);
        if (--s->live == 0) {
            if (!was_full) partial_[c.index].remove(s);
            GRUNDY_POISON(reinterpret_cast<char*>(s) + kSlabHeader, kSlabBytes - kSlabHeader);
            empty_.push(s);
        } else if (was_full) {
            partial_[c.index].push(s);
        }
        --stats_.live_blocks;
        release_if_unused();
    }

    WindowMemoryStats stats() {
        std::lock_guard<std::mutex> lock(mutex_);
        return stats_;
    }

    void expect(uint64_t window_bytes) {
        std::lock_guard<std::mutex> lock(mutex_);
        huge_pages_ = window_bytes >= kHugePagesFrom;
    }

  private:
    void* allocate_mapped(uint64_t bytes) {
        const uint64_t size = round_to_pages(bytes);
        void* p = map_aligned(size, kPage);
        std::lock_guard<std::mutex> lock(mutex_);
        ++stats_.live_blocks;
        ++stats_.mappings_made;
        stats_.mapped_bytes += size;
        return p;
    }

    void free_mapped(void* block, uint64_t bytes) {
        const uint64_t size = round_to_pages(bytes);
        munmap(block, size);
        std::lock_guard<std::mutex> lock(mutex_);
        stats_.mapped_bytes -= size;
        --stats_.live_blocks;
        release_if_unused();
    }

    // An empty slab: from the pool, else cut from the current mapping and its pages made
    // present, with `lock` let go meanwhile: the kernel zeroes them then (with huge pages, 2 MiB
    // at the first touch), and the other workers, which free and take blocks at every tile, need
    // not wait for it. A block counted live meanwhile keeps the mappings from being released.
    Slab* empty_slab(std::unique_lock<std::mutex>& lock) {
        if (Slab* s = empty_.head) {
            empty_.remove(s);
            GRUNDY_UNPOISON(s, kSlabHeader);
            return s;
        }
        if (room_ < kSlabBytes) {
            next_ = static_cast<char*>(
                map_aligned(kMappingBytes, huge_pages_ ? kHugePage : kSlabBytes));
            if (huge_pages_) madvise(next_, kMappingBytes, MADV_HUGEPAGE);  // advice only
            GRUNDY_POISON(next_, kMappingBytes);
            mappings_.push_back(next_);
            room_ = kMappingBytes;
            ++stats_.mappings_made;
            stats_.mapped_bytes += kMappingBytes;
        }
        auto* s = reinterpret_cast<Slab*>(next_);
        next_ += kSlabBytes;
        room_ -= kSlabBytes;
        ++stats_.live_blocks;
        lock.unlock();
        // In one call rather than one fault per 4 KiB page as its blocks are first written.
        // Advice only: failure changes nothing.
        madvise(s, kSlabBytes, MADV_POPULATE_WRITE);
        lock.lock();
        --stats_.live_blocks;
        GRUNDY_UNPOISON(s, kSlabHeader);
        return s;
    }

    // An empty slab given to class `c`.
    void start_slab(Slab* s, SizeClass c) {
        s->free_list = nullptr;
        s->unused = kSlabHeader + colour(c.bytes);
        s->live = 0;
        s->index = c.index;
    }

    // Where a new slab's first block starts, in cache lines after the header: the room its blocks
    // leave at the slab's end, spread over the slabs so that the same block of two slabs does
    // not start in the same cache set (slabs are aligned to 256 KiB, a multiple of every set
    // cycle). Fibonacci hashing of the slab's number: consecutive slabs far apart.
    uint64_t colour(uint64_t block_bytes) {
        const uint64_t room = kSlabBytes - kSlabHeader;
        const uint64_t spare_lines = (room - room / block_bytes * block_bytes) / kLine;
        const uint64_t spread = (++slabs_coloured_ * 0x9E3779B97F4A7C15ULL) >> 32;
        return spread % (spare_lines + 1) * kLine;
    }

    // With no block in use (a run is over), everything goes back to the system: a host program
    // that computes one table should not keep its windows' memory afterwards.
    void release_if_unused() {
        if (stats_.live_blocks != 0 || mappings_.empty()) return;
        for (char* m : mappings_) {
            GRUNDY_UNPOISON(m, kMappingBytes);
            munmap(m, kMappingBytes);
        }
        stats_.mapped_bytes -= mappings_.size() * kMappingBytes;
        mappings_.clear();
        partial_.fill(SlabList{});
        empty_ = SlabList{};
        next_ = nullptr;
        room_ = 0;
    }

    std::mutex mutex_;
    bool huge_pages_ = false;                   // mappings made now are advised for huge pages
    std::array<SlabList, kClasses> partial_{};  // per class, its slabs with a free block
    SlabList empty_;                            // slabs with no block taken, for any class
    std::vector<char*> mappings_;
    char* next_ = nullptr;  // where the current mapping's unused part starts
    uint64_t room_ = 0;     // its bytes
    uint64_t slabs_coloured_ = 0;
    WindowMemoryStats stats_;
};

// Never destroyed: windows may be freed by static destructors of other translation units.
WindowMemory& memory() {
    static WindowMemory* const m = new WindowMemory;
    return *m;
}

}  // namespace

uint64_t window_block_size(uint64_t bytes) {
    return bytes > kWindowBlockLargest ? round_to_pages(bytes) : size_class(bytes).bytes;
}

void* allocate_window_block(uint64_t bytes) {
    return memory().allocate(bytes);
}

void free_window_block(void* block, uint64_t bytes) {
    memory().free(block, bytes);
}

void expect_window_bytes(uint64_t bytes) {
    memory().expect(bytes);
}

WindowMemoryStats window_memory_stats() {
    return memory().stats();
}

}  // namespace grundy::engine
