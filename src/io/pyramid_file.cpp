// The pyramid's file, TABLE.pyramid (HDF5): root attributes `format` ("grundy view pyramid"),
// `version` (1), `rows`, `cols`, `base_level`; one group per level, /level_L for
// L = base_level, base_level + 1, ..., each with four datasets of shape [blocks up, blocks
// across] (block (bx, by) covers columns bx 2^L .. and rows by 2^L .., cut at the table's edge):
// `sample` (uint32, g at the block's cell of least x and y), `scaled` (float32, the mean of
// (g - x + 2y) / 3y, 0 on row 0), `diff` (float32, the mean of x + y - g), `p_share` (float32,
// the share of the block's cells that are P-positions).
#include "io/pyramid_file.hpp"

#include <fcntl.h>
#include <hdf5.h>
#include <unistd.h>

#include <cstddef>
#include <cstdio>
#include <filesystem>

#include "grundy/error.hpp"
#include "io/h5_attributes.hpp"
#include "io/h5_handle.hpp"

namespace grundy::io {
namespace {

constexpr const char* kFormat = "grundy view pyramid";

// One field of a level's BlockStats as a dataset, read from or written to the blocks in place
// (every field is 4 bytes: a strided selection of the blocks taken as 4-byte words), so that
// no copy of a level is ever made.
static_assert(sizeof(BlockStats) == 16 && sizeof(float) == 4 && offsetof(BlockStats, scaled) == 4 &&
                  offsetof(BlockStats, diff) == 8 && offsetof(BlockStats, p_share) == 12,
              "four 4-byte fields, in the order of their datasets' numbers");
constexpr hsize_t kFields = sizeof(BlockStats) / 4;

H5Handle field_space(size_t blocks, hsize_t field) {
    const hsize_t dims[1] = {blocks * kFields};
    H5Handle space(H5Screate_simple(1, dims, nullptr), H5Sclose);
    const hsize_t start[1] = {field}, stride[1] = {kFields}, count[1] = {blocks};
    H5Sselect_hyperslab(space.get(), H5S_SELECT_SET, start, stride, count, nullptr);
    return space;
}

void write_field(hid_t group, const char* name, hsize_t field, hid_t mem, hid_t file_type,
                 const PyramidLevel& l, const std::string& path) {
    const hsize_t dims[2] = {l.height, l.width};
    H5Handle space(H5Screate_simple(2, dims, nullptr), H5Sclose);
    H5Handle ds(
        H5Dcreate2(group, name, file_type, space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
        H5Dclose);
    const H5Handle mspace = field_space(l.blocks.size(), field);
    if (!ds.valid() ||
        H5Dwrite(ds.get(), mem, mspace.get(), H5S_ALL, H5P_DEFAULT, l.blocks.data()) < 0)
        throw Error("cannot write " + path);
}

bool read_field(hid_t group, const char* name, hsize_t field, hid_t mem, PyramidLevel& l) {
    H5Handle ds(H5Dopen2(group, name, H5P_DEFAULT), H5Dclose);
    if (!ds.valid()) return false;
    H5Handle space(H5Dget_space(ds.get()), H5Sclose);
    hsize_t dims[2] = {0, 0};
    if (H5Sget_simple_extent_ndims(space.get()) != 2) return false;
    H5Sget_simple_extent_dims(space.get(), dims, nullptr);
    if (dims[0] != l.height || dims[1] != l.width) return false;
    const H5Handle mspace = field_space(l.blocks.size(), field);
    return H5Dread(ds.get(), mem, mspace.get(), H5S_ALL, H5P_DEFAULT, l.blocks.data()) >= 0;
}

}  // namespace

const PyramidLevel* Pyramid::level(int l) const {
    for (const PyramidLevel& p : levels)
        if (p.level == l) return &p;
    return nullptr;
}

uint64_t Pyramid::bytes() const {
    uint64_t n = 0;
    for (const PyramidLevel& p : levels) n += p.blocks.size() * sizeof(BlockStats);
    return n;
}

std::string pyramid_path(const std::string& table_path) {
    return table_path + ".pyramid";
}

void save_pyramid(const Pyramid& p, const std::string& path) {
    const std::string tmp = path + ".tmp";
    {
        H5Handle file(H5Fcreate(tmp.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose);
        if (!file.valid()) throw Error("cannot create " + tmp);
        write_attribute(file.get(), "format", std::string(kFormat));
        write_attribute(file.get(), "version", int32_t{1});
        write_attribute(file.get(), "rows", p.rows);
        write_attribute(file.get(), "cols", p.cols);
        write_attribute(file.get(), "base_level", int32_t{kPyramidBase});
        try {
            for (const PyramidLevel& l : p.levels) {
                const std::string name = "level_" + std::to_string(l.level);
                H5Handle g(
                    H5Gcreate2(file.get(), name.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                    H5Gclose);
                if (!g.valid()) throw Error("cannot write " + tmp);
                write_field(g.get(), "sample", 0, H5T_NATIVE_UINT32, H5T_STD_U32LE, l, tmp);
                write_field(g.get(), "scaled", 1, H5T_NATIVE_FLOAT, H5T_IEEE_F32LE, l, tmp);
                write_field(g.get(), "diff", 2, H5T_NATIVE_FLOAT, H5T_IEEE_F32LE, l, tmp);
                write_field(g.get(), "p_share", 3, H5T_NATIVE_FLOAT, H5T_IEEE_F32LE, l, tmp);
            }
        } catch (...) {
            file.reset();
            std::remove(tmp.c_str());
            throw;
        }
        if (!file.reset()) {
            std::remove(tmp.c_str());
            throw Error("cannot write " + tmp + " (disk full?)");
        }
    }
    const int fd = ::open(tmp.c_str(), O_RDONLY);
    if (fd >= 0) {
        ::fsync(fd);
        ::close(fd);
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0) {
        std::remove(tmp.c_str());
        throw Error("cannot rename " + tmp + " to " + path);
    }
}

std::optional<Pyramid> read_pyramid(const std::string& path, uint64_t rows, uint64_t cols,
                                    int top) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) return std::nullopt;
    H5Handle file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
    if (!file.valid()) return std::nullopt;
    if (read_string_attribute(file.get(), "format") != std::string(kFormat) ||
        read_int_attribute(file.get(), "version") != 1 ||
        read_int_attribute(file.get(), "base_level") != kPyramidBase ||
        read_int_attribute(file.get(), "rows") != static_cast<int64_t>(rows) ||
        read_int_attribute(file.get(), "cols") != static_cast<int64_t>(cols))
        return std::nullopt;
    Pyramid p;
    p.rows = rows;
    p.cols = cols;
    for (int l = kPyramidBase; l <= top; ++l) {
        const std::string name = "level_" + std::to_string(l);
        H5Handle g(H5Gopen2(file.get(), name.c_str(), H5P_DEFAULT), H5Gclose);
        if (!g.valid()) return std::nullopt;
        PyramidLevel level;
        level.level = l;
        level.width = pyramid_blocks(p.cols, l);
        level.height = pyramid_blocks(p.rows, l);
        level.blocks.resize(level.width * level.height);
        if (!read_field(g.get(), "sample", 0, H5T_NATIVE_UINT32, level) ||
            !read_field(g.get(), "scaled", 1, H5T_NATIVE_FLOAT, level) ||
            !read_field(g.get(), "diff", 2, H5T_NATIVE_FLOAT, level) ||
            !read_field(g.get(), "p_share", 3, H5T_NATIVE_FLOAT, level))
            return std::nullopt;
        p.levels.push_back(std::move(level));
    }
    return p;
}

}  // namespace grundy::io
