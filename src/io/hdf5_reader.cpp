#include "grundy/hdf5_reader.hpp"

#include <blosc.h>
#include <hdf5.h>
#include <libdeflate.h>
#include <omp.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <memory>
#include <new>
#include <vector>

#include "grundy/error.hpp"
#include "grundy/hdf5_writer.hpp"
#include "io/h5_attributes.hpp"
#include "io/h5_handle.hpp"

namespace grundy {

using io::H5Handle;

struct Hdf5TableReader::Impl {
    std::string path;
    H5Handle file, dataset;
    uint64_t rows = 0, cols = 0, chunk_rows = 0, chunk_cols = 0;
    bool complete = false;
    // Chunks filtered by nothing, deflate, shuffle + deflate, or Blosc alone (what grundy
    // compute writes) can be read raw and decoded here, in parallel; anything else goes
    // through H5Dread.
    bool fast = false;
    unsigned value_size = 0;
    int shuffle_index = -1, deflate_index = -1, blosc_index = -1;

    void detect_fast_path(hid_t dcpl, hid_t type);
    // The chunks of read()'s rectangle, reused from call to call.
    mutable StoredChunks scratch;

    void read_fast(const Hdf5TableReader& reader, uint64_t x0, uint64_t y0, uint64_t width,
                   uint64_t height, uint32_t* out, uint64_t stride) const;
};

namespace {

struct DecompressorDeleter {
    void operator()(libdeflate_decompressor* d) const { libdeflate_free_decompressor(d); }
};

libdeflate_decompressor* thread_decompressor() {
    thread_local std::unique_ptr<libdeflate_decompressor, DecompressorDeleter> d(
        libdeflate_alloc_decompressor());
    if (!d) throw std::bad_alloc();
    return d.get();
}

}  // namespace

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
    if (H5Pget_layout(dcpl.get()) == H5D_CHUNKED) m.detect_fast_path(dcpl.get(), type.get());
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

// Whether the stock filters are only deflate and shuffle (shuffle applied first), so the raw
// chunks can be decoded without HDF5.
void Hdf5TableReader::Impl::detect_fast_path(hid_t dcpl, hid_t type) {
    Impl& m = *this;
    const size_t size = H5Tget_size(type);
    if ((size != 2 && size != 4) || H5Tget_order(type) != H5T_ORDER_LE) return;
    const int n = H5Pget_nfilters(dcpl);
    if (n < 0 || n > 2) return;
    for (int i = 0; i < n; ++i) {
        unsigned flags = 0, values[8];
        size_t count = 8;
        const H5Z_filter_t id = H5Pget_filter2(dcpl, static_cast<unsigned>(i), &flags, &count,
                                               values, 0, nullptr, nullptr);
        if (id == H5Z_FILTER_SHUFFLE && m.deflate_index < 0 && m.shuffle_index < 0)
            m.shuffle_index = i;
        else if (id == H5Z_FILTER_DEFLATE && m.deflate_index < 0)
            m.deflate_index = i;
        else if (id == kBloscFilter && n == 1)
            m.blosc_index = i;
        else
            return;
    }
    m.value_size = static_cast<unsigned>(size);
    m.fast = true;
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

bool Hdf5TableReader::decodes_chunks() const {
    return impl_->fast;
}

void Hdf5TableReader::fetch(uint64_t x0, uint64_t y0, uint64_t width, uint64_t height,
                            StoredChunks& out) const {
    const Impl& m = *impl_;
    if (!m.fast) throw Error("fetch on a table whose chunks the reader cannot decode");
    if (x0 + width > m.cols || y0 + height > m.rows || width == 0 || height == 0)
        throw Error("read outside the table " + m.path);
    StoredChunks::Impl& r = *out.impl_;
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
            StoredChunks::Impl::Chunk c{i * cc, j * cr, 0, nullptr, 0};
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

bool Hdf5TableReader::decode(const StoredChunks& chunks, size_t k, uint32_t* out,
                             uint64_t stride) const {
    const Impl& m = *impl_;
    const StoredChunks::Impl& s = *chunks.impl_;
    const uint64_t cr = s.cr, cc = s.cc, n = cr * cc, raw_size = n * m.value_size;
    const uint64_t x0 = s.x0, y0 = s.y0;
    const StoredChunks::Impl::Chunk& r = s.chunks[k];
    const uint64_t ax = std::max(x0, r.cx), bx = std::min(x0 + s.width, r.cx + cc);
    const uint64_t ay = std::max(y0, r.cy), by = std::min(y0 + s.height, r.cy + cr);
    if (!r.bytes) {
        for (uint64_t y = ay; y < by; ++y)
            std::fill_n(out + (y - y0) * stride + (ax - x0), bx - ax, 0u);
        return true;
    }
    // Reused across calls: fresh buffers cost more in page faults than the decoding.
    thread_local std::vector<uint8_t> inflated;
    if (inflated.size() < raw_size) inflated.resize(raw_size);
    const uint8_t* data = r.bytes;
    size_t size = r.size;
    if (m.blosc_index >= 0 && !(r.mask >> m.blosc_index & 1)) {
        // Blosc trusts the sizes in its 16-byte header, so they are checked against the chunk
        // first (a damaged file must not make it read past the buffer). It undoes its byte
        // shuffle itself.
        size_t nbytes = 0, cbytes = 0, block = 0;
        if (size >= BLOSC_MIN_HEADER_LENGTH) blosc_cbuffer_sizes(data, &nbytes, &cbytes, &block);
        const int got = nbytes == raw_size && cbytes == size
                            ? blosc_decompress_ctx(data, inflated.data(), raw_size, 1)
                            : -1;
        if (got < 0 || static_cast<size_t>(got) != raw_size) return false;
        data = inflated.data();
        size = raw_size;
    }
    if (m.deflate_index >= 0 && !(r.mask >> m.deflate_index & 1)) {
        size_t actual = 0;
        if (libdeflate_zlib_decompress(thread_decompressor(), data, size, inflated.data(), raw_size,
                                       &actual) != LIBDEFLATE_SUCCESS ||
            actual != raw_size)
            return false;
        data = inflated.data();
        size = actual;
    }
    if (size != raw_size) return false;
    const unsigned value_size = m.value_size;
    const bool shuffled = m.shuffle_index >= 0 && !(r.mask >> m.shuffle_index & 1);
    for (uint64_t y = ay; y < by; ++y) {
        uint32_t* dst = out + (y - y0) * stride + (ax - x0);
        const uint64_t base = (y - r.cy) * cc + (ax - r.cx);
        const uint64_t count = bx - ax;
        // Byte k of value i is at k * n + i: what H5Z's shuffle filter writes.
        if (shuffled && value_size == 2) {
            const uint8_t* lo = data + base;
            const uint8_t* hi = data + n + base;
            for (uint64_t i = 0; i < count; ++i) dst[i] = uint32_t{lo[i]} | uint32_t{hi[i]} << 8;
        } else if (shuffled) {
            for (uint64_t i = 0; i < count; ++i) {
                uint32_t v = 0;
                for (unsigned b = 0; b < value_size; ++b)
                    v |= uint32_t{data[b * n + base + i]} << (8 * b);
                dst[i] = v;
            }
        } else if (value_size == 2) {
            for (uint64_t i = 0; i < count; ++i) {
                uint16_t v;
                std::memcpy(&v, data + 2 * (base + i), 2);
                dst[i] = v;
            }
        } else {
            std::memcpy(dst, data + 4 * base, 4 * count);
        }
    }
    return true;
}

void Hdf5TableReader::Impl::read_fast(const Hdf5TableReader& reader, uint64_t x0, uint64_t y0,
                                      uint64_t width, uint64_t height, uint32_t* out,
                                      uint64_t stride) const {
    // HDF5 calls stay on this thread; only the decoding runs in parallel.
    reader.fetch(x0, y0, width, height, scratch);
    const size_t count = scratch.size();
    bool failed = false;
    // A parallel region costs more than decoding one chunk (a time slice on a busy machine).
#pragma omp parallel for schedule(dynamic, 1) if (count > 1)
    for (size_t k = 0; k < count; ++k)
        if (!reader.decode(scratch, k, out, stride)) {
#pragma omp atomic write
            failed = true;
        }
    if (failed) throw Error("cannot decode a chunk of " + path + " (damaged file?)");
}

uint32_t Hdf5TableReader::at(uint64_t x, uint64_t y) const {
    uint32_t v = 0;
    read(x, y, 1, 1, &v);
    return v;
}

void Hdf5TableReader::read_cells(const std::vector<std::pair<uint64_t, uint64_t>>& cells,
                                 uint32_t* out) const {
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
