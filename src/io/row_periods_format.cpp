// The one row-periods format, in CSV and in HDF5, of the RowPeriods of grundy/row_period.hpp,
// whether under the criterion of a stored table (`grundy analyze`) or certified for a strip
// (`grundy periods`).
//
// CSV (header line, one line per row; comment lines "# ..." may come first):
//   row,preperiod,period,periods_observed,certified,block
// preperiod, period, periods_observed empty where the row is undetermined; periods_observed
// empty for a certified row (periodic for ever); certified 1 or 0; block space-separated.
//
// HDF5: the group /analysis/row_periods with one entry per row in the 1-D datasets row,
// preperiod, period, periods_observed (uint64; 0 where the row is undetermined or, for
// periods_observed, certified) and certified (uint8), and the blocks of g - x + 2y concatenated
// in block_values (uint16 where every value fits, else uint32; chunked, shuffle + deflate) with
// block_offsets (uint64, rows + 1 entries: row i's block is
// block_values[block_offsets[i]:block_offsets[i + 1]]).
#include "io/row_periods_format.hpp"

#include <algorithm>
#include <string_view>

#include "base/atomic_file.hpp"
#include "grundy/error.hpp"
#include "io/h5_attributes.hpp"
#include "io/h5_handle.hpp"
#include "io/row_periods_group.hpp"

namespace grundy {
namespace {

using io::H5Handle;

// A 1-D dataset of `v`, stored as `file_type`; long ones chunked with shuffle + deflate (the
// blocks of a few hundred rows run to hundreds of millions of small values).
template <typename T>
void write_vector(hid_t group, const char* name, hid_t mem_type, hid_t file_type,
                  const std::vector<T>& v, const std::string& long_name, const std::string& path) {
    const uint64_t chunk = v.size() > 4096 ? std::min<uint64_t>(v.size(), uint64_t{1} << 20) : 0;
    H5Handle ds = io::create_vector_dataset(group, name, file_type, v.size(), chunk, 4);
    if (!ds.valid()) throw Error(std::string("cannot create dataset ") + name + " in " + path);
    if (!v.empty() && H5Dwrite(ds.get(), mem_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()) < 0)
        throw Error(std::string("cannot write dataset ") + name + " in " + path);
    // long_name: what netCDF-4 tools and xarray show for a variable (CF conventions).
    io::write_attribute(ds.get(), "long_name", long_name);
}

template <class Value>
void write_blocks(hid_t g, const std::vector<RowPeriod>& rows, hid_t mem_type, hid_t file_type,
                  const std::string& path) {
    std::vector<Value> values;
    std::vector<uint64_t> offsets{0};
    for (const RowPeriod& r : rows) {
        for (const uint32_t v : r.block) values.push_back(static_cast<Value>(v));
        offsets.push_back(values.size());
    }
    write_vector(g, "block_values", mem_type, file_type, values,
                 "one period of g(x, y) - x + 2y per row from its preperiod, rows one after "
                 "another",
                 path);
    write_vector(g, "block_offsets", H5T_NATIVE_UINT64, H5T_STD_U64LE, offsets,
                 "where row y's block starts in block_values (one more entry than rows: the end)",
                 path);
}

}  // namespace

namespace {

constexpr char kCsvHeader[] = "row,preperiod,period,periods_observed,certified,block\n";

// One row's line of the CSV, its newline included.
void csv_line(const RowPeriod& r, bool blocks, std::string& line) {
    line = std::to_string(r.row) + ',';
    if (const auto& p = r.periodicity)
        line += std::to_string(p->preperiod) + ',' + std::to_string(p->period) + ',' +
                (r.certified ? std::string() : std::to_string(p->periods_observed)) + ',';
    else
        line += ",,,";
    line += r.certified ? "1," : "0,";
    for (size_t i = 0; blocks && i < r.block.size(); ++i) {
        if (i) line += ' ';
        line += std::to_string(r.block[i]);
    }
    line += '\n';
}

// The header and the rows, to a file being written or to a stream.
template <class Out>
void write_csv_rows(Out& out, const std::vector<RowPeriod>& rows, bool blocks) {
    out << std::string_view(kCsvHeader);
    std::string line;
    for (const RowPeriod& r : rows) {
        csv_line(r, blocks, line);
        out << std::string_view(line);
    }
}

}  // namespace

void write_row_periods_csv(const std::string& path, const std::vector<RowPeriod>& rows,
                           const std::vector<std::string>& comment, bool blocks) {
    base::AtomicTextFile out(path);
    for (const auto& c : comment) out << "# " << c << "\n";
    write_csv_rows(out, rows, blocks);
    out.commit();
}

void write_row_periods_csv(std::ostream& out, const std::vector<RowPeriod>& rows, bool blocks) {
    write_csv_rows(out, rows, blocks);
}

namespace io {

H5Handle write_row_periods_group(hid_t analysis, const std::vector<RowPeriod>& rows,
                                 const std::string& path) {
    // Earlier layouts: a [rows, 4] dataset row_periods beside row_blocks and row_block_offsets.
    for (const char* old : {"row_periods", "row_blocks", "row_block_offsets"})
        if (H5Lexists(analysis, old, H5P_DEFAULT) > 0) H5Ldelete(analysis, old, H5P_DEFAULT);
    H5Handle group(H5Gcreate2(analysis, "row_periods", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                   H5Gclose);
    if (!group.valid()) throw Error("cannot create /analysis/row_periods in " + path);
    std::vector<uint64_t> row, pre, per, observed;
    std::vector<uint8_t> certified;
    uint64_t largest_row = 0;
    for (const RowPeriod& r : rows) {
        // Zeros where the row is undetermined (a certified row's periods_observed is 0).
        const Periodicity p = r.periodicity.value_or(Periodicity{});
        row.push_back(r.row);
        pre.push_back(p.preperiod);
        per.push_back(p.period);
        observed.push_back(p.periods_observed);
        certified.push_back(r.certified);
        largest_row = std::max(largest_row, r.row);
    }
    const hid_t g = group.get();
    const struct {
        const char* name;
        const std::vector<uint64_t>& values;
        const char* long_name;
    } columns[] = {
        {"row", row, "row y"},
        {"preperiod", pre, "preperiod of g(x, y) - x along row y (0: undetermined)"},
        {"period", per, "period of g(x, y) - x along row y (0: undetermined)"},
        {"periods_observed", observed,
         "whole periods in the stored columns from the preperiod (0: undetermined or certified)"},
    };
    for (const auto& c : columns)
        write_vector(g, c.name, H5T_NATIVE_UINT64, H5T_STD_U64LE, c.values, c.long_name, path);
    write_vector(g, "certified", H5T_NATIVE_UINT8, H5T_STD_U8LE, certified,
                 "1: periodic for ever (certificate in the attributes), 0: in the stored columns",
                 path);
    // Block values g - x + 2y <= 3y.
    if (3 * largest_row <= 0xFFFF)
        write_blocks<uint16_t>(g, rows, H5T_NATIVE_UINT16, H5T_STD_U16LE, path);
    else
        write_blocks<uint32_t>(g, rows, H5T_NATIVE_UINT32, H5T_STD_U32LE, path);
    io::write_attribute(g, "layout",
                        std::string("one entry per row in row, preperiod, period, "
                                    "periods_observed, certified; row i's block is "
                                    "block_values[block_offsets[i]:block_offsets[i + 1]]"));
    return group;
}

namespace {

// A 1-D dataset of `group` as uint64 values; false when it is missing or cannot be read.
bool read_column(hid_t group, const char* name, std::vector<uint64_t>& v) {
    if (H5Lexists(group, name, H5P_DEFAULT) <= 0) return false;
    H5Handle ds(H5Dopen2(group, name, H5P_DEFAULT), H5Dclose);
    if (!ds.valid()) return false;
    H5Handle space(H5Dget_space(ds.get()), H5Sclose);
    const hssize_t n = H5Sget_simple_extent_npoints(space.get());
    if (n < 0) return false;
    v.resize(static_cast<size_t>(n));
    return n == 0 ||
           H5Dread(ds.get(), H5T_NATIVE_UINT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()) >= 0;
}

}  // namespace

std::optional<std::vector<RowPeriod>> read_row_periods(const std::string& path) {
    silence_hdf5_errors();
    H5Handle file(H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
    if (!file.valid() || H5Lexists(file.get(), "analysis", H5P_DEFAULT) <= 0 ||
        H5Lexists(file.get(), "analysis/row_periods", H5P_DEFAULT) <= 0)
        return std::nullopt;
    H5Handle group(H5Gopen2(file.get(), "analysis/row_periods", H5P_DEFAULT), H5Gclose);
    if (!group.valid()) return std::nullopt;
    const hid_t g = group.get();
    std::vector<uint64_t> row, pre, period, observed, certified;
    if (!read_column(g, "row", row) || !read_column(g, "preperiod", pre) ||
        !read_column(g, "period", period) || row.size() != pre.size() ||
        row.size() != period.size())
        return std::nullopt;
    if (!read_column(g, "periods_observed", observed) || observed.size() != row.size())
        observed.assign(row.size(), 0);
    if (!read_column(g, "certified", certified) || certified.size() != row.size())
        certified.assign(row.size(), 0);
    std::vector<RowPeriod> rows(row.size());
    for (size_t i = 0; i < row.size(); ++i) {
        rows[i].row = row[i];
        rows[i].certified = certified[i] != 0;
        if (period[i])
            rows[i].periodicity = Periodicity{
                .period = period[i], .preperiod = pre[i], .periods_observed = observed[i]};
    }
    return rows;
}

}  // namespace io
}  // namespace grundy
