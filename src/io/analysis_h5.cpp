// `grundy analyze` on a file (analyze_table): the stored table read through its TableSource by
// the passes (analysis/runner.cpp), then the results under /analysis in the table's own file
// (the row periods, and each pass's verdict and method as attributes of the group) and the
// row-periods CSV.
#include "io/analysis_h5.hpp"

#include <hdf5.h>

#include <chrono>

#include "base/utc_time.hpp"
#include "grundy/error.hpp"
#include "grundy/hdf5_reader.hpp"
#include "grundy/version.hpp"
#include "io/h5_attributes.hpp"
#include "io/h5_handle.hpp"
#include "io/row_periods_format.hpp"
#include "io/row_periods_group.hpp"

namespace grundy::io {

void store_analysis(const std::string& path, const AnalysisReport& r) {
    silence_hdf5_errors();
    H5Handle file(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT), H5Fclose);
    if (!file.valid())
        throw ArgumentError("cannot open " + ArgumentError::literal(path) +
                            " for writing the results under /analysis (read-only? use "
                            "{store=false})");
    H5Handle group;
    if (H5Lexists(file.get(), "analysis", H5P_DEFAULT) > 0)
        group = H5Handle(H5Gopen2(file.get(), "analysis", H5P_DEFAULT), H5Gclose);
    else
        group = H5Handle(H5Gcreate2(file.get(), "analysis", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                         H5Gclose);
    if (!group.valid()) throw Error("cannot create the group /analysis in " + path);
    const hid_t g = group.get();
    write_attribute(g, "software_version", std::string(kVersion));
    write_attribute(g, "created", base::iso8601_now());
    if (r.periods) {
        H5Handle periods = write_row_periods_group(g, *r.periods, path);
        write_attribute(periods.get(), "criterion", std::string(kRowPeriodCriterion));
    }
    if (r.verify) {
        write_attribute(g, "verify_ok", int32_t{r.verify->ok()});
        write_attribute(g, "verify_cells_checked", r.verify->cells_checked);
        write_attribute(g, "verify_first_wrong",
                        r.verify->wrong ? r.verify->wrong->describe() : std::string());
        write_attribute(g, "verify_method",
                        std::string("every cell with x >= y, and every cell whose mirror "
                                    "(y, x) is outside the table, against the mex of the "
                                    "stored values of its options, column by column; the "
                                    "others against their mirror; independent of the "
                                    "engine"));
    }
    if (r.ppositions) {
        write_attribute(g, "ppositions_ok", int32_t{r.ppositions->ok()});
        write_attribute(g, "ppositions_zeros", r.ppositions->zeros);
        write_attribute(g, "ppositions_expected", r.ppositions->expected);
        write_attribute(g, "ppositions_first_disagreement",
                        r.ppositions->first_disagreement.value_or(""));
        write_attribute(g, "ppositions_method",
                        std::string("zeros against (a_n, a_n + n) and mirror, a_n = (n + "
                                    "isqrt(5 n^2)) / 2 in exact integer arithmetic"));
    }
    if (r.properties) {
        write_attribute(g, "properties_ok", int32_t{r.properties->ok()});
        write_attribute(g, "properties_method", r.properties->method);
        for (const PropertyCheck& c : r.properties->checks)
            write_attribute(g, ("property_" + c.name).c_str(),
                            c.first_violation ? *c.first_violation : std::string("ok"));
    }
    group.reset();
    if (!file.reset()) throw Error("cannot finish writing /analysis in " + path + " (disk full?)");
}

}  // namespace grundy::io

namespace grundy {

AnalysisReport analyze_table(const std::string& path, const AnalysisOptions& o) {
    if (!o.csv_path.empty() && !o.periodicity)
        throw ArgumentError("{csv_path} writes the row periods: it needs the periodicity pass");
    const auto start = std::chrono::steady_clock::now();
    AnalysisReport r;
    {
        const Hdf5TableReader table(path, o.allow_incomplete);
        r = analyze(table, o);
        r.complete = table.complete();
    }  // the reader is closed before the file is opened for writing
    r.path = path;
    if (o.csv_path.size()) write_row_periods_csv(o.csv_path, *r.periods);
    if (o.store) io::store_analysis(path, r);
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return r;
}

}  // namespace grundy
