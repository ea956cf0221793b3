// Fuzzes the pyramid loader of `grundy view` (src/view/pyramid.cpp: load_pyramid, which reads
// through src/io/pyramid_file.cpp), which reads TABLE.pyramid beside a table and must refuse
// (nullopt: the pyramid is built again) any file that does not belong to the table. The harness
// writes the file from the input: the table's own pyramid, changed as the input says (its
// attributes, a level left out, one dataset of another shape, rank, type or storage, cell values
// overwritten). HDF5's own parsing of damaged bytes is libhdf5's to fuzz; this is the loader's
// logic over any well-formed file.
//
// Input: byte 0 the attributes (bit i set: attribute i wrong or missing), byte 1 the dataset
// changed (level, field, how), the rest raw bytes over the first blocks of that level.
#include <hdf5.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "fuzz_support.hpp"
#include "grundy/hdf5_reader.hpp"
#include "io/h5_attributes.hpp"
#include "io/h5_handle.hpp"
#include "view/pyramid.hpp"

namespace {

using namespace grundy;
using io::H5Handle;

std::unique_ptr<Hdf5TableReader> table;
view::Pyramid good;

constexpr const char* kFields[] = {"sample", "scaled", "diff", "p_share"};

// How byte 1 changes the dataset it picks.
enum Change {
    None,
    Missing,
    Transposed,
    OneDim,
    ThreeDim,
    Int8,
    Double,
    String,
    Taller,
    Scalar,
    Group,
    Chunked,
    kChanges
};

// Writes field `f` of level `l` as dataset `name` in `group`, changed as `change` says.
void write_field(hid_t group, const view::PyramidLevel& l, int f, int change) {
    const char* name = kFields[f];
    if (change == Missing) return;
    if (change == Group) {
        H5Handle g(H5Gcreate2(group, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose);
        return;
    }
    hsize_t dims[3] = {l.height, l.width, 1};
    int rank = 2;
    if (change == Transposed) std::swap(dims[0], dims[1]);
    if (change == OneDim) rank = 1, dims[0] = l.height * l.width;
    if (change == ThreeDim) rank = 3;
    if (change == Taller) ++dims[0];
    H5Handle space(change == Scalar ? H5Screate(H5S_SCALAR) : H5Screate_simple(rank, dims, nullptr),
                   H5Sclose);
    H5Handle string_type(H5Tcopy(H5T_C_S1), H5Tclose);
    H5Tset_size(string_type.get(), 3);
    const hid_t file_type = change == Int8     ? H5T_STD_I8LE
                            : change == Double ? H5T_IEEE_F64LE
                            : change == String ? string_type.get()
                            : f == 0           ? H5T_STD_U32LE
                                               : H5T_IEEE_F32LE;
    H5Handle dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
    if (change == Chunked) {
        const hsize_t chunk[2] = {1, std::max<hsize_t>(1, l.width / 2)};
        H5Pset_chunk(dcpl.get(), 2, chunk);
        H5Pset_deflate(dcpl.get(), 1);
    }
    H5Handle ds(
        H5Dcreate2(group, name, file_type, space.get(), H5P_DEFAULT, dcpl.get(), H5P_DEFAULT),
        H5Dclose);
    // The values go in only where the shape matches the level's (else the file keeps zeros, or
    // for strings nothing): what matters is that the loader refuses the shape.
    const bool whole = change == None || change == Int8 || change == Double || change == Chunked;
    if (!whole) return;
    std::vector<uint32_t> values(l.blocks.size());
    for (size_t i = 0; i < values.size(); ++i)
        std::memcpy(&values[i], reinterpret_cast<const char*>(&l.blocks[i]) + 4 * f, 4);
    H5Dwrite(ds.get(), f == 0 ? H5T_NATIVE_UINT32 : H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT,
             values.data());
}

void write_pyramid(const view::Pyramid& p, uint8_t attributes, uint8_t changed,
                   const std::string& path) {
    H5Handle file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose);
    const bool bad_format = attributes & 1, bad_version = attributes & 2, bad_base = attributes & 4,
               bad_rows = attributes & 8, bad_cols = attributes & 16, as_text = attributes & 32,
               drop_level = attributes & 64;
    if (!(bad_format && as_text))
        io::write_attribute(
            file.get(), "format",
            std::string(bad_format ? "grundy view pyramid 2" : "grundy view pyramid"));
    if (as_text) {
        io::write_attribute(file.get(), "version", std::string("1"));
    } else {
        io::write_attribute(file.get(), "version", int32_t{bad_version ? 2 : 1});
    }
    io::write_attribute(file.get(), "base_level", int32_t{bad_base ? 3 : view::kPyramidBase});
    io::write_attribute(file.get(), "rows", p.rows + (bad_rows ? 1 : 0));
    io::write_attribute(file.get(), "cols", bad_cols ? uint64_t{0} : p.cols);
    const size_t target_level = (changed & 3) % p.levels.size();
    const int target_field = (changed >> 2) & 3, change = (changed >> 4) % kChanges;
    for (size_t i = 0; i < p.levels.size(); ++i) {
        if (drop_level && i == p.levels.size() - 1) continue;
        const view::PyramidLevel& l = p.levels[i];
        const std::string name = "level_" + std::to_string(l.level);
        H5Handle g(H5Gcreate2(file.get(), name.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                   H5Gclose);
        for (int f = 0; f < 4; ++f)
            write_field(g.get(), l, f, i == target_level && f == target_field ? change : None);
    }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);  // the loader's refusals are expected
    // 40 x 9000: three levels (4, 5, 6), blocks cut at both edges.
    table = std::make_unique<Hdf5TableReader>(fuzz::small_table(40, 9000));
    good = view::build_pyramid(*table);
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size < 2) return 0;
    view::Pyramid p = good;
    view::PyramidLevel& target = p.levels[(data[1] & 3) % p.levels.size()];
    const size_t n = std::min(size - 2, target.blocks.size() * sizeof(view::BlockStats));
    std::memcpy(reinterpret_cast<char*>(target.blocks.data()), data + 2, n);
    write_pyramid(p, data[0], data[1], io::pyramid_path(table->path()));
    const std::optional<view::Pyramid> loaded = view::load_pyramid(*table);
    // The table's own pyramid, unchanged, must load.
    if (data[0] == 0 && (data[1] >> 4) % kChanges == None && n == 0 && !loaded) {
        std::fprintf(stderr, "the table's own pyramid was refused\n");
        std::abort();
    }
    return 0;
}
