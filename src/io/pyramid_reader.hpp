// PyramidReader: TABLE.pyramid (io/pyramid_file.hpp) opened for reading its blocks where they
// lie, a rectangle at a time, so that `grundy view` serves a 131072^2 table's 1.33 GiB pyramid
// without reading it first. HDF5 checks the file on opening and says where each dataset's bytes
// are (contiguous and unfiltered, as save_pyramid writes them); the blocks are then read with
// pread, which any thread may call without a lock (the HDF5 calls of `grundy view` take turns,
// and a zoomed-out tile must not wait while another thread decodes the table's chunks).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "io/pyramid_file.hpp"

namespace grundy::io {

class PyramidReader {
  public:
    // Levels kPyramidBase..top of the pyramid of a rows x cols table in `path`; nullptr when the
    // file is missing, unreadable, not such a pyramid (as read_pyramid says), stored otherwise
    // than save_pyramid stores it, or shorter than its datasets.
    static std::unique_ptr<PyramidReader> open(const std::string& path, uint64_t rows,
                                               uint64_t cols, int top);
    ~PyramidReader();
    PyramidReader(const PyramidReader&) = delete;
    PyramidReader& operator=(const PyramidReader&) = delete;

    uint64_t rows() const { return rows_; }
    uint64_t cols() const { return cols_; }
    int top() const { return kPyramidBase + static_cast<int>(levels_.size()) - 1; }
    bool has(int level) const { return level >= kPyramidBase && level <= top(); }
    uint64_t width(int level) const { return pyramid_blocks(cols_, level); }
    uint64_t height(int level) const { return pyramid_blocks(rows_, level); }

    // Blocks bx0..bx0+w-1 across and by0..by0+h-1 up of `level` (within it) into `out`, w per
    // row. Throws grundy::Error when the file cannot be read: cut short or gone since it was
    // opened.
    void read(int level, uint64_t bx0, uint64_t by0, uint64_t w, uint64_t h, BlockStats* out) const;
    // The whole pyramid, read level by level.
    Pyramid read_all() const;
    // Bytes of blocks read so far (the HDF5 metadata read on opening not counted).
    uint64_t bytes_read() const { return bytes_read_.load(std::memory_order_relaxed); }

  private:
    struct Level {
        uint64_t offset[4];  // in the file, of the datasets sample, scaled, diff, p_share
    };
    PyramidReader(std::string path, int fd, uint64_t rows, uint64_t cols,
                  std::vector<Level> levels);
    void read_bytes(void* to, uint64_t bytes, uint64_t offset) const;

    std::string path_;
    int fd_;
    uint64_t rows_, cols_;
    std::vector<Level> levels_;  // kPyramidBase, kPyramidBase + 1, ...
    mutable std::atomic<uint64_t> bytes_read_{0};
};

}  // namespace grundy::io
