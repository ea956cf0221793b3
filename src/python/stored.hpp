// grundy.Table, shared with the analyses (which take a Table as well as an array or a path).
#pragma once

#include <memory>
#include <string>

#include "grundy/hdf5_reader.hpp"
#include "python/common.hpp"

namespace grundy::python {

struct StoredTable {
    StoredTable(const std::string& path, bool allow_incomplete);
    StoredTable(const StoredTable&) = default;
    StoredTable& operator=(const StoredTable&) = default;
    ~StoredTable();
    // Drops this object's hold on the file, closed once no iterator over its bands holds it.
    void close();
    // Shared with the iterators over its bands, which may outlive the Python object.
    std::shared_ptr<Hdf5TableReader> reader;

    // The reader, or ValueError once the table is closed.
    const Hdf5TableReader& get() const {
        if (!reader) throw py::value_error("the table is closed");
        return *reader;
    }
    py::dtype dtype() const;
    // Rows y0..y0+h-1, columns x0..x0+w-1 as a new (h, w) array of dtype().
    py::array read(uint64_t x0, uint64_t y0, uint64_t w, uint64_t h) const;
};

}  // namespace grundy::python
