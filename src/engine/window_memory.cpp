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

// Size classes: multiples of 64 bytes up to 1 KiB, then four per doubling (at most 25% more
// than asked, and BitWindow turns the excess into capacity). (Blocks of powers of two that
// merge with their buddies cost a fifth more CPU: windows aligned to their power-of-two sizes
// fall into the same cache sets.)
constexpr uint64_t kSmallStep = 64;
constexpr uint64_t kSmallLimit = 1024;
constexpr int kSmallClasses = static_cast<int>(kSmallLimit / kSmallStep);
constexpr int kLog2SmallLimit = 10;
constexpr int kLog2Largest = 16;
constexpr int kClasses = kSmallClasses + 4 * (kLog2Largest - kLog2SmallLimit);
static_assert(kWindowBlockLargest == uint64_t{1} << kLog2Largest);

// Mappings are large, so that a run needs few of them. They are not advised for transparent
// huge pages: in a Python process those faults competed with the result array's (numpy
// advises it), and the module's run took longer; the program was as fast either way.
constexpr uint64_t kMappingBytes = uint64_t{32} << 20;
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
    const int k = 63 - __builtin_clzll(bytes - 1);  // 2^k <= bytes - 1 < 2^(k + 1)
    const uint64_t step = uint64_t{1} << (k - 2);
    const uint64_t m = (bytes - 1) / step;  // 4..7
    return {kSmallClasses + 4 * (k - kLog2SmallLimit) + static_cast<int>(m - 4), (m + 1) * step};
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
class WindowMemory {
  public:
    void* allocate(uint64_t bytes) {
        if (bytes > kWindowBlockLargest) return allocate_mapped(bytes);
        const SizeClass c = size_class(bytes);
        std::lock_guard<std::mutex> lock(mutex_);
        Slab* s = partial_[c.index].head;
        if (!s) {
            s = fresh_slab(c.index);
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

    // An empty slab for class `index`: from the pool, else cut from the current mapping.
    Slab* fresh_slab(int index) {
        Slab* s = empty_.head;
        if (s) {
            empty_.remove(s);
        } else {
            if (room_ < kSlabBytes) {
                next_ = static_cast<char*>(map_aligned(kMappingBytes, kSlabBytes));
                GRUNDY_POISON(next_, kMappingBytes);
                mappings_.push_back(next_);
                room_ = kMappingBytes;
                ++stats_.mappings_made;
                stats_.mapped_bytes += kMappingBytes;
            }
            s = reinterpret_cast<Slab*>(next_);
            next_ += kSlabBytes;
            room_ -= kSlabBytes;
            // A new slab's pages made present in one call rather than one fault per 4 KiB
            // page as its blocks are first written. Advice only: failure changes nothing.
            madvise(s, kSlabBytes, MADV_POPULATE_WRITE);
        }
        GRUNDY_UNPOISON(s, kSlabHeader);
        s->free_list = nullptr;
        s->unused = kSlabHeader;
        s->live = 0;
        s->index = index;
        return s;
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
    std::array<SlabList, kClasses> partial_{};  // per class, its slabs with a free block
    SlabList empty_;                            // slabs with no block taken, for any class
    std::vector<char*> mappings_;
    char* next_ = nullptr;  // where the current mapping's unused part starts
    uint64_t room_ = 0;     // its bytes
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

WindowMemoryStats window_memory_stats() {
    return memory().stats();
}

}  // namespace grundy::engine
