// The HDF5 writer: file creation and checks, the writer thread, attributes, completion.
#include "grundy/hdf5_writer.hpp"

#include <fcntl.h>
#include <hdf5.h>
#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <bit>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdint>
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
#include "io/h5_scales.hpp"

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
    // The option that selects it, with the byte shuffle each compressed kind applies.
    switch (kind) {
        case Kind::Deflate:
            return "shuffle+" + option();
        case Kind::Blosc:
            return option() + " (shuffle)";
        default:
            return option();
    }
}

std::optional<Compression> Compression::from_description(const std::string& text) {
    for (const std::string& option :
         {std::string("none"), text.rfind("shuffle+deflate:", 0) == 0 ? text.substr(8) : "",
          text.size() > 10 && text.rfind("blosc:", 0) == 0 &&
                  text.compare(text.size() - 10, 10, " (shuffle)") == 0
              ? text.substr(0, text.size() - 10)
              : ""}) {
        if (option.empty()) continue;
        try {
            const Compression c = parse(option);
            if (c.describe() == text) return c;
        } catch (const Error&) {
        }
    }
    return std::nullopt;
}

std::string Compression::option() const {
    switch (kind) {
        case Kind::None:
            return "none";
        case Kind::Deflate:
            return "deflate:" + std::to_string(level);
        case Kind::Blosc:
            return "blosc:" + codec + ":" + std::to_string(level);
    }
    return "?";
}

unsigned value_bytes(uint64_t rows, uint64_t cols) {
    // The largest value of the table is at most X + Y - 2.
    return rows + cols - 2 <= 0xFFFF ? 2 : 4;
}

namespace {

// HDF5 closes every file still open when the process exits. A file whose H5Fclose failed (a
// disk that filled up under it) stays half closed, and closing it again at exit crashes
// (HDF5 1.10); the writer reports the failure and removes such a file itself. This must run
// before HDF5 initialises itself, hence a static initialiser.
[[maybe_unused]] const herr_t kNoHdf5AtExit = H5dont_atexit();

// Makes sure what was written reaches the disk before the file is marked complete.
void fsync_path(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY);
    if (fd < 0) throw Error("cannot reopen " + path + ": " + std::strerror(errno));
    const int rc = ::fsync(fd);
    const int err = errno;
    ::close(fd);
    if (rc != 0) throw Error("cannot flush " + path + " to disk: " + std::strerror(err));
}

// Gives back the room allocated beyond the end of a closed file (Impl::ensure_room).
void release_room(const std::string& path, uint64_t allocated) {
    std::error_code ec;
    const uintmax_t size = fs::file_size(path, ec);
    if (ec || allocated <= size) return;
    const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) return;
    ::fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, static_cast<off_t>(size),
                static_cast<off_t>(allocated - size));
    ::close(fd);
}

}  // namespace

struct Hdf5Writer::Impl final : StoredTiles {
    Hdf5WriterOptions options;
    H5Handle file, dataset;
    TableShape shape;
    unsigned bytes_per_value = 2;
    uint32_t chunk_rows = 0, chunk_cols = 0;
    bool finished = false;
    bool kept = false;  // stop() left the file for --resume

    // Resuming: the stopped run's record, which tiles its file holds (by tile, row-major) and
    // how to decode them. HDF5 is not thread-safe, so the workers reading stored tiles and the
    // writer thread take turns through `hdf5`.
    StoppedRun stopped;
    int64_t resumed_runs = 0;  // runs that resumed the file before this one
    std::vector<char> stored;
    uint64_t tiles_x = 0;
    io::ChunkFormat format;
    std::mutex hdf5;
    std::atomic<bool> touched{false};  // this run has given the file a chunk to write

    // Room on the disk (ensure_room), under `hdf5`: HDF5's own descriptor of the file (-1 with
    // another driver than sec2), whether room is allocated ahead (not where the file system
    // cannot), the end of what is allocated, and the process's file size limit (ulimit -f),
    // which fallocate does not check.
    int fd = -1;
    bool preallocating = false;
    uint64_t allocated = 0;
    uint64_t size_limit = UINT64_MAX;
    int room_errno = 0;  // why the last ensure_room failed
    // What closing a file writes beyond its chunks: the chunk index's last nodes, the
    // attributes, the superblock (a few KiB for a 65536^2 table); also covers the index nodes a
    // chunk's insertion allocates.
    static constexpr uint64_t kCloseReserve = 1 << 20;
    // Allocated ahead of the chunks, so that fallocate runs once per this many bytes of chunks.
    static constexpr uint64_t kAllocateStep = 32 << 20;

    void setup_room();
    bool ensure_room(uint64_t bytes);

    // The final fsync, before `complete` = 1, waited for the whole file's writeback after the
    // last tile (16384^2: 306 MiB, 124 ms here). Writeback is therefore started every
    // kWritebackStep bytes as the chunks are written (sync_file_range, which does not wait),
    // so that it overlaps the computation and the final fsync finds little left to do. The
    // guarantee is the fsync's, as before.
    static constexpr uint64_t kWritebackStep = 32 << 20;
    uint64_t unsynced = 0;  // bytes written since writeback was last started (writer thread)
    void start_writeback(uint64_t bytes) {
        unsynced += bytes;
        if (fd < 0 || unsynced < kWritebackStep) return;
        unsynced = 0;
        ::sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE);  // advice: errors change nothing
    }

    bool has_tile(uint64_t x0, uint64_t y0) const override {
        const uint64_t t = stopped.shape.tile;
        return stored[y0 / t * tiles_x + x0 / t] != 0;
    }
    void read_tile(uint64_t x0, uint64_t y0, uint32_t width, uint32_t height,
                   uint32_t* values) override;
    void open_stopped_run();

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
    bool discard = false;             // the file will be removed: write nothing more
    std::string write_error;          // first failure of the writer thread
    std::atomic<bool> failed{false};  // write_error is set: the run stops (stop_requested)
    std::thread writer;
    uint64_t written = 0;
    uint64_t chunks_written = 0;

    // Enough to keep the writer busy, little enough not to hold the table: a slow disk makes
    // the workers wait here instead of filling memory.
    static constexpr uint64_t kMaxQueuedBytes = 256ull << 20;
    // The writer is woken once this many chunks (or half the queue's bytes) wait, or at the
    // end, not for every chunk, and then writes all there are. Waking a sleeping thread is a
    // system call and, on a virtual machine, an interrupt sent to the other CPU, which then
    // leaves a worker for the writer: 16384^2 with output on two threads (1024 chunks) took
    // 1.41-1.53 s waking it for every chunk, 1.30-1.39 s so (engine clock, alternated). A hard
    // kill loses at most these chunks more, which a resume computes again.
    static constexpr size_t kWakeBatch = 8;

    void writer_loop() {
        io::silence_hdf5_errors();  // this thread's own HDF5 error stack
        auto last_flush = std::chrono::steady_clock::now();
        for (;;) {
            Pending p;
            bool skip = false;
            {
                std::unique_lock<std::mutex> lock(mutex);
                not_empty.wait(lock, [&] { return !queue.empty() || closing; });
                if (queue.empty()) return;
                p = std::move(queue.front());
                queue.pop_front();
                queued_bytes -= p.chunk.bytes.size();
                // Drain without writing after a failure, or when the file is to be removed.
                skip = !write_error.empty() || discard;
            }
            not_full.notify_all();
            if (skip) continue;
            herr_t rc = 0;
            bool room = true;
            {
                std::lock_guard<std::mutex> lock(hdf5);
                room = ensure_room(p.chunk.bytes.size());
                if (room)
                    rc = H5Dwrite_chunk(dataset.get(), H5P_DEFAULT, p.chunk.filter_mask, p.offset,
                                        p.chunk.bytes.size(), p.chunk.bytes.data());
                if (room && rc >= 0) start_writeback(p.chunk.bytes.size());
                // The chunks are on disk as soon as they are written, but the index that
                // finds them stays in HDF5's cache until a flush: flushing now and then is
                // what lets a hard kill leave a file that --resume can continue.
                const auto now = std::chrono::steady_clock::now();
                if (room && rc >= 0 && options.checkpoint_seconds > 0 &&
                    std::chrono::duration<double>(now - last_flush).count() >=
                        options.checkpoint_seconds) {
                    rc = H5Fflush(file.get(), H5F_SCOPE_LOCAL);
                    last_flush = now;
                }
            }
            std::lock_guard<std::mutex> lock(mutex);
            if (!room) {
                write_error = "cannot write " + options.path + ": " + std::strerror(room_errno);
            } else if (rc < 0) {
                write_error =
                    "cannot write to " + options.path + " (disk full, file removed, I/O error?)";
            } else {
                written += p.chunk.bytes.size();
                ++chunks_written;
            }
            if (!write_error.empty()) failed.store(true);
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
    if (impl_->options.resume) {
        impl_->open_stopped_run();
        return;
    }
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

// A full disk (or a quota, or a file size limit) must not strike inside HDF5: a failed write
// leaves its file half updated, and closing it then fails as well, losing every chunk. So,
// before each chunk is handed to HDF5, the disk space is allocated for everything HDF5 will
// write up to that chunk and for closing the file (kCloseReserve), behind the end of the file
// (FALLOC_FL_KEEP_SIZE: the file's size still grows as HDF5 writes, and readers see nothing).
// When that fails, nothing has been half written, and closing writes only into space already
// allocated: the run stops and keeps its file for --resume. The room left over is given back
// when the file is closed (release_room).
void Hdf5Writer::Impl::setup_room() {
    H5Handle fapl(H5Fget_access_plist(file.get()), H5Pclose);
    void* handle = nullptr;
    if (!fapl.valid() || H5Pget_driver(fapl.get()) != H5FD_SEC2 ||
        H5Fget_vfd_handle(file.get(), H5P_DEFAULT, &handle) < 0 || !handle)
        return;  // another file driver: HDF5's own errors report a full disk
    fd = *static_cast<int*>(handle);
    std::error_code ec;
    allocated = fs::file_size(options.path, ec);
    preallocating = options.preallocate && !ec;
    rlimit limit{};
    if (::getrlimit(RLIMIT_FSIZE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY)
        size_limit = limit.rlim_cur;
}

bool Hdf5Writer::Impl::ensure_room(uint64_t bytes) {
    haddr_t end = HADDR_UNDEF;
    if (!preallocating || H5Fget_eoa(file.get(), &end) < 0 || end == HADDR_UNDEF) return true;
    const uint64_t need = end + bytes + kCloseReserve;
    if (need <= allocated) return true;
    if (need > size_limit) {
        room_errno = EFBIG;
        return false;
    }
    // A step ahead where the disk allows it, else exactly what is needed, to the last byte.
    for (const uint64_t target : {std::min(need + kAllocateStep, size_limit), need}) {
        int rc;
        do {
            rc = ::fallocate(fd, FALLOC_FL_KEEP_SIZE, static_cast<off_t>(end),
                             static_cast<off_t>(target - end));
        } while (rc != 0 && errno == EINTR);
        if (rc == 0) {
            allocated = target;
            return true;
        }
        room_errno = errno;
        if (room_errno == EOPNOTSUPP || room_errno == ENOSYS) {  // the file system cannot
            preallocating = false;
            return true;
        }
    }
    return false;
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

Hdf5Writer::~Hdf5Writer() {
    Impl& m = *impl_;
    const bool keep = m.finished || m.kept || (m.options.resume && !m.touched);
    if (!keep) {
        std::lock_guard<std::mutex> lock(m.mutex);
        m.discard = true;
    }
    m.stop_writer();
    if (!keep) {
        m.dataset.reset();
        m.file.reset();
        std::error_code ec;
        fs::remove(m.options.path, ec);
    }
}

const StoppedRun* Hdf5Writer::stopped_run() const {
    return impl_->options.resume ? &impl_->stopped : nullptr;
}

StoredTiles* Hdf5Writer::stored_tiles() {
    return impl_->options.resume ? impl_.get() : nullptr;
}

void Hdf5Writer::begin(const TableShape& shape) {
    Impl& m = *impl_;
    m.shape = shape;
    m.bytes_per_value = value_bytes(shape.rows, shape.cols);
    m.chunk_rows = static_cast<uint32_t>(std::min<uint64_t>(shape.tile, shape.rows));
    m.chunk_cols = static_cast<uint32_t>(std::min<uint64_t>(shape.tile, shape.cols));

    if (m.options.resume) {
        const TableShape& was = m.stopped.shape;
        if (shape.rows != was.rows || shape.cols != was.cols || shape.tile != was.tile)
            throw Error("cannot resume " + m.options.path + ": it holds another table");
        m.file = H5Handle(H5Fopen(m.options.path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT), H5Fclose);
        if (!m.file.valid())
            throw Error("cannot open " + m.options.path + " for writing (in use by another run?)");
        m.dataset = H5Handle(H5Dopen2(m.file.get(), "grundy", H5P_DEFAULT), H5Dclose);
        if (!m.dataset.valid()) throw Error("cannot open /grundy in " + m.options.path);
        m.setup_room();
        if (!m.ensure_room(0))
            throw Error("cannot resume " + m.options.path + ": " + std::strerror(m.room_errno));
        // A file stopped by a grundy without coordinates gets them now, as a new one has them.
        if (!io::has_coordinates(m.file.get()))
            io::attach_coordinates(m.file.get(), m.dataset.get(), shape.rows, shape.cols);
        m.writer = std::thread([&m] { m.writer_loop(); });
        return;
    }

    const hid_t f = m.file.get();
    io::write_attribute(f, "rows", uint64_t{shape.rows});
    io::write_attribute(f, "cols", uint64_t{shape.cols});
    // What --resume checks a continuation against, and the promise it relies on: every chunk
    // stored in this file is a finished tile of this grid (written whole, in one call).
    io::write_attribute(f, "tile", uint64_t{shape.tile});
    io::write_attribute(f, "resumable", int32_t{1});

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
    io::write_attribute(m.dataset.get(), "long_name",
                        std::string("Sprague-Grundy value g(x, y) of Wythoff's game"));
    m.setup_room();
    // Twice: the coordinates are written into room allocated for them, and leave room for the
    // close.
    for (int pass = 0; pass < 2; ++pass) {
        if (!m.ensure_room(0))
            throw Error("cannot write " + m.options.path + ": " + std::strerror(m.room_errno));
        if (pass == 0) io::attach_coordinates(f, m.dataset.get(), shape.rows, shape.cols);
    }
    // On disk from the start, so that a run killed before its first checkpoint still leaves
    // a file --resume takes (from the first tile) instead of one it must refuse.
    if (m.options.checkpoint_seconds > 0 && H5Fflush(f, H5F_SCOPE_LOCAL) < 0)
        throw Error("cannot write to " + m.options.path);
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
    bool wake = false;
    {
        std::unique_lock<std::mutex> lock(m.mutex);
        m.not_full.wait(lock, [&] {
            return m.queued_bytes == 0 || m.queued_bytes + size <= Impl::kMaxQueuedBytes ||
                   !m.write_error.empty();
        });
        // The run is stopping (stop_requested); --resume computes this tile again.
        if (!m.write_error.empty()) return;
        m.touched = true;
        m.queued_bytes += size;
        m.queue.push_back(std::move(p));
        wake = m.queue.size() >= Impl::kWakeBatch || m.queued_bytes >= Impl::kMaxQueuedBytes / 2;
    }
    if (wake) m.not_empty.notify_one();
}

namespace {

// The record of a run, added to what earlier runs of a resumed file recorded.
void write_record(hid_t f, const RunRecord& record, const StoppedRun* stopped,
                  int64_t resumed_runs) {
    io::write_attribute(f, "threads", int64_t{record.threads});
    io::write_attribute(f, "tile", uint64_t{record.tile});
    io::write_attribute(f, "mex_kernel", record.mex_kernel);
    io::write_attribute(f, "elapsed_seconds",
                        record.elapsed_seconds + (stopped ? stopped->elapsed_seconds : 0.0));
    if (stopped) io::write_attribute(f, "resumed_runs", resumed_runs + 1);
}

}  // namespace

// Stops the writer thread, records the run, closes the file and syncs it to disk: the common
// end of a stopped (resumable) and a finished run.
void Hdf5Writer::close_with_record(const RunRecord& record, bool resumable) {
    Impl& m = *impl_;
    m.stop_writer();
    // A stopped run keeps what was written before a failure; a finished one has lost tiles.
    if (!m.write_error.empty() && !resumable) throw Error(m.write_error);
    m.touched = true;
    const hid_t f = m.file.get();
    write_record(f, record, stopped_run(), m.resumed_runs);
    io::write_attribute(f, "resumable", int32_t{resumable ? 1 : 0});
    const bool closed = m.dataset.reset() && m.file.reset();
    if (!closed) throw Error("cannot finish writing " + m.options.path + " (disk full?)");
    release_room(m.options.path, m.allocated);
    fsync_path(m.options.path);
}

void Hdf5Writer::stop(const RunRecord& record) {
    Impl& m = *impl_;
    try {
        close_with_record(record, true);
    } catch (const Error& e) {
        // The file may not say which chunks it holds: it cannot be trusted, let alone resumed.
        m.dataset.reset();
        m.file.reset();
        std::error_code ec;
        fs::remove(m.options.path, ec);
        m.kept = true;  // nothing left for the destructor to remove
        const std::string why = m.write_error.empty() ? e.what() : m.write_error;
        throw Error(why + "; closing " + m.options.path +
                    " failed too, so it cannot be resumed and has been removed");
    }
    m.kept = true;
}

bool Hdf5Writer::stop_requested() const {
    return impl_->failed.load(std::memory_order_relaxed);
}

std::optional<std::string> Hdf5Writer::write_failure() const {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    if (impl_->write_error.empty()) return std::nullopt;
    return impl_->write_error;
}

uint64_t Hdf5Writer::tiles_stored() const {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    const uint64_t stored = impl_->options.resume ? impl_->stopped.tiles_stored : 0;
    // A resume writes again the stored tiles it could not take over (after a hard kill).
    return stored ? std::min(stored + impl_->chunks_written, impl_->stopped.tiles)
                  : impl_->chunks_written;
}

void Hdf5Writer::finish(const RunRecord& record) {
    Impl& m = *impl_;
    close_with_record(record, false);  // nothing left to resume
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
