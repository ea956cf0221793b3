// A whole table held in memory: for tests and small tables, never for big ones.
#pragma once

#include <cstdint>
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

}  // namespace grundy
