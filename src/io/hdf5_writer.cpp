// The HDF5 writer: file creation and checks, the dataset layout, attributes, the record of each
// run, and completion (`complete` = 1 written last, after an fsync). The chunk queue and writer
// thread are in chunk_writer.cpp, the stopped-run check of --resume in stopped_run.cpp, the
// compression options in compression.cpp.
#include <fcntl.h>
#include <unistd.h>

#include <bit>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "base/file_sync.hpp"
#include "base/utc_time.hpp"
#include "grundy/error.hpp"
#include "grundy/version.hpp"
#include "io/direct_writes.hpp"
#include "io/h5_attributes.hpp"
#include "io/h5_scales.hpp"
#include "io/hdf5_writer_impl.hpp"

static_assert(std::endian::native == std::endian::little, "chunks are laid out little-endian");

namespace grundy {

namespace fs = std::filesystem;

namespace {

// HDF5 closes every file still open when the process exits. A file whose H5Fclose failed (a
// disk that filled up under it) stays half closed, and closing it again at exit crashes
// (HDF5 1.10); the writer reports the failure and removes such a file itself. This must run
// before HDF5 initialises itself, hence a static initialiser.
[[maybe_unused]] const herr_t kNoHdf5AtExit = H5dont_atexit();

// Gives back the room allocated beyond the end of a closed file (Impl::ensure_room): a
// truncation to its own size, which frees the blocks past the end on ext4 (a hole punched
// there frees nothing: ext4 clips the hole at the end of the file, and every finished table
// kept up to 33 MB it did not use), then the hole for the file systems that free it so.
void release_room(const std::string& path, uint64_t allocated) {
    std::error_code ec;
    const uintmax_t size = fs::file_size(path, ec);
    if (ec || allocated <= size) return;
    const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC);
    if (fd < 0) return;
    // Advice only, as the allocation was: failure leaves the room allocated, nothing worse.
    (void)!::ftruncate(fd, static_cast<off_t>(size));
    ::fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, static_cast<off_t>(size),
                static_cast<off_t>(allocated - size));
    ::close(fd);
}

}  // namespace

Hdf5Writer::Hdf5Writer(Hdf5WriterOptions options) : impl_(std::make_unique<Impl>()) {
    impl_->options = std::move(options);
    const std::string& path = impl_->options.path;
    if (path.empty()) throw Error("no output file given");
    if (impl_->options.resume) {
        io::silence_hdf5_errors();
        impl_->asked = impl_->options.compression;
        impl_->open_stopped_run();
        return;
    }
    const fs::path p(path);
    const fs::path dir = base::folder_of(path);
    std::error_code ec;
    if (!fs::is_directory(dir, ec))
        throw Error("output directory " + dir.string() + " does not exist");
    if (::access(dir.c_str(), W_OK) != 0)
        throw Error("output directory " + dir.string() + " is not writable");
    if (fs::exists(p, ec)) {
        if (!impl_->options.force)
            throw ArgumentError("output file " + ArgumentError::literal(path) +
                                " exists (use {force} to overwrite it)");
        if (fs::is_directory(p, ec)) throw Error("output path " + path + " is a directory");
        // Its blocks freed while the run computes (background_removal.hpp); a link's target is
        // truncated by the create below, as before.
        if (fs::is_regular_file(fs::symlink_status(p, ec)))
            impl_->replaced = std::make_unique<base::BackgroundRemoval>(path);
    }
}

// The new file with its first attributes (begin()): HDF5 set up and the file created on the
// thread that calls begin(), beside the engine's own set-up (compute_table).
void Hdf5Writer::Impl::create_file() {
    const std::string& path = options.path;
    const H5Handle access = io::table_file_access(options.direct_writes);
    file = H5Handle(H5Fcreate(path.c_str(), options.force ? H5F_ACC_TRUNC : H5F_ACC_EXCL,
                              H5P_DEFAULT, access.valid() ? access.get() : H5P_DEFAULT),
                    H5Fclose);
    if (!file.valid()) throw Error("cannot create " + path);
    created = true;
    const hid_t f = file.get();
    io::write_attribute(f, "complete", int32_t{0});
    io::write_attribute(f, "game", std::string("wythoff"));
    io::write_attribute(f, "software", std::string(kSoftwareName));
    io::write_attribute(f, "software_version", std::string(kVersion));
    io::write_attribute(f, "created", base::iso8601_now());
    io::write_attribute(f, "compression", options.compression.describe());
}

Hdf5Writer::~Hdf5Writer() {
    Impl& m = *impl_;
    // Not created (begin() never came, or failed to create it): the path is not this run's.
    const bool keep = m.finished || m.kept || (m.options.resume ? !m.touched : !m.created);
    if (!keep) {
        std::lock_guard<std::mutex> lock(m.mutex);
        m.discard = true;
    }
    m.stop_writer();
    if (!keep) {
        io::silence_hdf5_errors();  // begin() may have run on another thread
        m.dataset.reset();
        m.file.reset();
        std::error_code ec;
        fs::remove(m.options.path, ec);
    }
}

void Hdf5Writer::resume_into(EngineOptions& engine, bool compression_given) {
    Impl& m = *impl_;
    if (!m.options.resume) throw Error("resume_into on a writer that does not resume");
    const StoppedRun& was = m.stopped;
    auto differs = [&](const char* argument, const std::string& stored, const std::string& asked) {
        throw ArgumentError("cannot resume " + ArgumentError::literal(m.options.path) +
                            ": it was computed with {" + argument + "} " + stored + ", not " +
                            asked);
    };
    if (was.shape.rows != engine.rows)
        differs("rows", std::to_string(was.shape.rows), std::to_string(engine.rows));
    if (was.shape.cols != engine.cols)
        differs("cols", std::to_string(was.shape.cols), std::to_string(engine.cols));
    if (engine.tile != 0 && engine.tile != was.shape.tile)
        differs("tile", std::to_string(was.shape.tile), std::to_string(engine.tile));
    if (compression_given && m.asked.option() != was.compression.option())
        differs("compression", was.compression.option(), m.asked.option());
    engine.tile = was.shape.tile;
    engine.resume = impl_.get();
}

const Compression& Hdf5Writer::compression() const {
    return impl_->options.compression;  // resuming, the file's (open_stopped_run)
}

double Hdf5Writer::stored_share() const {
    const StoppedRun& was = impl_->stopped;
    return impl_->options.resume && was.tiles
               ? static_cast<double>(was.tiles_stored) / static_cast<double>(was.tiles)
               : 0.0;
}

void Hdf5Writer::begin(const TableShape& shape) {
    io::silence_hdf5_errors();
    Impl& m = *impl_;
    m.shape = shape;
    m.bytes_per_value = value_bytes(shape.rows, shape.cols);
    m.chunk_rows = static_cast<uint32_t>(std::min<uint64_t>(shape.tile, shape.rows));
    m.chunk_cols = static_cast<uint32_t>(std::min<uint64_t>(shape.tile, shape.cols));

    if (m.options.resume) {
        const TableShape& was = m.stopped.shape;
        if (shape.rows != was.rows || shape.cols != was.cols || shape.tile != was.tile)
            throw Error("cannot resume " + m.options.path + ": it holds another table");
        const H5Handle access = io::table_file_access(m.options.direct_writes);
        m.file = H5Handle(H5Fopen(m.options.path.c_str(), H5F_ACC_RDWR,
                                  access.valid() ? access.get() : H5P_DEFAULT),
                          H5Fclose);
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
        m.start_writer();
        return;
    }

    m.create_file();
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
    // Last, over the bytes as stored: a checksum that every HDF5 reader verifies (h5py, netCDF,
    // grundy's own decoder), so that a damaged chunk is an error rather than other values. LZ4
    // and stored chunks have none of their own; deflate's Adler-32 covers only its stream.
    H5Pset_fletcher32(dcpl.get());
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
    m.start_writer();
}

void Hdf5Writer::consume(const TileView& tile) {
    impl_->store(tile, false);
}

void Hdf5Writer::consume_transpose(const TileView& source) {
    impl_->store(source, true);
}

void Hdf5Writer::Impl::store(const TileView& tile, bool transposed) {
    Pending p;
    {
        std::lock_guard<std::mutex> lock(mutex);
        if (!spare.empty()) {
            p.chunk.bytes = std::move(spare.back());
            spare.pop_back();
        }
    }
    p.offset[0] = transposed ? tile.x0 : tile.y0;  // the chunk's first row and column
    p.offset[1] = transposed ? tile.y0 : tile.x0;
    io::encode_chunk(tile, transposed, chunk_rows, chunk_cols, bytes_per_value, options.compression,
                     checksum, p.chunk);
    const uint64_t size = p.chunk.bytes.size();
    bool wake = false;
    {
        std::unique_lock<std::mutex> lock(mutex);
        not_full.wait(lock, [&] {
            return queued_bytes == 0 || queued_bytes + size <= queue_limit() ||
                   !write_error.empty();
        });
        // The run is stopping (stop_requested); --resume computes this tile again.
        if (!write_error.empty()) return;
        touched = true;
        queued_bytes += size;
        queue.push_back(std::move(p));
        wake = queue.size() >= kWakeBatch || queued_bytes >= queue_limit() / 2;
    }
    if (wake) not_empty.notify_one();
}

namespace {

// The record of a run, added to what earlier runs of a resumed file recorded.
void write_record(hid_t f, const EngineStats& run, const StoppedRun* stopped,
                  int64_t resumed_runs) {
    io::write_attribute(f, "threads", int64_t{run.threads});
    io::write_attribute(f, "tile", uint64_t{run.tile});
    io::write_attribute(f, "mex_kernel", std::string(mex_kernel_name(run.kernel)));
    io::write_attribute(f, "elapsed_seconds",
                        run.seconds + (stopped ? stopped->elapsed_seconds : 0.0));
    if (stopped) io::write_attribute(f, "resumed_runs", resumed_runs + 1);
}

}  // namespace

// Stops the writer thread, records the run, closes the file and syncs it to disk: the common
// end of a stopped (resumable) and a finished run.
void Hdf5Writer::close_with_record(const EngineStats& run, bool resumable) {
    io::silence_hdf5_errors();  // begin() may have run on another thread
    Impl& m = *impl_;
    m.stop_writer();
    const int flush_error = m.syncer ? m.syncer->finish() : 0;
    // A stopped run keeps what was written before a failure; a finished one has lost tiles.
    if (!m.write_error.empty() && !resumable) throw Error(m.write_error);
    m.touched = true;
    const hid_t f = m.file.get();
    write_record(f, run, m.options.resume ? &m.stopped : nullptr, m.resumed_runs);
    io::write_attribute(f, "resumable", int32_t{resumable ? 1 : 0});
    const bool closed = m.dataset.reset() && m.file.reset();
    if (!closed) throw Error("cannot finish writing " + m.options.path + " (disk full?)");
    release_room(m.options.path, m.allocated);
    if (flush_error != 0)
        throw Error("cannot flush " + m.options.path + " to disk: " + std::strerror(flush_error));
    base::sync_path(m.options.path);  // before the file is marked complete
}

void Hdf5Writer::stop(const EngineStats& run) {
    Impl& m = *impl_;
    try {
        close_with_record(run, true);
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

void Hdf5Writer::drain() {
    impl_->stop_writer();  // it writes what is queued first; consume() comes no more
}

void Hdf5Writer::finish(const EngineStats& run, const std::function<void()>& before_complete) {
    Impl& m = *impl_;
    close_with_record(run, false);  // nothing left to resume
    if (before_complete) before_complete();
    // Only now, with everything on disk, does the file say it is complete.
    H5Handle file(H5Fopen(m.options.path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT), H5Fclose);
    if (!file.valid()) throw Error("cannot reopen " + m.options.path);
    io::write_attribute(file.get(), "complete", int32_t{1});
    if (!file.reset()) throw Error("cannot finish writing " + m.options.path + " (disk full?)");
    base::sync_path(m.options.path);  // before the file is marked complete
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
