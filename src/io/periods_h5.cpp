// The certified row periods in HDF5: a new file with /analysis/row_periods in the one
// row-periods layout (row_periods_format.cpp) and the certificate as the group's attributes
// x0, P, comparison_method, kernel, elapsed_seconds. Root attributes as for `compute` where they
// apply (game, software, created, rows) and complete = 1, written last.
#include <ctime>
#include <filesystem>

#include "grundy/error.hpp"
#include "grundy/periods.hpp"
#include "grundy/version.hpp"
#include "io/h5_attributes.hpp"
#include "io/h5_handle.hpp"
#include "io/row_periods_format.hpp"

namespace grundy {
using io::H5Handle;

void write_periods_hdf5(const std::string& path, const PeriodsResult& result, bool force) {
    io::silence_hdf5_errors();
    namespace fs = std::filesystem;
    std::error_code ec;
    if (!force && fs::exists(path, ec))
        throw ArgumentError("output file " + ArgumentError::literal(path) +
                            " exists (use {force} to overwrite it)");
    {
        H5Handle file(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose);
        if (!file.valid()) throw Error("cannot create " + path);
        const hid_t f = file.get();
        io::write_attribute(f, "complete", int32_t{0});
        io::write_attribute(f, "game", std::string("wythoff"));
        io::write_attribute(f, "software", std::string(kSoftwareName));
        io::write_attribute(f, "software_version", std::string(kVersion));
        io::write_attribute(f, "created", io::iso8601_now());
        io::write_attribute(f, "rows", uint64_t{result.rows.size()});
        H5Handle analysis(H5Gcreate2(f, "analysis", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
                          H5Gclose);
        H5Handle group = io::write_row_periods_group(analysis.get(), result.rows, path);
        const hid_t g = group.get();
        io::write_attribute(g, "x0", uint64_t{result.x0});
        io::write_attribute(g, "P", uint64_t{result.period});
        io::write_attribute(g, "comparison_method", result.method);
        io::write_attribute(g, "kernel", result.kernel);
        io::write_attribute(g, "elapsed_seconds", result.seconds);
        io::write_attribute(g, "description",
                            std::string("state after column x0 == state after column x0 + P, "
                                        "compared in full: g(x + P, y) = g(x, y) + P for all "
                                        "x > x0; block = g - x + 2y from the preperiod"));
        group.reset();
        analysis.reset();
        if (!file.reset()) throw Error("cannot finish writing " + path + " (disk full?)");
    }
    H5Handle file(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT), H5Fclose);
    if (!file.valid()) throw Error("cannot reopen " + path);
    io::write_attribute(file.get(), "complete", int32_t{1});
    if (!file.reset()) throw Error("cannot finish writing " + path + " (disk full?)");
}

}  // namespace grundy
