// What the analysis passes hold, estimated before they start (grundy/analysis.hpp), so that a
// table too large for the memory budget is refused up front rather than killed halfway. The
// model follows the passes' data (band_streams.cpp, verify.cpp, properties.cpp) and is checked
// against the peak RSS of runs (tests/python/test_memory_cgroup.py).
#include <algorithm>
#include <string>
#include <utility>

#include "grundy/analysis.hpp"
#include "grundy/hdf5_reader.hpp"
#include "grundy/hdf5_writer.hpp"
#include "grundy/memory.hpp"

namespace grundy {
namespace {

// The program itself with HDF5's own memory: 25-28 MB of peak RSS for passes over 2048 x 32768
// and 16384 x 4096 whose data was a few MB.
constexpr double kProgramBytes = 32 << 20;
// Verify's row and diagonal sets (LineSet): a row's set spans about its last 3y values, kept in
// vectors that only grow; measured 0.335 bytes per row y for the rows' sets (16384^2: 42.9 MiB)
// and up to 0.95 as much for the diagonals'.
constexpr double kLineSetBytesPerY = 2 * 0.335;
constexpr double kLineSetObjectBytes = 80;  // a LineSet with its two vectors

double d(uint64_t v) {
    return static_cast<double>(v);
}

// The sum over rows y < Y of min(y, X): how far each row's set reaches.
double row_reach(double Y, double X) {
    return Y <= X ? Y * Y / 2 : X * X / 2 + (Y - X) * X;
}

// Verify (verify.cpp): its sets, the column band of every row (decoded, and as its stored chunks),
// the band's mirror row band, and each thread's column bitsets.
double verify_bytes(double Y, double X, double width, double stored) {
    return kLineSetBytesPerY * row_reach(Y, X) + kLineSetObjectBytes * (2 * Y + X) +
           Y * width * (4 + stored) + width * std::min(X, Y) * 4 + 2 * width * (X + 3 * Y) / 8;
}

// The row-band stream (band_streams.cpp, hdf5_reader.cpp): the decoded band, and the stored
// chunks of the band and of the next one, fetched ahead.
double stream_bytes(double X, double height, double stored) {
    return height * (X + 16) * 4 + 2 * height * X * stored;
}

// Properties (properties.cpp): every column's set over its values [x - 2Y, x + Y] (none for the
// columns below Y left to symmetry), kept to the end, and the arrays of rows and fingerprints.
double properties_columns(double Y, double X) {
    const double first = Y <= X ? Y : 0;
    // Column x's set: min(x + Y, 3Y) bits for x in [first, X).
    const double bend = std::clamp(2 * Y, first, X);  // where min() switches
    const double columns = ((bend * bend - first * first) / 2 + (bend - first) * Y) / 8;
    return columns + (X - bend) * 3 * Y / 8 + 40 * (X + Y) + 16 * X + 32 * Y;
}

// And the diagonals' sets, each made whole by its first band and freed after its last: at the
// start every diagonal from row 0 at once, and without symmetry as many below the diagonal.
double properties_diagonals(double Y, double X) {
    // Diagonal d >= 0 (from (d, 0)): its values in [d - t, d + 2t], t = min(Y, X - d).
    double bytes = 0;
    constexpr int kSamples = 256;
    for (int s = 0; s < kSamples; ++s) {
        const double dd = X * (s + 0.5) / kSamples, t = std::min(Y, X - dd);
        bytes += (dd + 2 * t - std::max(0.0, dd - t)) / 8 * X / kSamples;
    }
    if (Y > X) bytes += X * 3 * X / 8;
    return bytes;
}

// Bytes a cell takes in the table's stored chunks, held beside a band while they are fetched
// and decoded: a file's values as stored, with deflate at most 2 (1.20 to 1.27 measured up to
// 131072^2); none for a table in memory.
double stored_bytes(const TableSource& table) {
    const auto* file = dynamic_cast<const Hdf5TableReader*>(&table);
    if (!file) return 0;
    const double values = value_bytes(table.rows(), table.cols());
    const std::string compression = file->string_attribute("compression").value_or("");
    return compression.rfind("shuffle+deflate", 0) == 0 ? std::min(values, 2.0) : values;
}

std::string passes_named(const AnalysisOptions& o) {
    std::string names;
    for (const auto& [on, name] : {std::pair{o.periodicity, "periodicity"},
                                   {o.verify, "verify"},
                                   {o.ppositions, "ppositions"},
                                   {o.properties, "properties"}}) {
        if (!on) continue;
        if (!names.empty()) names.push_back(',');
        names.append(name);
    }
    return names;
}

}  // namespace

uint64_t estimate_analysis_bytes(const TableSource& table, const AnalysisOptions& o) {
    const double Y = d(table.rows()), X = d(table.cols());
    if (Y == 0 || X == 0) return 0;
    const double stored = stored_bytes(table);
    // The passes on the row-band stream first, then verify on the column bands, with what the
    // first ones keep to the end: their results, the properties' column sets.
    double kept = 0, rows = 0;
    if (o.periodicity) kept += 64 * Y + 16 * X;  // each row's result, the blocks
    if (o.ppositions) kept += 8 * Y;
    if (o.properties) kept += properties_columns(Y, X), rows += properties_diagonals(Y, X);
    if (o.periodicity || o.ppositions || o.properties)
        rows += stream_bytes(X, d(table.band_rows()), stored);
    const double verify = o.verify ? verify_bytes(Y, X, d(table.band_cols()), stored) : 0;
    return static_cast<uint64_t>(kProgramBytes + kept + std::max(rows, verify));
}

void check_analysis_memory(const TableSource& table, const AnalysisOptions& o) {
    const uint64_t needed = estimate_analysis_bytes(table, o);
    require_memory(needed, memory_budget(o.max_memory),
                   "the analysis of a " + std::to_string(table.rows()) + " x " +
                       std::to_string(table.cols()) + " table (" + passes_named(o) + ")",
                   o.verify && (o.periodicity || o.ppositions || o.properties)
                       ? "; verify alone, or the other passes alone, need less"
                       : "");
}

}  // namespace grundy
