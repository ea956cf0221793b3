// grundy.row_periods, verify, p_positions, properties: the analysis passes of `grundy analyze`
// and `grundy verify` over a numpy array (grundy/array_analysis.hpp), a grundy.Table or a path,
// with their results as Python objects.
#include <memory>
#include <variant>

#include "grundy/analysis.hpp"
#include "grundy/array_analysis.hpp"
#include "python/common.hpp"
#include "python/stored.hpp"

namespace grundy::python {
namespace {

// What an analysis reads: an array (kept alive here, and viewed without a copy where it holds
// uint16 or uint32 values with contiguous rows) or a stored table.
struct Source {
    py::array array;  // holds the values the view points into
    TableArray view;
    std::shared_ptr<Hdf5TableReader> file;
};

Source source_of(py::handle table) {
    Source s;
    if (py::isinstance<StoredTable>(table)) {
        s.file = table.cast<const StoredTable&>().reader;
        if (!s.file) throw py::value_error("the table is closed");
        return s;
    }
    if (py::isinstance<py::str>(table) || py::hasattr(table, "__fspath__")) {
        const std::string path = path_arg(table, "table");
        const Hdf5Lock hdf5;
        s.file = file_call([&] { return std::make_shared<Hdf5TableReader>(path); });
        return s;
    }
    if (!py::isinstance<py::array>(table))
        throw py::type_error("table must be a 2-d numpy array, a grundy.Table or a path, not " +
                             std::string(py::str(py::type::of(table).attr("__name__"))));
    py::array a = py::reinterpret_borrow<py::array>(table);
    if (a.ndim() != 2)
        throw py::value_error("table must be a 2-d array [y, x], not " + std::to_string(a.ndim()) +
                              "-d");
    const char kind = a.dtype().kind();
    if (kind != 'u' && kind != 'i')
        throw py::type_error("table must hold integers, not " + std::string(py::str(a.dtype())));
    const bool u16 = a.dtype().is(py::dtype::of<uint16_t>());
    const bool u32 = a.dtype().is(py::dtype::of<uint32_t>());
    const auto item = static_cast<py::ssize_t>(u16 ? 2 : 4);
    const bool viewable = (u16 || u32) && a.strides(1) == item && a.strides(0) >= 0 &&
                          a.strides(0) % item == 0 &&
                          (a.shape(0) <= 1 || a.strides(0) >= a.shape(1) * item);
    if (!viewable) {
        // Other integer types and strided views: one copy as uint32; negative values (never
        // in a Grundy table) would wrap to huge ones, which the checks then report.
        if (kind == 'i' && a.size() > 0 &&
            py::module_::import("numpy").attr("min")(a).cast<int64_t>() < 0)
            throw py::value_error("table holds negative values: not a Grundy table");
        a = py::array_t<uint32_t, py::array::c_style | py::array::forcecast>::ensure(a);
        if (!a) throw py::error_already_set();
    }
    s.array = a;
    s.view.rows = static_cast<uint64_t>(a.shape(0));
    s.view.cols = static_cast<uint64_t>(a.shape(1));
    const py::ssize_t itemsize = a.itemsize();
    s.view.stride = s.view.rows > 1 ? static_cast<uint64_t>(a.strides(0) / itemsize) : s.view.cols;
    if (itemsize == 2)
        s.view.values16 = static_cast<const uint16_t*>(a.data());
    else
        s.view.values32 = static_cast<const uint32_t*>(a.data());
    return s;
}

// Runs f(file) or f(view) with the GIL released (and HDF5's lock for a file).
template <class F>
auto run_on(py::handle table, F&& f) {
    Source s = source_of(table);
    if (s.file) {
        const Hdf5Lock hdf5;
        py::gil_scoped_release release;
        auto result = file_call([&] { return f(*s.file); });
        s.file.reset();  // closes a file opened here by path: an HDF5 call, under the lock
        return result;
    }
    py::gil_scoped_release release;
    return f(s.view);
}

py::object optional_string(const std::optional<std::string>& s) {
    return s ? py::object(py::str(*s)) : py::object(py::none());
}

// The `table` argument of every analysis, for their docstrings.
#define GRUNDY_TABLE_ARG                                                                   \
    "\n\ntable: a 2-d numpy array t[y, x] = g(x, y) (uint16 or uint32 are read in place, " \
    "other integer types are converted), a grundy.Table or the path of a stored table. "   \
    "The GIL is released while the pass runs."

// Binds name(table, *, threads=0): pass(source, threads) on an array, a Table or a path.
template <class Pass>
void def_table_pass(py::module_& m, const char* name, Pass pass, const char* doc) {
    m.def(
        name,
        [pass](py::handle table, py::handle threads) {
            const int t = threads_arg(threads);
            return run_on(table, [&](const auto& source) { return pass(source, t); });
        },
        py::arg("table"), py::kw_only(), py::arg("threads") = 0, doc);
}

}  // namespace

void bind_analysis(py::module_& m) {
    py::class_<RowPeriod>(m, "RowPeriod",
                          R"(The period of one row, found by row_periods() or certified.

row: y. period, preperiod: of d(x) = g(x, y) - x; None when the row is undetermined (no period p
<= X/4 with preperiod <= X/2 in the stored columns). certified: True for the rows of
certify_row_periods(), whose period and preperiod are exact and hold for ever. periods_observed:
whole periods in the stored columns from the preperiod; None when undetermined or certified.
block: g(x, y) - x + 2y for x = preperiod .. preperiod + period - 1, a numpy uint32 array (values
0..3y; empty where one would not fit 32 bits: a row above (2^32 - 1) / 3, or an array that breaks
Wythoff's bounds).)")
        .def_readonly("row", &RowPeriod::row)
        .def_property_readonly("period",
                               [](const RowPeriod& r) -> py::object {
                                   return r.periodicity ? py::int_(r.periodicity->period)
                                                        : py::object(py::none());
                               })
        .def_property_readonly("preperiod",
                               [](const RowPeriod& r) -> py::object {
                                   return r.periodicity ? py::int_(r.periodicity->preperiod)
                                                        : py::object(py::none());
                               })
        .def_property_readonly("periods_observed",
                               [](const RowPeriod& r) -> py::object {
                                   return r.periodicity && !r.certified
                                              ? py::int_(r.periodicity->periods_observed)
                                              : py::object(py::none());
                               })
        .def_property_readonly(
            "determined", [](const RowPeriod& r) { return r.periodicity.has_value(); },
            "Whether the row has a period (always, for a certified row).")
        .def_readonly("certified", &RowPeriod::certified)
        .def_property_readonly("block",
                               [](const RowPeriod& r) {
                                   return py::array_t<uint32_t>(
                                       static_cast<py::ssize_t>(r.block.size()), r.block.data());
                               })
        .def("__repr__", [](const RowPeriod& r) {
            if (!r.periodicity) return "RowPeriod(row=" + std::to_string(r.row) + ", undetermined)";
            return "RowPeriod(row=" + std::to_string(r.row) +
                   ", preperiod=" + std::to_string(r.periodicity->preperiod) +
                   ", period=" + std::to_string(r.periodicity->period) +
                   (r.certified ? ", certified)" : ")");
        });

    m.attr("ROW_PERIOD_CRITERION") = kRowPeriodCriterion;

    def_table_pass(
        m, "row_periods", [](const auto& source, int t) { return row_periods(source, t); },
        R"(row_periods(table, *, threads=0) -> list[RowPeriod]

The period of every row by the project's one criterion (grundy.ROW_PERIOD_CRITERION, as
`grundy analyze`): d(x) = g(x, y) - x, the least period p <= X/4 whose preperiod is <= X/2.
)" GRUNDY_TABLE_ARG);

    m.def(
        "row_period",
        [](py::array_t<int64_t, py::array::c_style | py::array::forcecast> row, py::handle y) {
            if (row.ndim() != 1) throw py::value_error("row must be 1-d");
            const uint64_t yy = whole_number(y, "y", 0, uint64_t{1} << 31);
            std::vector<uint32_t> values(static_cast<size_t>(row.size()));
            for (size_t i = 0; i < values.size(); ++i) {
                const int64_t v = row.data()[i];
                if (v < 0 || v > int64_t{0xffffffff})
                    throw py::value_error("row holds " + std::to_string(v) +
                                          ": not a value of a Grundy table");
                values[i] = static_cast<uint32_t>(v);
            }
            return row_period(values, yy);
        },
        py::arg("row"), py::arg("y"),
        R"(row_period(row, y) -> RowPeriod

The criterion of row_periods applied to one row: row[x] = g(x, y) for x = 0..len(row)-1.)");

    py::class_<WrongCell>(m, "WrongCell", "A cell whose value is not the mex of its options.")
        .def_readonly("x", &WrongCell::x)
        .def_readonly("y", &WrongCell::y)
        .def_readonly("found", &WrongCell::found, "The value stored.")
        .def_readonly("expected", &WrongCell::expected, "The mex of its options.")
        .def("__str__", &WrongCell::describe)
        .def("__repr__", [](const WrongCell& w) { return "WrongCell(" + w.describe() + ")"; });

    py::class_<VerifyReport>(m, "VerifyReport", "The result of verify().")
        .def_readonly("cells_checked", &VerifyReport::cells_checked)
        .def_readonly("wrong", &VerifyReport::wrong,
                      "The first wrong cell (bands of columns left to right, rows bottom up), "
                      "or None.")
        .def_property_readonly("ok", &VerifyReport::ok)
        .def("__bool__", &VerifyReport::ok, "True when every cell is right.")
        .def("__repr__", [](const VerifyReport& r) {
            return "VerifyReport(" +
                   (r.ok() ? std::string("ok") : "wrong: " + r.wrong->describe()) + ", " +
                   std::to_string(r.cells_checked) + " cells checked)";
        });

    def_table_pass(
        m, "verify", [](const auto& source, int t) { return verify_table(source, t); },
        R"(verify(table, *, threads=0) -> VerifyReport

Every cell against the mex of its options (as `grundy verify`), by a method that shares no code
with the engine; report.wrong names the first wrong cell. )" GRUNDY_TABLE_ARG);

    py::class_<PPositionReport>(m, "PPositionReport", "The result of p_positions().")
        .def_readonly("zeros", &PPositionReport::zeros, "Cells holding 0.")
        .def_readonly("expected", &PPositionReport::expected,
                      "P-positions (a_n, a_n + n) and mirrored inside the table.")
        .def_property_readonly(
            "first_disagreement",
            [](const PPositionReport& r) { return optional_string(r.first_disagreement); })
        .def_property_readonly("ok", &PPositionReport::ok)
        .def("__bool__", &PPositionReport::ok)
        .def("__repr__", [](const PPositionReport& r) {
            return "PPositionReport(zeros=" + std::to_string(r.zeros) +
                   ", expected=" + std::to_string(r.expected) + ", " +
                   r.first_disagreement.value_or("ok") + ")";
        });

    def_table_pass(
        m, "p_positions", [](const auto& source, int t) { return check_ppositions(source, t); },
        R"(p_positions(table, *, threads=0) -> PPositionReport

The zeros of the table against the P-positions (a_n, a_n + n) and (a_n + n, a_n), a_n =
floor(n phi) in exact integers. )" GRUNDY_TABLE_ARG);

    py::class_<PropertyCheck>(m, "PropertyCheck", "One check of properties().")
        .def_readonly("name", &PropertyCheck::name)
        .def_readonly("checked", &PropertyCheck::checked, "Cells, rows or pairs looked at.")
        .def_property_readonly(
            "first_violation",
            [](const PropertyCheck& c) { return optional_string(c.first_violation); })
        .def_property_readonly("ok", [](const PropertyCheck& c) { return !c.first_violation; })
        .def("__repr__", [](const PropertyCheck& c) {
            return "PropertyCheck(" + c.name + ": " + c.first_violation.value_or("ok") + ")";
        });

    py::class_<PropertiesReport>(m, "PropertiesReport", "The result of properties().")
        .def_readonly("checks", &PropertiesReport::checks)
        .def_readonly("method", &PropertiesReport::method)
        .def_property_readonly("ok", &PropertiesReport::ok)
        .def("__bool__", &PropertiesReport::ok)
        .def(
            "as_dict",
            [](const PropertiesReport& r) {
                py::dict d;
                for (const PropertyCheck& c : r.checks)
                    d[c.name.c_str()] = optional_string(c.first_violation);
                return d;
            },
            "{check name: first violation or None}.")
        .def("__repr__", [](const PropertiesReport& r) {
            std::string s = "PropertiesReport(";
            for (const PropertyCheck& c : r.checks)
                s += c.name + ": " + c.first_violation.value_or("ok") + "; ";
            return s + ")";
        });

    def_table_pass(
        m, "properties", [](const auto& source, int t) { return check_properties(source, t); },
        R"(properties(table, *, threads=0) -> PropertiesReport

The known properties, as `grundy analyze`: symmetry, the bounds x - 2y <= g <= x + y, no value
twice in a row, column or diagonal, and every value below X - 2y in row y. )" GRUNDY_TABLE_ARG);
}

}  // namespace grundy::python
