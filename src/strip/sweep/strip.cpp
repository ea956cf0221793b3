// Strip: the column sweep of a strip: its rows and bands, the blocks of columns as tasks, the
// boundaries from the settled rows and between ranks. Its relative state (snapshots,
// comparisons, restores) is strip_state.cpp's.
#include "strip/sweep/strip.hpp"

#include <algorithm>
#include <string>

#include "base/schedule_stats.hpp"
#include "engine/config.hpp"
#include "engine/sweep.hpp"
#include "grundy/error.hpp"
#include "strip/strip_config.hpp"
#include "strip/sweep/boundary_bits.hpp"

namespace grundy::strip {

Strip::Strip(uint64_t rows, MexKernel kernel, int threads, uint64_t lag, StripPart part)
    : rows_(rows), lo_(part.lo), hi_(part.hi ? part.hi : rows), link_(part.link) {
    if (rows == 0) throw Error("a strip needs at least one row");
    if (lo_ >= hi_ || hi_ > rows || (!link_ && (lo_ != 0 || hi_ != rows)))
        throw Error("internal: a strip's part without its rows or its link");
    boundary_words_ = boundary_words(rows);
    // Auto is the summary kernel, as for tables: with the column's last word just stored by the
    // cell below, a vector scan waits on store forwarding, and the two-level scan reads least.
    const MexKernel resolved = engine::resolve_mex_kernel(kernel);
    sweep_ = select_strip_sweep(resolved);
    kernel_name_ = mex_kernel_name(resolved);
    max_threads_ = threads > 1 ? static_cast<uint64_t>(threads) : 1;
    // Several bands per thread, and bands of at most about kStripCacheBandRows rows even with
    // one thread, whose tiles then run one after another (advance_block).
    uint64_t per_thread = kStripBandsPerThread;
    if (max_threads_ > kStripSmallTeam)
        per_thread = std::clamp<uint64_t>(rows / (kStripTileRows * max_threads_),
                                          kStripMinBandsPerThread, kStripBandsPerThread);
    thread_bands_ = std::max<uint64_t>(max_threads_ == 1 ? 1 : max_threads_ * per_thread,
                                       rows / kStripCacheBandRows);
    // One band needs no pipeline of bands, so its windows need a lag only for the columns of
    // one batch (StripBatch); one thread's tiles, one chunk; a rank's rows may grow later
    // (repartition), so its windows are sized for its threads, not its first rows.
    if (!link_ && (hi_ - lo_) / kMinStripBandRows <= 1) thread_bands_ = 1;
    const uint64_t tile_lag =
        lag ? lag
        : max_threads_ == 1
            ? kStripChunkColumns
            : std::max(kStripLag, kStripChunkColumns * kStripLagChunksPerThread * max_threads_);
    windows_ =
        std::make_unique<StripWindows>(rows, thread_bands_ == 1 ? kStripBatchColumns : tile_lag);
    // Highest rows first: they settle last, so that is where two states usually differ.
    for (uint64_t y = rows - 1; y >= 1; --y) {
        const int64_t iy = static_cast<int64_t>(y);
        layout_.push_back({true, y, 1 - 2 * iy, 3 * y, 0});
        layout_.push_back({false, y, 2 - 2 * iy, 3 * y - 2, 0});
    }
    for (auto& seg : layout_) {
        seg.offset = state_words_;
        state_words_ += (seg.bits + 63) / 64;
        state_bits_ += seg.bits;
    }
    own_rows(lo_, hi_);
    cut_bands(band_count_);
}

void Strip::own_rows(uint64_t lo, uint64_t hi) {
    lo_ = lo;
    hi_ = hi;
    own_segments_.clear();
    for (uint32_t i = 0; i < layout_.size(); ++i)
        if (owner_row(layout_[i]) >= lo_ && owner_row(layout_[i]) < hi_) own_segments_.push_back(i);
    // Bands of kStripWideBandRows rows or more where the rows allow several per thread; else one
    // per thread, down to kMinStripBandRows rows: a band's batches and tiles cost the same
    // whatever its rows, which many threads over few rows paid in bands of 8.
    const uint64_t rows = hi_ - lo_;
    const uint64_t wanted =
        std::max(rows / kStripWideBandRows, std::min(max_threads_, rows / kMinStripBandRows));
    band_count_ = std::max<uint64_t>(1, std::min(thread_bands_, wanted));
    threads_ = static_cast<int>(std::min(max_threads_, band_count_));
}

// Bands of equal estimated work over the rows still swept: cuts where the running cost passes
// k / count of the total. The settled rows cost nothing per column; they join the lowest band,
// which reports them and starts the columns and diagonals from the settled boundary.
void Strip::cut_bands(uint64_t count) {
    const uint64_t S = std::max(lo_, std::min(settled_.rows, hi_ - 1));
    // Fewer, wider bands once rows have settled and few are left to sweep: every band's batch
    // and tile cost the same work whatever its rows, which a band of a dozen rows pays for
    // a dozen cells a column; a few bands per thread still keep every thread busy.
    const uint64_t wide = (hi_ - S) / kStripWideBandRows;
    count = std::min(count, std::max(wide, max_threads_ * kStripMinBandsPerThread));
    uint64_t total = 0;
    for (uint64_t y = S; y < hi_; ++y) total += strip_row_cost(y);
    std::vector<uint64_t> starts = {S};
    uint64_t run = 0;
    for (uint64_t y = S; y < hi_ && starts.size() < count; ++y) {
        run += strip_row_cost(y);
        // At least kMinStripBandRows rows in every band (there are at most rows / that many).
        const uint64_t k = starts.size();
        if (run * count >= k * total && y + 1 - starts.back() >= kMinStripBandRows &&
            hi_ - (y + 1) >= (count - k) * kMinStripBandRows)
            starts.push_back(y + 1);
    }
    starts.front() = lo_;
    starts.push_back(hi_);
    set_bands(starts);
}

void Strip::set_bands(const std::vector<uint64_t>& starts) {
    bands_.clear();
    for (size_t k = 0; k + 1 < starts.size(); ++k) {
        auto band = std::make_unique<Band>();
        band->y0 = starts[k];
        band->y1 = starts[k + 1];
        band->g.resize((band->y1 - band->y0) * kStripBatchColumns);
        band->diagonals.resize(band->y1 - band->y0 + kStripBatchColumns);
        if ((k == 0 && lo_ > 0) || (k + 2 == starts.size() && hi_ < rows_))
            band->message.resize(kStripMessageColumns * 2 * boundary_words_);
        // The band compares its swept rows, and the diagonals through (x, y - 1) for its swept
        // rows y - 1, lowest first: the first difference then names the largest sub-strip that
        // matches. The settled rows' segments are advance_block's (settled_mismatch).
        for (uint32_t i = static_cast<uint32_t>(layout_.size()); i-- > 0;) {
            const uint64_t row = owner_row(layout_[i]);
            if (row >= std::max(band->y0, settled_.rows) && row < band->y1)
                band->segments.push_back(i);
        }
        band->first_owned = std::max(band->y0, settled_.rows);
        for (uint64_t y = band->first_owned, at = 0; y <= band->y1; ++y) {
            while (at < band->segments.size() && owner_row(layout_[band->segments[at]]) < y) ++at;
            band->owned.push_back(static_cast<uint32_t>(at));
        }
        bands_.push_back(std::move(band));
    }
}

Strip::~Strip() = default;

std::vector<uint64_t> Strip::band_starts() const {
    std::vector<uint64_t> r;
    for (const auto& b : bands_) r.push_back(b->y0);
    r.push_back(hi_);
    return r;
}

uint64_t Strip::advance(uint64_t* g) {
    StripBlock b;
    b.columns = 1;
    b.rows_done = [g](uint64_t, uint64_t y0, uint64_t y1, const uint64_t* v) {
        std::copy(v, v + (y1 - y0), g + y0);
    };
    const uint64_t x = next_;
    advance_block(b);
    return x;
}

// Sweeps columns first .. first + n - 1 of band k: a tile, in batches of columns (StripBatch).
// Its callbacks and comparisons run here too, on whichever thread runs the tile: the
// comparison inside the sweep, row by row (same_row), the callbacks and the rank above's
// boundary after each batch, column by column in order.
void Strip::run_tile(size_t k, uint64_t first, uint64_t i0, uint64_t n, const StripBlock& b) {
    Band& band = *bands_[k];
    const uint64_t S = settled_.rows;
    const uint64_t given = std::clamp(S, band.y0, band.y1);
    // Rows reported: the settled ones from first_reported_row, then every swept one.
    const uint64_t from = b.rows_done ? std::clamp(b.first_reported_row, band.y0, given) : given;
    const uint64_t stride = band.y1 - band.y0;
    const uint64_t most = std::min(kStripBatchColumns, windows_->lag);
    RowCheck check{this, &band, b.compare, first};
    const bool comparing =
        b.compare && b.compare->rows == rows_ && b.compare->words.size() == state_words_;
    if (b.compare && !comparing) std::fill_n(band.mismatch.begin() + i0, n, 0);
    // The next column of the block whose state is saved, from i0 on.
    auto save = b.save ? std::lower_bound(b.save_after.begin(), b.save_after.end(), i0)
                       : b.save_after.end();
    for (uint64_t i = i0; i < i0 + n;) {
        const uint64_t x = first + i;
        uint64_t m = std::min(most, i0 + n - i);
        // A band that is both the lowest and the highest of a rank's receives and sends in one
        // message buffer: a batch must not receive the next message before it has sent this one.
        if (link_) m = std::min(m, kStripMessageColumns - i % kStripMessageColumns);
        // A batch ends at a saved column: the band's windows then hold the state after it.
        if (save != b.save_after.end() && *save < i + m) m = *save - i + 1;
        if (given < band.y1) {
            for (uint64_t j = 0; j < m; ++j) {
                if (k == 0 && lo_ > 0)
                    receive_boundary(band, x + j, i + j, b.columns);
                else if (S > 0 && given == S)
                    start_boundary(x + j);
            }
            StripBatch batch;
            batch.x = x;
            batch.n = m;
            batch.y0 = given;
            batch.y1 = band.y1;
            batch.g = band.g.data() + (given - band.y0);
            batch.stride = stride;
            batch.diagonals = band.diagonals.data();
            if (comparing && rows_below_match(k, i, m)) {
                batch.same_row = &Strip::same_row;
                batch.context = &check;
            }
            sweep_(*windows_, batch);
        }
        for (uint64_t j = 0; j < m; ++j, ++i) {
            uint64_t* g = band.g.data() + j * stride;
            if (from < given) settled_values(x + j, from, given, g + (from - band.y0));
            if (k + 1 == bands_.size() && hi_ < rows_) send_boundary(band, x + j, i, b.columns);
            if (b.rows_done && from < band.y1)
                b.rows_done(x + j, from, band.y1, g + (from - band.y0));
        }
        if (save != b.save_after.end() && *save == i - 1) save_band(band, first + *save++, *b.save);
    }
}

// Whether the band below k matched the snapshot in full in any of columns i..i+m-1 of the
// block (its tile of these columns is done: advance_block's dependencies). Where it did not,
// the largest sub-strip that matches ends below band k, so band k need not compare: the lowest
// band's mismatch decides matched_rows.
bool Strip::rows_below_match(size_t k, uint64_t i, uint64_t m) const {
    if (k == 0) return true;
    const auto from = bands_[k - 1]->mismatch.begin() + static_cast<int64_t>(i);
    const auto to = from + static_cast<int64_t>(m);
    return std::find(from, to, kNoMismatch) != to;
}

// Settled rows y0..y1-1 of column x, from the rings: `period` columns before, plus period.
void Strip::settled_values(uint64_t x, uint64_t y0, uint64_t y1, uint64_t* g) const {
    const uint64_t from = x - settled_.period;
    // A pointer per ring (SettledRows::at): the low ring's rows first, if any are asked for.
    const uint64_t split = std::clamp(settled_.first, y0, y1);
    if (split > y0) {
        const uint16_t* d = settled_.at(from, y0);
        for (uint64_t y = y0; y < split; ++y) g[y - y0] = d[y - y0] + x - 2 * y;
    }
    if (split == y1) return;
    const uint16_t* d = settled_.at(from, split);
    for (uint64_t y = split; y < y1; ++y) g[y - y0] = d[y - split] + x - 2 * y;
    prefetch_ring_values(settled_.at(from + kStripBatchColumns, split), y1 - split, false);
}

// Column x's window and the diagonal that enters the swept rows at (x, S) start as the settled
// rows leave them (the cells of rows below S are never swept).
void Strip::start_boundary(uint64_t x) {
    StripWindows& s = *windows_;
    const uint64_t S = settled_.rows;
    boundary_->fill_column(s.column(x), x, s.column_floor(x));
    boundary_->fill_diagonal(s.diag(x, S), x - S, s.diagonal_floor(x, S));
}

// Rows lo..hi-1 of column x (the i-th of a block of `columns`) start from what the rank below
// sent: the column's set and the diagonal entering row lo. A message holds kStripMessageColumns
// columns from the block's first on (the last one fewer), both sets of each.
void Strip::receive_boundary(Band& band, uint64_t x, uint64_t i, uint64_t columns) {
    const uint64_t W = boundary_words_, j = i % kStripMessageColumns;
    if (j == 0)
        link_->receive_from_below(band.message.data(),
                                  std::min(kStripMessageColumns, columns - i) * 2 * W);
    StripWindows& s = *windows_;
    const uint64_t* words = band.message.data() + j * 2 * W;
    BitWindow& col = s.column(x);
    StripWindows::reset(col, s.column_floor(x));
    col.reserve_through((x + rows_) / 64 + kScanPadWords + 2);
    or_packed(col, words, 0, W - 1, column_bits_first(static_cast<int64_t>(x), rows_));
    const int64_t d = static_cast<int64_t>(x) - static_cast<int64_t>(lo_);
    BitWindow& dia = s.diag(x, lo_);
    StripWindows::reset(dia, s.diagonal_floor(x, lo_));
    const int64_t top = d + 2 * static_cast<int64_t>(rows_);  // above every value of its cells
    dia.reserve_through(static_cast<uint64_t>(std::max<int64_t>(top, 0)) / 64 + kScanPadWords + 2);
    or_packed(dia, words + W, 0, W - 1, diagonal_bits_first(d, rows_));
}

// After rows lo..hi-1 of column x: column x's set (every row below hi now) and the diagonal
// x - hi, whose cells below hi are all swept (its last, (x - 1, hi - 1), in the column before),
// packed for the rank above; sent when the message is full or the block ends.
void Strip::send_boundary(Band& band, uint64_t x, uint64_t i, uint64_t columns) {
    const uint64_t W = boundary_words_, j = i % kStripMessageColumns;
    StripWindows& s = *windows_;
    uint64_t* words = band.message.data() + j * 2 * W;
    pack_window(s.column(x), column_bits_first(static_cast<int64_t>(x), rows_), W, words);
    const int64_t d = static_cast<int64_t>(x) - static_cast<int64_t>(hi_);
    pack_window(s.diag(x, hi_), diagonal_bits_first(d, rows_), W, words + W);
    if (j + 1 == kStripMessageColumns || i + 1 == columns)
        link_->send_up(band.message.data(), (j + 1) * 2 * W);
}

void Strip::settle(const SettledRows& settled) {
    if (lo_ > 0) return;  // only rank 0's rows settle
    if (settled.rows > rows_ || settled.rows < settled_.rows ||
        (settled.rows &&
         (settled.period == 0 || !settled.values || settled.length % settled.period != 0 ||
          settled.stride + settled.first < settled.rows || next_ <= settled.period + 2 * rows_ ||
          (settled.first && (!settled.low_values || settled.low_length == 0)))))
        throw Error("internal: settled rows without a usable ring");
    // Nothing reads the boundary once every row is settled.
    if (settled.rows > settled_.rows && settled.rows < rows_) {
        if (!boundary_)
            boundary_ = std::make_unique<SettledBoundary>(rows_, static_cast<int>(max_threads_));
        boundary_->extend(settled, next_);
    }
    settled_ = settled;
    cut_bands(band_count_);
}

// With several bands, the block is cut into tiles of one band by `chunk` columns, run as OpenMP
// tasks with dependencies: tile (k, j) after (k - 1, j) (the rows below, same columns) and
// (k, j - 1) (the same rows, the columns before), and the lowest band's tile j after the highest
// band's tile j - lag / chunk (the column and diagonal slots it reuses: strip_windows.hpp). Any
// idle thread takes any ready tile, so a thread that loses its CPU on a busy machine holds up one
// tile, not a whole band, and the work needs no balancing: there are several bands per thread.
void Strip::advance_block(const StripBlock& b) {
    if (b.columns == 0) return;
    if (failed_.load()) throw Error("internal: strip used after a failed sweep");
    const uint64_t first = next_;
    if (b.save && !b.save_after.empty()) {
        if (!std::is_sorted(b.save_after.begin(), b.save_after.end()) ||
            std::adjacent_find(b.save_after.begin(), b.save_after.end()) != b.save_after.end() ||
            b.save_after.back() >= b.columns)
            throw Error("internal: saved columns out of order or outside the block");
        if (b.save->words.size() != state_words_) b.save->words.assign(state_words_, 0);
    }
    for (auto& band : bands_)
        if (b.compare) band->mismatch.assign(b.columns, kNoMismatch);
    // No more threads than bands: at most one tile of each band is ready at a time, and an
    // idle thread of the team still contends for the tasks' queue (once rows settle, a
    // 16-thread team over 6 bands ran slower than 4 threads).
    const int team =
        static_cast<int>(std::min<uint64_t>(static_cast<uint64_t>(threads_), bands_.size()));
    const ScheduleStats::Stamp block_start = ScheduleStats::now_if_on();
    sweep_tiles(b, first, team);
    if (ScheduleStats::on()) strip_schedule_stats().region(block_start, team);
    next_ = first + b.columns;
    if (mismatch_.load()) throw Error("internal: live comparison and snapshot disagree");
    if (b.compare && b.matched_rows) combine_matches(b, first);
    finish_saves(b, first);
}

// run_tile, timed for GRUNDY_SCHEDULE_STATS when that is on.
void Strip::timed_tile(size_t k, uint64_t first, uint64_t i0, uint64_t n, const StripBlock& b) {
    const ScheduleStats::Stamp start = ScheduleStats::now_if_on();
    run_tile(k, first, i0, n, b);
    if (ScheduleStats::on()) strip_schedule_stats().task(start);
}

// The block's tiles: one after another on one thread, else as tasks (advance_block's comment).
void Strip::sweep_tiles(const StripBlock& b, uint64_t first, int team) {
    const size_t K = bands_.size();
    const uint64_t lag = windows_->lag;
    const uint64_t chunk = lag < kStripChunkColumns ? lag : kStripChunkColumns;
    const uint64_t chunks = (b.columns + chunk - 1) / chunk;
    if (team == 1) {
        // In an order the dependencies below allow, with no task overhead.
        try {
            for (uint64_t j = 0; j < chunks; ++j)
                for (size_t k = 0; k < K; ++k)
                    timed_tile(k, first, j * chunk, std::min(chunk, b.columns - j * chunk), b);
        } catch (...) {
            failed_.store(true);
            throw;
        }
        return;
    }
    const uint64_t behind = lag / chunk;  // chunk divides lag (config.hpp)
    std::vector<char> token(K * chunks);  // tile (k, j): token[k * chunks + j]
    char none = 0;                        // an absent dependency
    std::exception_ptr error;
#pragma omp parallel num_threads(team)
#pragma omp single
    for (uint64_t j = 0; j < chunks; ++j)
        for (size_t k = 0; k < K; ++k) {
            char* self = &token[k * chunks + j];
            char* left = j > 0 ? &token[k * chunks + j - 1] : &none;
            char* below = k > 0 ? &token[(k - 1) * chunks + j] : &none;
            char* reuse = k == 0 && j >= behind ? &token[(K - 1) * chunks + j - behind] : &none;
            const uint64_t i0 = j * chunk, n = std::min(chunk, b.columns - i0);
            (void)self, (void)left, (void)below, (void)reuse;  // GCC misses depend uses
#pragma omp task default(shared) firstprivate(k, i0, n) depend(in                             \
                                                               : left[0], below[0], reuse[0]) \
    depend(out                                                                                \
           : self[0])
            {
                // After a failure the remaining tiles only run out.
                if (!failed_.load(std::memory_order_relaxed)) {
                    try {
                        timed_tile(k, first, i0, n, b);
                    } catch (...) {
#pragma omp critical(grundy_strip_error)
                        if (!error) error = std::current_exception();
                        failed_.store(true);
                    }
                }
            }
        }
    if (error) std::rethrow_exception(error);
}

// The bands' comparisons of the block into b.matched_rows.
void Strip::combine_matches(const StripBlock& b, uint64_t first) {
    // Row 0 has no segment (it is g(x, 0) = x): the sub-strip of row 0 always matches.
    b.matched_rows->assign(b.columns, static_cast<uint32_t>(rows_));
    for (const auto& band : bands_)
        for (uint64_t i = 0; i < b.columns; ++i)
            (*b.matched_rows)[i] = std::min((*b.matched_rows)[i], band->mismatch[i]);
    // The bands compared only the swept rows. Where those match above the settled ones, the
    // settled part decides (rarely: only a whole period of theirs from the compared state;
    // with ranks, where this rank's rows match). The compared state is the last one saved
    // before the column where the block saves into it (StripBlock::save), whose settled words
    // are written only at the block's end.
    const uint64_t S = settled_.rows;
    const bool resaved = b.save == b.compare;
    auto save = b.save_after.begin();
    std::vector<uint64_t> saved_words;  // the settled words of the state after column `saved`
    uint64_t saved = kNoColumn;
    for (uint64_t i = 0; S > 0 && i < b.columns; ++i) {
        if ((*b.matched_rows)[i] <= S) continue;
        const std::vector<uint64_t>* words = &b.compare->words;
        while (resaved && save != b.save_after.end() && *save < i) ++save;
        if (resaved && save != b.save_after.begin()) {
            if (saved != *(save - 1)) {
                saved = *(save - 1);
                saved_words.assign(state_words_, 0);
                settled_words(first + saved, saved_words);
            }
            words = &saved_words;
        }
        (*b.matched_rows)[i] = std::min((*b.matched_rows)[i], settled_mismatch(*words, first + i));
    }
    // The lowest difference of any rank: every rank then takes the same decisions.
    if (link_) link_->min_each(*b.matched_rows);
}

}  // namespace grundy::strip
