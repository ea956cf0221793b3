// Memory as a batch system counts it: the budget a run must fit in (the least of physical
// memory, the cgroup limit of this process and RLIMIT_AS, or what the user sets), checked before
// anything big is allocated.
#pragma once

#include <cstdint>
#include <string>

#include "grundy/error.hpp"

namespace grundy {

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
