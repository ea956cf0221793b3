// StoredChunks: a rectangle's chunks as they are stored, the handle between
// Hdf5TableReader::fetch and Hdf5TableReader::decode. Internal to the library (the analysis'
// row-band stream); the public header only names it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "grundy/hdf5_reader.hpp"

namespace grundy {

// A rectangle's chunks as they are stored, fetched by Hdf5TableReader::fetch and decoded by
// Hdf5TableReader::decode: the two halves of read(), for streams that fetch the next rectangle
// while they decode and study the current one.
class StoredChunks {
  public:
    StoredChunks();
    ~StoredChunks();
    StoredChunks(const StoredChunks&) = delete;
    StoredChunks& operator=(const StoredChunks&) = delete;
    size_t size() const;  // chunks, in row-major order of the chunk grid
    // The columns of the rectangle that chunk k covers: [x_begin(k), x_end(k)).
    uint64_t x_begin(size_t k) const;
    uint64_t x_end(size_t k) const;

  private:
    friend class Hdf5TableReader;
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace grundy
