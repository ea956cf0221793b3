// Hdf5Writer's chunk queue and writer thread: the workers queue compressed chunks, one thread
// stores them with H5Dwrite_chunk (HDF5 calls are serialised anyway), allocating the disk space
// ahead of each one so that a full disk stops the run instead of failing inside HDF5.
#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>

#include "io/direct_writes.hpp"
#include "io/h5_attributes.hpp"
#include "io/hdf5_writer_impl.hpp"

namespace grundy {

namespace fs = std::filesystem;

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
    if (!fapl.valid() ||
        (H5Pget_driver(fapl.get()) != H5FD_SEC2 && !io::uses_direct_writes(file.get())) ||
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

void Hdf5Writer::Impl::writer_loop() {
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
            if (room && rc >= 0) syncer->wrote(p.chunk.bytes.size());
            // The chunks are on disk as soon as they are written, but the index that
            // finds them stays in HDF5's cache until a flush: flushing now and then is
            // what lets a hard kill leave a file that --resume can continue.
            const auto now = std::chrono::steady_clock::now();
            const bool pause = room && rc >= 0 && options.pause_after_chunks > 0 &&
                               chunks_written + 1 == options.pause_after_chunks;
            if (room && rc >= 0 &&
                (pause || (options.checkpoint_seconds > 0 &&
                           std::chrono::duration<double>(now - last_flush).count() >=
                               options.checkpoint_seconds))) {
                rc = H5Fflush(file.get(), H5F_SCOPE_LOCAL);
                last_flush = now;
            }
            if (pause && rc >= 0 && options.paused) options.paused();
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

void Hdf5Writer::Impl::start_writer() {
    syncer = std::make_unique<base::BackgroundSync>(options.path, kSyncStep);
    writer = std::thread([this] { writer_loop(); });
}

void Hdf5Writer::Impl::stop_writer() {
    {
        std::lock_guard<std::mutex> lock(mutex);
        closing = true;
    }
    not_empty.notify_all();
    if (writer.joinable()) writer.join();
}

}  // namespace grundy
