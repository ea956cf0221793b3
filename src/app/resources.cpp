#include "app/resources.hpp"

#include <sys/statvfs.h>
#include <unistd.h>

#include <filesystem>

namespace grundy::app {

uint64_t free_disk_bytes(const std::string& path) {
    namespace fs = std::filesystem;
    fs::path p(path);
    fs::path dir = p.has_parent_path() ? p.parent_path() : fs::path(".");
    struct statvfs st {};
    if (::statvfs(dir.c_str(), &st) != 0) return 0;
    return static_cast<uint64_t>(st.f_bavail) * st.f_frsize;
}

}  // namespace grundy::app
