// The analysis passes as stream consumers: verify on the column-band stream; periodicity,
// P-positions and properties on the row-band stream (one read of the table for all three).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "analysis/band_streams.hpp"
#include "analysis/line_set.hpp"
#include "base/big_memory.hpp"
#include "grundy/analysis.hpp"

namespace grundy::analysis {

// check_analysis_memory (grundy/analysis.hpp) for one pass alone, before it allocates anything.
inline void check_pass_memory(const TableSource& table, bool AnalysisOptions::*pass,
                              uint64_t max_memory = 0) {
    AnalysisOptions o;
    o.periodicity = o.verify = o.ppositions = o.properties = false;
    o.*pass = true;
    o.max_memory = max_memory;
    check_analysis_memory(table, o);
}

class VerifyPass final : public ColumnBandPass {
  public:
    // With `table` (the one streamed), a cell above the diagonal whose mirror is in the table
    // (x < y < cols) is checked against the mirror instead of by a mex (verify.cpp).
    VerifyPass(uint64_t rows, uint64_t cols, int threads, const TableSource* table = nullptr);
    void consume(const ColumnBand& band) override;
    bool finished() const override { return report_.wrong.has_value(); }
    const VerifyReport& report() const { return report_; }

  private:
    struct Band;  // how one column band is checked (verify.cpp)
    Band plan(const ColumnBand& b);
    // Every cell of the band (plan), its columns cut between the threads; the first wrong cell.
    std::optional<WrongCell> check_band(const ColumnBand& b);
    uint64_t rows_, cols_;
    int threads_;
    const TableSource* table_;
    std::vector<uint32_t> mirror_;               // the band's mirror cells, read from table_
    std::vector<LineSet> row_sets_, diag_sets_;  // diagonal x - y at index x - y + rows - 1
    VerifyReport report_;
};

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
    void set_table(const TableSource* table) { table_ = table; }

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
    const TableSource* table_ = nullptr;
    // Column x's set: a bitset over the words col_first_[x] .. (x + Y - 1) / 64 at
    // col_bits_[col_offset_[x]]; values below the first word are not checked for repeats.
    std::vector<uint64_t> col_first_, col_offset_;
    base::HugeArray<uint64_t> col_bits_;
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
PropertiesReport check_properties(const TableSource& table, int threads, bool by_symmetry);
// The pass's report, or, where its shortcut by symmetry failed, that of the full checks run
// again over the table.
PropertiesReport properties_report(const PropertiesPass& pass, const TableSource& table,
                                   int threads);

}  // namespace grundy::analysis
