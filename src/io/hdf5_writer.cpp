// The HDF5 writer: file creation and checks, the writer thread, attributes, completion.
#include "grundy/hdf5_writer.hpp"

#include <fcntl.h>
#include <hdf5.h>
#include <unistd.h>

#include <bit>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <ctime>
#include <deque>
#include <filesystem>
#include <mutex>
#include <thread>

#include "grundy/error.hpp"
#include "grundy/version.hpp"
#include "io/chunk_codec.hpp"
#include "io/h5_attributes.hpp"
#include "io/h5_handle.hpp"

static_assert(std::endian::native == std::endian::little, "chunks are laid out little-endian");

namespace grundy {

namespace fs = std::filesystem;
using io::H5Handle;

Compression Compression::parse(const std::string& text) {
    Compression c;
    auto level_of = [](const std::string& s, int& level) {
        if (s.size() != 1 || s[0] < '1' || s[0] > '9') return false;
        level = s[0] - '0';
        return true;
    };
    if (text == "none") {
        c.kind = Kind::None;
        return c;
    }
    if (text == "deflate") return c;
    const std::string deflate = "deflate:";
    if (text.compare(0, deflate.size(), deflate) == 0 &&
        level_of(text.substr(deflate.size()), c.level))
        return c;
    if (text == "blosc" || text.compare(0, 6, "blosc:") == 0) {
        c.kind = Kind::Blosc;
        c.level = kDefaultBloscLevel;
        const std::string rest = text.size() > 6 ? text.substr(6) : "";
        const size_t colon = rest.find(':');
        if (colon != std::string::npos)
            c.codec = rest.substr(0, colon);
        else if (!rest.empty())
            c.codec = rest;
        const bool level_ok =
            colon == std::string::npos || level_of(rest.substr(colon + 1), c.level);
        if (level_ok && io::blosc_codec_code(c.codec) >= 0) return c;
    }
    throw Error(
        "compression must be none, deflate, deflate:LEVEL (1..9), blosc, blosc:CODEC or "
        "blosc:CODEC:LEVEL (CODEC " +
        io::blosc_codecs() + ", LEVEL 1..9), not '" + text + "'");
}

std::string Compression::describe() const {
    switch (kind) {
        case Kind::None:
            return "none";
        case Kind::Deflate:
            return "shuffle+deflate:" + std::to_string(level);
        case Kind::Blosc:
            return "blosc:" + codec + ":" + std::to_string(level) + " (shuffle)";
    }
    return "?";
}

unsigned value_bytes(uint64_t rows, uint64_t cols) {
    // The largest value of the table is at most X + Y - 2.
    return rows + cols - 2 <= 0xFFFF ? 2 : 4;
}

namespace {

// Makes sure what was written reaches the disk before the file is marked complete.
void fsync_path(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY);
    if (fd < 0) throw Error("cannot reopen " + path + ": " + std::strerror(errno));
    const int rc = ::fsync(fd);
    const int err = errno;
    ::close(fd);
    if (rc != 0) throw Error("cannot flush " + path + " to disk: " + std::strerror(err));
}

}  // namespace

struct Hdf5Writer::Impl {
    Hdf5WriterOptions options;
    H5Handle file, dataset;
    TableShape shape;
    unsigned bytes_per_value = 2;
    uint32_t chunk_rows = 0, chunk_cols = 0;
    bool finished = false;

    // The queue between the workers (compressing) and the writer thread (storing).
    struct Pending {
        hsize_t offset[2];
        io::EncodedChunk chunk;
    };
    std::mutex mutex;
    std::condition_variable not_empty, not_full;
    std::deque<Pending> queue;
    // Chunk buffers go back to the workers once written: a fresh 128 KiB buffer per chunk
    // would be an mmap, page faults and an munmap each time.
    std::vector<std::vector<uint8_t>> spare;
    uint64_t queued_bytes = 0;
    bool closing = false;
    std::string write_error;  // first failure of the writer thread
    std::thread writer;
    uint64_t written = 0;

    // Enough to keep the writer busy, little enough not to hold the table: a slow disk makes
    // the workers wait here instead of filling memory.
    static constexpr uint64_t kMaxQueuedBytes = 256ull << 20;

    void writer_loop() {
        for (;;) {
            Pending p;
            {
                std::unique_lock<std::mutex> lock(mutex);
                not_empty.wait(lock, [&] { return !queue.empty() || closing; });
                if (queue.empty()) return;
                p = std::move(queue.front());
                queue.pop_front();
                queued_bytes -= p.chunk.bytes.size();
            }
            not_full.notify_all();
            if (!write_error.empty()) continue;  // drain without writing after a failure
            const herr_t rc = H5Dwrite_chunk(dataset.get(), H5P_DEFAULT, p.chunk.filter_mask,
                                             p.offset, p.chunk.bytes.size(), p.chunk.bytes.data());
            std::lock_guard<std::mutex> lock(mutex);
            if (rc < 0)
                write_error = "cannot write to " + options.path + " (disk full or file removed?)";
            else
                written += p.chunk.bytes.size();
            spare.push_back(std::move(p.chunk.bytes));
        }
    }

    void stop_writer() {
        {
            std::lock_guard<std::mutex> lock(mutex);
            closing = true;
        }
        not_empty.notify_all();
        if (writer.joinable()) writer.join();
    }
};

Hdf5Writer::Hdf5Writer(Hdf5WriterOptions options) : impl_(std::make_unique<Impl>()) {
    io::silence_hdf5_errors();
    impl_->options = std::move(options);
    const std::string& path = impl_->options.path;
    if (path.empty()) throw Error("no output file given");
    const fs::path p(path);
    const fs::path dir = p.has_parent_path() ? p.parent_path() : fs::path(".");
    std::error_code ec;
    if (!fs::is_directory(dir, ec))
        throw Error("output directory " + dir.string() + " does not exist");
    if (::access(dir.c_str(), W_OK) != 0)
        throw Error("output directory " + dir.string() + " is not writable");
    if (fs::exists(p, ec)) {
        if (!impl_->options.force)
            throw Error("output file " + path + " exists (use --force to overwrite it)");
        if (fs::is_directory(p, ec)) throw Error("output path " + path + " is a directory");
    }
    impl_->file =
        H5Handle(H5Fcreate(path.c_str(), impl_->options.force ? H5F_ACC_TRUNC : H5F_ACC_EXCL,
                           H5P_DEFAULT, H5P_DEFAULT),
                 H5Fclose);
    if (!impl_->file.valid()) throw Error("cannot create " + path);
    const hid_t f = impl_->file.get();
    io::write_attribute(f, "complete", int32_t{0});
    io::write_attribute(f, "game", std::string("wythoff"));
    io::write_attribute(f, "software", std::string(kSoftwareName));
    io::write_attribute(f, "software_version", std::string(kVersion));
    io::write_attribute(f, "created", io::iso8601_now());
    io::write_attribute(f, "compression", impl_->options.compression.describe());
}

Hdf5Writer::~Hdf5Writer() {
    impl_->stop_writer();
    if (!impl_->finished) {
        impl_->dataset.reset();
        impl_->file.reset();
        std::error_code ec;
        fs::remove(impl_->options.path, ec);
    }
}

void Hdf5Writer::begin(const TableShape& shape) {
    Impl& m = *impl_;
    m.shape = shape;
    m.bytes_per_value = value_bytes(shape.rows, shape.cols);
    m.chunk_rows = static_cast<uint32_t>(std::min<uint64_t>(shape.tile, shape.rows));
    m.chunk_cols = static_cast<uint32_t>(std::min<uint64_t>(shape.tile, shape.cols));

    const hid_t f = m.file.get();
    io::write_attribute(f, "rows", uint64_t{shape.rows});
    io::write_attribute(f, "cols", uint64_t{shape.cols});

    const hsize_t dims[2] = {shape.rows, shape.cols};
    H5Handle space(H5Screate_simple(2, dims, nullptr), H5Sclose);
    H5Handle dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
    const hsize_t chunk[2] = {m.chunk_rows, m.chunk_cols};
    H5Pset_chunk(dcpl.get(), 2, chunk);
    if (m.options.compression.kind == Compression::Kind::Deflate) {
        // The pipeline readers will run backwards: shuffle first, then deflate.
        H5Pset_shuffle(dcpl.get());
        H5Pset_deflate(dcpl.get(), static_cast<unsigned>(m.options.compression.level));
    } else if (m.options.compression.kind == Compression::Kind::Blosc) {
        // The filter's parameters as its plugin writes them: filter revision, Blosc format,
        // value size, chunk bytes, level, shuffle (1: bytes), compressor. Marked optional so the
        // dataset can be created where the plugin is not installed (the chunks come encoded).
        const Compression& c = m.options.compression;
        const unsigned cd[7] = {2,
                                2,
                                m.bytes_per_value,
                                m.chunk_rows * m.chunk_cols * m.bytes_per_value,
                                static_cast<unsigned>(c.level),
                                1,
                                static_cast<unsigned>(io::blosc_codec_code(c.codec))};
        H5Pset_filter(dcpl.get(), kBloscFilter, H5Z_FLAG_OPTIONAL, 7, cd);
    }
    // Every chunk is written exactly once; pre-filling them with zeros would double the I/O.
    H5Pset_fill_time(dcpl.get(), H5D_FILL_TIME_NEVER);
    H5Pset_alloc_time(dcpl.get(), H5D_ALLOC_TIME_INCR);
    const hid_t type = m.bytes_per_value == 2 ? H5T_STD_U16LE : H5T_STD_U32LE;
    m.dataset = H5Handle(
        H5Dcreate2(f, "grundy", type, space.get(), H5P_DEFAULT, dcpl.get(), H5P_DEFAULT), H5Dclose);
    if (!m.dataset.valid()) throw Error("cannot create dataset /grundy in " + m.options.path);
    io::write_attribute(m.dataset.get(), "description",
                        std::string("g(x, y) of Wythoff's game at [y, x]"));
    m.writer = std::thread([&m] { m.writer_loop(); });
}

void Hdf5Writer::consume(const TileView& tile) {
    Impl& m = *impl_;
    Impl::Pending p;
    {
        std::lock_guard<std::mutex> lock(m.mutex);
        if (!m.spare.empty()) {
            p.chunk.bytes = std::move(m.spare.back());
            m.spare.pop_back();
        }
    }
    p.offset[0] = tile.y0;
    p.offset[1] = tile.x0;
    io::encode_chunk(tile, m.chunk_rows, m.chunk_cols, m.bytes_per_value, m.options.compression,
                     p.chunk);
    const uint64_t size = p.chunk.bytes.size();
    {
        std::unique_lock<std::mutex> lock(m.mutex);
        m.not_full.wait(lock, [&] {
            return m.queued_bytes == 0 || m.queued_bytes + size <= Impl::kMaxQueuedBytes ||
                   !m.write_error.empty();
        });
        if (!m.write_error.empty()) throw Error(m.write_error);
        m.queued_bytes += size;
        m.queue.push_back(std::move(p));
    }
    m.not_empty.notify_one();
}

void Hdf5Writer::finish(const RunRecord& record) {
    Impl& m = *impl_;
    m.stop_writer();
    if (!m.write_error.empty()) throw Error(m.write_error);
    const hid_t f = m.file.get();
    io::write_attribute(f, "threads", int64_t{record.threads});
    io::write_attribute(f, "tile", uint64_t{record.tile});
    io::write_attribute(f, "mex_kernel", record.mex_kernel);
    io::write_attribute(f, "elapsed_seconds", record.elapsed_seconds);
    const bool closed = m.dataset.reset() && m.file.reset();
    if (!closed) throw Error("cannot finish writing " + m.options.path + " (disk full?)");
    fsync_path(m.options.path);
    // Only now, with everything on disk, does the file say it is complete.
    H5Handle file(H5Fopen(m.options.path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT), H5Fclose);
    if (!file.valid()) throw Error("cannot reopen " + m.options.path);
    io::write_attribute(file.get(), "complete", int32_t{1});
    if (!file.reset()) throw Error("cannot finish writing " + m.options.path + " (disk full?)");
    fsync_path(m.options.path);
    m.finished = true;
}

uint64_t Hdf5Writer::raw_bytes() const {
    return impl_->shape.rows * impl_->shape.cols * impl_->bytes_per_value;
}
uint64_t Hdf5Writer::bytes_written() const {
    return impl_->written;
}
uint64_t Hdf5Writer::file_bytes() const {
    std::error_code ec;
    const auto n = fs::file_size(impl_->options.path, ec);
    return ec ? 0 : n;
}

}  // namespace grundy
