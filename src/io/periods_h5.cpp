// The certified row periods in HDF5: a new file with /analysis/row_periods in the one
// row-periods layout (row_periods_format.cpp). A certified strip's file has the certificate as
// the group's attributes x0, P, comparison_method, kernel, elapsed_seconds, and complete = 1; a
// stopped run's has every row asked for (those not certified yet undetermined), the group's
// attributes certified_rows, phase and column (and repeating_rows, repeating_period and
// repeating_too_long_for for rows seen to repeat), and complete = 0, resumable = 1, as a stopped
// `compute` has. Root attributes as for `compute` where they apply (game, software, created, rows).
#include <cstdio>
#include <filesystem>

#include "base/utc_time.hpp"
#include "grundy/error.hpp"
#include "grundy/periods.hpp"
#include "grundy/version.hpp"
#include "io/h5_attributes.hpp"
#include "io/h5_handle.hpp"
#include "io/periods_files.hpp"
#include "io/periods_h5.hpp"
#include "io/row_periods_group.hpp"

namespace grundy {
using io::H5Handle;
namespace {

void write_certificate(hid_t g, const PeriodsResult& result) {
    io::write_attribute(g, "x0", uint64_t{result.x0});
    io::write_attribute(g, "P", uint64_t{result.period});
    io::write_attribute(g, "comparison_method", result.method);
    io::write_attribute(g, "kernel", result.kernel);
    io::write_attribute(g, "elapsed_seconds", result.seconds);
    io::write_attribute(g, "description",
                        std::string("state after column x0 == state after column x0 + P, "
                                    "compared in full: g(x + P, y) = g(x, y) + P for all "
                                    "x > x0; block = g - x + 2y from the preperiod"));
}

void write_progress(hid_t g, const PeriodsResult& result) {
    io::write_attribute(g, "certified_rows", uint64_t{result.rows.size()});
    io::write_attribute(g, "phase", int32_t{result.phase});
    io::write_attribute(g, "column", uint64_t{result.column});
    io::write_attribute(g, "kernel", result.kernel);
    io::write_attribute(g, "description",
                        std::string("a stopped run: rows 0..certified_rows-1 are certified "
                                    "(their sub-strip's state repeated, compared in full), the "
                                    "others undetermined; phase and column say how far it got"));
    // What the CSV's comment says of rows seen to repeat but not certified yet (periods_comment).
    if (const char* too_long_for = repeating_too_long_for(result)) {
        io::write_attribute(g, "repeating_rows", uint64_t{result.repeating_rows});
        io::write_attribute(g, "repeating_period", uint64_t{result.repeating_period});
        io::write_attribute(g, "repeating_too_long_for", std::string(too_long_for));
    }
}

// The file at `path` (a temporary one, renamed by the caller).
void write_file(const std::string& path, const PeriodsResult& result) {
    const bool certified = result.status == PeriodsResult::Status::Certified;
    H5Handle file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose);
    if (!file.valid()) throw Error("cannot create " + path);
    const hid_t f = file.get();
    io::write_attribute(f, "complete", int32_t{0});
    io::write_attribute(f, "game", std::string("wythoff"));
    io::write_attribute(f, "software", std::string(kSoftwareName));
    io::write_attribute(f, "software_version", std::string(kVersion));
    io::write_attribute(f, "created", base::iso8601_now());
    const std::vector<RowPeriod> rows = listed_rows(result);
    io::write_attribute(f, "rows", uint64_t{rows.size()});
    if (!certified) io::write_attribute(f, "resumable", int32_t{1});
    H5Handle analysis(H5Gcreate2(f, "analysis", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose);
    H5Handle group = io::write_row_periods_group(analysis.get(), rows, path);
    if (certified)
        write_certificate(group.get(), result);
    else
        write_progress(group.get(), result);
    group.reset();
    analysis.reset();
    if (certified) io::write_attribute(f, "complete", int32_t{1});
    if (!file.reset()) throw Error("cannot finish writing " + path + " (disk full?)");
}

}  // namespace

void write_periods_hdf5(const std::string& path, const PeriodsResult& result, bool force) {
    io::silence_hdf5_errors();
    namespace fs = std::filesystem;
    std::error_code ec;
    if (!force && fs::exists(path, ec))
        throw ArgumentError("output file " + ArgumentError::literal(path) +
                            " exists (use {force} to overwrite it)");
    // Whole or not at all: readers (and a later --resume) see the old file or the new one.
    const std::string part = path + ".part";
    try {
        write_file(part, result);
    } catch (...) {
        fs::remove(part, ec);
        throw;
    }
    fs::rename(part, path, ec);
    if (ec) {
        fs::remove(part, ec);
        throw Error("cannot write " + path + ": " + ec.message());
    }
}

namespace io {

bool is_stopped_periods_file(const std::string& path) {
    silence_hdf5_errors();
    if (H5Fis_hdf5(path.c_str()) <= 0) return false;
    H5Handle file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
    if (!file.valid()) return false;
    if (read_int_attribute(file.get(), "complete").value_or(1) != 0 ||
        read_int_attribute(file.get(), "resumable").value_or(0) != 1)
        return false;
    if (H5Lexists(file.get(), "analysis", H5P_DEFAULT) <= 0) return false;
    H5Handle group(H5Gopen2(file.get(), "analysis/row_periods", H5P_DEFAULT), H5Gclose);
    return group.valid() && read_int_attribute(group.get(), "certified_rows").has_value();
}

}  // namespace io
}  // namespace grundy
