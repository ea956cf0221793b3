// Hdf5TableReader: opens a table written by `grundy compute` and reads rectangles of it, chunk
// by chunk, for the analysis passes (a TableSource), the player and the tests. Refuses, with one
// clear message, files that are missing, not HDF5, without /grundy, of the wrong shape or type, or
// incomplete.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "grundy/table_source.hpp"

namespace grundy {

// A rectangle's chunks as they are stored, fetched and decoded apart: internal to the library
// (src/io/stored_chunks.hpp), for its own streams.
class StoredChunks;

class Hdf5TableReader final : public TableSource {
  public:
    explicit Hdf5TableReader(const std::string& path, bool allow_incomplete = false);
    ~Hdf5TableReader() override;
    Hdf5TableReader(const Hdf5TableReader&) = delete;
    Hdf5TableReader& operator=(const Hdf5TableReader&) = delete;

    const std::string& path() const;
    uint64_t rows() const override;
    uint64_t cols() const override;
    uint64_t chunk_rows() const;  // the dataset's chunk shape: read in multiples of it
    uint64_t chunk_cols() const;
    bool complete() const;

    // Reads rows y0..y0+height-1, columns x0..x0+width-1 into out, row-major with `stride`
    // values from one row to the next (0: width).
    void read(uint64_t x0, uint64_t y0, uint64_t width, uint64_t height, uint32_t* out,
              uint64_t stride = 0) const override;
    // Reads scattered cells (x, y) in one call; HDF5 decompresses each chunk touched once.
    void read_cells(const std::vector<std::pair<uint64_t, uint64_t>>& cells,
                    uint32_t* out) const override;
    // Bands of one chunk (256 rows or columns where chunks are wider than 4096 or the table is
    // not chunked); row bands fetched on a helper thread a band ahead and decoded in pieces of
    // one chunk where the library decodes the table's chunks itself, else read whole.
    uint64_t band_rows() const override;
    uint64_t band_cols() const override;
    std::unique_ptr<RowBandReader> row_bands() const override;

    std::optional<std::string> string_attribute(const char* name) const;
    std::optional<int64_t> int_attribute(const char* name) const;
    std::optional<double> double_attribute(const char* name) const;

  private:
    friend class StoredChunks;
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace grundy
