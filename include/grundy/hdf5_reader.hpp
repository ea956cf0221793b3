// Hdf5TableReader: opens a table written by `grundy compute` and reads rectangles of it, chunk
// by chunk, for the analysis passes, the player and the tests. Refuses, with one clear message,
// files that are missing, not HDF5, without /grundy, of the wrong shape or type, or incomplete.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace grundy {

// A rectangle's chunks as they are stored (fetch and decode): internal to the library
// (src/io/stored_chunks.hpp), for its own streams.
class StoredChunks;

class Hdf5TableReader {
  public:
    explicit Hdf5TableReader(const std::string& path, bool allow_incomplete = false);
    ~Hdf5TableReader();
    Hdf5TableReader(const Hdf5TableReader&) = delete;
    Hdf5TableReader& operator=(const Hdf5TableReader&) = delete;

    const std::string& path() const;
    uint64_t rows() const;
    uint64_t cols() const;
    uint64_t chunk_rows() const;  // the dataset's chunk shape: read in multiples of it
    uint64_t chunk_cols() const;
    bool complete() const;

    // Reads rows y0..y0+height-1, columns x0..x0+width-1 into out, row-major with `stride`
    // values from one row to the next (0: width).
    void read(uint64_t x0, uint64_t y0, uint64_t width, uint64_t height, uint32_t* out,
              uint64_t stride = 0) const;
    // True when fetch and decode can read this table: chunked and filtered only with what
    // the reader decodes itself (none, deflate, shuffle + deflate, Blosc).
    bool decodes_chunks() const;
    // The stored chunks of the rectangle, undecoded. HDF5 calls: never two at once, from any
    // thread, so a stream may fetch on a helper thread while it decodes on others.
    void fetch(uint64_t x0, uint64_t y0, uint64_t width, uint64_t height, StoredChunks& out) const;
    // Writes chunk k's part of the fetched rectangle into out (row-major, `stride` values from
    // one row to the next, the rectangle's corner at out[0]); false if the chunk's bytes do
    // not decode (a damaged file). No HDF5 calls: any thread, and different chunks in parallel.
    bool decode(const StoredChunks& chunks, size_t k, uint32_t* out, uint64_t stride) const;
    uint32_t at(uint64_t x, uint64_t y) const;
    // Reads scattered cells (x, y) in one call; HDF5 decompresses each chunk touched once.
    void read_cells(const std::vector<std::pair<uint64_t, uint64_t>>& cells, uint32_t* out) const;

    std::optional<std::string> string_attribute(const char* name) const;
    std::optional<int64_t> int_attribute(const char* name) const;
    std::optional<double> double_attribute(const char* name) const;

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace grundy
