// Hdf5Writer's state, shared by the files that implement it: hdf5_writer.cpp (the file, its
// attributes, completion), chunk_writer.cpp (the chunk queue, the writer thread, the room
// allocated ahead on the disk) and stopped_run.cpp (the checks and the stored tiles of a
// --resume). Private to io/.
#pragma once

#include <fcntl.h>
#include <hdf5.h>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "base/background_removal.hpp"
#include "base/background_sync.hpp"
#include "grundy/hdf5_writer.hpp"
#include "io/chunk_codec.hpp"
#include "io/h5_handle.hpp"

namespace grundy {

using io::H5Handle;

// What the file of a stopped run records, to check a resume against.
struct StoppedRun {
    TableShape shape;              // rows, cols and tile of the run
    Compression compression;       // how its chunks are stored
    double elapsed_seconds = 0.0;  // computing time of the runs so far
    uint64_t tiles_stored = 0;     // chunks in the file
    uint64_t tiles = 0;            // chunks of the whole table
};

struct Hdf5Writer::Impl final : StoredTiles {
    Hdf5WriterOptions options;
    H5Handle file, dataset;
    TableShape shape;
    unsigned bytes_per_value = 2;
    uint32_t chunk_rows = 0, chunk_cols = 0;
    bool finished = false;
    bool kept = false;     // stop() left the file for --resume
    bool created = false;  // create_file() made the file at the path
    // Chunks carry the fletcher32 filter's checksum: every new file; a resumed one as its
    // dataset says (files written before the checksum have none).
    bool checksum = true;

    // Resuming: the stopped run's record, which tiles its file holds (by tile, row-major) and
    // how to decode them. HDF5 is not thread-safe, so the workers reading stored tiles and the
    // writer thread take turns through `hdf5`.
    StoppedRun stopped;
    Compression asked;         // the options' compression, which becomes the file's (resume_into)
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

    void create_file();  // a new file (begin)
    void setup_room();
    bool ensure_room(uint64_t bytes);

    // The final fsync, before `complete` = 1, waited for the whole file's writeback after the
    // last tile, a visible part of a whole run, and, for the direct writes too, for the disk's
    // write cache. So the file is flushed on a thread of its own every kSyncStep bytes as the
    // chunks are written: the flushes overlap the computation and the final fsync finds
    // little left to do. The guarantee is the fsync's, as before, with any error a flush met.
    static constexpr uint64_t kSyncStep = 32 << 20;
    std::unique_ptr<base::BackgroundSync> syncer;  // made by start_writer
    // The file --force replaced, its blocks freed beside the run (background_removal.hpp).
    std::unique_ptr<base::BackgroundRemoval> replaced;

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
    std::vector<io::ChunkBytes> spare;
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
    // A run paused for a test (--test-pause-after-chunks) queues one chunk at a time, so that
    // its workers cannot finish the whole table while the writer lags behind the pause: the
    // test's signal then always finds tiles left to stop (on a loaded machine they had all been
    // computed by then, and the run ended complete).
    uint64_t queue_limit() const { return options.pause_after_chunks > 0 ? 0 : kMaxQueuedBytes; }
    // The writer is woken once this many chunks (or half the queue's bytes) wait, or at the
    // end, not for every chunk, and then writes all there are. Waking a sleeping thread is a
    // system call and, on a virtual machine, an interrupt sent to the other CPU, which then
    // leaves a worker for the writer: waking it for every chunk made a run with output
    // measurably slower (benchmark history). A hard kill loses at most these chunks more,
    // which a resume computes again.
    static constexpr size_t kWakeBatch = 8;

    // A tile's chunk, or its transpose's, encoded on the calling worker and queued
    // (hdf5_writer.cpp).
    void store(const TileView& tile, bool transposed);
    // The writer thread (chunk_writer.cpp): takes chunks off the queue and stores them; started
    // with the file's flusher once the file is ready for chunks.
    void start_writer();
    void writer_loop();
    void stop_writer();
};

}  // namespace grundy
