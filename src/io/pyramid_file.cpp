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

#include "grundy/error.hpp"
#include "io/h5_attributes.hpp"
#include "io/h5_handle.hpp"

namespace grundy::io {
namespace {

// One field of a level's BlockStats as a dataset, written from the blocks in place
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
    // The default layout, contiguous and unfiltered: io/pyramid_reader.cpp reads the blocks
    // where they lie.
    H5Handle ds(
        H5Dcreate2(group, name, file_type, space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
        H5Dclose);
    const H5Handle mspace = field_space(l.blocks.size(), field);
    if (!ds.valid() ||
        H5Dwrite(ds.get(), mem, mspace.get(), H5S_ALL, H5P_DEFAULT, l.blocks.data()) < 0)
        throw Error("cannot write " + path);
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
        write_attribute(file.get(), "format", std::string(kPyramidFormat));
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

}  // namespace grundy::io
