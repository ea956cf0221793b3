// Reading the HDF5 output of `grundy periods` in tests, through HDF5's C API alone: the
// attributes a stopped run leaves in /analysis/row_periods.
#pragma once

#include <gtest/gtest.h>
#include <hdf5.h>

#include <cstdint>
#include <string>

namespace grundy::testing {

// An integer attribute of `object`, -1 where it is missing.
inline int64_t int_attribute(hid_t object, const char* name) {
    int64_t v = -1;
    if (H5Aexists(object, name) <= 0) return -1;
    const hid_t a = H5Aopen(object, name, H5P_DEFAULT);
    if (a < 0) return -1;
    H5Aread(a, H5T_NATIVE_INT64, &v);
    H5Aclose(a);
    return v;
}

// A variable-length string attribute of `object`, "" where it is missing.
inline std::string string_attribute(hid_t object, const char* name) {
    if (H5Aexists(object, name) <= 0) return "";
    const hid_t a = H5Aopen(object, name, H5P_DEFAULT);
    const hid_t type = H5Tcopy(H5T_C_S1);
    H5Tset_size(type, H5T_VARIABLE);
    H5Tset_cset(type, H5T_CSET_UTF8);
    char* text = nullptr;
    std::string value;
    if (H5Aread(a, type, &text) >= 0 && text) value = text;
    if (text) H5free_memory(text);
    H5Tclose(type);
    H5Aclose(a);
    return value;
}

// A stopped run's rows seen to repeat past what it holds, as its HDF5 output names them: rows
// certified_rows..rows-1 with `period`, too long for the "ring" or the "tables"; rows 0 for
// none (the attributes absent).
inline void expect_repeating_hdf5(const std::string& path, int64_t rows, int64_t period,
                                  const std::string& too_long_for) {
    const hid_t f = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
    ASSERT_GE(f, 0) << path;
    const hid_t g = H5Gopen2(f, "/analysis/row_periods", H5P_DEFAULT);
    EXPECT_GE(g, 0) << path;
    EXPECT_EQ(int_attribute(g, "repeating_rows"), rows ? rows : -1);
    EXPECT_EQ(int_attribute(g, "repeating_period"), rows ? period : -1);
    EXPECT_EQ(string_attribute(g, "repeating_too_long_for"), rows ? too_long_for : "");
    H5Gclose(g);
    H5Fclose(f);
}

}  // namespace grundy::testing
