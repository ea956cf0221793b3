// Scalar attributes on HDF5 objects: integers, doubles and UTF-8 strings (variable length, so
// h5py returns them as str). Writing an existing attribute replaces its value.
#pragma once

#include <hdf5.h>

#include <cstdint>
#include <optional>
#include <string>

namespace grundy::io {

void write_attribute(hid_t object, const char* name, int32_t value);
void write_attribute(hid_t object, const char* name, int64_t value);
void write_attribute(hid_t object, const char* name, uint64_t value);
void write_attribute(hid_t object, const char* name, double value);
void write_attribute(hid_t object, const char* name, const std::string& value);

// Reading, for any integer or string attribute; nullopt when absent or of another kind.
std::optional<int64_t> read_int_attribute(hid_t object, const char* name);
std::optional<double> read_double_attribute(hid_t object, const char* name);
std::optional<std::string> read_string_attribute(hid_t object, const char* name);

}  // namespace grundy::io
