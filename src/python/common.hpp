// What the binding files share: argument checks with the CLI's messages in Python's words, the
// translation of grundy::Error into ValueError or OSError, the lock around HDF5, progress bars, and
// running a long call with the GIL released while Python's thread watches for Ctrl-C.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "base/big_memory.hpp"
#include "grundy/engine.hpp"
#include "grundy/error.hpp"

namespace grundy::python {

namespace py = pybind11;

// Thrown for a grundy::Error about a file (missing, not a table, unwritable, ...): Python sees
// OSError (FileNotFoundError, FileExistsError where the message says so) instead of ValueError.
struct FileError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// An exception's message in Python's words: the arguments a grundy::ArgumentError names are
// spelled as a call writes them ("use force=True", "rows=5000", "kernel must be ..."), not as
// the CLI's options.
std::string python_message(const std::exception& e);

// Runs f(), turning the grundy::Error it throws into FileError; a refusal for memory stays a
// MemoryError.
template <class F>
auto file_call(F&& f) -> decltype(f()) {
    try {
        return f();
    } catch (const MemoryError&) {
        throw;
    } catch (const Error& e) {
        throw FileError(python_message(e));
    }
}

// HDF5 as Debian builds it is not thread-safe: every call into it from this module (reading,
// writing, the analyses of files) holds this lock, so Python threads cannot call it at once.
std::mutex& hdf5_mutex();
// Holds hdf5_mutex(), taken with the GIL released: another Python thread may hold it for a
// whole run, and waits for the GIL while it does.
class Hdf5Lock {
  public:
    Hdf5Lock() {
        if (!PyGILState_Check()) {
            lock_.lock();
            return;
        }
        py::gil_scoped_release release;
        lock_.lock();
    }

  private:
    std::unique_lock<std::mutex> lock_{hdf5_mutex(), std::defer_lock};
};

// A whole number in [min, max] from a Python int (or anything with __index__), else TypeError
// (not an integer) or ValueError with the CLI's message ("rows must be a whole number from 1
// to 2147483648, got '-3'").
uint64_t whole_number(py::handle value, const char* name, uint64_t min, uint64_t max);
// Threads: 0 for the default (OMP_NUM_THREADS, else all cores), else 1..4096.
int threads_arg(py::handle value);
// A str or os.PathLike as a path, else TypeError.
std::string path_arg(py::handle value, const char* name);

// A progress display for `total` units: nothing (None, False), tqdm where it is installed or
// a line on sys.stderr (True), or a callable called as progress(done, total). The line is
// redrawn in place where sys.stderr is a terminal; elsewhere (a batch job's log) it is a line of
// its own once a minute, beginning with the time, and a last one at the end, as the CLI's
// (app/progress.hpp). Used only from Python's thread, with the GIL held.
class Progress {
  public:
    Progress(py::object how, uint64_t total, const char* unit, const char* what);
    ~Progress();
    Progress(const Progress&) = delete;
    Progress& operator=(const Progress&) = delete;
    void update(uint64_t done);
    void set_total(uint64_t total);  // a phase whose length is known only now
    // Whether describe() is shown: a tqdm bar or a line on stderr (not a callback, not off).
    bool shows_text() const { return bar_ || stderr_; }
    // From the next update on: `line` in place of the counter's line on stderr, `postfix` after
    // a tqdm bar (which shows the count and its speed itself).
    void describe(std::string line, const std::string& postfix);
    void close();

  private:
    std::string line(uint64_t done) const;

    py::object bar_, callback_, stderr_;
    bool log_ = false;                            // sys.stderr is not a terminal
    std::chrono::steady_clock::time_point next_;  // of the next log line
    bool updated_ = false;                        // update() was called
    uint64_t logged_ = ~uint64_t{0};              // `done` of the last log line
    uint64_t total_, shown_ = 0;
    std::string unit_, what_;
    std::string text_;  // describe()'s line; empty: the counter's
    bool closed_ = false;
};

// Runs work() on a helper thread with the GIL released, while Python's thread wakes every
// 50 ms to call tick() (GIL held: progress) and PyErr_CheckSignals(). On Ctrl-C (or any
// signal handler that raises) it sets `cancel`, waits for work() to return and keeps the
// Python exception in `interrupted`; the caller finishes cleanly (keeps a stopped run's file)
// and then throws it. An exception from work() is rethrown here, with the GIL held.
template <class R>
R run_released(const std::function<R()>& work, std::atomic<bool>& cancel,
               const std::function<void()>& tick,
               std::optional<py::error_already_set>& interrupted) {
    std::optional<R> result;
    std::exception_ptr failure;
    std::mutex mutex;
    std::condition_variable wake;
    bool done = false;
    {
        py::gil_scoped_release release;
        std::thread worker([&] {
            try {
                result.emplace(work());
            } catch (...) {
                failure = std::current_exception();
            }
            std::lock_guard<std::mutex> lock(mutex);
            done = true;
            wake.notify_all();
        });
        std::unique_lock<std::mutex> lock(mutex);
        while (!done) {
            wake.wait_for(lock, std::chrono::milliseconds(50));
            if (done || interrupted) continue;
            lock.unlock();
            {
                py::gil_scoped_acquire acquire;
                if (PyErr_CheckSignals() != 0) {
                    interrupted.emplace();  // fetches (and clears) the KeyboardInterrupt
                    cancel.store(true);
                } else if (tick) {
                    try {
                        tick();
                    } catch (py::error_already_set& e) {
                        // A progress callback that raised stops the run like Ctrl-C.
                        interrupted.emplace(std::move(e));
                        cancel.store(true);
                    }
                }
            }
            lock.lock();
        }
        lock.unlock();
        worker.join();
    }
    if (failure) std::rethrow_exception(failure);
    return std::move(*result);
}

// Arrays from this size on are given a mapping of their own by new_array(); below it, numpy's
// own memory.
inline constexpr uint64_t kBigArrayBytes = uint64_t{8} << 20;

// A new C-contiguous rows x cols numpy array, uninitialised like numpy.empty. A big one lies in
// 4 KiB pages of its own (base::SmallPageBlock), owned by a capsule that is the array's base:
// numpy advises its big arrays into 2 MiB pages, whose first touch on a virtual machine whose
// host takes freed memory back costs several times more (base/big_memory.hpp). The array is
// writeable and keeps its memory for as long as it or any view of it lives. Throws
// std::bad_alloc (MemoryError) when the memory is not there.
template <class T>
py::array_t<T> new_array(uint64_t rows, uint64_t cols) {
    const std::vector<py::ssize_t> shape{static_cast<py::ssize_t>(rows),
                                         static_cast<py::ssize_t>(cols)};
    if (cols != 0 && rows > SIZE_MAX / sizeof(T) / cols) throw std::bad_alloc();
    if (rows * cols * sizeof(T) < kBigArrayBytes) return py::array_t<T>(shape);
    auto block = std::make_unique<base::SmallPageBlock>(rows * cols * sizeof(T));
    // The capsule first: if making it fails, `block` still unmaps the memory.
    py::capsule owner(block.get(), [](void* p) { delete static_cast<base::SmallPageBlock*>(p); });
    T* data = static_cast<T*>(block.release()->data());
    return py::array_t<T>(shape, data, owner);
}

// The binding of each part, in its own file.
void bind_engine(py::module_& m);
void bind_stored(py::module_& m);
void bind_analysis(py::module_& m);
void bind_periods(py::module_& m);
void bind_play(py::module_& m);
void bind_games(py::module_& m);

}  // namespace grundy::python
