// H5Handle: owns one HDF5 identifier and closes it with the right H5?close.
#pragma once

#include <hdf5.h>

#include <cstdint>
#include <utility>

namespace grundy::io {

class H5Handle {
  public:
    using Closer = herr_t (*)(hid_t);
    H5Handle() = default;
    H5Handle(hid_t id, Closer closer) : id_(id), closer_(closer) {}
    H5Handle(H5Handle&& o) noexcept
        : id_(std::exchange(o.id_, H5I_INVALID_HID)), closer_(o.closer_) {}
    H5Handle& operator=(H5Handle&& o) noexcept {
        if (this != &o) {
            reset();
            id_ = std::exchange(o.id_, H5I_INVALID_HID);
            closer_ = o.closer_;
        }
        return *this;
    }
    ~H5Handle() { reset(); }

    hid_t get() const { return id_; }
    bool valid() const { return id_ >= 0; }
    // Closes now; returns false if HDF5 reports an error while closing (e.g. a full disk).
    bool reset() {
        bool ok = true;
        if (id_ >= 0 && closer_) ok = closer_(id_) >= 0;
        id_ = H5I_INVALID_HID;
        return ok;
    }

  private:
    hid_t id_ = H5I_INVALID_HID;
    Closer closer_ = nullptr;
};

// A new 1-D dataset of n values stored as `file_type`, chunked by `chunk` values (0:
// contiguous) with shuffle + deflate at `deflate_level`; invalid where HDF5 refused it.
H5Handle create_vector_dataset(hid_t parent, const char* name, hid_t file_type, uint64_t n,
                               uint64_t chunk, int deflate_level);

// HDF5 prints its error stack to stderr by default (20 lines of HDF5-DIAG for a full disk);
// the library reports errors itself, in one line. The switch is per thread (thread-safe
// HDF5): call this in every thread before its first HDF5 call. Cheap after the first call.
void silence_hdf5_errors();

}  // namespace grundy::io
