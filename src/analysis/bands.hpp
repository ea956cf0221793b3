// Internal plumbing of the analysis passes: the column-band stream (all rows x one chunk width
// at a time, left to right) that verify consumes, the row-band stream (one chunk height x all
// columns, bottom up) that periodicity, P-positions and properties share, and LineSet, the
// sliding set of values seen along one row or diagonal. Written for the analysis only; nothing here
// comes from the engine, so that verification stays independent of it.
#pragma once

#include <atomic>
#include <bit>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "grundy/analysis.hpp"
#include "grundy/array_analysis.hpp"
#include "grundy/hdf5_reader.hpp"

namespace grundy::analysis {

// Rows 0..rows-1, columns x0..x0+width-1: g(x, y) = values[y * width + (x - x0)].
struct ColumnBand {
    uint64_t x0 = 0, width = 0, rows = 0, cols = 0;
    const uint32_t* values = nullptr;
    uint32_t at(uint64_t x, uint64_t y) const { return values[y * width + (x - x0)]; }
};

class ColumnBandPass {
  public:
    virtual ~ColumnBandPass() = default;
    virtual void consume(const ColumnBand& band) = 0;
    // True once the pass needs no more bands (verify stops at the first wrong cell).
    virtual bool finished() const { return false; }
};

// Feeds every band of the table, left to right, to every pass until all are finished.
void stream_column_bands(const Hdf5TableReader& table, std::span<ColumnBandPass* const> passes);
// The same over a table in memory, in bands of column_band_width(table) columns.
void stream_column_bands(const TableArray& table, std::span<ColumnBandPass* const> passes);

int thread_count(int threads);

// Memory in 2 MiB pages where the system gives them on request: big buffers walked at random
// or down a band otherwise cost a page fault per 4 KiB on first touch and a TLB miss per
// access. Not zeroed; throws std::bad_alloc.
struct FreeDeleter {
    void operator()(void* p) const { std::free(p); }
};
template <typename T>
using HugeArray = std::unique_ptr<T[], FreeDeleter>;
void* huge_alloc(size_t bytes);

// Builds a message from strings and numbers (GCC 12 warns falsely on "literal" + std::string&&).
inline void append_all(std::string&) {}
template <typename T, typename... Rest>
void append_all(std::string& out, const T& first, const Rest&... rest) {
    if constexpr (std::is_arithmetic_v<T>)
        out += std::to_string(first);
    else
        out += first;
    append_all(out, rest...);
}
template <typename... Parts>
std::string cat(const Parts&... parts) {
    std::string out;
    append_all(out, parts...);
    return out;
}

// Bits o .. o + 63 of the bitset `bits` (n words), as one word; bits outside it read as 0.
inline uint64_t bits_from(const uint64_t* bits, uint64_t n, int64_t o) {
    auto at = [&](int64_t i) { return i >= 0 && static_cast<uint64_t>(i) < n ? bits[i] : 0; };
    const int64_t q = o >= 0 ? o / 64 : -((-o + 63) / 64);
    const unsigned s = static_cast<unsigned>(o - 64 * q);
    return s == 0 ? at(q) : (at(q) >> s) | (at(q + 1) << (64 - s));
}

// A set of naturals that fills up from below, as the values seen along a row or a diagonal of
// the table do: every value below 64 * base() is in it, words() holds the bits of the words
// first() .. end() - 1, and the words between base() and first() are empty. A diagonal starts
// with large values and fills its low values late, so its stored window starts where its values
// are, not at 0 (else wide tables would cost O(X) per diagonal).
class LineSet {
  public:
    uint64_t base() const { return base_; }
    uint64_t first() const { return first_; }
    uint64_t end() const { return first_ + words_.size(); }  // first word index not stored
    const uint64_t* data() const { return words_.data(); }   // data()[w - first()] for word w
    uint64_t word(uint64_t w) const {
        if (w < base_) return ~uint64_t{0};
        return w >= first_ && w - first_ < words_.size() ? words_[w - first_] : 0;
    }
    // Bit j set when word w + j is full, for w >= base() (words not stored are not full): the
    // scan skips those words without reading them.
    uint64_t full_from(uint64_t w) const {
        return bits_from(full_.data(), full_.size(),
                         static_cast<int64_t>(w) - static_cast<int64_t>(first_));
    }
    bool contains(uint64_t v) const { return (word(v / 64) >> (v % 64)) & 1; }
    // Adds v; false if it was already there. The common case, a bit of a stored word that
    // does not fill it, is inline; the rest is insert_rest (verify calls this twice a cell,
    // and the whole function, not inlined, was 15% of its time).
    bool insert(uint64_t v) {
        const uint64_t i = v / 64 - first_;  // wraps below first_: never < size then
        if (i < words_.size()) {
            const uint64_t bit = uint64_t{1} << (v % 64);
            const uint64_t before = words_[i];
            if (before & bit) return false;
            if ((before | bit) != ~uint64_t{0}) {
                words_[i] = before | bit;
                return true;
            }
        }
        return insert_rest(v);
    }
    // The least value not in the set.
    uint64_t mex() const {
        return 64 * base_ + static_cast<uint64_t>(std::countr_one(word(base_)));
    }
    void release() {
        std::vector<uint64_t>().swap(words_);
        std::vector<uint64_t>().swap(full_);
        base_ = first_ = 0;
    }

  private:
    [[gnu::noinline]] bool insert_rest(uint64_t v) {
        const uint64_t w = v / 64;
        if (w < base_) return false;
        if (words_.empty()) {
            first_ = w;
            full_.clear();
        } else if (w < first_) {  // rare: a diagonal's values below its first ones
            words_.insert(words_.begin(), first_ - w, 0);
            first_ = w;
            rebuild_full();
        }
        const uint64_t i = w - first_;
        if (i >= words_.size()) words_.resize(i + 1, 0);
        const uint64_t bit = uint64_t{1} << (v % 64);
        if (words_[i] & bit) return false;
        words_[i] |= bit;
        if (words_[i] != ~uint64_t{0}) return true;
        if (full_.size() <= i / 64) full_.resize(i / 64 + 1, 0);
        full_[i / 64] |= uint64_t{1} << (i % 64);
        if (i == 0 && first_ == base_) {
            // Full words at the bottom carry no information any more: drop them, and their
            // summary bits.
            uint64_t k = 0;
            while (k < words_.size() && words_[k] == ~uint64_t{0}) ++k;
            words_.erase(words_.begin(), words_.begin() + static_cast<std::ptrdiff_t>(k));
            base_ += k;
            first_ = base_;
            const uint64_t q = k / 64, r = k % 64;
            for (uint64_t j = 0; j + q < full_.size(); ++j) {
                const uint64_t next = j + q + 1 < full_.size() ? full_[j + q + 1] : 0;
                full_[j] = r == 0 ? full_[j + q] : full_[j + q] >> r | next << (64 - r);
            }
            full_.resize(full_.size() - q);
        }
        return true;
    }

    void rebuild_full() {
        full_.assign(words_.size() / 64 + 1, 0);
        for (uint64_t j = 0; j < words_.size(); ++j)
            if (words_[j] == ~uint64_t{0}) full_[j / 64] |= uint64_t{1} << (j % 64);
    }

    uint64_t base_ = 0, first_ = 0;
    std::vector<uint64_t> words_;
    std::vector<uint64_t> full_;  // bit j of full_[k]: words_[64 k + j] is full
};

class VerifyPass final : public ColumnBandPass {
  public:
    // With `table` (the one streamed), a cell above the diagonal whose mirror is in the table
    // (x < y < cols) is checked against the mirror instead of by a mex (verify.cpp).
    VerifyPass(uint64_t rows, uint64_t cols, int threads, const Hdf5TableReader* table = nullptr);
    void consume(const ColumnBand& band) override;
    bool finished() const override { return report_.wrong.has_value(); }
    const VerifyReport& report() const { return report_; }

  private:
    uint64_t rows_, cols_;
    int threads_;
    const Hdf5TableReader* table_;
    std::vector<uint32_t> mirror_;               // the band's mirror cells, read from table_
    std::vector<LineSet> row_sets_, diag_sets_;  // diagonal x - y at index x - y + rows - 1
    VerifyReport report_;
};

// Rows y0..y0+height-1, all columns: g(x, y) = values[(y - y0) * stride + x]. Whole rows, as
// the periodicity criterion needs them.
struct RowBand {
    uint64_t y0 = 0, height = 0, rows = 0, cols = 0, stride = 0;
    const uint32_t* values = nullptr;
    const uint32_t* row(uint64_t y) const { return values + (y - y0) * stride; }
};

// The columns [x0, x1) of a band, one chunk width: what piece() calls get. The stream hands the
// pieces of a band out left to right, one at a time, to whichever thread asks next.
struct BandPiece {
    uint64_t index = 0, x0 = 0, x1 = 0;
    const std::atomic<uint32_t>* done = nullptr;  // done[i]: every piece() call of piece i returned
    // Waits until the pieces left of this one are done. They were handed out before it, so
    // they are running or done: this cannot deadlock.
    void wait_left() const {
        if (index == 0) return;
        const std::atomic<uint32_t>& flag = done[index - 1];
        while (flag.load(std::memory_order_acquire) == 0) flag.wait(0, std::memory_order_acquire);
    }
};

// A pass over the row-band stream. For each band every thread of one parallel region calls
// piece() for the pieces it is handed, each right after the stream has decoded that piece of
// the band (while it is still in cache); then, once all pieces are in, row() for its share of
// the rows (schedule decided by the stream), then band(), where a pass shares out its other
// work with orphaned `omp for` constructs (every thread makes the same calls); finish_band()
// then runs on one thread. Per-thread state is indexed by `thread`.
class RowBandPass {
  public:
    virtual ~RowBandPass() = default;
    virtual void begin(int /*threads*/) {}
    virtual void piece(const RowBand& /*band*/, const BandPiece& /*piece*/, int /*thread*/) {}
    virtual void row(const RowBand& /*band*/, uint64_t /*y*/, int /*thread*/) {}
    virtual void band(const RowBand& /*band*/, int /*thread*/) {}
    virtual void finish_band(const RowBand& /*band*/) {}
};

// Reads the table once, in bands of one chunk height (all columns), bottom up, and feeds every
// band to every pass: one decompression of each chunk for all of them. Where the reader decodes
// the chunks itself, the next band's stored chunks are fetched on a helper thread while the
// current band is decoded and studied.
void stream_row_bands(const Hdf5TableReader& table, std::span<RowBandPass* const> passes,
                      int threads);
// The same over a table in memory: bands of 256 rows, each piece copied from the array (and
// widened to 32 bits) by the thread that hands it to the passes.
void stream_row_bands(const TableArray& table, std::span<RowBandPass* const> passes, int threads);

// The column-band width the column-band stream uses for this table.
uint64_t column_band_width(const Hdf5TableReader& table);
uint64_t column_band_width(const TableArray& table);

// Reads rows y0..y0+height-1, columns x0..x0+width-1 of the table being studied, row-major.
using RectangleReader =
    std::function<void(uint64_t x0, uint64_t y0, uint64_t width, uint64_t height, uint32_t* out)>;

// The first violation of one check in column-major order (leftmost, then lowest): the order
// the results have always been reported in.
struct FirstViolation {
    uint64_t x = UINT64_MAX, y = 0;
    std::string message;
    bool before(uint64_t cx, uint64_t cy) const { return cx < x || (cx == x && cy < y); }
    void offer(uint64_t cx, uint64_t cy, std::string text) {
        if (before(cx, cy)) {
            x = cx;
            y = cy;
            message = std::move(text);
        }
    }
    void merge(const FirstViolation& from) {
        if (from.any()) offer(from.x, from.y, from.message);
    }
    bool any() const { return x != UINT64_MAX; }
};

class PeriodicityPass final : public RowBandPass {
  public:
    explicit PeriodicityPass(uint64_t rows) : periods_(rows) {}
    void row(const RowBand& band, uint64_t y, int thread) override;
    std::vector<RowPeriod> take() { return std::move(periods_); }

  private:
    std::vector<RowPeriod> periods_;
};

class PPositionPass final : public RowBandPass {
  public:
    PPositionPass(uint64_t rows, uint64_t cols);
    void begin(int threads) override;
    void row(const RowBand& band, uint64_t y, int thread) override;
    PPositionReport report() const;

  private:
    uint64_t rows_, cols_, expected_ = 0;
    std::vector<uint64_t> partner_;  // partner_[y]: the column of row y's one P-position
    struct Slot {
        uint64_t zeros = 0, x = UINT64_MAX, y = 0, value = 0;
        char pad[32];  // one cache line per thread
    };
    std::vector<Slot> slots_;
};

class PropertiesPass final : public RowBandPass {
  public:
    // column_band_width: see column_window_start (the column checks keep their old domain).
    // by_symmetry (only where rows <= cols): leave out the sets of columns x < rows and of
    // diagonals x < y, which are row x's first cells and diagonal y - x's in mirror, so on a
    // symmetric table their repeats are the ones the row and diagonal checks look for. That
    // saves 40% of the pass; it stands only if every check passes (properties_report() runs
    // the full checks again otherwise), so the first violations reported are always those of
    // the full checks.
    PropertiesPass(uint64_t rows, uint64_t cols, uint64_t column_band_width,
                   bool by_symmetry = false);
    ~PropertiesPass() override;
    void begin(int threads) override;
    void piece(const RowBand& band, const BandPiece& piece, int thread) override;
    void row(const RowBand& band, uint64_t y, int thread) override;
    void finish_band(const RowBand& band) override;
    PropertiesReport report() const;  // finishes the row-completeness and symmetry checks
    // Whether the shortcut by symmetry was taken: then a report that is not ok may miss or
    // misplace a repeat in a column or diagonal, and the full checks must run.
    bool by_symmetry() const { return by_symmetry_; }
    // For locating an asymmetric cell once the fingerprints disagree.
    void set_table(RectangleReader read) { read_ = std::move(read); }
    void set_table(const Hdf5TableReader* table) {
        set_table([table](uint64_t x0, uint64_t y0, uint64_t w, uint64_t h, uint32_t* out) {
            table->read(x0, y0, w, h, out);
        });
    }

  private:
    struct Diagonal;
    struct Slot;
    // The column checks of columns [xa, xb) and the diagonal checks of diagonals [k0, k1)
    // restricted to columns [xa, xb), over the rows of the band.
    void columns(const RowBand& band, uint64_t xa, uint64_t xb, Slot& slot);
    // Only the symmetry fingerprints of columns [xa, xb) (columns left to symmetry).
    void column_prints(const RowBand& band, uint64_t xa, uint64_t xb);
    void diagonals(const RowBand& band, uint64_t xa, uint64_t xb, uint64_t k0, uint64_t k1,
                   Slot& slot);
    uint64_t rows_, cols_, M_;
    bool by_symmetry_;
    RectangleReader read_;
    // Column x's set: a bitset over the words col_first_[x] .. (x + Y - 1) / 64 at
    // col_bits_[col_offset_[x]]; values below the first word are not checked for repeats.
    std::vector<uint64_t> col_first_, col_offset_;
    HugeArray<uint64_t> col_bits_;
    std::vector<Diagonal> diagonals_;  // diagonal x - y at index x - y + rows - 1
    std::vector<uint64_t> row_mex_;    // the least value missing from row y (rows with X > 2y)
    // Symmetry fingerprints: for m < min(rows, cols), sum over row m right of the diagonal and
    // over column m above it of weight_[other coordinate] * value (mod 2^64): equal when
    // symmetric. The weights are odd, so one differing cell always shows (w * (a - b) is not 0
    // mod 2^64 for |a - b| < 2^32), and pseudo-random, so several cancel out only by a chance
    // of about 2^-64. One multiplication per cell, where a full 64-bit mix of (position, value)
    // cost four in a dependent chain.
    std::vector<uint64_t> weight_, row_print_, col_print_;
    std::vector<Slot> slots_;
    PropertyCheck bounds_{"bounds", 0, {}}, distinct_rows_{"distinct_rows", 0, {}},
        distinct_cols_{"distinct_columns", 0, {}}, distinct_diags_{"distinct_diagonals", 0, {}};
};

// The properties of a table in one stream of their own, with the shortcut by symmetry or not.
PropertiesReport check_properties(const Hdf5TableReader& table, int threads, bool by_symmetry);
PropertiesReport check_properties(const TableArray& table, int threads, bool by_symmetry);
// The pass's report, or, where its shortcut by symmetry failed, that of the full checks run
// again over the table.
PropertiesReport properties_report(const PropertiesPass& pass, const Hdf5TableReader& table,
                                   int threads);

}  // namespace grundy::analysis
