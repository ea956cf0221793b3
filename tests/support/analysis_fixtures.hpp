// Helpers for the analysis tests: tables written through the real writer,
// one cell overwritten with the HDF5 C API, the bad files every reader must refuse, and
// properties reports looked into.
#pragma once

#include <gtest/gtest.h>
#include <hdf5.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "grundy/analysis.hpp"
#include "grundy/engine.hpp"
#include "grundy/hdf5_writer.hpp"
#include "support/scratch_dir.hpp"

namespace grundy::testing {

// The check called `name` in a properties report (a test failure if there is none).
inline PropertyCheck find_check(const PropertiesReport& r, const std::string& name) {
    for (const auto& c : r.checks)
        if (c.name == name) return c;
    ADD_FAILURE() << "no check " << name;
    return {};
}

// Everything a properties report says but its method, a line per check, to compare reports.
inline std::string properties_text(const PropertiesReport& r) {
    std::ostringstream out;  // not "literal" + std::string: GCC 12 warns falsely on it
    for (const PropertyCheck& c : r.checks)
        out << c.name << " " << c.checked << ": " << c.first_violation.value_or("ok") << "\n";
    return out.str();
}

inline void write_table(const std::string& path, uint64_t rows, uint64_t cols, uint32_t tile = 0,
                        Compression compression = {}) {
    Hdf5Writer writer(Hdf5WriterOptions{.path = path, .force = true, .compression = compression});
    EngineOptions o;
    o.rows = rows;
    o.cols = cols;
    o.threads = 2;
    o.tile = tile;
    const EngineStats stats = compute_table(o, writer);
    writer.finish(stats);
}

// Overwrites g(x, y) in the file through HDF5 itself (which re-filters the chunk).
inline void corrupt_cell(const std::string& path, uint64_t x, uint64_t y, uint32_t value) {
    const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    const hid_t dataset = H5Dopen2(file, "grundy", H5P_DEFAULT);
    const hid_t space = H5Dget_space(dataset);
    const hsize_t start[2] = {y, x}, count[2] = {1, 1};
    H5Sselect_hyperslab(space, H5S_SELECT_SET, start, nullptr, count, nullptr);
    const hid_t memory = H5Screate_simple(2, count, nullptr);
    const herr_t rc = H5Dwrite(dataset, H5T_NATIVE_UINT32, memory, space, H5P_DEFAULT, &value);
    H5Sclose(memory);
    H5Sclose(space);
    H5Dclose(dataset);
    H5Fclose(file);
    if (rc < 0) throw std::runtime_error("corrupt_cell failed on " + path);
}

inline void set_complete(const std::string& path, int value) {
    const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT);
    const hid_t attr = H5Aopen(file, "complete", H5P_DEFAULT);
    H5Awrite(attr, H5T_NATIVE_INT, &value);
    H5Aclose(attr);
    H5Fclose(file);
}

// (path, a word the error message must contain) for each kind of bad file, made from `good`.
inline std::vector<std::pair<std::string, std::string>> bad_files(const ScratchDir& dir,
                                                                  const std::string& good) {
    std::vector<std::pair<std::string, std::string>> files;
    files.emplace_back(dir.file("missing.h5"), "no such file");

    const std::string text = dir.file("text.h5");
    std::ofstream(text) << "row,preperiod,period\n0,0,1\n";
    files.emplace_back(text, "not an HDF5 file");

    const std::string truncated = dir.file("truncated.h5");
    {
        std::ifstream in(good, std::ios::binary);
        std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        std::ofstream(truncated, std::ios::binary).write(bytes.data(), bytes.size() / 2);
    }
    files.emplace_back(truncated, "truncated");

    const std::string other = dir.file("other.h5");
    {
        const hid_t file = H5Fcreate(other.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
        H5Gclose(H5Gcreate2(file, "something", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
        H5Fclose(file);
    }
    files.emplace_back(other, "no dataset /grundy");

    const std::string incomplete = dir.file("incomplete.h5");
    std::filesystem::copy_file(good, incomplete, std::filesystem::copy_options::overwrite_existing);
    set_complete(incomplete, 0);
    files.emplace_back(incomplete, "incomplete");
    return files;
}

// Every row's period, preperiod, periods observed and block, as one text to compare.
inline std::string periods_text(const std::vector<RowPeriod>& periods) {
    std::ostringstream out;
    for (const RowPeriod& r : periods) {
        out << r.row << ":";
        if (r.periodicity)
            out << r.periodicity->preperiod << "," << r.periodicity->period << ","
                << r.periodicity->periods_observed;
        for (int64_t b : r.block) out << " " << b;
        out << "\n";
    }
    return out.str();
}

}  // namespace grundy::testing
