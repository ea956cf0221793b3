// Where the analyses read a table from: the read-side twin of TileSink. A stored file
// (Hdf5TableReader, grundy/hdf5_reader.hpp) and a table in memory (TableArraySource,
// grundy/array_analysis.hpp) are both sources; the passes of grundy/analysis.hpp read through
// this interface only, so they give the same results from either.
#pragma once

#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

namespace grundy {

// Hands out the values of one band of rows at a time, in pieces of columns that the threads of
// a pass read in parallel; a source whose reads are slow to start (a file's chunks) fetches
// the next band while the current one is studied.
class RowBandReader {
  public:
    virtual ~RowBandReader() = default;
    // Starts the band of rows y0..y0+height-1, whose values go to band[(y - y0) * stride + x],
    // and returns how many pieces it comes in. Called for the bands in order, bottom up, from
    // one thread; a reader may fill the whole band here and leave nothing to its pieces.
    virtual uint64_t start(uint64_t y0, uint64_t height, uint32_t* band, uint64_t stride) = 0;
    // Puts piece k of the band started last into the band and returns its columns [x0, x1):
    // the pieces, in order, cover the columns left to right. Called once for each piece, from
    // any thread, concurrently for different pieces. Throws grundy::Error when the piece
    // cannot be read (a damaged file).
    virtual std::pair<uint64_t, uint64_t> piece(uint64_t k) = 0;
};

class TableSource {
  public:
    virtual ~TableSource() = default;
    virtual uint64_t rows() const = 0;  // Y: rows 0..Y-1
    virtual uint64_t cols() const = 0;  // X: columns 0..X-1
    // Reads rows y0..y0+height-1, columns x0..x0+width-1 into out, row-major with `stride`
    // values from one row to the next (0: width). From one thread at a time.
    virtual void read(uint64_t x0, uint64_t y0, uint64_t width, uint64_t height, uint32_t* out,
                      uint64_t stride = 0) const = 0;
    // Reads scattered cells (x, y) into out[0..cells.size()). The default reads each alone.
    virtual void read_cells(const std::vector<std::pair<uint64_t, uint64_t>>& cells,
                            uint32_t* out) const;
    uint32_t at(uint64_t x, uint64_t y) const;

    // The rows of a band of the row-band stream and the columns of one of the column-band
    // stream: a file's chunk, so that each is decompressed once. The defaults: 256 of each.
    virtual uint64_t band_rows() const;
    virtual uint64_t band_cols() const;
    // A reader of row bands of band_rows() rows. The default reads each band whole in start(),
    // with one read(), in pieces of band_cols() columns.
    virtual std::unique_ptr<RowBandReader> row_bands() const;
};

}  // namespace grundy
