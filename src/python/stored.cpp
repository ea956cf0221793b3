// grundy.open and grundy.Table: a stored table read through the library's reader (its checks,
// its own decoding of deflate and Blosc chunks), as numpy arrays of any rectangle or band.
#include <memory>
#include <vector>

#include "grundy/hdf5_reader.hpp"
#include "grundy/hdf5_writer.hpp"
#include "python/common.hpp"
#include "python/stored.hpp"

namespace grundy::python {
namespace {

// The root attributes src/DESIGN.md promises (section 5.2), read as int, float or str,
// whichever they are.
const char* const kAttributes[] = {"game",
                                   "rows",
                                   "cols",
                                   "software",
                                   "software_version",
                                   "created",
                                   "threads",
                                   "elapsed_seconds",
                                   "tile",
                                   "mex_kernel",
                                   "compression",
                                   "resumable",
                                   "resumed_runs",
                                   "complete"};

struct Range {
    uint64_t start = 0, stop = 0, step = 1;
    bool index = false;  // an integer: the dimension is dropped
    uint64_t size() const { return stop > start ? (stop - start + step - 1) / step : 0; }
};

Range range_of(py::handle key, uint64_t n, const char* axis) {
    Range r;
    if (py::isinstance<py::slice>(key)) {
        py::ssize_t start = 0, stop = 0, step = 0, length = 0;
        if (!key.cast<py::slice>().compute(static_cast<py::ssize_t>(n), &start, &stop, &step,
                                           &length))
            throw py::error_already_set();
        if (step <= 0) throw py::value_error("a table is sliced with positive steps only");
        r.start = static_cast<uint64_t>(start);
        r.step = static_cast<uint64_t>(step);
        r.stop = length > 0 ? r.start + static_cast<uint64_t>(length - 1) * r.step + 1 : r.start;
        return r;
    }
    if (PyBool_Check(key.ptr()) || !PyIndex_Check(key.ptr()))
        throw py::type_error(std::string("a table's ") + axis +
                             " index must be an int or a slice, not " +
                             std::string(py::str(py::type::of(key).attr("__name__"))));
    const long long i =
        py::reinterpret_steal<py::int_>(PyNumber_Index(key.ptr())).cast<long long>();
    const long long k = i < 0 ? i + static_cast<long long>(n) : i;
    if (k < 0 || static_cast<uint64_t>(k) >= n)
        throw py::index_error(std::string(axis) + " index " + std::to_string(i) +
                              " is out of range for " + std::to_string(n) + " " + axis + "s");
    r.start = static_cast<uint64_t>(k);
    r.stop = r.start + 1;
    r.index = true;
    return r;
}

template <class T>
void read_into(const Hdf5TableReader& t, uint64_t x0, uint64_t y0, uint64_t w, uint64_t h, T* to) {
    if constexpr (sizeof(T) == 4) {
        if (w > 0 && h > 0) t.read(x0, y0, w, h, to);
    } else {
        // Bands of at most 64 Mi values through a 32-bit buffer, never the whole rectangle.
        const uint64_t band = w ? std::max<uint64_t>(1, (uint64_t{1} << 26) / w) : h;
        std::vector<uint32_t> buffer;
        for (uint64_t y = 0; y < h && w > 0; y += band) {
            const uint64_t n = std::min(band, h - y);
            buffer.resize(n * w);
            t.read(x0, y0 + y, w, n, buffer.data());
            std::copy(buffer.begin(), buffer.end(), to + y * w);
        }
    }
}

template <class T>
py::array read_as(const Hdf5TableReader& t, uint64_t x0, uint64_t y0, uint64_t w, uint64_t h) {
    py::array_t<T> out = new_array<T>(h, w);
    T* to = out.mutable_data();
    const Hdf5Lock hdf5;
    py::gil_scoped_release release;
    // A chunk that does not decode (a damaged file) is a file problem: OSError.
    file_call([&] { read_into(t, x0, y0, w, h, to); });
    return out;
}

// The slice `:`.
py::object whole() {
    return py::reinterpret_steal<py::object>(PySlice_New(nullptr, nullptr, nullptr));
}

}  // namespace

StoredTable::StoredTable(const std::string& path, bool allow_incomplete) {
    const Hdf5Lock hdf5;
    reader = file_call([&] { return std::make_shared<Hdf5TableReader>(path, allow_incomplete); });
}

StoredTable::~StoredTable() {
    close();
}

void StoredTable::close() {
    if (!reader) return;
    // Closing the file is an HDF5 call: under the lock, like every other.
    const Hdf5Lock hdf5;
    reader.reset();
}

py::dtype StoredTable::dtype() const {
    return value_bytes(get().rows(), get().cols()) == 2 ? py::dtype::of<uint16_t>()
                                                        : py::dtype::of<uint32_t>();
}

py::array StoredTable::read(uint64_t x0, uint64_t y0, uint64_t w, uint64_t h) const {
    const Hdf5TableReader& r = get();
    return value_bytes(r.rows(), r.cols()) == 2 ? read_as<uint16_t>(r, x0, y0, w, h)
                                                : read_as<uint32_t>(r, x0, y0, w, h);
}

namespace {

py::object getitem(const StoredTable& t, py::handle key) {
    const uint64_t rows = t.get().rows(), cols = t.get().cols();
    py::object ky = whole();
    py::object kx = ky;
    if (py::isinstance<py::tuple>(key)) {
        const py::tuple k = key.cast<py::tuple>();
        if (k.size() > 2) throw py::index_error("a table has two indices, [y, x]");
        if (k.size() > 0) ky = k[0];
        if (k.size() > 1) kx = k[1];
    } else if (key.ptr() != Py_Ellipsis) {
        ky = py::reinterpret_borrow<py::object>(key);
    }
    if (ky.ptr() == Py_Ellipsis) ky = whole();
    if (kx.ptr() == Py_Ellipsis) kx = whole();
    const Range ry = range_of(ky, rows, "row"), rx = range_of(kx, cols, "column");
    // The bounding rectangle, then numpy's own steps and integer indices over it.
    py::object a = t.read(rx.start, ry.start, rx.stop - rx.start, ry.stop - ry.start);
    if (rx.size() == 0 || ry.size() == 0) a = t.read(0, 0, rx.size(), ry.size());
    if (ry.step != 1 || rx.step != 1)
        a = a[py::make_tuple(py::slice(0, static_cast<py::ssize_t>(ry.stop - ry.start),
                                       static_cast<py::ssize_t>(ry.step)),
                             py::slice(0, static_cast<py::ssize_t>(rx.stop - rx.start),
                                       static_cast<py::ssize_t>(rx.step)))];
    if (ry.index && rx.index) return a[py::make_tuple(0, 0)];
    if (ry.index) return a[py::int_(0)];
    if (rx.index) return a[py::make_tuple(whole(), 0)];
    // A strided view would keep the whole bounding rectangle alive: copy the few values.
    if (ry.step != 1 || rx.step != 1) a = py::module_::import("numpy").attr("ascontiguousarray")(a);
    return a;
}

py::dict attributes(const StoredTable& t) {
    py::dict d;
    const Hdf5Lock hdf5;
    for (const char* name : kAttributes) {
        if (const auto i = t.get().int_attribute(name))
            d[name] = *i;
        else if (const auto f = t.get().double_attribute(name))
            d[name] = *f;
        else if (const auto s = t.get().string_attribute(name))
            d[name] = *s;
    }
    return d;
}

// Iterates over bands of rows: (y0, array of shape (height, cols)), bottom up.
struct RowBands {
    StoredTable table;
    uint64_t height, y = 0;
};

}  // namespace

void bind_stored(py::module_& m) {
    py::class_<StoredTable>(
        m, "Table",
        R"(A table stored by grundy compute (or grundy.compute), opened with grundy.open.

t[y, x] is g(x, y); t[y0:y1, x0:x1] (any rectangle, steps, negative indices) reads it into a
numpy array of the file's type (uint16 or uint32), decoding deflate and Blosc chunks in the
library (no filter plugin needed). t.bands(height) iterates over bands of whole rows. Also
usable as an argument of row_periods, verify, p_positions and properties.)")
        .def_property_readonly(
            "shape",
            [](const StoredTable& t) { return py::make_tuple(t.get().rows(), t.get().cols()); },
            "(rows, cols), as numpy's shape: t[y, x] for y < rows, x < cols.")
        .def_property_readonly(
            "rows", [](const StoredTable& t) { return t.get().rows(); }, "Rows (y) of the table.")
        .def_property_readonly(
            "cols", [](const StoredTable& t) { return t.get().cols(); },
            "Columns (x) of the table.")
        .def_property_readonly("dtype", &StoredTable::dtype,
                               "numpy dtype of the values read: uint16 or uint32, as in the file.")
        .def_property_readonly(
            "chunks",
            [](const StoredTable& t) {
                return py::make_tuple(t.get().chunk_rows(), t.get().chunk_cols());
            },
            "The dataset's chunk shape (rows, cols); reads aligned on it decode each chunk once.")
        .def_property_readonly(
            "complete", [](const StoredTable& t) { return t.get().complete(); },
            "Whether the file's 'complete' attribute is 1 (only open(..., allow_incomplete=True) "
            "gives incomplete ones).")
        .def_property_readonly(
            "path", [](const StoredTable& t) { return t.get().path(); }, "The file's path.")
        .def_property_readonly("attrs", &attributes,
                               "The root attributes of the file (game, rows, cols, software, "
                               "created, threads, elapsed_seconds, tile, mex_kernel, compression, "
                               "complete, ...) as a dict of int, float and str.")
        .def(
            "__len__", [](const StoredTable& t) { return t.get().rows(); }, "Rows of the table.")
        .def("__getitem__", &getitem, py::arg("key"),
             "t[y, x], t[y0:y1, x0:x1], t[y] (one row), t[:, x] (one column), t[...] (all).")
        .def(
            "__array__",
            [](const StoredTable& t, py::object dtype) {
                py::array a = t.read(0, 0, t.get().cols(), t.get().rows());
                if (!dtype.is_none()) return py::array(a.attr("astype")(dtype));
                return a;
            },
            py::arg("dtype") = py::none(), "The whole table (numpy.asarray(t)).")
        .def(
            "bands",
            [](const StoredTable& t, py::handle height) {
                const uint64_t h = height.is_none()
                                       ? std::max<uint64_t>(1, t.get().chunk_rows())
                                       : whole_number(height, "height", 1, uint64_t{1} << 31);
                return RowBands{t, h};
            },
            py::arg("height") = py::none(),
            R"(bands(height=None)

Iterates over the table in bands of whole rows, bottom up: (y0, array) with array[j, x] =
g(x, y0 + j), `height` rows each (the last may have fewer); by default one chunk height, so
each chunk is decoded once. Only one band is in memory at a time.)")
        .def("close", &StoredTable::close, "Closes the file (the object is unusable afterwards).")
        .def("__enter__", [](StoredTable& t) -> StoredTable& { return t; })
        .def("__exit__", [](StoredTable& t, py::args) { t.close(); })
        .def("__repr__", [](const StoredTable& t) {
            if (!t.reader) return std::string("<grundy.Table (closed)>");
            return "<grundy.Table " + t.get().path() + ": " + std::to_string(t.get().rows()) +
                   " x " + std::to_string(t.get().cols()) + ">";
        });

    py::class_<RowBands>(m, "RowBands", "Iterator over bands of rows of a Table: (y0, array).")
        .def("__iter__", [](RowBands& b) -> RowBands& { return b; })
        .def("__next__", [](RowBands& b) {
            const uint64_t rows = b.table.get().rows();
            if (b.y >= rows) throw py::stop_iteration();
            const uint64_t y0 = b.y, h = std::min(b.height, rows - y0);
            b.y += h;
            return py::make_tuple(y0, b.table.read(0, y0, b.table.get().cols(), h));
        });

    m.def(
        "open",
        [](py::handle path, bool allow_incomplete) {
            return StoredTable(path_arg(path, "path"), allow_incomplete);
        },
        py::arg("path"), py::kw_only(), py::arg("allow_incomplete") = false,
        R"(open(path, *, allow_incomplete=False) -> Table

Opens a table written by grundy compute with the reader's checks: raises FileNotFoundError for
a missing file and OSError, with the grundy program's message, for a file that is not HDF5,
holds no /grundy table, has the wrong shape or type, or is incomplete (unless
allow_incomplete).)");
}

}  // namespace grundy::python
