// The analysis passes over a table (grundy analyze, grundy verify): exact row periods, an
// independent mex verification, the P-positions against their closed form, and the known
// properties of the table. Every pass streams its TableSource (a stored file: Hdf5TableReader,
// grundy/hdf5_reader.hpp; an array: grundy/array_analysis.hpp) band by band, never the whole
// table.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "grundy/periodicity.hpp"
#include "grundy/row_period.hpp"
#include "grundy/table_source.hpp"

namespace grundy {

// The exact text of the row-period rule, stored with the results so they can be reproduced.
extern const char* const kRowPeriodCriterion;

// The criterion applied to one row g(0, y) .. g(X-1, y) (certified false; the row-periods CSV:
// grundy/row_period.hpp).
RowPeriod row_period(std::span<const uint32_t> row, uint64_t y);
// Every row of a table; rows in parallel (threads 0: OpenMP's default).
std::vector<RowPeriod> row_periods(const TableSource& table, int threads = 0);

struct WrongCell {
    uint64_t x = 0, y = 0;
    uint64_t found = 0, expected = 0;
    std::string describe() const;  // "(x, y) holds F, but the mex of its options is E"
};

struct VerifyReport {
    uint64_t cells_checked = 0;
    // The first wrong cell in the order of the sweep: bands of columns left to right, rows
    // bottom up inside a band, cells left to right inside a row. Every cell before it is right,
    // except where a cell above the diagonal and its mirror are wrong alike: the cell is taken
    // for right (it equals its mirror), and the mirror is reported when the sweep reaches it
    // (or a cell the wrong one is an option of, found first).
    std::optional<WrongCell> wrong;
    bool ok() const { return !wrong; }
};

// Every cell against the mex of its options, by a method sharing no code with the engine; cells
// above the diagonal whose mirror is in the table against the mirror (a complete proof too).
// Refused up front (grundy::MemoryError) when the pass would not fit the memory budget
// (max_memory, else grundy::memory_budget()).
VerifyReport verify_table(const TableSource& table, int threads = 0, uint64_t max_memory = 0);
// `samples` random cells, each by a direct mex over all of its options read from the table.
VerifyReport verify_sample(const TableSource& table, uint64_t samples, uint64_t seed);

// The P-positions are (a_n, a_n + n) and mirrored, with a_n = wythoff_a(n) from grundy/play.hpp
// (exact integer arithmetic).

struct PPositionReport {
    uint64_t zeros = 0;     // cells holding 0
    uint64_t expected = 0;  // P-positions inside the table
    std::optional<std::string> first_disagreement;
    bool ok() const { return !first_disagreement; }
};
PPositionReport check_ppositions(const TableSource& table, int threads = 0);

struct PropertyCheck {
    std::string name;      // symmetry, bounds, distinct_rows, ...
    uint64_t checked = 0;  // cells (or rows, or pairs) the check looked at
    std::optional<std::string> first_violation;
};
struct PropertiesReport {
    std::vector<PropertyCheck> checks;
    // How the repeats in columns and diagonals were ruled out: every set checked, or, on a
    // table whose every check passed, the mirrored ones (columns x < rows, diagonals x < y)
    // through the symmetry check.
    std::string method;
    bool ok() const;
};
PropertiesReport check_properties(const TableSource& table, int threads = 0);

struct AnalysisOptions {
    bool periodicity = true, verify = true, ppositions = true, properties = true;
    bool allow_incomplete = false;
    bool store = true;     // write the results under /analysis in the file
    std::string csv_path;  // empty: no CSV
    int threads = 0;
    uint64_t max_memory = 0;  // the memory budget; 0: grundy::memory_budget()'s
};

// The memory the chosen passes hold at their largest, in bytes, besides a table in memory: the
// row-band stream (a band decoded, two as stored) for periodicity, P-positions and properties,
// the properties' column and diagonal sets, verify's row and diagonal sets with its column band
// and the band's mirror, and the program. check_analysis_memory throws grundy::MemoryError when
// that exceeds the budget (options.max_memory, else grundy::memory_budget()); every pass and
// analyze() call it before they allocate anything.
uint64_t estimate_analysis_bytes(const TableSource& table, const AnalysisOptions& options);
void check_analysis_memory(const TableSource& table, const AnalysisOptions& options);

struct AnalysisReport {
    std::string path;
    uint64_t rows = 0, cols = 0;
    bool complete = false;
    std::optional<std::vector<RowPeriod>> periods;
    std::optional<VerifyReport> verify;
    std::optional<PPositionReport> ppositions;
    std::optional<PropertiesReport> properties;
    double seconds = 0.0;
    bool ok() const;  // every check that ran passed (undetermined periods are not failures)
};

// Runs the chosen passes over the table (one streaming read for all row-band passes, one for
// verify) and returns their report (path empty, complete true). Stores and writes nothing:
// options.store, csv_path and allow_incomplete are analyze_table's.
AnalysisReport analyze(const TableSource& table, const AnalysisOptions& options);
// Opens the stored table, runs analyze(), then stores the results under /analysis in the file
// and writes the CSV. Throws grundy::Error for bad files.
AnalysisReport analyze_table(const std::string& path, const AnalysisOptions& options);

}  // namespace grundy
