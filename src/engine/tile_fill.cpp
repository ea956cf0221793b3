#include "engine/tile_fill.hpp"

#include "engine/config.hpp"

namespace grundy::engine {

int64_t fill_tile(TableState& s, uint64_t x0, uint64_t x1, uint64_t y0, uint64_t y1,
                  const uint32_t* values) {
    int64_t bytes = 0;
    const uint64_t width = x1 - x0;
    for (uint64_t y = y0; y < y1; ++y) {
        BitWindow& row = s.row_sets[y];
        if (!row.is_open()) bytes += static_cast<int64_t>(row.open(0, (3 * y) / 32 + 2 * kScanPadWords));
        bytes += row.reserve_through((x1 - 1 + y) / 64 + kScanPadWords);
        const uint32_t* in = values + (y - y0) * width;
        for (uint64_t x = x0; x < x1; ++x) {
            BitWindow& col = s.col_sets[x];
            if (!col.is_open())
                bytes += static_cast<int64_t>(col.open(s.column_floor(x), 2 * kScanPadWords));
            BitWindow& dia = s.diag(x, y);
            if (!dia.is_open())
                bytes += static_cast<int64_t>(dia.open(s.diagonal_floor(x, y), 2 * kScanPadWords));
            const uint64_t last_word = (x + y) / 64 + kScanPadWords;
            bytes += col.reserve_through(last_word);
            bytes += dia.reserve_through(last_word);
            // The value is in none of the three sets yet and at least every floor, so at least
            // every low-water mark: insert's precondition holds in any order of the cells.
            const uint64_t g = in[x - x0];
            row.insert(g);
            col.insert(g);
            dia.insert(g);
        }
    }
    return bytes;
}

int64_t close_finished_sets(TableState& s, uint64_t x0, uint64_t x1, uint64_t y0, uint64_t y1) {
    int64_t freed = 0;
    if (x1 == s.cols)
        for (uint64_t y = y0; y < y1; ++y) freed += static_cast<int64_t>(s.row_sets[y].close());
    if (y1 == s.rows)
        for (uint64_t x = x0; x < x1; ++x) freed += static_cast<int64_t>(s.col_sets[x].close());
    // Every diagonal crossing the tile enters through its left column or its bottom row.
    auto close_if_ends_here = [&](uint64_t x, uint64_t y) {
        const uint64_t last = s.diagonal_last_row(x, y);
        if (last < y1 && x + (last - y) < x1) freed += static_cast<int64_t>(s.diag(x, y).close());
    };
    for (uint64_t y = y0; y < y1; ++y) close_if_ends_here(x0, y);
    for (uint64_t x = x0 + 1; x < x1; ++x) close_if_ends_here(x, y0);
    return freed;
}

}  // namespace grundy::engine
