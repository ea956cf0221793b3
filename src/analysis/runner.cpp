// analyze: runs the chosen passes over one table (verify by column bands, the others in one
// shared row-band stream), and renders the summary as text or JSON (summary.hpp). Storing the
// results and writing the CSV is analyze_table's, in io/analysis_h5.cpp.
#include <cstdio>
#include <memory>
#include <sstream>

#include "analysis/message.hpp"
#include "analysis/passes.hpp"
#include "analysis/summary.hpp"
#include "grundy/analysis.hpp"
#include "grundy/error.hpp"

namespace grundy {

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
            throw ArgumentError("unknown pass '" + ArgumentError::literal(name) +
                                "' in {passes} (periodicity, verify, ppositions, properties)");
        any = true;
    }
    if (!any) throw ArgumentError("{passes} names no pass");
}

namespace {

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

std::string block_text(const std::vector<uint32_t>& block, size_t limit) {
    std::string out = "[";
    for (size_t i = 0; i < block.size() && i < limit; ++i)
        analysis::append_all(out, i ? "," : "", block[i]);
    if (block.size() > limit) out += ",...";
    return out + "]";
}

}  // namespace

AnalysisReport analyze(const TableSource& table, const AnalysisOptions& o) {
    check_analysis_memory(table, o);
    AnalysisReport r;
    r.rows = table.rows();
    r.cols = table.cols();
    r.complete = true;
    // Periodicity, P-positions and properties share one row-band stream (one decompression of
    // each chunk); verify keeps its column-band stream, whose order its report names.
    std::unique_ptr<analysis::PeriodicityPass> periodicity;
    std::unique_ptr<analysis::PPositionPass> ppositions;
    std::unique_ptr<analysis::PropertiesPass> properties;
    std::vector<analysis::RowBandPass*> passes;
    if (o.periodicity)
        passes.push_back((periodicity = std::make_unique<analysis::PeriodicityPass>(r.rows)).get());
    if (o.ppositions)
        passes.push_back(
            (ppositions = std::make_unique<analysis::PPositionPass>(r.rows, r.cols)).get());
    if (o.properties) {
        properties = std::make_unique<analysis::PropertiesPass>(r.rows, r.cols, table.band_cols(),
                                                                /*by_symmetry=*/true);
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
