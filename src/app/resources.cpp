#include "app/resources.hpp"

#include <sys/statvfs.h>
#include <unistd.h>

#include <filesystem>

#include "base/file_sync.hpp"

namespace grundy::app {

uint64_t free_disk_bytes(const std::string& path) {
    const std::filesystem::path dir = base::folder_of(path);
    struct statvfs st {};
    if (::statvfs(dir.c_str(), &st) != 0) return 0;
    return static_cast<uint64_t>(st.f_bavail) * st.f_frsize;
}

}  // namespace grundy::app
