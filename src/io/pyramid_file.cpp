// The pyramid's file, TABLE.pyramid (HDF5): root attributes `format` ("grundy view pyramid"),
// `version` (1), `rows`, `cols`, `base_level`; one group per level, /level_L for
// L = base_level, base_level + 1, ..., each with four datasets of shape [blocks up, blocks
// across] (block (bx, by) covers columns bx 2^L .. and rows by 2^L .., cut at the table's edge):
// `sample` (uint32, g at the block's cell of least x and y), `scaled` (float32, the mean of
// (g - x + 2y) / 3y, 0 on row 0), `diff` (float32, the mean of x + y - g), `p_share` (float32,
// the share of the block's cells that are P-positions).
#include "io/pyramid_file.hpp"

#include <hdf5.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <vector>

#include "base/background_sync.hpp"
#include "base/file_sync.hpp"
#include "grundy/error.hpp"
#include "io/direct_writes.hpp"
#include "io/h5_attributes.hpp"
#include "io/h5_handle.hpp"

namespace grundy::io {
namespace {

// Blocks gathered per write: one field of a level is copied into a buffer of this many 4-byte
// values and written as whole rows of blocks. HDF5's own gather of a strided selection (one
// field out of BlockStats in place) took 70 ms of a 16384^2 run's end, and 0.25-0.37 s at
// 32768^2, with the other core idle; this copy takes a few ms, and a buffer of 1 MiB at most.
constexpr uint64_t kSlabValues = uint64_t{1} << 18;

// Field `field` (0..3: sample, scaled, diff, p_share) of a block, its 4 bytes as they are in
// memory (a float's bits for the last three).
uint32_t field_bits(const BlockStats& s, int field) {
    if (field == 0) return s.sample;
    const float value = field == 1 ? s.scaled : field == 2 ? s.diff : s.p_share;
    uint32_t bits;
    std::memcpy(&bits, &value, sizeof bits);
    return bits;
}

void write_field(hid_t group, const char* name, int field, hid_t file_type, const PyramidLevel& l,
                 const std::string& path, base::BackgroundSync& sync) {
    const hsize_t dims[2] = {l.height, l.width};
    H5Handle space(H5Screate_simple(2, dims, nullptr), H5Sclose);
    // The default layout, contiguous and unfiltered: io/pyramid_reader.cpp reads the blocks
    // where they lie.
    H5Handle ds(
        H5Dcreate2(group, name, file_type, space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
        H5Dclose);
    if (!ds.valid()) throw Error("cannot write " + path);
    // The slab holds each value's bits; the memory type says how HDF5 is to read them.
    const hid_t mem = field == 0 ? H5T_NATIVE_UINT32 : H5T_NATIVE_FLOAT;
    const uint64_t rows_per_slab =
        std::max<uint64_t>(1, kSlabValues / std::max<uint64_t>(1, l.width));
    std::vector<uint32_t> slab(std::min(l.height, rows_per_slab) * l.width);
    for (uint64_t r0 = 0; r0 < l.height; r0 += rows_per_slab) {
        const uint64_t rows = std::min(rows_per_slab, l.height - r0);
        const BlockStats* from = l.blocks.data() + r0 * l.width;
        for (uint64_t i = 0; i < rows * l.width; ++i) slab[i] = field_bits(from[i], field);
        const hsize_t start[2] = {r0, 0}, count[2] = {rows, l.width};
        H5Sselect_hyperslab(space.get(), H5S_SELECT_SET, start, nullptr, count, nullptr);
        H5Handle mspace(H5Screate_simple(2, count, nullptr), H5Sclose);
        if (H5Dwrite(ds.get(), mem, mspace.get(), space.get(), H5P_DEFAULT, slab.data()) < 0)
            throw Error("cannot write " + path);
        sync.wrote(rows * l.width * sizeof(uint32_t));
    }
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
        // Past the page cache, as the table's chunks (direct_writes.hpp): 1.3 GiB at 131072²,
        // written at the end of the run, which the cache would only make slower.
        const H5Handle access = table_file_access(true);
        H5Handle file(H5Fcreate(tmp.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT,
                                access.valid() ? access.get() : H5P_DEFAULT),
                      H5Fclose);
        if (!file.valid()) throw Error("cannot create " + tmp);
        // 1.3 GiB at 131072^2: flushed as it is written, not all by the fsync below.
        base::BackgroundSync sync(tmp, uint64_t{32} << 20);
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
                write_field(g.get(), "sample", 0, H5T_STD_U32LE, l, tmp, sync);
                write_field(g.get(), "scaled", 1, H5T_IEEE_F32LE, l, tmp, sync);
                write_field(g.get(), "diff", 2, H5T_IEEE_F32LE, l, tmp, sync);
                write_field(g.get(), "p_share", 3, H5T_IEEE_F32LE, l, tmp, sync);
            }
        } catch (...) {
            file.reset();
            sync.finish();
            std::remove(tmp.c_str());
            throw;
        }
        const int flush_error = sync.finish();
        if (!file.reset() || flush_error != 0) {
            std::remove(tmp.c_str());
            throw Error(
                "cannot write " + tmp +
                (flush_error ? ": " + std::string(std::strerror(flush_error)) : " (disk full?)"));
        }
    }
    try {
        base::sync_path(tmp);  // durable before its name says it is complete
    } catch (...) {
        std::remove(tmp.c_str());
        throw;
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0) {
        std::remove(tmp.c_str());
        throw Error("cannot rename " + tmp + " to " + path);
    }
    base::sync_folder_of(path);
}

}  // namespace grundy::io
