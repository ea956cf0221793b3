// The table cut into square tiles, as the schedule (wavefront.cpp) sees it: each tile's region,
// which tiles are mirrors of others, which tiles are tasks of their own, the order tasks are
// created in, the dependency tokens they wait on, and for a resume which tasks are replayed.
#pragma once

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "engine/config.hpp"
#include "grundy/tile_sink.hpp"

namespace grundy::engine {

struct TileRegion {
    uint64_t x0, x1, y0, y1;  // columns [x0, x1), rows [y0, y1)
};

struct TileIndex {
    uint64_t i, j;  // tile column and tile row
};

class TileGrid {
  public:
    // `threads`: the run's, which choose band order (band_rows); 0: anti-diagonal order.
    TileGrid(uint64_t rows, uint64_t cols, uint64_t tile, int threads = 0)
        : rows_(rows),
          cols_(cols),
          tile_(tile),
          tiles_x(ceil_div(cols, tile)),
          tiles_y(ceil_div(rows, tile)),
          symmetric(all_above_diagonal_mirrored() && rows <= cols),
          band(band_rows(tiles_y, symmetric, threads)),
          done_(tiles_x * tiles_y),
          nothing_(tiles_x * tiles_y) {}

    // The tile rows of a band (config.hpp, kBandTilesPerThread), or 0 for the anti-diagonal
    // order: bands only for a symmetric table on at most kBandMostThreads threads, with room
    // for two bands at least.
    static uint64_t band_rows(uint64_t tiles_y, bool symmetric, int threads) {
        if (!symmetric || threads < 1 || threads > kBandMostThreads) return 0;
        const uint64_t b = kBandTilesPerThread * static_cast<uint64_t>(threads);
        return tiles_y >= 2 * b ? b : 0;
    }

    // Tile (i, j) covers columns [i B, min(X, (i+1) B)) and rows [j B, min(Y, (j+1) B)).
    TileRegion region(uint64_t i, uint64_t j) const {
        return {i * tile_, std::min(cols_, i * tile_ + tile_), j * tile_,
                std::min(rows_, j * tile_ + tile_)};
    }

    // Whether tile (i, j) is exactly the transpose of tile (j, i). Above the main diagonal such
    // a tile is not swept: the worker that sweeps its mirror fills it (tile_fill.hpp). Both lie
    // on one tile anti-diagonal, whose tiles share no set, so the fill needs no more
    // synchronisation.
    bool mirrored(uint64_t i, uint64_t j) const {
        if (i == j || i >= tiles_y || j >= tiles_x) return false;
        const TileRegion r = region(i, j), m = region(j, i);
        return r.x0 == m.y0 && r.x1 == m.y1 && r.y0 == m.x0 && r.y1 == m.x1;
    }

    // Whether tile (i, j) has a task of its own (else its mirror's task does it).
    bool has_task(uint64_t i, uint64_t j) const { return !(i < j && mirrored(i, j)); }

    // The index of the task that finishes tile (i, j).
    uint64_t task_of(uint64_t i, uint64_t j) const {
        if (!has_task(i, j)) std::swap(i, j);
        return j * tiles_x + i;
    }

    // Every tile with a task of its own, one tile anti-diagonal I + J = S after another, so
    // that every task's dependencies come before it; in band order, the anti-diagonals of one
    // band of tile rows after another.
    std::vector<TileIndex> tasks() const {
        std::vector<TileIndex> order;
        if (band) {
            for (uint64_t j0 = 0; j0 < tiles_y; j0 += band) {
                const uint64_t j1 = std::min(tiles_y, j0 + band);
                for (uint64_t s = j0; s + 1 < tiles_x + j1; ++s)
                    for (uint64_t j = j0; j < std::min(j1, s + 1); ++j)
                        if (s - j < tiles_x && has_task(s - j, j)) order.push_back({s - j, j});
            }
            return order;
        }
        for (uint64_t s = 0; s + 1 < tiles_x + tiles_y; ++s) {
            const uint64_t i_last = std::min(s, tiles_x - 1);
            for (uint64_t i = s >= tiles_y ? s - (tiles_y - 1) : 0; i <= i_last; ++i)
                if (has_task(i, s - i)) order.push_back({i, s - i});
        }
        return order;
    }

    // OpenMP dependency tokens: a task writes its own and reads those of the tasks that finish
    // the tiles to its left and below (the one below-left is implied). A tile on the table's
    // left or bottom edge waits on a token of its own that no task writes. One token shared by
    // all of them would collect an `in` dependence per edge tile, and libgomp walks that list
    // for every new one: task creation quadratic in the edge's length, minutes for a table one
    // row high.
    char* token(uint64_t i, uint64_t j) { return &done_[task_of(i, j)]; }
    char* left_token(uint64_t i, uint64_t j) {
        return i ? token(i - 1, j) : &nothing_[j * tiles_x + i];
    }
    char* below_token(uint64_t i, uint64_t j) {
        return j ? token(i, j - 1) : &nothing_[j * tiles_x + i];
    }
    // The bound on the front's raggedness (config.hpp): tile (i, j) also waits for the tile
    // kFrontSlack anti-diagonals behind it in the row band k = min(kLeadSpan, tiles_y - 1 - j)
    // bands above, so that its band runs at most kFrontSlack - 1 anti-diagonals ahead of that
    // band, and likewise for the column band as far to its right. Both are tasks created
    // before it (an earlier anti-diagonal), so there is never a cycle. A token gains one such
    // reader per direction, a top band's or right band's up to kLeadSpan.
    // In band order there are none: the bands above have no tasks yet, and a band's own rows
    // are open while it runs whatever the front's shape.
    char* row_lead_token(uint64_t i, uint64_t j) {
        const uint64_t k = std::min(kLeadSpan, tiles_y - 1 - j);
        return !band && k && i >= k + kFrontSlack ? token(i - k - kFrontSlack, j + k)
                                                  : &nothing_[j * tiles_x + i];
    }
    char* column_lead_token(uint64_t i, uint64_t j) {
        const uint64_t k = std::min(kLeadSpan, tiles_x - 1 - i);
        return !band && k && j >= k + kFrontSlack ? token(i + k, j - k - kFrontSlack)
                                                  : &nothing_[j * tiles_x + i];
    }
    // Band order: the first task of a band (its tile on the diagonal) also waits for the band
    // below to reach the tile `band` columns from its end, so that two bands at most run at
    // once: the end of one, whose anti-diagonals hold fewer and fewer tiles, and the start of
    // the next. Every other task waits on a token of its own that no task writes.
    char* band_token(uint64_t i, uint64_t j) {
        if (!band || j == 0 || j % band != 0 || i != j) return &nothing_[j * tiles_x + i];
        return token(std::max(j, tiles_x - 1 - std::min(band, tiles_x - 1)), j - 1);
    }

    // Resuming: a task is replayed when its tiles (with its mirror) are stored and so are the
    // tasks it depends on. That is the largest set of stored tasks a run could have finished
    // (a hard kill may leave stored tiles whose dependencies are missing: those are computed
    // again), and the state after any such set is the same whatever order it ran in. Indexed
    // by task_of(); all false without `stored`. `tasks` is tasks().
    std::vector<char> replay_plan(const std::vector<TileIndex>& tasks,
                                  const StoredTiles* stored) const {
        std::vector<char> replayed(tiles_x * tiles_y, 0);
        if (!stored) return replayed;
        for (const auto [i, j] : tasks) {  // dependencies first
            const TileRegion r = region(i, j);
            bool ok = stored->has_tile(r.x0, r.y0);
            if (ok && mirrored(j, i)) ok = stored->has_tile(r.y0, r.x0);
            if (ok && i > 0) ok = replayed[task_of(i - 1, j)];
            if (ok && j > 0) ok = replayed[task_of(i, j - 1)];
            replayed[task_of(i, j)] = ok;
        }
        return replayed;
    }

  private:
    static uint64_t ceil_div(uint64_t a, uint64_t b) { return (a + b - 1) / b; }

    // Symmetric mode (tile_fill.hpp): when every tile above the diagonal is mirrored, those
    // tiles touch no set at all and the tiles on the diagonal sweep only their lower half.
    bool all_above_diagonal_mirrored() const {
        for (uint64_t j = 1; j < tiles_y; ++j)
            for (uint64_t i = 0; i < j; ++i)
                if (!mirrored(i, j)) return false;
        return true;
    }

    uint64_t rows_, cols_, tile_;

  public:
    const uint64_t tiles_x, tiles_y;
    const bool symmetric;
    const uint64_t band;  // tile rows per band; 0: anti-diagonal order

  private:
    std::vector<char> done_, nothing_;
};

}  // namespace grundy::engine
