// A whole table held in memory: MemoryTable owns it (tests and small tables); ArraySink writes
// it into memory its caller owns (a numpy array), straight from the engine's tiles.
#pragma once

#include <cstdint>
#include <type_traits>
#include <vector>

#include "grundy/tile_sink.hpp"

namespace grundy {

class MemoryTable final : public TileSink {
  public:
    MemoryTable() = default;
    MemoryTable(uint64_t rows, uint64_t cols) { resize(rows, cols); }

    void begin(const TableShape& shape) override { resize(shape.rows, shape.cols); }
    void consume(const TileView& tile) override {
        // Tiles are disjoint, so concurrent calls write disjoint parts of the vector.
        for (uint32_t j = 0; j < tile.height; ++j)
            for (uint32_t i = 0; i < tile.width; ++i)
                values_[(tile.y0 + j) * cols_ + tile.x0 + i] = tile.values[j * tile.width + i];
    }
    // A mirrored tile straight from its source: row j of the source is column source.y0 + j.
    void consume_transpose(const TileView& source) override {
        for (uint32_t j = 0; j < source.height; ++j)
            for (uint32_t i = 0; i < source.width; ++i)
                values_[(source.x0 + i) * cols_ + source.y0 + j] =
                    source.values[j * source.width + i];
    }

    uint64_t rows() const { return rows_; }
    uint64_t cols() const { return cols_; }
    uint32_t operator()(uint64_t x, uint64_t y) const { return values_[y * cols_ + x]; }
    const std::vector<uint32_t>& values() const { return values_; }

  private:
    void resize(uint64_t rows, uint64_t cols) {
        rows_ = rows;
        cols_ = cols;
        values_.assign(rows * cols, 0);
    }
    uint64_t rows_ = 0, cols_ = 0;
    std::vector<uint32_t> values_;
};

// Writes every tile into the caller's rows x cols array of T (uint16_t where value_bytes() of
// grundy/hdf5_writer.hpp says 2, else uint32_t): g(x, y) = values[y * stride + x]. No copy of
// the whole table: each tile goes to its place as the engine finishes it.
template <class T>
class ArraySink final : public TileSink {
    static_assert(std::is_same_v<T, uint16_t> || std::is_same_v<T, uint32_t>);

  public:
    ArraySink(T* values, uint64_t stride) : values_(values), stride_(stride) {}
    void consume(const TileView& tile) override {
        // Tiles are disjoint, so concurrent calls write disjoint parts of the array.
        for (uint32_t j = 0; j < tile.height; ++j) {
            const uint32_t* from = tile.values + uint64_t{j} * tile.width;
            T* to = values_ + (tile.y0 + j) * stride_ + tile.x0;
            for (uint32_t i = 0; i < tile.width; ++i) to[i] = static_cast<T>(from[i]);
        }
    }
    void consume_transpose(const TileView& source) override {
        for (uint32_t j = 0; j < source.height; ++j) {
            const uint32_t* from = source.values + uint64_t{j} * source.width;
            T* to = values_ + source.x0 * stride_ + source.y0 + j;
            for (uint32_t i = 0; i < source.width; ++i) to[i * stride_] = static_cast<T>(from[i]);
        }
    }

  private:
    T* values_;
    uint64_t stride_;
};

}  // namespace grundy
