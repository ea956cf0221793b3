// analyze_table: runs the chosen passes over one file (verify by column bands, the others in
// one shared row-band stream), stores the results under /analysis, writes the row-periods
// CSV, and renders the summary as text or JSON.
#include <hdf5.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <memory>
#include <sstream>

#include "analysis/bands.hpp"
#include "grundy/analysis.hpp"
#include "grundy/error.hpp"
#include "grundy/version.hpp"
#include "io/h5_attributes.hpp"
#include "io/h5_handle.hpp"

namespace grundy {

using io::H5Handle;

bool AnalysisReport::ok() const {
    return (!verify || verify->ok()) && (!ppositions || ppositions->ok()) &&
           (!properties || properties->ok());
}

void parse_passes(const std::string& text, AnalysisOptions& o) {
    o.periodicity = o.verify = o.ppositions = o.properties = false;
    std::stringstream in(text);
    std::string name;
    bool any = false;
    while (std::getline(in, name, ',')) {
        if (name == "periodicity")
            o.periodicity = true;
        else if (name == "verify")
            o.verify = true;
        else if (name == "ppositions")
            o.ppositions = true;
        else if (name == "properties")
            o.properties = true;
        else
            throw Error("unknown pass '" + name +
                        "' in --passes (periodicity, verify, ppositions, properties)");
        any = true;
    }
    if (!any) throw Error("--passes names no pass");
}

namespace {

void replace_dataset(hid_t group, const char* name, hid_t file_type, hid_t mem_type, int rank,
                     const hsize_t* dims, const void* data, H5Handle& out) {
    if (H5Lexists(group, name, H5P_DEFAULT) > 0) H5Ldelete(group, name, H5P_DEFAULT);
    H5Handle space(H5Screate_simple(rank, dims, nullptr), H5Sclose);
    out = H5Handle(
        H5Dcreate2(group, name, file_type, space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
        H5Dclose);
    if (!out.valid() || H5Dwrite(out.get(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0)
        throw Error(std::string("cannot write /analysis/") + name);
}

void store(const std::string& path, const AnalysisReport& r) {
    io::silence_hdf5_errors();
    H5Handle file(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT), H5Fclose);
    if (!file.valid())
        throw Error("cannot open " + path +
                    " for writing the results under /analysis (read-only? use --no-store)");
    H5Handle group;
    if (H5Lexists(file.get(), "analysis", H5P_DEFAULT) > 0)
        group = H5Handle(H5Gopen2(file.get(), "analysis", H5P_DEFAULT), H5Gclose);
    else
        group = H5Handle(H5Gcreate2(file.get(), "analysis", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                         H5Gclose);
    if (!group.valid()) throw Error("cannot create the group /analysis in " + path);
    const hid_t g = group.get();
    io::write_attribute(g, "software_version", std::string(kVersion));
    io::write_attribute(g, "created", io::iso8601_now());
    if (r.periods) {
        const auto& periods = *r.periods;
        std::vector<int64_t> table;
        std::vector<int64_t> blocks;
        std::vector<uint64_t> offsets{0};
        for (const RowPeriod& p : periods) {
            table.push_back(static_cast<int64_t>(p.row));
            if (p.periodicity) {
                table.push_back(static_cast<int64_t>(p.periodicity->preperiod));
                table.push_back(static_cast<int64_t>(p.periodicity->period));
                table.push_back(static_cast<int64_t>(p.periodicity->periods_observed));
            } else {
                table.insert(table.end(), {-1, -1, -1});
            }
            blocks.insert(blocks.end(), p.block.begin(), p.block.end());
            offsets.push_back(blocks.size());
        }
        H5Handle d;
        const hsize_t dims[2] = {periods.size(), 4};
        replace_dataset(g, "row_periods", H5T_STD_I64LE, H5T_NATIVE_INT64, 2, dims, table.data(),
                        d);
        // long_name: what netCDF-4 tools and xarray show for a variable (CF conventions). No
        // dataset here has a physical unit, so none gets `units`.
        io::write_attribute(d.get(), "long_name",
                            std::string("row y, preperiod, period and whole periods observed of "
                                        "g(x, y) - x along row y (-1: undetermined)"));
        io::write_attribute(d.get(), "columns",
                            std::string("row,preperiod,period,periods_observed"));
        io::write_attribute(d.get(), "criterion", std::string(kRowPeriodCriterion));
        io::write_attribute(d.get(), "undetermined",
                            std::string("-1 in preperiod, period and periods_observed"));
        const hsize_t block_dims[1] = {blocks.size()};
        replace_dataset(g, "row_blocks", H5T_STD_I64LE, H5T_NATIVE_INT64, 1, block_dims,
                        blocks.data(), d);
        io::write_attribute(d.get(), "long_name",
                            std::string("one period of g(x, y) - x + 2y per row, rows one after "
                                        "another"));
        io::write_attribute(d.get(), "description",
                            std::string("for each row y, one period of g(x, y) - x + 2y from its "
                                        "preperiod on; row y's block is row_blocks[o[y]:o[y+1]] "
                                        "with o = row_block_offsets"));
        const hsize_t offset_dims[1] = {offsets.size()};
        replace_dataset(g, "row_block_offsets", H5T_STD_U64LE, H5T_NATIVE_UINT64, 1, offset_dims,
                        offsets.data(), d);
        io::write_attribute(d.get(), "long_name",
                            std::string("where row y's block starts in row_blocks (one more "
                                        "entry than rows: the end)"));
    }
    if (r.verify) {
        io::write_attribute(g, "verify_ok", int32_t{r.verify->ok()});
        io::write_attribute(g, "verify_cells_checked", r.verify->cells_checked);
        io::write_attribute(g, "verify_first_wrong",
                            r.verify->wrong ? r.verify->wrong->describe() : std::string());
        io::write_attribute(g, "verify_method",
                            std::string("every cell with x >= y, and every cell whose mirror "
                                        "(y, x) is outside the table, against the mex of the "
                                        "stored values of its options, column by column; the "
                                        "others against their mirror; independent of the "
                                        "engine"));
    }
    if (r.ppositions) {
        io::write_attribute(g, "ppositions_ok", int32_t{r.ppositions->ok()});
        io::write_attribute(g, "ppositions_zeros", r.ppositions->zeros);
        io::write_attribute(g, "ppositions_expected", r.ppositions->expected);
        io::write_attribute(g, "ppositions_first_disagreement",
                            r.ppositions->first_disagreement.value_or(""));
        io::write_attribute(g, "ppositions_method",
                            std::string("zeros against (a_n, a_n + n) and mirror, a_n = (n + "
                                        "isqrt(5 n^2)) / 2 in exact integer arithmetic"));
    }
    if (r.properties) {
        io::write_attribute(g, "properties_ok", int32_t{r.properties->ok()});
        io::write_attribute(g, "properties_method", r.properties->method);
        for (const PropertyCheck& c : r.properties->checks)
            io::write_attribute(g, ("property_" + c.name).c_str(),
                                c.first_violation ? *c.first_violation : std::string("ok"));
    }
    group.reset();
    if (!file.reset()) throw Error("cannot finish writing /analysis in " + path + " (disk full?)");
}

std::string json_string(const std::string& s) {
    std::string out = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\') {
            out += '\\';
            out += c;
        } else if (static_cast<unsigned char>(c) < 0x20) {
            char buffer[8];
            std::snprintf(buffer, sizeof buffer, "\\u%04x", c);
            out += buffer;
        } else {
            out += c;
        }
    }
    return out + "\"";
}

std::string json_optional(const std::optional<std::string>& s) {
    return s ? json_string(*s) : "null";
}

constexpr size_t kRowsShown = 32;  // rows listed in the summary; all are in the CSV and file

std::string block_text(const std::vector<int64_t>& block, size_t limit) {
    std::string out = "[";
    for (size_t i = 0; i < block.size() && i < limit; ++i)
        analysis::append_all(out, i ? "," : "", block[i]);
    if (block.size() > limit) out += ",...";
    return out + "]";
}

}  // namespace

AnalysisReport analyze_table(const std::string& path, const AnalysisOptions& o) {
    if (!o.csv_path.empty() && !o.periodicity)
        throw Error("--csv writes the row periods: it needs the periodicity pass");
    const auto start = std::chrono::steady_clock::now();
    AnalysisReport r;
    r.path = path;
    {
        Hdf5TableReader table(path, o.allow_incomplete);
        r.rows = table.rows();
        r.cols = table.cols();
        r.complete = table.complete();
        // Periodicity, P-positions and properties share one row-band stream (one decompression
        // of each chunk); verify keeps its column-band stream, whose order its report names.
        std::unique_ptr<analysis::PeriodicityPass> periodicity;
        std::unique_ptr<analysis::PPositionPass> ppositions;
        std::unique_ptr<analysis::PropertiesPass> properties;
        std::vector<analysis::RowBandPass*> passes;
        if (o.periodicity)
            passes.push_back(
                (periodicity = std::make_unique<analysis::PeriodicityPass>(r.rows)).get());
        if (o.ppositions)
            passes.push_back(
                (ppositions = std::make_unique<analysis::PPositionPass>(r.rows, r.cols)).get());
        if (o.properties) {
            properties = std::make_unique<analysis::PropertiesPass>(
                r.rows, r.cols, analysis::column_band_width(table), /*by_symmetry=*/true);
            properties->set_table(&table);
            passes.push_back(properties.get());
        }
        if (!passes.empty()) analysis::stream_row_bands(table, passes, o.threads);
        if (o.verify) {
            analysis::VerifyPass verify(r.rows, r.cols, o.threads, &table);
            analysis::ColumnBandPass* column_passes[] = {&verify};
            analysis::stream_column_bands(table, column_passes);
            r.verify = verify.report();
        }
        if (periodicity) r.periods = periodicity->take();
        if (ppositions) r.ppositions = ppositions->report();
        if (properties) r.properties = analysis::properties_report(*properties, table, o.threads);
    }  // the reader is closed before the file is opened for writing
    if (o.csv_path.size()) write_row_periods_csv(*r.periods, o.csv_path);
    if (o.store) store(path, r);
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return r;
}

std::string summary_text(const AnalysisReport& r) {
    std::ostringstream out;
    out << r.path << ": " << r.rows << " rows x " << r.cols << " columns"
        << (r.complete ? "" : " (INCOMPLETE)") << ", analysed in " << r.seconds << " s\n";
    if (r.periods) {
        uint64_t determined = 0, longest = 0;
        for (const RowPeriod& p : *r.periods)
            if (p.periodicity) {
                ++determined;
                longest = std::max(longest, p.periodicity->period);
            }
        out << "periodicity: " << determined << " of " << r.periods->size()
            << " rows determined (longest period " << longest << ")\n";
        for (size_t i = 0; i < r.periods->size() && i < 8; ++i) {
            const RowPeriod& p = (*r.periods)[i];
            out << "  row " << p.row << ": ";
            if (p.periodicity)
                out << "period " << p.periodicity->period << ", preperiod "
                    << p.periodicity->preperiod << ", " << p.periodicity->periods_observed
                    << " periods observed, block " << block_text(p.block, 12) << "\n";
            else
                out << "undetermined\n";
        }
    }
    if (r.verify)
        out << "verify: "
            << (r.verify->ok() ? "ok, " + std::to_string(r.verify->cells_checked) +
                                     " cells are the mex of their options"
                               : "WRONG: " + r.verify->wrong->describe())
            << "\n";
    if (r.ppositions)
        out << "ppositions: "
            << (r.ppositions->ok()
                    ? "ok, " + std::to_string(r.ppositions->zeros) + " zeros, all at the " +
                          std::to_string(r.ppositions->expected) +
                          " P-positions (a_n, a_n + n) and mirror"
                    : "DISAGREE: " + *r.ppositions->first_disagreement)
            << "\n";
    if (r.properties)
        for (const PropertyCheck& c : r.properties->checks)
            out << "property " << c.name << ": "
                << (c.first_violation ? "VIOLATED: " + *c.first_violation : "ok") << "\n";
    return out.str();
}

std::string summary_json(const AnalysisReport& r) {
    std::ostringstream out;
    out << "{\"file\":" << json_string(r.path) << ",\"rows\":" << r.rows << ",\"cols\":" << r.cols
        << ",\"complete\":" << (r.complete ? "true" : "false")
        << ",\"ok\":" << (r.ok() ? "true" : "false") << ",\"seconds\":" << r.seconds;
    if (r.periods) {
        uint64_t determined = 0;
        for (const RowPeriod& p : *r.periods) determined += p.periodicity.has_value();
        out << ",\"periodicity\":{\"rows\":" << r.periods->size()
            << ",\"determined\":" << determined << ",\"listed\":[";
        for (size_t i = 0; i < r.periods->size() && i < kRowsShown; ++i) {
            const RowPeriod& p = (*r.periods)[i];
            out << (i ? "," : "") << "{\"row\":" << p.row;
            if (p.periodicity)
                out << ",\"preperiod\":" << p.periodicity->preperiod
                    << ",\"period\":" << p.periodicity->period
                    << ",\"periods_observed\":" << p.periodicity->periods_observed
                    << ",\"block\":" << block_text(p.block, SIZE_MAX);
            else
                out << ",\"preperiod\":null,\"period\":null";
            out << "}";
        }
        out << "]}";
    }
    if (r.verify) {
        out << ",\"verify\":{\"ok\":" << (r.verify->ok() ? "true" : "false")
            << ",\"cells_checked\":" << r.verify->cells_checked << ",\"first_wrong\":";
        if (const auto& w = r.verify->wrong)
            out << "{\"x\":" << w->x << ",\"y\":" << w->y << ",\"found\":" << w->found
                << ",\"expected\":" << w->expected << "}";
        else
            out << "null";
        out << "}";
    }
    if (r.ppositions)
        out << ",\"ppositions\":{\"ok\":" << (r.ppositions->ok() ? "true" : "false")
            << ",\"zeros\":" << r.ppositions->zeros << ",\"expected\":" << r.ppositions->expected
            << ",\"first_disagreement\":" << json_optional(r.ppositions->first_disagreement) << "}";
    if (r.properties) {
        out << ",\"properties\":{\"ok\":" << (r.properties->ok() ? "true" : "false")
            << ",\"method\":" << json_string(r.properties->method) << ",\"checks\":[";
        bool first = true;
        for (const PropertyCheck& c : r.properties->checks) {
            out << (first ? "" : ",") << "{\"name\":" << json_string(c.name)
                << ",\"ok\":" << (c.first_violation ? "false" : "true")
                << ",\"checked\":" << c.checked
                << ",\"first_violation\":" << json_optional(c.first_violation) << "}";
            first = false;
        }
        out << "]}";
    }
    out << "}\n";
    return out.str();
}

}  // namespace grundy
