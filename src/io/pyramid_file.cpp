// The pyramid's file, TABLE.pyramid (HDF5): root attributes `format` ("grundy view pyramid"),
// `version` (1), `rows`, `cols`, `base_level`; one group per level, /level_L for
// L = base_level, base_level + 1, ..., each with four datasets of shape [blocks up, blocks
// across] (block (bx, by) covers columns bx 2^L .. and rows by 2^L .., cut at the table's edge):
// `sample` (uint32, g at the block's cell of least x and y), `scaled` (float32, the mean of
// (g - x + 2y) / 3y, 0 on row 0), `diff` (float32, the mean of x + y - g), `p_share` (float32,
// the share of the block's cells that are P-positions). Every dataset contiguous and
// unfiltered, which is what lets the writer below and io/pyramid_reader.cpp reach its blocks
// with plain writes and reads where HDF5 placed them.
#include "io/pyramid_file.hpp"

#include <fcntl.h>
#include <hdf5.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <deque>
#include <mutex>
#include <thread>
#include <vector>

#include "base/file_sync.hpp"
#include "grundy/error.hpp"
#include "io/h5_attributes.hpp"
#include "io/h5_handle.hpp"

namespace grundy::io {
namespace {

// Values converted per write: one field of up to this many blocks at a time (1 MiB).
constexpr uint64_t kSlabValues = uint64_t{1} << 18;

// Field `field` (0..3: sample, scaled, diff, p_share) of a block, its 4 bytes as they are in
// memory (a float's bits for the last three), which is the file's little-endian order.
uint32_t field_bits(const BlockStats& s, int field) {
    if (field == 0) return s.sample;
    const float value = field == 1 ? s.scaled : field == 2 ? s.diff : s.p_share;
    uint32_t bits;
    std::memcpy(&bits, &value, sizeof bits);
    return bits;
}

// The flushes' step, and what each does: the written pages go to the disk and then out of the
// page cache, where a batch system would count them as the job's memory (1.3 GiB at 131072^2).
// A step well under a 16384^2 table's 22 MB, so that the run's end waits for the last few rows
// only (with 32 MiB, its final fsync took 26 ms of the run's end). Made by the writer's own
// thread between its writes, not by a base::BackgroundSync: with a second thread woken every
// 4 MiB, a 16384^2 run with output took 0.99-1.10 times as long (median 1.02, 7 alternated
// rounds).
constexpr uint64_t kFlushStep = uint64_t{4} << 20;
int flush_and_drop(int fd) {
    const int rc = ::fdatasync(fd);
    if (rc == 0) ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    return rc;
}

// Creates `tmp` with the attributes and every level's datasets allocated (not filled), and
// gives where each dataset lies: [level - kPyramidBase][field].
std::vector<std::array<uint64_t, 4>> lay_out(const std::string& tmp, uint64_t rows, uint64_t cols,
                                             int top) {
    silence_hdf5_errors();  // the caller's thread; a failure is this function's one line
    H5Handle file(H5Fcreate(tmp.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose);
    if (!file.valid()) throw Error("cannot create " + tmp);
    write_attribute(file.get(), "format", std::string(kPyramidFormat));
    write_attribute(file.get(), "version", int32_t{1});
    write_attribute(file.get(), "rows", rows);
    write_attribute(file.get(), "cols", cols);
    write_attribute(file.get(), "base_level", int32_t{kPyramidBase});
    H5Handle dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
    H5Pset_layout(dcpl.get(), H5D_CONTIGUOUS);
    H5Pset_alloc_time(dcpl.get(), H5D_ALLOC_TIME_EARLY);
    H5Pset_fill_time(dcpl.get(), H5D_FILL_TIME_NEVER);
    std::vector<std::array<uint64_t, 4>> offsets;
    for (int l = kPyramidBase; l <= top; ++l) {
        const std::string name = "level_" + std::to_string(l);
        H5Handle g(H5Gcreate2(file.get(), name.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                   H5Gclose);
        if (!g.valid()) throw Error("cannot write " + tmp);
        const hsize_t dims[2] = {pyramid_blocks(rows, l), pyramid_blocks(cols, l)};
        H5Handle space(H5Screate_simple(2, dims, nullptr), H5Sclose);
        std::array<uint64_t, 4> at{};
        for (int f = 0; f < 4; ++f) {
            H5Handle ds(
                H5Dcreate2(g.get(), kPyramidFields[f], f == 0 ? H5T_STD_U32LE : H5T_IEEE_F32LE,
                           space.get(), H5P_DEFAULT, dcpl.get(), H5P_DEFAULT),
                H5Dclose);
            const haddr_t a = ds.valid() ? H5Dget_offset(ds.get()) : HADDR_UNDEF;
            if (a == HADDR_UNDEF) throw Error("cannot write " + tmp);
            at[static_cast<size_t>(f)] = a;
        }
        offsets.push_back(at);
    }
    if (!file.reset()) throw Error("cannot write " + tmp + " (disk full?)");
    return offsets;
}

}  // namespace

// Rows queued for the writer's thread: `blocks` kept as they are by the caller until finish(),
// or pointing into `owned`.
struct RowsToWrite {
    size_t level;  // - kPyramidBase
    uint64_t by0, count;
    const BlockStats* blocks;
    std::vector<BlockStats> owned;
};

struct PyramidFileWriter::Impl {
    std::string path, tmp;
    std::vector<std::array<uint64_t, 4>> offset;  // [level - kPyramidBase][field]
    std::vector<uint64_t> width;                  // blocks across, per level
    int fd = -1;
    std::thread thread;
    std::mutex mutex;  // guards the members below
    std::condition_variable wake;
    std::deque<RowsToWrite> queue;
    bool stopping = false;
    int error = 0;  // the first write's or flush's errno
    bool finished = false;

    void loop();
    int write(const RowsToWrite& rows);
    // Waits for the thread: after it has written what is queued, or, `discard`ing that, at
    // once.
    void stop_thread(bool discard = false) {
        {
            const std::lock_guard<std::mutex> lock(mutex);
            stopping = true;
            if (discard) queue.clear();
        }
        wake.notify_one();
        if (thread.joinable()) thread.join();
    }
    void close_and_remove() {
        stop_thread(true);
        if (fd >= 0) ::close(fd);
        fd = -1;
        std::remove(tmp.c_str());
    }
};

// The writes, on a thread of their own: a write may wait for the disk (a page being flushed is
// written again at a row's edge), which the engine's threads must not.
void PyramidFileWriter::Impl::loop() {
    uint64_t since_flush = 0;
    std::unique_lock<std::mutex> lock(mutex);
    for (;;) {
        wake.wait(lock, [&] { return !queue.empty() || stopping; });
        if (queue.empty()) return;
        const RowsToWrite rows = std::move(queue.front());
        queue.pop_front();
        const bool ending = stopping;
        lock.unlock();
        int err = write(rows);
        const uint64_t bytes = rows.count * width[rows.level] * sizeof(BlockStats);
        since_flush += bytes;
        // Not once finish() is waiting: its fsync flushes what is left.
        if (err == 0 && since_flush >= kFlushStep && !ending) {
            since_flush = 0;
            if (flush_and_drop(fd) != 0 && errno != EINVAL) err = errno;
        }
        lock.lock();
        if (err != 0 && error == 0) error = err;
    }
}

int PyramidFileWriter::Impl::write(const RowsToWrite& rows) {
    const uint64_t w = width[rows.level], per_slab = std::max<uint64_t>(1, kSlabValues / w);
    std::vector<uint32_t> slab(std::min(per_slab, rows.count) * w);
    for (int f = 0; f < 4; ++f)
        for (uint64_t r = 0; r < rows.count; r += per_slab) {
            const uint64_t n = std::min(per_slab, rows.count - r) * w;
            const BlockStats* from = rows.blocks + r * w;
            for (uint64_t i = 0; i < n; ++i) slab[i] = field_bits(from[i], f);
            const char* p = reinterpret_cast<const char*>(slab.data());
            uint64_t at = offset[rows.level][static_cast<size_t>(f)] + (rows.by0 + r) * w * 4;
            for (uint64_t left = n * 4; left > 0;) {
                const ssize_t done = ::pwrite(fd, p, left, static_cast<off_t>(at));
                if (done < 0 && errno == EINTR) continue;
                if (done <= 0) return done < 0 ? errno : EIO;
                p += done, at += static_cast<uint64_t>(done), left -= static_cast<uint64_t>(done);
            }
        }
    return 0;
}

PyramidFileWriter::PyramidFileWriter(const std::string& path, uint64_t rows, uint64_t cols, int top)
    : impl_(std::make_unique<Impl>()) {
    Impl& m = *impl_;
    m.path = path;
    m.tmp = temp_path(path);
    try {
        m.offset = lay_out(m.tmp, rows, cols, top);
        for (int l = kPyramidBase; l <= top; ++l) m.width.push_back(pyramid_blocks(cols, l));
        m.fd = ::open(m.tmp.c_str(), O_WRONLY | O_CLOEXEC);
        if (m.fd < 0) throw Error("cannot open " + m.tmp + ": " + std::strerror(errno));
        // The whole file's room now, so that a full disk stops the run before it starts rather
        // than loses the pyramid at its end. Where the file system cannot reserve it (no
        // fallocate: glibc's posix_fallocate would write every block instead), the writes
        // will say.
        const off_t size = ::lseek(m.fd, 0, SEEK_END);
        if (size > 0 && ::fallocate(m.fd, 0, 0, size) != 0 && errno != EOPNOTSUPP &&
            errno != ENOSYS)
            throw Error("not enough room on the disk for " + m.tmp + ": " + std::strerror(errno));
        m.thread = std::thread([&m] { m.loop(); });
    } catch (...) {
        m.close_and_remove();
        throw;
    }
}

PyramidFileWriter::~PyramidFileWriter() {
    if (!impl_->finished) impl_->close_and_remove();
}

void PyramidFileWriter::write_rows(int level, uint64_t by0, uint64_t count,
                                   const BlockStats* blocks) {
    Impl& m = *impl_;
    {
        const std::lock_guard<std::mutex> lock(m.mutex);
        m.queue.push_back({static_cast<size_t>(level - kPyramidBase), by0, count, blocks, {}});
    }
    m.wake.notify_one();
}

void PyramidFileWriter::write_rows(int level, uint64_t by0, std::vector<BlockStats> rows) {
    Impl& m = *impl_;
    const size_t l = static_cast<size_t>(level - kPyramidBase);
    {
        const std::lock_guard<std::mutex> lock(m.mutex);
        RowsToWrite& queued = m.queue.emplace_back(
            RowsToWrite{l, by0, rows.size() / m.width[l], nullptr, std::move(rows)});
        queued.blocks = queued.owned.data();
    }
    m.wake.notify_one();
}

void PyramidFileWriter::finish() {
    Impl& m = *impl_;
    m.stop_thread();  // it writes what is queued first
    int error = m.error;
    if (error == 0 && ::fsync(m.fd) != 0) error = errno;  // durable before it is renamed
    if (error != 0) {
        m.close_and_remove();
        m.finished = true;
        throw Error("cannot write " + m.tmp + ": " + std::strerror(error));
    }
    ::posix_fadvise(m.fd, 0, 0, POSIX_FADV_DONTNEED);
    ::close(m.fd);
    m.fd = -1;
    m.finished = true;
    if (std::rename(m.tmp.c_str(), m.path.c_str()) != 0) {
        std::remove(m.tmp.c_str());
        throw Error("cannot rename " + m.tmp + " to " + m.path);
    }
    base::sync_folder_of(m.path);
}

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
    PyramidFileWriter file(path, p.rows, p.cols, p.levels.back().level);
    for (const PyramidLevel& l : p.levels) file.write_rows(l.level, 0, l.height, l.blocks.data());
    file.finish();
}

}  // namespace grundy::io
