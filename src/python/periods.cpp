// grundy.certify_row_periods: certified row periods of a strip (`grundy periods`), with the
// certificate and one record per row as Python objects.
#include <omp.h>

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>

#include "grundy/periods.hpp"
#include "python/common.hpp"
#include "strip/certify/search_progress.hpp"

namespace grundy::python {
namespace {

const char* status_name(PeriodsResult::Status s) {
    switch (s) {
        case PeriodsResult::Status::Certified:
            return "certified";
        case PeriodsResult::Status::NotCertified:
            return "not_certified";
        case PeriodsResult::Status::Interrupted:
            return "interrupted";
    }
    return "?";
}

PeriodsResult certify(py::handle rows, py::handle threads, py::object checkpoint_object,
                      py::handle max_cols, py::object progress, py::object csv, py::object output,
                      bool force, py::handle max_memory, bool compact_checkpoints) {
    PeriodsOptions o;
    // Ranges are checked by the library (check_periods_options), as for the CLI.
    o.rows = whole_number(rows, "rows", 0, ~uint64_t{0});
    o.threads = threads_arg(threads);
    if (o.threads == 0) o.threads = omp_get_max_threads();
    o.max_cols = max_cols.is_none() ? 0 : whole_number(max_cols, "max_cols", 0, ~uint64_t{0});
    if (!checkpoint_object.is_none()) {
        o.checkpoint = path_arg(checkpoint_object, "checkpoint");
        // In Python the checkpoint file is the state to continue from whenever it is there.
        std::error_code ec;
        o.resume = std::filesystem::exists(o.checkpoint, ec);
    }
    // The files the rows go to after every checkpoint and at the end, however it ends.
    if (!csv.is_none()) o.csv = path_arg(csv, "csv");
    if (!output.is_none()) o.output = path_arg(output, "output");
    o.force = force;
    o.compact_checkpoints = compact_checkpoints;
    if (!max_memory.is_none())
        o.max_memory = whole_number(max_memory, "max_memory", 1, ~uint64_t{0});
    std::atomic<bool> cancel{false};
    check_periods_options(o);  // before the progress bar and the thread
    check_periods_memory(o);   // MemoryError, not the OSError of the run's file problems
    PeriodsProgress state;
    o.cancel = &cancel;
    o.progress = &state;
    std::optional<Progress> bar;
    bar.emplace(progress, 0, "columns", "periods");
    // The CLI's line (settled rows, expected certificate, ETA), built at every tick so that its
    // speeds count every column (strip::PeriodsLine).
    strip::PeriodsLine text(state, o.rows);
    const auto start = std::chrono::steady_clock::now();
    int phase = 0;
    std::optional<py::error_already_set> interrupted;
    const PeriodsResult r = run_released<PeriodsResult>(
        [&] { return file_call([&] { return certify_row_periods(o); }); }, cancel,
        [&] {
            // A new phase starts from column 0, with its own target (0 while unknown).
            if (state.phase.load() != phase) {
                phase = state.phase.load();
                bar.reset();
                bar.emplace(progress, 0, "columns",
                            phase == 1 ? "periods: cycle search" : "periods: preperiods");
            }
            bar->set_total(state.target.load());
            if (bar->shows_text()) {
                const std::chrono::duration<double> t = std::chrono::steady_clock::now() - start;
                std::string line = "periods: " + text(t.count());
                bar->describe(std::move(line), text.outlook());
            }
            bar->update(state.column.load());
        },
        interrupted);
    bar.reset();
    if (interrupted) throw std::move(*interrupted);
    return r;
}

}  // namespace

void bind_periods(py::module_& m) {
    py::class_<PeriodsResult>(m, "Certificate", R"(The result of certify_row_periods().

status: "certified" or "not_certified" (no repeat within max_cols columns). x0, period: the
strip's state after column x0 equals the one after column x0 + period, which proves every
row's periodicity from there on. rows: one RowPeriod per row certified, with certified True:
the least p with g(x + p, y) = g(x, y) + p for all large x, the least preperiod from which that
holds, and the block as a numpy uint32 array. A certified strip has every row; a run stopped at
max_cols has rows 0..k-1, the rows that settled (their own sub-strip repeated), certified all
the same. rows_asked, phase, column: how far the run got; repeating_rows, repeating_period: a
run stopped in phase 1 saw rows 0..repeating_rows-1 repeat with a period its ring cannot hold
(0: none), certified once phase 2 gives their preperiods; repeating_too_long_for: "ring" then,
"tables" where a lengthened ring holds the period but the memory not its rows' tables (they are
certified with the whole strip), None without such rows. Also method, columns_swept,
state_bits, seconds, threads, kernel, second_pass.)")
        .def_property_readonly("status",
                               [](const PeriodsResult& r) { return status_name(r.status); })
        .def_property_readonly(
            "certified",
            [](const PeriodsResult& r) { return r.status == PeriodsResult::Status::Certified; })
        .def_readonly("x0", &PeriodsResult::x0)
        .def_readonly("period", &PeriodsResult::period)
        .def_readonly("method", &PeriodsResult::method)
        .def_readonly("rows", &PeriodsResult::rows)
        .def_readonly("rows_asked", &PeriodsResult::rows_asked)
        .def_readonly("phase", &PeriodsResult::phase)
        .def_readonly("column", &PeriodsResult::column)
        .def_readonly("columns_swept", &PeriodsResult::columns_swept)
        .def_readonly("state_bits", &PeriodsResult::state_bits)
        .def_readonly("checkpoints_written", &PeriodsResult::checkpoints_written)
        .def_readonly("resumed", &PeriodsResult::resumed)
        .def_readonly("second_pass", &PeriodsResult::second_pass)
        .def_readonly("repeating_rows", &PeriodsResult::repeating_rows)
        .def_readonly("repeating_period", &PeriodsResult::repeating_period)
        .def_property_readonly("repeating_too_long_for",
                               [](const PeriodsResult& r) -> std::optional<std::string> {
                                   const char* too_long_for = repeating_too_long_for(r);
                                   if (!too_long_for) return std::nullopt;
                                   return too_long_for;
                               })
        .def_readonly("kernel", &PeriodsResult::kernel)
        .def_readonly("threads", &PeriodsResult::threads)
        .def_readonly("seconds", &PeriodsResult::seconds)
        .def("__repr__", [](const PeriodsResult& r) {
            return std::string("Certificate(") + status_name(r.status) +
                   ", x0=" + std::to_string(r.x0) + ", period=" + std::to_string(r.period) + ", " +
                   std::to_string(r.rows.size()) + " of " + std::to_string(r.rows_asked) +
                   " rows certified)";
        });

    m.def(
        "certify_row_periods", &certify, py::arg("rows"), py::kw_only(), py::arg("threads") = 1,
        py::arg("checkpoint") = py::none(), py::arg("max_cols") = 0, py::arg("progress") = false,
        py::arg("csv") = py::none(), py::arg("output") = py::none(), py::arg("force") = false,
        py::arg("max_memory") = py::none(), py::arg("compact_checkpoints") = false,
        R"(certify_row_periods(rows, *, threads=1, checkpoint=None, max_cols=0, progress=False, csv=None, output=None, force=False, max_memory=None, compact_checkpoints=False) -> Certificate

Certified row periods of rows 0..rows-1 (`grundy periods`): the strip is swept column by column
in O(rows^2) bits until its relative state repeats, which proves g(x + P, y) = g(x, y) + P for
ever; a second pass gives each row's exact least period and preperiod. threads: threads
sweeping the strip (0: all cores). max_cols: give up after this many columns (status
"not_certified"); 0: never. checkpoint: a file the progress is saved to (every 300 s and on
Ctrl-C); when it exists, the run continues from it. progress: as for table(), the line (or
the tqdm bar's postfix) saying, as grundy periods does, the rows settled, the certificate's
expected column and the ETA. csv, output: a row-periods CSV and an HDF5 file
(/analysis/row_periods), written after every checkpoint and when the run ends, however it ends (Ctrl-C too): every row, those certified so far with their
periods, the others undetermined (`grundy periods`). force: overwrite an existing output (a
run resumed from its checkpoint replaces its own stopped output without it).
compact_checkpoints: checkpoints without the ring of recent values (rows x L x 2 bytes), with
the state of a column one or two ring lengths back instead, from which a resumed run sweeps
the ring again (`grundy periods --compact-checkpoints`).

The GIL is released; Ctrl-C stops the run (saving the checkpoint) and raises
KeyboardInterrupt. ValueError for bad arguments, OSError for a checkpoint that cannot be
written or read or belongs to another strip.)");
}

}  // namespace grundy::python
