#include "io/h5_attributes.hpp"

#include <vector>

#include "grundy/error.hpp"
#include "io/h5_handle.hpp"

namespace grundy::io {

void silence_hdf5_errors() {
    // The thread-safe HDF5 keeps one error stack, and one printing switch, per thread: every
    // thread that calls HDF5 must turn it off, once.
    thread_local bool silenced = false;
    if (silenced) return;
    H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
    silenced = true;
}

namespace {

void write_scalar(hid_t object, const char* name, hid_t file_type, hid_t mem_type,
                  const void* value) {
    if (H5Aexists(object, name) > 0) H5Adelete(object, name);
    H5Handle space(H5Screate(H5S_SCALAR), H5Sclose);
    H5Handle attr(H5Acreate2(object, name, file_type, space.get(), H5P_DEFAULT, H5P_DEFAULT),
                  H5Aclose);
    if (!attr.valid() || H5Awrite(attr.get(), mem_type, value) < 0)
        throw Error(std::string("cannot write attribute ") + name);
}

H5Handle open_attribute(hid_t object, const char* name) {
    if (H5Aexists(object, name) <= 0) return {};
    return H5Handle(H5Aopen(object, name, H5P_DEFAULT), H5Aclose);
}

}  // namespace

void write_attribute(hid_t object, const char* name, int32_t value) {
    write_scalar(object, name, H5T_STD_I32LE, H5T_NATIVE_INT32, &value);
}
void write_attribute(hid_t object, const char* name, int64_t value) {
    write_scalar(object, name, H5T_STD_I64LE, H5T_NATIVE_INT64, &value);
}
void write_attribute(hid_t object, const char* name, uint64_t value) {
    write_scalar(object, name, H5T_STD_U64LE, H5T_NATIVE_UINT64, &value);
}
void write_attribute(hid_t object, const char* name, double value) {
    write_scalar(object, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, &value);
}
void write_attribute(hid_t object, const char* name, const std::string& value) {
    H5Handle type(H5Tcopy(H5T_C_S1), H5Tclose);
    H5Tset_size(type.get(), H5T_VARIABLE);
    H5Tset_cset(type.get(), H5T_CSET_UTF8);
    const char* p = value.c_str();
    write_scalar(object, name, type.get(), type.get(), &p);
}

std::optional<int64_t> read_int_attribute(hid_t object, const char* name) {
    H5Handle attr = open_attribute(object, name);
    if (!attr.valid()) return std::nullopt;
    H5Handle type(H5Aget_type(attr.get()), H5Tclose);
    if (H5Tget_class(type.get()) != H5T_INTEGER) return std::nullopt;
    int64_t v = 0;
    if (H5Aread(attr.get(), H5T_NATIVE_INT64, &v) < 0) return std::nullopt;
    return v;
}

std::optional<double> read_double_attribute(hid_t object, const char* name) {
    H5Handle attr = open_attribute(object, name);
    if (!attr.valid()) return std::nullopt;
    H5Handle type(H5Aget_type(attr.get()), H5Tclose);
    const H5T_class_t c = H5Tget_class(type.get());
    if (c != H5T_FLOAT && c != H5T_INTEGER) return std::nullopt;
    double v = 0;
    if (H5Aread(attr.get(), H5T_NATIVE_DOUBLE, &v) < 0) return std::nullopt;
    return v;
}

std::optional<std::string> read_string_attribute(hid_t object, const char* name) {
    H5Handle attr = open_attribute(object, name);
    if (!attr.valid()) return std::nullopt;
    H5Handle type(H5Aget_type(attr.get()), H5Tclose);
    if (H5Tget_class(type.get()) != H5T_STRING) return std::nullopt;
    if (H5Tis_variable_str(type.get()) > 0) {
        H5Handle mem(H5Tcopy(H5T_C_S1), H5Tclose);
        H5Tset_size(mem.get(), H5T_VARIABLE);
        H5Tset_cset(mem.get(), H5Tget_cset(type.get()));  // no conversion between character sets
        char* p = nullptr;
        if (H5Aread(attr.get(), mem.get(), &p) < 0 || !p) return std::nullopt;
        std::string s(p);
        H5free_memory(p);
        return s;
    }
    const size_t n = H5Tget_size(type.get());
    std::vector<char> buf(n + 1, '\0');
    H5Handle mem(H5Tcopy(H5T_C_S1), H5Tclose);
    H5Tset_size(mem.get(), n + 1);
    H5Tset_cset(mem.get(), H5Tget_cset(type.get()));
    if (H5Aread(attr.get(), mem.get(), buf.data()) < 0) return std::nullopt;
    return std::string(buf.data());
}

H5Handle create_vector_dataset(hid_t parent, const char* name, hid_t file_type, uint64_t n,
                               uint64_t chunk, int deflate_level) {
    const hsize_t dims[1] = {n};
    H5Handle space(H5Screate_simple(1, dims, nullptr), H5Sclose);
    H5Handle dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
    if (chunk > 0) {
        const hsize_t chunk_dims[1] = {chunk};
        H5Pset_chunk(dcpl.get(), 1, chunk_dims);
        H5Pset_shuffle(dcpl.get());
        H5Pset_deflate(dcpl.get(), static_cast<unsigned>(deflate_level));
    }
    return H5Handle(
        H5Dcreate2(parent, name, file_type, space.get(), H5P_DEFAULT, dcpl.get(), H5P_DEFAULT),
        H5Dclose);
}

}  // namespace grundy::io
