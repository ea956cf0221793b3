// The windows' memory: where every BitWindow's words come from, in any process.
//
// A run opens, grows and closes hundreds of thousands of windows of a few KiB, from every
// worker thread. Taken from malloc, each worker gets an arena of its own, and blocks freed by
// one worker are not reused by the other; glibc's tunables that cure this (one arena, huge
// pages) are read only when a program starts, so a host program (Python, a user's C++) would
// have to be started again with them. Instead the engine takes its blocks from here: size
// classes cut from slabs in large mappings (in huge pages where the system gives them), freed
// blocks reused by any thread, slabs whose blocks are all free reused by any class, and
// everything given back to the system when the last block is freed (the end of a run).
#pragma once

#include <cstdint>

namespace grundy::engine {

// The size of the block that allocate_window_block(bytes) gives: `bytes` rounded up to its
// size class (a multiple of 64, at most a quarter more above 1 KiB; above kWindowBlockLargest,
// to a multiple of the page size).
uint64_t window_block_size(uint64_t bytes);

// A block of window_block_size(bytes) bytes, aligned to 64 bytes, contents unspecified.
// Throws std::bad_alloc when the system has no memory left. Thread-safe.
void* allocate_window_block(uint64_t bytes);

// Gives back a block of allocate_window_block(bytes) (the same `bytes`, or its block size).
// Null is ignored. Thread-safe: any thread may free any thread's blocks.
void free_window_block(void* block, uint64_t bytes);

// What a run about to start expects its windows to take at their peak (estimate_state_bytes):
// from 64 MiB on, the mappings made from now on are in huge pages where the system gives
// them (window_memory.cpp says why). Advice only: any run gets correct blocks either way.
void expect_window_bytes(uint64_t bytes);

// What the allocator holds now, for tests and diagnostics.
struct WindowMemoryStats {
    uint64_t live_blocks = 0;    // allocated and not yet freed
    uint64_t mapped_bytes = 0;   // taken from the system (mappings, large blocks)
    uint64_t reused_blocks = 0;  // allocations served by a freed block, so far
    uint64_t mappings_made = 0;  // calls to mmap, so far
};
WindowMemoryStats window_memory_stats();

// Blocks above this size are mapped on their own and unmapped when freed (windows of rows above
// about 170 000): the largest size class, one cache line short of 64 KiB.
inline constexpr uint64_t kWindowBlockLargest = (uint64_t{64} << 10) - 64;

}  // namespace grundy::engine
