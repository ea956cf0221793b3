// Large buffers of the analysis passes, in huge pages where the system gives them.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <memory>

namespace grundy::analysis {

// Memory in 2 MiB pages where the system gives them on request: big buffers walked at random
// or down a band otherwise cost a page fault per 4 KiB on first touch and a TLB miss per
// access. Not zeroed; throws std::bad_alloc.
struct FreeDeleter {
    void operator()(void* p) const { std::free(p); }
};
template <typename T>
using HugeArray = std::unique_ptr<T[], FreeDeleter>;
void* huge_alloc(size_t bytes);

}  // namespace grundy::analysis
