// What the fuzz harnesses share: a scratch folder of their own, the input written to a file
// there (for the parsers that read files), and small tables computed once.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <utility>

#include "grundy/engine.hpp"
#include "grundy/hdf5_writer.hpp"

namespace grundy::fuzz {

// A fresh folder under $TMPDIR (scripts/fuzz points it into build-fuzz/), removed at exit.
inline const std::string& scratch_dir() {
    // Never destroyed: the handler that removes the folder runs after static destructors.
    static const std::string* dir = [] {
        const char* tmp = std::getenv("TMPDIR");
        std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/grundy-fuzz-XXXXXX";
        if (!mkdtemp(pattern.data())) {
            std::perror("mkdtemp");
            std::abort();
        }
        std::atexit([] {
            std::error_code ec;
            std::filesystem::remove_all(scratch_dir(), ec);
        });
        return new std::string(pattern);
    }();
    return *dir;
}

// Writes the input to scratch_dir()/name (replacing it) and returns its path.
inline std::string write_input(const uint8_t* data, size_t size, const std::string& name) {
    const std::string path = scratch_dir() + "/" + name;
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    out.close();
    if (!out) {
        std::perror(path.c_str());
        std::abort();
    }
    return path;
}

// A complete table of rows x cols computed once per process, in the scratch folder.
inline const std::string& small_table(uint64_t rows, uint64_t cols) {
    static std::map<std::pair<uint64_t, uint64_t>, std::string> made;
    auto& path = made[{rows, cols}];
    if (path.empty()) {
        path =
            scratch_dir() + "/table-" + std::to_string(rows) + "x" + std::to_string(cols) + ".h5";
        Hdf5Writer writer(Hdf5WriterOptions{.path = path, .force = true});
        EngineOptions o;
        o.rows = rows;
        o.cols = cols;
        o.threads = 1;
        writer.finish(compute_table(o, writer));
    }
    return path;
}

}  // namespace grundy::fuzz
