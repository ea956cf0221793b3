// Hdf5Writer: a TileSink that streams the table into an HDF5 file laid out as the contract of
// src/DESIGN.md (section 5.2) says: dataset /grundy [rows, cols] of unsigned integers, one chunk
// per engine tile, shuffle + deflate by default, root attributes, and `complete` = 1 written
// last.
//
// A run stopped by a signal keeps its file with complete = 0 and resumable = 1 (stop()); a
// later writer opened with `resume` continues it: it hands the stored tiles to the engine
// (resume_into sets EngineOptions::resume) and writes the missing ones into the same dataset.
//
// Worker threads shuffle and compress their own tiles (exactly what HDF5's shuffle and deflate
// filters would produce, so every stock reader decodes them); one writer thread stores the
// chunks with H5Dwrite_chunk, overlapped with the computation.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "grundy/engine.hpp"
#include "grundy/tile_sink.hpp"

namespace grundy {

// How chunks are stored. Deflate (with shuffle) is the default because every HDF5 reader
// decodes it; Blosc (HDF5 filter 32001, with its own byte shuffle) compresses several times
// faster, and its readers need the filter plugin (Debian: hdf5-filter-plugin-blosc-serial;
// pip: hdf5plugin).
struct Compression {
    enum class Kind { None, Deflate, Blosc };
    Kind kind = Kind::Deflate;
    int level = 1;  // deflate level 1..9 (1 is fastest, and 4 gains only 2% on these tables);
                    // blosc level 1..9
    std::string codec = "lz4";  // blosc's compressor: blosclz, lz4, lz4hc, zlib, zstd

    // "none", "deflate", "deflate:LEVEL", "blosc", "blosc:CODEC" or "blosc:CODEC:LEVEL".
    // Throws grundy::Error otherwise.
    static Compression parse(const std::string& text);
    std::string describe() const;  // the file's `compression` attribute
    // Back from describe(); nullopt when `text` is not one of its results.
    static std::optional<Compression> from_description(const std::string& text);
    // The --compression value that selects it: "none", "deflate:LEVEL", "blosc:CODEC:LEVEL".
    std::string option() const;
};

// Set by name: Hdf5WriterOptions{.path = "t.h5", .force = true}.
struct Hdf5WriterOptions {
    std::string path;
    bool force = false;       // overwrite an existing file
    Compression compression;  // when resuming, the file's is used
    // Continue the file of a stopped run (grundy compute --resume) instead of creating one.
    bool resume = false;
    // Seconds between flushes of the file's metadata (the chunk index) during the run, so that
    // a hard kill more often leaves a file that --resume can continue; 0: never. A flush only
    // writes what changed: cheap next to minutes of computing.
    double checkpoint_seconds = 300.0;
    // Allocate room on the disk ahead of the chunks (fallocate), so that a full disk stops the
    // run with a file that --resume continues (Hdf5Writer::stop_requested). Without it a full
    // disk strikes inside HDF5, which then usually cannot close the file, and it is removed.
    bool preallocate = true;
    // Write the chunks past the page cache (O_DIRECT) where the file system allows it: less
    // system time, and no cached pages charged to a batch job's memory. The file is the same.
    bool direct_writes = true;
    // Testing aid (grundy compute's --test-pause-after-chunks): once this many chunks are written
    // in this run, the file is flushed as at a checkpoint and `paused` is called on the writer
    // thread before anything else is written, so that a test can signal or kill the run at a
    // known point instead of racing its end. 0: never.
    uint64_t pause_after_chunks = 0;
    std::function<void()> paused = nullptr;
};

class Hdf5Writer final : public TileSink {
  public:
    // Checks the path (exists without force, missing or unwritable directory); begin() then
    // creates the file. With options.resume, instead checks the stopped run's file without
    // changing it: missing, not HDF5, damaged (a hard kill may leave an unreadable file or
    // chunk index), not a grundy table, complete, not resumable. Throws grundy::Error with a
    // one-line message.
    explicit Hdf5Writer(Hdf5WriterOptions options);
    // A writer destroyed before finish() or stop() removes its file: a failed run never leaves
    // a file behind, let alone one that says it is complete. A resumed file that this run has
    // not written to yet is left as it was.
    ~Hdf5Writer() override;
    Hdf5Writer(const Hdf5Writer&) = delete;
    Hdf5Writer& operator=(const Hdf5Writer&) = delete;

    void begin(const TableShape& shape) override;
    void consume(const TileView& tile) override;
    void consume_transpose(const TileView& source) override;

    // Waits until every chunk handed over is written, or the writing has failed: then
    // write_failure() says why, and the run must stop() instead of finish() (the disk may fill
    // up after the engine's last tile, with chunks still queued).
    void drain();
    // Waits for every chunk to be on disk, records the run (threads, tile, kernel and time of
    // the engine's figures), then marks the file complete: after `before_complete`, if given,
    // has returned (grundy compute completes the pyramid beside the table there, while the
    // table was being closed). What it throws leaves the file incomplete.
    void finish(const EngineStats& run, const std::function<void()>& before_complete = {});
    // For a run stopped early (EngineStats::cancelled: a signal, or stop_requested()): waits
    // for every chunk to be on disk, records the run and closes the file with complete = 0 and
    // resumable = 1. If even that fails (the disk filled up inside HDF5), removes the file and
    // throws grundy::Error saying so.
    void stop(const EngineStats& run);

    // True once a chunk could not be written (a full disk, a quota, a file size limit): the
    // engine stops after the tiles in flight, and stop() keeps every chunk written before.
    // Before each chunk the writer allocates room for it and for closing the file (fallocate),
    // so that a full disk shows there and not inside HDF5.
    bool stop_requested() const override;
    // The one-line reason the writer stopped taking tiles, if it did.
    std::optional<std::string> write_failure() const;
    // Tiles the file holds: stored by this run, plus, resuming, those it started with.
    uint64_t tiles_stored() const;

    // Resuming only: checks that the stopped run is the one `engine` asks for (the same rows
    // and cols, the same tile where engine.tile is set, the same compression where
    // `compression_given`: options.compression), and throws grundy::ArgumentError naming the
    // first that differs; then sets engine.tile to the file's and engine.resume to its stored
    // tiles (read once the engine has called begin()).
    void resume_into(EngineOptions& engine, bool compression_given);
    // How the chunks are stored: options.compression, or resuming, the file's.
    const Compression& compression() const;
    // Resuming, the share of the table's tiles the file holds; else 0.
    double stored_share() const;

    uint64_t raw_bytes() const;      // size of the table uncompressed
    uint64_t bytes_written() const;  // chunk bytes stored
    uint64_t file_bytes() const;     // size of the finished file

  private:
    void close_with_record(const EngineStats& run, bool resumable);
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// Bytes per stored value for a table: 2 while every value fits 16 bits, else 4.
unsigned value_bytes(uint64_t rows, uint64_t cols);

}  // namespace grundy
