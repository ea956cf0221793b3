// The Python module `grundy`: the module object, its docstring, the translation of the library's
// errors, and the helpers of common.hpp. Each part of the library is bound in its own file.
#include <pybind11/pybind11.h>

#include <cctype>
#include <cstdio>
#include <string>
#include <string_view>

#include "base/utc_time.hpp"
#include "grundy/version.hpp"
#include "python/common.hpp"

namespace grundy::python {

std::mutex& hdf5_mutex() {
    static std::mutex mutex;
    return mutex;
}

uint64_t whole_number(py::handle value, const char* name, uint64_t min, uint64_t max) {
    const std::string range =
        "a whole number from " + std::to_string(min) + " to " + std::to_string(max);
    // bool is an int to Python, but rows=True is a mistake, not 1.
    if (PyBool_Check(value.ptr()) || !PyIndex_Check(value.ptr()))
        throw py::type_error(std::string(name) + " must be an int, not " +
                             std::string(py::str(py::type::of(value).attr("__name__"))));
    const py::int_ number = py::reinterpret_steal<py::int_>(PyNumber_Index(value.ptr()));
    if (!number) throw py::error_already_set();
    int overflow = 0;
    const long long v = PyLong_AsLongLongAndOverflow(number.ptr(), &overflow);
    const std::string text = py::str(static_cast<py::handle>(number));
    // As the CLI's parser: "is too large" for more than 19 digits, "must be" for the rest.
    if (overflow > 0 && text.size() > 19)
        throw py::value_error(std::string(name) + " is too large: must be " + range + ", got '" +
                              text + "'");
    if (overflow != 0 || v < 0 || static_cast<uint64_t>(v) < min || static_cast<uint64_t>(v) > max)
        throw py::value_error(std::string(name) + " must be " + range + ", got '" + text + "'");
    return static_cast<uint64_t>(v);
}

int threads_arg(py::handle value) {
    if (value.is_none()) return 0;
    const uint64_t t = whole_number(value, "threads", 0, 4096);
    return static_cast<int>(t);
}

namespace {

// Marks an argument whose spelling depends on what follows it (python_message).
constexpr char kValueMark = '\x1f';

// Python's spelling of a library argument: a flag as the keyword that sets it, any other
// argument as its name, marked so that python_message can add "=" when its value follows.
std::string python_name(std::string_view argument) {
    if (argument == "store=false") return "store=False";
    if (argument == "force" || argument == "resume") return std::string(argument) + "=True";
    return std::string(argument) + kValueMark;
}

}  // namespace

std::string python_message(const std::exception& e) {
    const auto* a = dynamic_cast<const ArgumentError*>(&e);
    if (!a) return e.what();
    // "{rows} 5000" is rows=5000 and "{checkpoint} FILE" checkpoint=FILE, as a call writes
    // them; "{kernel} must be ..." names the argument alone.
    const std::string marked = a->render(python_name);
    std::string out;
    for (size_t i = 0; i < marked.size(); ++i) {
        if (marked[i] != kValueMark) {
            out += marked[i];
            continue;
        }
        const bool value_follows = i + 2 < marked.size() && marked[i + 1] == ' ' &&
                                   !std::islower(static_cast<unsigned char>(marked[i + 2]));
        if (value_follows) {
            out += '=';
            ++i;  // the space
        }
    }
    return out;
}

std::string path_arg(py::handle value, const char* name) {
    if (py::isinstance<py::str>(value)) return value.cast<std::string>();
    if (py::hasattr(value, "__fspath__")) {
        const py::object p = value.attr("__fspath__")();
        if (py::isinstance<py::str>(p)) return p.cast<std::string>();
    }
    throw py::type_error(std::string(name) + " must be a str or os.PathLike, not " +
                         std::string(py::str(py::type::of(value).attr("__name__"))));
}

Progress::Progress(py::object how, uint64_t total, const char* unit, const char* what)
    : total_(total), unit_(unit), what_(what) {
    if (how.is_none() || (py::isinstance<py::bool_>(how) && !how.cast<bool>())) return;
    if (PyCallable_Check(how.ptr())) {
        callback_ = how;
        return;
    }
    if (!py::isinstance<py::bool_>(how))
        throw py::type_error("progress must be True, False, None or a callable(done, total)");
    try {
        const py::object tqdm = py::module_::import("tqdm").attr("tqdm");
        bar_ = tqdm(py::arg("total") = total, py::arg("unit") = unit, py::arg("unit_scale") = true,
                    py::arg("desc") = what);
    } catch (py::error_already_set& e) {
        if (!e.matches(PyExc_ImportError)) throw;
        stderr_ = py::module_::import("sys").attr("stderr");
        log_ = !(py::hasattr(stderr_, "isatty") && py::bool_(stderr_.attr("isatty")()));
        next_ = std::chrono::steady_clock::now();
    }
}

Progress::~Progress() {
    try {
        close();
    } catch (py::error_already_set&) {  // nothing to report to from a destructor
    }
}

void Progress::set_total(uint64_t total) {
    total_ = total;
    if (bar_) {
        bar_.attr("total") = total;
        bar_.attr("refresh")();
    }
}

void Progress::update(uint64_t done) {
    if (closed_) return;
    if (callback_) {
        callback_(done, total_);
    } else if (bar_) {
        if (done > shown_) bar_.attr("update")(done - shown_);
    } else if (stderr_ && !log_) {
        stderr_.attr("write")("\r" + line(done));
        stderr_.attr("flush")();
    } else if (stderr_ && std::chrono::steady_clock::now() >= next_) {
        next_ = std::chrono::steady_clock::now() + std::chrono::minutes(1);
        stderr_.attr("write")(line(done) + "\n");
        stderr_.attr("flush")();
        logged_ = done;
    }
    shown_ = done;
    updated_ = true;
}

void Progress::describe(std::string line, const std::string& postfix) {
    if (closed_) return;
    text_ = std::move(line);
    if (bar_) bar_.attr("set_postfix_str")(postfix, py::arg("refresh") = false);
}

// "grundy: [ 42.0%] 123 of 456 cells" ("periods: cycle search: 401 columns" while the total
// is unknown), or describe()'s line, after the time in a log.
std::string Progress::line(uint64_t done) const {
    char text[160];
    if (!text_.empty()) return log_ ? base::iso8601_now() + " " + text_ : text_;
    if (total_ == 0)
        std::snprintf(text, sizeof text, "%s: %llu %s", what_.c_str(),
                      static_cast<unsigned long long>(done), unit_.c_str());
    else
        std::snprintf(text, sizeof text, "%s: [%5.1f%%] %llu of %llu %s", what_.c_str(),
                      100.0 * static_cast<double>(done) / static_cast<double>(total_),
                      static_cast<unsigned long long>(done),
                      static_cast<unsigned long long>(total_), unit_.c_str());
    return log_ ? base::iso8601_now() + " " + text : std::string(text);
}

void Progress::close() {
    if (closed_) return;
    closed_ = true;
    if (bar_) bar_.attr("close")();
    if (stderr_) {
        // In a log, the last state unless it was just written (a phase that never began
        // writes nothing).
        if (!log_)
            stderr_.attr("write")("\n");
        else if (updated_ && logged_ != shown_)
            stderr_.attr("write")(line(shown_) + "\n");
        stderr_.attr("flush")();
    }
}

}  // namespace grundy::python

PYBIND11_MODULE(grundy, m) {
    namespace gp = grundy::python;
    namespace py = pybind11;
    m.doc() =
        "Sprague-Grundy values of Wythoff's game, from the grundy library.\n\n"
        "Tables are numpy arrays indexed [y, x] like the HDF5 files (t[y, x] is g(x, y)).\n"
        "  table(rows, cols)            compute a table into a numpy array\n"
        "  compute(path, rows, cols)    compute a table into an HDF5 file (as grundy compute)\n"
        "  open(path)                   a stored table: shape, attrs, t[y0:y1, x0:x1], bands()\n"
        "  row_periods, verify, p_positions, properties   analyses of an array or a file\n"
        "  certify_row_periods(rows)    certified row periods of a strip (grundy periods)\n"
        "  winning_move, winning_moves, is_p_position, sum_winning_move, ...   perfect play\n"
        "  Game(successors, ...)        finite impartial games: Grundy values, kernel, moves\n\n"
        "Long calls release the GIL and stop on Ctrl-C with KeyboardInterrupt. Bad values raise\n"
        "ValueError, file problems OSError, both with the grundy program's messages (arguments\n"
        "named as a call writes them: force=True, not --force); wrong types raise TypeError.";
    m.attr("__version__") = grundy::kVersion;

    py::register_exception_translator([](std::exception_ptr p) {
        try {
            if (p) std::rethrow_exception(p);
        } catch (const gp::FileError& e) {
            const std::string what = e.what();
            PyObject* type = PyExc_OSError;
            if (what.rfind("no such file", 0) == 0)
                type = PyExc_FileNotFoundError;
            else if (what.find("exists (use force=True") != std::string::npos)
                type = PyExc_FileExistsError;
            PyErr_SetString(type, e.what());
        } catch (const grundy::MemoryError& e) {
            PyErr_SetString(PyExc_MemoryError, gp::python_message(e).c_str());
        } catch (const grundy::Error& e) {
            PyErr_SetString(PyExc_ValueError, gp::python_message(e).c_str());
        }
    });

    gp::bind_engine(m);
    gp::bind_stored(m);
    gp::bind_analysis(m);
    gp::bind_periods(m);
    gp::bind_play(m);
    gp::bind_games(m);
}
