#include "grundy/hdf5_reader.hpp"

#include <hdf5.h>
#include <omp.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <future>
#include <memory>
#include <new>
#include <vector>

#include "grundy/error.hpp"
#include "grundy/hdf5_writer.hpp"
#include "io/chunk_codec.hpp"
#include "io/h5_attributes.hpp"
#include "io/h5_handle.hpp"
#include "io/stored_chunks.hpp"

namespace grundy {

using io::H5Handle;

struct Hdf5TableReader::Impl {
    std::string path;
    H5Handle file, dataset;
    uint64_t rows = 0, cols = 0, chunk_rows = 0, chunk_cols = 0;
    bool complete = false;
    // Chunks in a format decode_chunk knows (what grundy compute writes) are read raw and
    // decoded here, in parallel; anything else goes through H5Dread.
    bool fast = false;
    io::ChunkFormat format;

    // The chunks of read()'s rectangle, reused from call to call.
    mutable StoredChunks scratch;

    void read_fast(const Hdf5TableReader& reader, uint64_t x0, uint64_t y0, uint64_t width,
                   uint64_t height, uint32_t* out, uint64_t stride) const;
};

Hdf5TableReader::Hdf5TableReader(const std::string& path, bool allow_incomplete)
    : impl_(std::make_unique<Impl>()) {
    io::silence_hdf5_errors();
    Impl& m = *impl_;
    m.path = path;
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) throw Error("no such file: " + path);
    if (std::filesystem::is_directory(path, ec)) throw Error(path + " is a directory, not a table");
    if (H5Fis_hdf5(path.c_str()) <= 0) throw Error(path + " is not an HDF5 file (or is truncated)");
    m.file = H5Handle(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
    if (!m.file.valid()) throw Error("cannot open " + path + " (damaged or truncated HDF5 file?)");
    if (H5Lexists(m.file.get(), "grundy", H5P_DEFAULT) <= 0)
        throw Error(path + " has no dataset /grundy: not a table written by grundy compute");
    m.dataset = H5Handle(H5Dopen2(m.file.get(), "grundy", H5P_DEFAULT), H5Dclose);
    if (!m.dataset.valid()) throw Error("cannot open /grundy in " + path);
    H5Handle space(H5Dget_space(m.dataset.get()), H5Sclose);
    H5Handle type(H5Dget_type(m.dataset.get()), H5Tclose);
    if (H5Sget_simple_extent_ndims(space.get()) != 2 || H5Tget_class(type.get()) != H5T_INTEGER ||
        H5Tget_sign(type.get()) != H5T_SGN_NONE || H5Tget_size(type.get()) > 4)
        throw Error(path + ": /grundy is not a 2-d array of unsigned integers");
    hsize_t dims[2];
    H5Sget_simple_extent_dims(space.get(), dims, nullptr);
    m.rows = dims[0];
    m.cols = dims[1];
    H5Handle dcpl(H5Dget_create_plist(m.dataset.get()), H5Pclose);
    hsize_t chunk[2] = {dims[0], dims[1]};
    if (H5Pget_layout(dcpl.get()) == H5D_CHUNKED) H5Pget_chunk(dcpl.get(), 2, chunk);
    m.chunk_rows = chunk[0];
    m.chunk_cols = chunk[1];
    m.fast = io::chunk_format_of(dcpl.get(), type.get(), m.format);
    const auto complete = io::read_int_attribute(m.file.get(), "complete");
    m.complete = complete && *complete == 1;
    if (!m.complete && !allow_incomplete)
        throw Error(path +
                    " is incomplete (its 'complete' attribute is not 1): the run that "
                    "wrote it did not finish");
}

Hdf5TableReader::~Hdf5TableReader() = default;

const std::string& Hdf5TableReader::path() const {
    return impl_->path;
}
uint64_t Hdf5TableReader::rows() const {
    return impl_->rows;
}
uint64_t Hdf5TableReader::cols() const {
    return impl_->cols;
}
uint64_t Hdf5TableReader::chunk_rows() const {
    return impl_->chunk_rows;
}
uint64_t Hdf5TableReader::chunk_cols() const {
    return impl_->chunk_cols;
}
bool Hdf5TableReader::complete() const {
    return impl_->complete;
}

void Hdf5TableReader::read(uint64_t x0, uint64_t y0, uint64_t width, uint64_t height, uint32_t* out,
                           uint64_t stride) const {
    io::silence_hdf5_errors();  // the caller's thread may not be the one that opened the file
    const Impl& m = *impl_;
    if (x0 + width > m.cols || y0 + height > m.rows || width == 0 || height == 0)
        throw Error("read outside the table " + m.path);
    if (stride == 0) stride = width;
    if (stride < width) throw Error("read with a row stride below its width");
    // Large reads decode their chunks in parallel; small ones use HDF5's chunk cache.
    if (m.fast && width * height >= m.chunk_rows * m.chunk_cols)
        return m.read_fast(*this, x0, y0, width, height, out, stride);
    H5Handle fspace(H5Dget_space(m.dataset.get()), H5Sclose);
    const hsize_t start[2] = {y0, x0}, count[2] = {height, width};
    H5Sselect_hyperslab(fspace.get(), H5S_SELECT_SET, start, nullptr, count, nullptr);
    const hsize_t mdims[2] = {height, stride}, mstart[2] = {0, 0};
    H5Handle mspace(H5Screate_simple(2, mdims, nullptr), H5Sclose);
    H5Sselect_hyperslab(mspace.get(), H5S_SELECT_SET, mstart, nullptr, count, nullptr);
    if (H5Dread(m.dataset.get(), H5T_NATIVE_UINT32, mspace.get(), fspace.get(), H5P_DEFAULT, out) <
        0)
        throw Error("cannot read " + m.path + " (damaged or truncated file?)");
}

struct StoredChunks::Impl {
    struct Chunk {
        uint64_t cx, cy;  // its corner in the table
        uint32_t mask = 0;
        const uint8_t* bytes = nullptr;  // null: never written, reads as the fill value 0
        size_t size = 0;
    };
    uint64_t x0 = 0, y0 = 0, width = 0, height = 0, cc = 0, cr = 0;
    std::vector<Chunk> chunks;
    // Reused from fetch to fetch: fresh buffers cost page faults on every read.
    std::vector<std::vector<uint8_t>> buffers;
};

StoredChunks::StoredChunks() : impl_(std::make_unique<Impl>()) {}
StoredChunks::~StoredChunks() = default;
size_t StoredChunks::size() const {
    return impl_->chunks.size();
}
uint64_t StoredChunks::x_begin(size_t k) const {
    return std::max(impl_->x0, impl_->chunks[k].cx);
}
uint64_t StoredChunks::x_end(size_t k) const {
    return std::min(impl_->x0 + impl_->width, impl_->chunks[k].cx + impl_->cc);
}

bool StoredChunks::decodable(const Hdf5TableReader& table) {
    return table.impl_->fast;
}

void StoredChunks::fetch(const Hdf5TableReader& table, uint64_t x0, uint64_t y0, uint64_t width,
                         uint64_t height) {
    io::silence_hdf5_errors();  // streams fetch on a helper thread
    const Hdf5TableReader::Impl& m = *table.impl_;
    if (!m.fast) throw Error("fetch on a table whose chunks the reader cannot decode");
    if (x0 + width > m.cols || y0 + height > m.rows || width == 0 || height == 0)
        throw Error("read outside the table " + m.path);
    Impl& r = *impl_;
    const uint64_t cr = m.chunk_rows, cc = m.chunk_cols;
    r.x0 = x0;
    r.y0 = y0;
    r.width = width;
    r.height = height;
    r.cc = cc;
    r.cr = cr;
    r.chunks.clear();
    const uint64_t i0 = x0 / cc, i1 = (x0 + width - 1) / cc, j0 = y0 / cr,
                   j1 = (y0 + height - 1) / cr;
    const size_t count = (i1 - i0 + 1) * (j1 - j0 + 1);
    if (r.buffers.size() < count) r.buffers.resize(count);
    for (uint64_t j = j0; j <= j1; ++j)
        for (uint64_t i = i0; i <= i1; ++i) {
            Impl::Chunk c{i * cc, j * cr, 0, nullptr, 0};
            const hsize_t offset[2] = {c.cy, c.cx};
            hsize_t nbytes = 0;
            if (H5Dget_chunk_storage_size(m.dataset.get(), offset, &nbytes) >= 0 && nbytes > 0) {
                std::vector<uint8_t>& buffer = r.buffers[r.chunks.size()];
                if (buffer.size() < nbytes) buffer.resize(nbytes);
                c.bytes = buffer.data();
                c.size = nbytes;
                if (H5Dread_chunk(m.dataset.get(), H5P_DEFAULT, offset, &c.mask, buffer.data()) < 0)
                    throw Error("cannot read " + m.path + " (damaged or truncated file?)");
            }
            r.chunks.push_back(c);
        }
}

bool StoredChunks::decode(const Hdf5TableReader& table, size_t k, uint32_t* out,
                          uint64_t stride) const {
    const Hdf5TableReader::Impl& m = *table.impl_;
    const Impl& s = *impl_;
    const uint64_t cr = s.cr, cc = s.cc;
    const uint64_t x0 = s.x0, y0 = s.y0;
    const Impl::Chunk& r = s.chunks[k];
    const uint64_t ax = std::max(x0, r.cx), bx = std::min(x0 + s.width, r.cx + cc);
    const uint64_t ay = std::max(y0, r.cy), by = std::min(y0 + s.height, r.cy + cr);
    if (!r.bytes) {
        for (uint64_t y = ay; y < by; ++y)
            std::fill_n(out + (y - y0) * stride + (ax - x0), bx - ax, 0u);
        return true;
    }
    return io::decode_chunk(m.format, r.bytes, r.size, r.mask, ax - r.cx, ay - r.cy, bx - ax,
                            by - ay, out + (ay - y0) * stride + (ax - x0), stride);
}

void Hdf5TableReader::Impl::read_fast(const Hdf5TableReader& reader, uint64_t x0, uint64_t y0,
                                      uint64_t width, uint64_t height, uint32_t* out,
                                      uint64_t stride) const {
    // HDF5 calls stay on this thread; only the decoding runs in parallel.
    scratch.fetch(reader, x0, y0, width, height);
    const size_t count = scratch.size();
    bool failed = false;
    // A parallel region costs more than decoding one chunk (a time slice on a busy machine).
#pragma omp parallel for schedule(dynamic, 1) if (count > 1)
    for (size_t k = 0; k < count; ++k)
        if (!scratch.decode(reader, k, out, stride)) {
#pragma omp atomic write
            failed = true;
        }
    if (failed) throw Error("cannot decode a chunk of " + path + " (damaged file?)");
}

void Hdf5TableReader::read_cells(const std::vector<std::pair<uint64_t, uint64_t>>& cells,
                                 uint32_t* out) const {
    io::silence_hdf5_errors();
    const Impl& m = *impl_;
    if (cells.empty()) return;
    std::vector<hsize_t> coords;
    coords.reserve(2 * cells.size());
    for (const auto& [x, y] : cells) {
        if (x >= m.cols || y >= m.rows) throw Error("read outside the table " + m.path);
        coords.push_back(y);
        coords.push_back(x);
    }
    H5Handle fspace(H5Dget_space(m.dataset.get()), H5Sclose);
    H5Sselect_elements(fspace.get(), H5S_SELECT_SET, cells.size(), coords.data());
    const hsize_t count = cells.size();
    H5Handle mspace(H5Screate_simple(1, &count, nullptr), H5Sclose);
    if (H5Dread(m.dataset.get(), H5T_NATIVE_UINT32, mspace.get(), fspace.get(), H5P_DEFAULT, out) <
        0)
        throw Error("cannot read " + m.path + " (damaged or truncated file?)");
}

namespace {

// A chunk's side, or 256 where chunks are wider than 4096 or the table is not chunked (one
// chunk): bands stay small.
uint64_t band_side(uint64_t chunk, uint64_t side) {
    return chunk == 0 || chunk > 4096 ? std::min<uint64_t>(256, side) : chunk;
}

// Row bands of a table whose chunks the reader decodes: each band's stored chunks are fetched
// on a helper thread while the band before is decoded and studied, and a piece is one chunk,
// decoded by the thread that hands it to the passes. The helper is the only one to call HDF5
// while it runs (the passes never do), and it is joined before the next fetch or when the
// reader goes, even by an exception.
class ChunkBandReader final : public RowBandReader {
  public:
    explicit ChunkBandReader(const Hdf5TableReader& table) : table_(table) {}
    ~ChunkBandReader() override {
        if (next_.valid()) next_.wait();
    }

    uint64_t start(uint64_t y0, uint64_t height, uint32_t* band, uint64_t stride) override {
        const uint64_t rows = table_.rows();
        if (first_) {
            height_ = height;
            fetch(y0, &stored_[0]);
            first_ = false;
        } else {
            next_.get();
            current_ ^= 1;
        }
        if (y0 + height_ < rows)
            next_ = std::async(std::launch::async, &ChunkBandReader::fetch, this, y0 + height_,
                               &stored_[current_ ^ 1]);
        band_ = band;
        stride_ = stride;
        return stored_[current_].size();
    }

    std::pair<uint64_t, uint64_t> piece(uint64_t k) override {
        const StoredChunks& chunks = stored_[current_];
        if (!chunks.decode(table_, k, band_, stride_))
            throw Error("cannot decode a chunk of " + table_.path() + " (damaged file?)");
        return {chunks.x_begin(k), chunks.x_end(k)};
    }

  private:
    void fetch(uint64_t y0, StoredChunks* into) const {
        into->fetch(table_, 0, y0, table_.cols(), std::min(height_, table_.rows() - y0));
    }
    const Hdf5TableReader& table_;
    StoredChunks stored_[2];
    int current_ = 0;
    bool first_ = true;
    uint64_t height_ = 0, stride_ = 0;
    uint32_t* band_ = nullptr;
    std::future<void> next_;  // last: joined before the chunks it fills go
};

}  // namespace

uint64_t Hdf5TableReader::band_rows() const {
    return band_side(impl_->chunk_rows, impl_->rows);
}

uint64_t Hdf5TableReader::band_cols() const {
    return band_side(impl_->chunk_cols, impl_->cols);
}

std::unique_ptr<RowBandReader> Hdf5TableReader::row_bands() const {
    if (!StoredChunks::decodable(*this)) return TableSource::row_bands();
    return std::make_unique<ChunkBandReader>(*this);
}

std::optional<std::string> Hdf5TableReader::string_attribute(const char* name) const {
    return io::read_string_attribute(impl_->file.get(), name);
}
std::optional<int64_t> Hdf5TableReader::int_attribute(const char* name) const {
    return io::read_int_attribute(impl_->file.get(), name);
}
std::optional<double> Hdf5TableReader::double_attribute(const char* name) const {
    return io::read_double_attribute(impl_->file.get(), name);
}

}  // namespace grundy
