// Memory as a batch system counts it: byte sizes as users write them, and the budget a run must
// fit in (the least of physical memory, the cgroup limit of this process and RLIMIT_AS, or what
// the user sets), checked before anything big is allocated.
#pragma once

#include <cstdint>
#include <string>

#include "grundy/error.hpp"

namespace grundy {

// A size in bytes as users write it, the one rule of every byte-size option:
//   8000000000      a whole number
//   8e9, 1.5e9      a decimal with an exponent, when its value is a whole number
//   8G, 8GB         decimal units K, M, G, T (10^3, 10^6, 10^9, 10^12), with or without B
//   8GiB            binary units KiB, MiB, GiB, TiB (2^10, 2^20, 2^30, 2^40)
//   2^33            a power B^E
// Units may follow a decimal (1.5G) when the value is a whole number of bytes; letters in any
// case. Throws grundy::ArgumentError naming {name} (with the text and the rule) otherwise, or
// when the value lies outside [min, max].
uint64_t parse_byte_size(const std::string& name, const std::string& text, uint64_t min = 0,
                         uint64_t max = ~uint64_t{0});

// Where a cgroup's limits are read: the process's own cgroup file, the mount table, and a
// prefix put before every mount point (empty on a real system; a temporary folder in tests).
struct CgroupFiles {
    std::string proc_cgroup = "/proc/self/cgroup";
    std::string mountinfo = "/proc/self/mountinfo";
    std::string root;
};

// The memory limit of this process's cgroup and every cgroup above it (v2 memory.max, v1
// memory.limit_in_bytes under the memory controller's mount), the least of them; 0 if none.
uint64_t cgroup_memory_limit(const CgroupFiles& files = {});

// This machine's physical memory (0 if unknown) and RLIMIT_AS (0 if unlimited).
uint64_t physical_memory_bytes();
uint64_t address_space_limit();

// The memory a run may take, and what set it ("physical memory", "the cgroup's memory limit",
// "RLIMIT_AS", or the user's "{max_memory}", an argument name as in ArgumentError).
struct MemoryBudget {
    uint64_t bytes = 0;  // 0: unknown (nothing is refused)
    std::string source;
};

// The least of physical memory, the cgroup limit and RLIMIT_AS; `max_memory` (when not 0), the
// user's own budget, replaces them (it may be set lower, or higher when the limits read here
// are not the ones that count).
MemoryBudget memory_budget(uint64_t max_memory = 0);

// Human-readable bytes: "1.27 GiB".
std::string format_bytes(double bytes);

// Throws grundy::MemoryError "`what` needs about N; the memory budget is M (source)`hint`"
// (`what` and `hint` may name arguments in braces, as ArgumentError's text)
// when `needed` exceeds the budget. `hint` (may be empty) says what would fit.
void require_memory(uint64_t needed, const MemoryBudget& budget, const std::string& what,
                    const std::string& hint = "");

}  // namespace grundy
