// What the tests of direct writes share: whether a folder's file system takes them, and a
// file's bytes to compare.
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>

#include "support/scratch_dir.hpp"

namespace grundy::testing {

// A whole file's bytes ("" when it cannot be read).
inline std::string file_bytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Whether the file system of `dir` takes an aligned direct write (tmpfs before Linux 6.6 does
// not): where it does, a writer asked for direct writes must have made them.
inline bool direct_io_works(const ScratchDir& dir) {
    const std::string probe = dir / "direct-io-probe";
    const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_DIRECT | O_CLOEXEC, 0644);
    if (fd < 0) return false;
    void* page = nullptr;
    bool ok = ::posix_memalign(&page, 4096, 4096) == 0;
    if (ok) {
        std::fill_n(static_cast<char*>(page), 4096, 'x');
        ok = ::pwrite(fd, page, 4096, 0) == 4096;
    }
    std::free(page);
    ::close(fd);
    ::unlink(probe.c_str());
    return ok;
}

}  // namespace grundy::testing
