// The stopped-run check of `--resume`: a kept file is checked read-only against what a resume
// needs, and its stored chunks are served to the engine as StoredTiles.
#include <cstring>
#include <filesystem>

#include "grundy/error.hpp"
#include "grundy/version.hpp"
#include "io/h5_attributes.hpp"
#include "io/hdf5_writer_impl.hpp"

namespace grundy {

namespace fs = std::filesystem;

// Checks, read-only so that a refused resume leaves the file as it was, that the file is a
// stopped run's, and finds its stored tiles from the chunk index. The file is opened for
// writing only in begin(), once the caller has compared the run with the one asked for.
void Hdf5Writer::Impl::open_stopped_run() {
    const std::string& path = options.path;
    auto refuse = [&](const std::string& why) {
        throw Error("cannot resume " + path + ": " + why);
    };
    std::error_code ec;
    if (!fs::exists(path, ec)) refuse("no such file");
    if (fs::is_directory(path, ec)) refuse("it is a directory");
    if (H5Fis_hdf5(path.c_str()) <= 0) refuse("not an HDF5 file (or truncated)");
    H5Handle f(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
    if (!f.valid()) refuse("it does not open (damaged, perhaps by a hard kill)");
    if (io::read_string_attribute(f.get(), "game").value_or("") != "wythoff" ||
        io::read_string_attribute(f.get(), "software").value_or("") != kSoftwareName ||
        H5Lexists(f.get(), "grundy", H5P_DEFAULT) <= 0)
        refuse("not a table written by grundy compute");
    if (io::read_int_attribute(f.get(), "complete").value_or(0) == 1)
        throw Error(path + " is already complete: nothing to resume");
    if (io::read_int_attribute(f.get(), "resumable").value_or(0) != 1)
        refuse("not resumable (it has no resumable = 1: an older grundy wrote it)");
    const auto rows = io::read_int_attribute(f.get(), "rows");
    const auto cols = io::read_int_attribute(f.get(), "cols");
    const auto tile = io::read_int_attribute(f.get(), "tile");
    const auto compression = Compression::from_description(
        io::read_string_attribute(f.get(), "compression").value_or(""));
    if (!rows || !cols || !tile || *rows < 1 || *cols < 1 || *tile < 1 || *tile > (1 << 20) ||
        !compression)
        refuse("its attributes rows, cols, tile or compression are missing or wrong (damaged?)");
    stopped.shape = TableShape{static_cast<uint64_t>(*rows), static_cast<uint64_t>(*cols),
                               static_cast<uint32_t>(*tile)};
    stopped.compression = *compression;
    stopped.elapsed_seconds = io::read_double_attribute(f.get(), "elapsed_seconds").value_or(0.0);
    resumed_runs = io::read_int_attribute(f.get(), "resumed_runs").value_or(0);
    options.compression = *compression;  // new chunks are stored like the old ones

    // The dataset must be the one such a run creates: shape, type, chunks and filters.
    const TableShape& t = stopped.shape;
    H5Handle ds(H5Dopen2(f.get(), "grundy", H5P_DEFAULT), H5Dclose);
    if (!ds.valid()) refuse("its dataset /grundy does not open (damaged?)");
    H5Handle space(H5Dget_space(ds.get()), H5Sclose);
    H5Handle type(H5Dget_type(ds.get()), H5Tclose);
    H5Handle dcpl(H5Dget_create_plist(ds.get()), H5Pclose);
    hsize_t dims[2] = {0, 0};
    const bool filters_match =
        io::chunk_format_of(dcpl.get(), type.get(), format) &&
        (format.blosc >= 0) == (compression->kind == Compression::Kind::Blosc) &&
        (format.deflate >= 0) == (compression->kind == Compression::Kind::Deflate);
    if (H5Sget_simple_extent_ndims(space.get()) != 2 ||
        H5Sget_simple_extent_dims(space.get(), dims, nullptr) != 2 || dims[0] != t.rows ||
        dims[1] != t.cols || H5Tget_sign(type.get()) != H5T_SGN_NONE ||
        H5Tget_size(type.get()) != value_bytes(t.rows, t.cols) || !filters_match ||
        format.rows != std::min<uint64_t>(t.tile, t.rows) ||
        format.cols != std::min<uint64_t>(t.tile, t.cols))
        refuse("its dataset /grundy does not match its attributes (damaged?)");
    checksum = format.fletcher32 >= 0;  // the new chunks are stored like the old ones

    // The stored tiles, from the chunk index. After a hard kill the index on disk is the one
    // of the last flush, possibly half updated since: every entry must lie inside the file,
    // and the count must agree, or the file is refused rather than trusted.
    tiles_x = (t.cols + t.tile - 1) / t.tile;
    const uint64_t tiles_y = (t.rows + t.tile - 1) / t.tile;
    stopped.tiles = tiles_x * tiles_y;
    stored.assign(stopped.tiles, 0);
    const uintmax_t file_size = fs::file_size(path, ec);
    const std::string damaged_index = "its chunk index is damaged (a hard kill?)";
    for (uint64_t j = 0; j < tiles_y; ++j)
        for (uint64_t i = 0; i < tiles_x; ++i) {
            const hsize_t offset[2] = {j * t.tile, i * t.tile};
            unsigned mask = 0;
            haddr_t addr = HADDR_UNDEF;
            hsize_t size = 0;
            if (H5Dget_chunk_info_by_coord(ds.get(), offset, &mask, &addr, &size) < 0)
                refuse(damaged_index);
            if (addr == HADDR_UNDEF) continue;
            if (size == 0 || ec || addr > file_size || size > file_size - addr)
                refuse(damaged_index);
            stored[j * tiles_x + i] = 1;
            ++stopped.tiles_stored;
        }
    hsize_t chunks = 0;
    // (HDF5 1.10 refuses H5S_ALL here: the dataset's own dataspace means the same.)
    if (H5Dget_num_chunks(ds.get(), space.get(), &chunks) < 0 || chunks != stopped.tiles_stored)
        refuse(damaged_index);
}

void Hdf5Writer::Impl::read_tile(uint64_t x0, uint64_t y0, uint32_t width, uint32_t height,
                                 uint32_t* values) {
    // The raw chunk is read under the lock; the decoding, most of the work, runs in parallel.
    io::silence_hdf5_errors();  // a worker thread of the engine
    thread_local std::vector<uint8_t> raw;
    uint32_t mask = 0;
    const hsize_t offset[2] = {y0, x0};
    bool ok = false;
    {
        std::lock_guard<std::mutex> lock(hdf5);
        hsize_t nbytes = 0;
        if (H5Dget_chunk_storage_size(dataset.get(), offset, &nbytes) >= 0 && nbytes > 0) {
            raw.resize(nbytes);
            ok = H5Dread_chunk(dataset.get(), H5P_DEFAULT, offset, &mask, raw.data()) >= 0;
        }
    }
    if (!ok ||
        !io::decode_chunk(format, raw.data(), raw.size(), mask, 0, 0, width, height, values, width))
        throw Error("cannot read the stored tile at x = " + std::to_string(x0) +
                    ", y = " + std::to_string(y0) + " of " + options.path + " (damaged file?)");
}

}  // namespace grundy
