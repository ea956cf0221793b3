// The memory budget as a batch system counts it (grundy/memory.hpp): Slurm's --mem and
// container limits are cgroup limits, which sysconf's physical memory does not show.
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "grundy/memory.hpp"

namespace grundy {
namespace {

// One cgroup hierarchy of this process: where it is mounted, the mount's root, and the
// process's cgroup path in it.
struct Hierarchy {
    bool v2 = false;
    std::string mount_point, mount_root, path;
};

// The first line of a file, or "" when it cannot be read.
std::string first_line(const std::string& path) {
    std::ifstream in(path);
    std::string line;
    std::getline(in, line);
    return line;
}

// A limit file's value: a number of bytes; "max" (v2) or v1's huge "unlimited" count as none.
uint64_t limit_value(const std::string& text) {
    if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) return 0;
    const unsigned long long v = std::strtoull(text.c_str(), nullptr, 10);
    return v >= (uint64_t{1} << 62) ? 0 : v;
}

// The mount of each hierarchy: cgroup2, and v1's with the memory controller among its options
// (fields: id parent major:minor root mount-point options ... - fstype source super-options).
void find_mounts(const std::string& mountinfo, Hierarchy& v2, Hierarchy& v1) {
    std::ifstream in(mountinfo);
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream fields(line);
        std::vector<std::string> f;
        for (std::string w; fields >> w;) f.push_back(w);
        const auto dash = std::find(f.begin(), f.end(), "-");
        if (f.size() < 5 || dash == f.end() || dash + 1 == f.end()) continue;
        const std::string& type = *(dash + 1);
        const std::string super = dash + 3 < f.end() ? *(dash + 3) : "";
        Hierarchy* h = nullptr;
        if (type == "cgroup2" && v2.mount_point.empty())
            h = &v2;
        else if (type == "cgroup" && v1.mount_point.empty() &&
                 ("," + super + ",").find(",memory,") != std::string::npos)
            h = &v1;
        if (!h) continue;
        h->mount_root = f[3];
        h->mount_point = f[4];
    }
}

// The least limit on the way from the process's cgroup up to the hierarchy's root.
uint64_t least_limit(const std::string& prefix, const Hierarchy& h) {
    if (h.mount_point.empty() || h.path.empty()) return 0;
    // The path relative to the mount's root (a container sees its own cgroup as the root).
    std::string rel = h.path;
    if (h.mount_root != "/" && rel.rfind(h.mount_root, 0) == 0)
        rel = rel.substr(h.mount_root.size());
    const std::string file = h.v2 ? "memory.max" : "memory.limit_in_bytes";
    uint64_t least = 0;
    while (true) {
        std::string dir = prefix + h.mount_point + (rel == "/" ? "" : rel);
        const uint64_t v = limit_value(first_line(dir + "/" + file));
        if (v && (!least || v < least)) least = v;
        if (rel.empty() || rel == "/") break;
        const size_t slash = rel.rfind('/');
        rel = slash == 0 || slash == std::string::npos ? "/" : rel.substr(0, slash);
    }
    return least;
}

}  // namespace

uint64_t cgroup_memory_limit(const CgroupFiles& files) {
    Hierarchy v2, v1;
    v2.v2 = true;
    find_mounts(files.mountinfo, v2, v1);
    std::ifstream in(files.proc_cgroup);
    std::string line;
    // Lines "ID:CONTROLLERS:PATH"; v2's is "0::PATH".
    while (std::getline(in, line)) {
        const size_t a = line.find(':'), b = a == std::string::npos ? a : line.find(':', a + 1);
        if (b == std::string::npos) continue;
        const std::string controllers = line.substr(a + 1, b - a - 1), path = line.substr(b + 1);
        if (line.compare(0, a, "0") == 0 && controllers.empty())
            v2.path = path;
        else if (("," + controllers + ",").find(",memory,") != std::string::npos)
            v1.path = path;
    }
    const uint64_t a = least_limit(files.root, v2), b = least_limit(files.root, v1);
    return a && b ? std::min(a, b) : std::max(a, b);
}

uint64_t physical_memory_bytes() {
    const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
    return pages > 0 && page > 0 ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(page) : 0;
}

uint64_t address_space_limit() {
    struct rlimit r {};
    if (::getrlimit(RLIMIT_AS, &r) != 0 || r.rlim_cur == RLIM_INFINITY) return 0;
    return static_cast<uint64_t>(r.rlim_cur);
}

MemoryBudget memory_budget(uint64_t max_memory) {
    if (max_memory) return {max_memory, "{max_memory}"};
    MemoryBudget budget{physical_memory_bytes(), "physical memory"};
    auto consider = [&](uint64_t limit, const char* source) {
        if (limit && (!budget.bytes || limit < budget.bytes)) budget = {limit, source};
    };
    consider(cgroup_memory_limit(), "the cgroup's memory limit");
    consider(address_space_limit(), "RLIMIT_AS");
    return budget;
}

std::string format_bytes(double bytes) {
    static const char* const units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    int u = 0;
    while (bytes >= 1024 && u < 6) bytes /= 1024, ++u;
    char text[32];
    std::snprintf(text, sizeof text, u ? "%.2f %s" : "%.0f %s", bytes, units[u]);
    return text;
}

void require_memory(uint64_t needed, const MemoryBudget& budget, const std::string& what,
                    const std::string& hint) {
    if (!budget.bytes || needed <= budget.bytes) return;
    throw MemoryError(what + " needs about " + format_bytes(static_cast<double>(needed)) +
                      "; the memory budget is " + format_bytes(static_cast<double>(budget.bytes)) +
                      " (" + budget.source + ")" + hint);
}

}  // namespace grundy
