// The multiscale pyramid of `grundy view` (view/pyramid.hpp) as it is stored: its levels of
// BlockStats, and the file beside a table that holds them, TABLE.pyramid (HDF5, written whole
// or not at all, so that the table's file is never touched). Layout: pyramid_file.cpp and
// docs/viewer.md, "The pyramid".
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace grundy::io {

inline constexpr const char* kPyramidFormat = "grundy view pyramid";  // its `format`
inline constexpr int kPyramidBase = 4;  // the finest stored level: blocks of 16 x 16 cells
// The datasets of each level, one per field of BlockStats in its order: uint32 first, then
// float32 (pyramid_file.cpp writes them, pyramid_reader.cpp reads them).
inline constexpr const char* kPyramidFields[4] = {"sample", "scaled", "diff", "p_share"};

// Blocks of 2^level cells across a side of n cells (the last one cut at the table's edge).
inline uint64_t pyramid_blocks(uint64_t n, int level) {
    return (n + (uint64_t{1} << level) - 1) >> level;
}

// What a zoomed-out pixel shows of its block of cells (view/colouring.hpp): the sample (g at
// the block's cell of least x and least y) for g mod k, the mean of (g - x + 2y) / 3y, the mean
// of x + y - g, and the share of P-positions.
struct BlockStats {
    uint32_t sample = 0;
    float scaled = 0;
    float diff = 0;
    float p_share = 0;
};

struct PyramidLevel {
    int level = 0;
    uint64_t width = 0, height = 0;  // blocks across and up
    std::vector<BlockStats> blocks;  // row-major, block (bx, by) at by * width + bx
    const BlockStats& at(uint64_t bx, uint64_t by) const { return blocks[by * width + bx]; }

    // Level `level` of a rows x cols table: its shape, no blocks yet.
    static PyramidLevel of(int level, uint64_t rows, uint64_t cols) {
        return {level, pyramid_blocks(cols, level), pyramid_blocks(rows, level), {}};
    }
};

class Pyramid {
  public:
    uint64_t rows = 0, cols = 0;
    // kPyramidBase, kPyramidBase + 1, ...: at least one, but for the Pyramid a streamed build's
    // finish() returns (its levels are in its file)
    std::vector<PyramidLevel> levels;

    const PyramidLevel* level(int l) const;
    uint64_t bytes() const;
};

// The file beside a table that holds its pyramid.
std::string pyramid_path(const std::string& table_path);

// Writes a pyramid file as its rows of blocks come. The file, PATH.tmp, is laid out whole when
// made: every level's datasets allocated in it, contiguous, and its room on the disk reserved;
// each row of blocks is then written where HDF5 placed it, with plain writes on a thread of the
// writer's own, as the reader reads them (io/pyramid_reader.hpp). finish() makes it durable and
// renames it to PATH; a writer destroyed before that removes PATH.tmp. So grundy compute writes the
// pyramid while the table is being computed, not all of it at the end.
class PyramidFileWriter {
  public:
    // Levels kPyramidBase..top of a rows x cols table. Throws grundy::Error when PATH.tmp
    // cannot be made or the disk cannot hold it.
    PyramidFileWriter(const std::string& path, uint64_t rows, uint64_t cols, int top);
    ~PyramidFileWriter();
    PyramidFileWriter(const PyramidFileWriter&) = delete;
    PyramidFileWriter& operator=(const PyramidFileWriter&) = delete;

    // Rows by0..by0 + count - 1 of `level`, row-major, written by the writer's own thread:
    // `blocks` must stay as they are until finish(). Never throws: the first failure is kept
    // for finish() to report.
    void write_rows(int level, uint64_t by0, uint64_t count, const BlockStats* blocks);
    // The same for rows handed over: whole rows of `level`, from row by0.
    void write_rows(int level, uint64_t by0, std::vector<BlockStats> rows);
    // Fsyncs PATH.tmp and renames it to PATH. Throws grundy::Error when a write failed or it
    // cannot.
    void finish();
    // PATH.tmp: where the writer of PATH writes, and what a killed run leaves there.
    static std::string temp_path(const std::string& path) { return path + ".tmp"; }

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// Writes the pyramid to `path` whole or not at all (PATH.tmp, fsync, rename) through a
// PyramidFileWriter. Throws grundy::Error when it cannot.
void save_pyramid(const Pyramid& pyramid, const std::string& path);

// Levels kPyramidBase..top of the pyramid of a rows x cols table, read from `path`; nullopt
// when the file is missing, unreadable, or not such a pyramid (another format, version, base
// level or shape, a level missing, a dataset of another shape or type, or stored otherwise than
// save_pyramid stores it). Reads the whole file: io/pyramid_reader.hpp reads it a rectangle of
// blocks at a time.
std::optional<Pyramid> read_pyramid(const std::string& path, uint64_t rows, uint64_t cols, int top);

}  // namespace grundy::io
