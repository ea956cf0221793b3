// The files of a certified run (PeriodsOptions::csv and output): every row asked for, the ones
// not certified yet undetermined, with what a stopped run had reached.
#include "io/periods_files.hpp"

#include <string>
#include <utility>

#include "io/periods_h5.hpp"
#include "io/row_periods_format.hpp"

namespace grundy {

std::string repeating_past_ring(uint64_t first_row, uint64_t last_row, uint64_t period,
                                bool tables_only) {
    return "rows " + std::to_string(first_row) + ".." + std::to_string(last_row) +
           " repeat with period " + std::to_string(period) +
           (tables_only ? ", whose tables the memory cannot hold" : ", which the ring cannot hold");
}

const char* repeating_too_long_for(const PeriodsResult& result) {
    if (result.phase != 1 || result.repeating_rows <= result.rows.size()) return nullptr;
    return result.repeating_tables_only ? "tables" : "ring";
}

std::vector<RowPeriod> listed_rows(const PeriodsResult& result) {
    std::vector<RowPeriod> rows = result.rows;
    for (uint64_t y = rows.size(); y < result.rows_asked; ++y) {
        RowPeriod r;  // undetermined, not certified
        r.row = y;
        rows.push_back(std::move(r));
    }
    return rows;
}

std::vector<std::string> periods_comment(const PeriodsResult& result, bool resumable) {
    if (result.status == PeriodsResult::Status::Certified) return {};
    const uint64_t k = result.rows.size(), Y = result.rows_asked;
    // Interrupted covers a stop and a checkpoint of a run that goes on: "not finished" is true
    // of both.
    const std::string stopped = result.status == PeriodsResult::Status::NotCertified
                                    ? "not certified within --max-cols"
                                    : "not finished";
    std::vector<std::string> lines = {
        "grundy periods --rows " + std::to_string(Y) + ": " + stopped + " in phase " +
            std::to_string(result.phase) + " at column " + std::to_string(result.column),
        k ? "rows 0.." + std::to_string(k - 1) + " certified (settled: exact for ever)"
          : "no row certified yet"};
    if (repeating_too_long_for(result))
        lines.push_back(repeating_past_ring(k, result.repeating_rows - 1, result.repeating_period,
                                            result.repeating_tables_only) +
                        (result.repeating_tables_only
                             ? ": certified with the whole strip"
                             : ": certified once phase 2 gives their preperiods"));
    if (k < Y)
        lines.push_back("rows " + std::to_string(k) + ".." + std::to_string(Y - 1) +
                        " not yet (certified 0, no period); " +
                        (resumable ? "--resume continues the run"
                                   : "a run with --checkpoint could have been continued with "
                                     "--resume"));
    return lines;
}

void write_periods_files(const PeriodsOptions& o, const PeriodsResult& result) {
    if (!o.csv.empty())
        write_row_periods_csv(o.csv, listed_rows(result),
                              periods_comment(result, !o.checkpoint.empty()),
                              o.csv_blocks && o.keep_blocks);
    // The output was checked before the run: this run's own file by now.
    if (!o.output.empty()) write_periods_hdf5(o.output, result, true);
}

}  // namespace grundy
