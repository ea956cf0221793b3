#include "engine/tile_fill.hpp"

#include <algorithm>
#include <string>

#include "engine/config.hpp"
#include "grundy/error.hpp"

namespace grundy::engine {

int64_t prepare_tile(TableState& s, uint64_t x0, uint64_t x1, uint64_t y0, uint64_t y1,
                     bool lower_half) {
    int64_t bytes = 0;
    auto prepare = [&](BitWindow& w, uint64_t floor, uint64_t initial_words, uint64_t top) {
        if (!w.is_open()) bytes += static_cast<int64_t>(w.open(floor, initial_words));
        bytes += w.reserve_through(top / 64 + kScanPadWords);
    };
    // Columns first: in lower-half mode the rows are copied from them before any cell runs.
    for (uint64_t x = x0; x < x1; ++x)
        prepare(s.col_sets[x], s.column_floor(x), 2 * kScanPadWords, x + y1 - 1);
    for (uint64_t y = y0; y < y1; ++y) {
        if (lower_half) bytes += static_cast<int64_t>(s.row_sets[y].open_copy(s.col_sets[y]));
        // Row y spans about 3 min(y, X) values; room for a quarter more (BitWindow::make_room).
        prepare(s.row_sets[y], s.row_floor(y), (15 * std::min(y, s.cols)) / 256 + 2 * kScanPadWords,
                x1 - 1 + y);
    }
    // Every diagonal crossing the tile enters through its left column or its bottom row; in
    // lower-half mode those entering the left column above (x0, y0) have x < y and are unused.
    auto prepare_diagonal = [&](uint64_t x, uint64_t y) {
        const uint64_t steps = std::min(x1 - 1 - x, y1 - 1 - y);
        prepare(s.diag(x, y), s.diagonal_floor(x, y), 2 * kScanPadWords, x + y + 2 * steps);
    };
    for (uint64_t y = y0; y < (lower_half ? y0 + 1 : y1); ++y) prepare_diagonal(x0, y);
    for (uint64_t x = x0 + 1; x < x1; ++x) prepare_diagonal(x, y0);
    return bytes;
}

namespace {

[[noreturn]] void impossible_value(uint64_t x, uint64_t y, uint32_t v) {
    throw Error("a stored tile does not continue the table: g(" + std::to_string(x) + ", " +
                std::to_string(y) + ") = " + std::to_string(v) +
                " is impossible there (damaged file?)");
}

// The sets' side of a tile's sweep with its values already known: fill_tile (values this run
// computed, unchecked) and replay_tile (values read from a file, each checked first).
template <bool kChecked>
int64_t insert_tile(TableState& s, uint64_t x0, uint64_t x1, uint64_t y0, uint64_t y1,
                    const uint32_t* values, bool lower_half) {
    int64_t bytes = prepare_tile(s, x0, x1, y0, y1, lower_half);
    const uint64_t width = x1 - x0;
    for (uint64_t y = y0; y < y1; ++y) {
        BitWindow& row = s.row_sets[y];
        BitWindow* col = &s.col_sets[x0];
        BitWindow* dia = &s.diag(x0, y);
        const uint32_t* in = values + (y - y0) * width;
        // A true value is at most x + y (so inside the words prepare_tile reserved) and in
        // none of its sets yet (so at least every low-water mark): insert's precondition, in
        // any order of the cells. Checking both keeps it whatever a file holds.
        uint64_t first = 0;
        if (lower_half && y > x0) {
            // Left of the diagonal the sweep copied g(y, x) from an earlier row of the tile
            // into the row set only (tile_fill.hpp); so does the replay.
            first = std::min(y, x1) - x0;
            for (uint64_t i = 0; i < first; ++i) {
                const uint32_t v = in[i];
                if constexpr (kChecked)
                    if (v != values[i * width + (y - x0)] || v > x0 + i + y || row.contains(v))
                        impossible_value(x0 + i, y, v);
                row.insert(v);
            }
        }
        for (uint64_t i = first; i < width; ++i) {
            const uint32_t v = in[i];
            if constexpr (kChecked)
                if (v > x0 + i + y || row.contains(v) || col[i].contains(v) || dia[i].contains(v))
                    impossible_value(x0 + i, y, v);
            row.insert(v);
            col[i].insert(v);
            dia[i].insert(v);
        }
    }
    return bytes;
}

}  // namespace

int64_t fill_tile(TableState& s, uint64_t x0, uint64_t x1, uint64_t y0, uint64_t y1,
                  const uint32_t* values) {
    return insert_tile<false>(s, x0, x1, y0, y1, values, false);
}

int64_t replay_tile(TableState& s, uint64_t x0, uint64_t x1, uint64_t y0, uint64_t y1,
                    const uint32_t* values, bool lower_half) {
    return insert_tile<true>(s, x0, x1, y0, y1, values, lower_half);
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

int64_t close_columns(TableState& s, uint64_t x0, uint64_t x1) {
    int64_t freed = 0;
    for (uint64_t x = x0; x < x1; ++x) freed += static_cast<int64_t>(s.col_sets[x].close());
    return freed;
}

}  // namespace grundy::engine
