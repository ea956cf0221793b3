// StoredChunks: a rectangle's chunks as they are stored, fetched from an Hdf5TableReader and
// decoded apart. Internal to the library (the reader's own reads and row bands); the public
// header only names it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "grundy/hdf5_reader.hpp"

namespace grundy {

// A rectangle's chunks as they are stored, fetched and decoded: the two halves of
// Hdf5TableReader::read(), for streams that fetch the next rectangle while they decode and
// study the current one.
class StoredChunks {
  public:
    StoredChunks();
    ~StoredChunks();
    StoredChunks(const StoredChunks&) = delete;
    StoredChunks& operator=(const StoredChunks&) = delete;
    // True when fetch and decode can read this table: chunked and filtered only with what
    // the library decodes itself (none, deflate, shuffle + deflate, Blosc).
    static bool decodable(const Hdf5TableReader& table);
    // The stored chunks of the rectangle, undecoded, in place of those held before. HDF5
    // calls: never two at once, from any thread.
    void fetch(const Hdf5TableReader& table, uint64_t x0, uint64_t y0, uint64_t width,
               uint64_t height);
    // Writes chunk k's part of the rectangle into out (row-major, `stride` values from one
    // row to the next, the rectangle's corner at out[0]); false if the chunk's bytes do not
    // decode (a damaged file). No HDF5 calls: any thread, and different chunks in parallel.
    bool decode(const Hdf5TableReader& table, size_t k, uint32_t* out, uint64_t stride) const;
    size_t size() const;  // chunks, in row-major order of the chunk grid
    // The columns of the rectangle that chunk k covers: [x_begin(k), x_end(k)).
    uint64_t x_begin(size_t k) const;
    uint64_t x_end(size_t k) const;

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace grundy
