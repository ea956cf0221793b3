#include "io/h5_scales.hpp"

#include <hdf5_hl.h>

#include <algorithm>
#include <string>
#include <vector>

#include "grundy/error.hpp"
#include "io/h5_attributes.hpp"
#include "io/h5_handle.hpp"

namespace grundy::io {
namespace {

// One coordinate dataset 0..n-1, written in slabs so that a long axis never needs n values in
// memory. Shuffle + deflate leave a few bytes per chunk of these runs.
H5Handle write_coordinate(hid_t file, const char* name, uint64_t n, const std::string& long_name) {
    H5Handle ds = create_vector_dataset(file, name, H5T_STD_U32LE, n,
                                        std::min<uint64_t>(n, uint64_t{1} << 16), 1);
    const hsize_t dims[1] = {n};
    H5Handle space(H5Screate_simple(1, dims, nullptr), H5Sclose);
    auto fail = [&] { throw Error(std::string("cannot write the coordinate /") + name); };
    if (!ds.valid()) fail();
    constexpr uint64_t kSlab = uint64_t{1} << 20;
    std::vector<uint32_t> values(std::min(n, kSlab));
    for (uint64_t start = 0; start < n; start += kSlab) {
        const hsize_t count[1] = {std::min(kSlab, n - start)}, offset[1] = {start};
        for (hsize_t i = 0; i < count[0]; ++i) values[i] = static_cast<uint32_t>(start + i);
        H5Handle mspace(H5Screate_simple(1, count, nullptr), H5Sclose);
        H5Sselect_hyperslab(space.get(), H5S_SELECT_SET, offset, nullptr, count, nullptr);
        if (H5Dwrite(ds.get(), H5T_NATIVE_UINT32, mspace.get(), space.get(), H5P_DEFAULT,
                     values.data()) < 0)
            fail();
    }
    if (H5DSset_scale(ds.get(), name) < 0) fail();
    write_attribute(ds.get(), "long_name", long_name);
    return ds;
}

}  // namespace

void attach_coordinates(hid_t file, hid_t table, uint64_t rows, uint64_t cols) {
    const H5Handle y = write_coordinate(
        file, "y", rows, "y, the second coordinate of the position (x, y): the row of /grundy");
    const H5Handle x = write_coordinate(
        file, "x", cols, "x, the first coordinate of the position (x, y): the column of /grundy");
    if (H5DSattach_scale(table, y.get(), 0) < 0 || H5DSattach_scale(table, x.get(), 1) < 0)
        throw Error("cannot attach the coordinates /y and /x to /grundy");
}

bool has_coordinates(hid_t file) {
    return H5Lexists(file, "y", H5P_DEFAULT) > 0 && H5Lexists(file, "x", H5P_DEFAULT) > 0;
}

}  // namespace grundy::io
