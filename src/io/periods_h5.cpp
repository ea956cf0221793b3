// The certified row periods in HDF5: /analysis/row_periods, a group with one entry per row in
// the datasets row, preperiod, period, certified (uint64/uint8), the blocks of g - x + 2y
// concatenated in block_values (uint16, chunked, shuffle + deflate) with block_offsets (uint64,
// rows + 1 entries: row i's block is block_values[block_offsets[i]:block_offsets[i + 1]]), and the
// certificate as the group's attributes x0, P, comparison_method, kernel, elapsed_seconds. Root
// attributes as for `compute` where they apply (game, software, created, rows) and complete = 1,
// written last.
#include <algorithm>
#include <ctime>
#include <filesystem>

#include "grundy/error.hpp"
#include "grundy/periods.hpp"
#include "grundy/version.hpp"
#include "io/h5_attributes.hpp"
#include "io/h5_handle.hpp"

namespace grundy {
namespace {

using io::H5Handle;

// A 1-D dataset of `v`, stored as `file_type`; long ones chunked with shuffle + deflate (the
// blocks of a few hundred rows run to hundreds of millions of small values).
template <typename T>
void write_vector(hid_t group, const char* name, hid_t mem_type, hid_t file_type,
                  const std::vector<T>& v, const std::string& path) {
    const hsize_t dims[1] = {v.size()};
    H5Handle space(H5Screate_simple(1, dims, nullptr), H5Sclose);
    H5Handle dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
    if (v.size() > 4096) {
        const hsize_t chunk[1] = {std::min<hsize_t>(v.size(), hsize_t{1} << 20)};
        H5Pset_chunk(dcpl.get(), 1, chunk);
        H5Pset_shuffle(dcpl.get());
        H5Pset_deflate(dcpl.get(), 4);
    }
    H5Handle ds(
        H5Dcreate2(group, name, file_type, space.get(), H5P_DEFAULT, dcpl.get(), H5P_DEFAULT),
        H5Dclose);
    if (!ds.valid()) throw Error(std::string("cannot create dataset ") + name + " in " + path);
    if (!v.empty() && H5Dwrite(ds.get(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()) < 0)
        throw Error(std::string("cannot write dataset ") + name + " in " + path);
}

}  // namespace

void write_periods_hdf5(const std::string& path, const PeriodsResult& result, bool force) {
    io::silence_hdf5_errors();
    namespace fs = std::filesystem;
    std::error_code ec;
    if (!force && fs::exists(path, ec))
        throw Error("output file " + path + " exists (use --force to overwrite it)");
    {
        H5Handle file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose);
        if (!file.valid()) throw Error("cannot create " + path);
        const hid_t f = file.get();
        io::write_attribute(f, "complete", int32_t{0});
        io::write_attribute(f, "game", std::string("wythoff"));
        io::write_attribute(f, "software", std::string(kSoftwareName));
        io::write_attribute(f, "software_version", std::string(kVersion));
        io::write_attribute(f, "created", io::iso8601_now());
        io::write_attribute(f, "rows", uint64_t{result.rows.size()});
        H5Handle analysis(H5Gcreate2(f, "analysis", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                          H5Gclose);
        H5Handle group(
            H5Gcreate2(analysis.get(), "row_periods", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
            H5Gclose);
        if (!group.valid()) throw Error("cannot create /analysis/row_periods in " + path);
        std::vector<uint64_t> row, pre, per, offsets{0};
        std::vector<uint8_t> certified;
        std::vector<uint16_t> values;
        for (const auto& r : result.rows) {
            row.push_back(r.row);
            pre.push_back(r.preperiod);
            per.push_back(r.period);
            certified.push_back(1);
            values.insert(values.end(), r.block.begin(), r.block.end());
            offsets.push_back(values.size());
        }
        const hid_t g = group.get();
        write_vector(g, "row", H5T_NATIVE_UINT64, H5T_STD_U64LE, row, path);
        write_vector(g, "preperiod", H5T_NATIVE_UINT64, H5T_STD_U64LE, pre, path);
        write_vector(g, "period", H5T_NATIVE_UINT64, H5T_STD_U64LE, per, path);
        write_vector(g, "certified", H5T_NATIVE_UINT8, H5T_STD_U8LE, certified, path);
        // Values g - x + 2y <= 3y < 2^16 (rows are limited to 16384).
        write_vector(g, "block_values", H5T_NATIVE_UINT16, H5T_STD_U16LE, values, path);
        write_vector(g, "block_offsets", H5T_NATIVE_UINT64, H5T_STD_U64LE, offsets, path);
        io::write_attribute(g, "x0", uint64_t{result.x0});
        io::write_attribute(g, "P", uint64_t{result.period});
        io::write_attribute(g, "comparison_method", result.method);
        io::write_attribute(g, "kernel", result.kernel);
        io::write_attribute(g, "elapsed_seconds", result.seconds);
        io::write_attribute(g, "description",
                            std::string("state after column x0 == state after column x0 + P, "
                                        "compared in full: g(x + P, y) = g(x, y) + P for all "
                                        "x > x0; block = g - x + 2y from the preperiod"));
        group.reset();
        analysis.reset();
        if (!file.reset()) throw Error("cannot finish writing " + path + " (disk full?)");
    }
    H5Handle file(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT), H5Fclose);
    if (!file.valid()) throw Error("cannot reopen " + path);
    io::write_attribute(file.get(), "complete", int32_t{1});
    if (!file.reset()) throw Error("cannot finish writing " + path + " (disk full?)");
}

}  // namespace grundy
