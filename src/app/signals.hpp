// SIGINT and SIGTERM (what batch schedulers send before the wall-time limit) set a flag that
// long computations poll, so they stop cleanly instead of dying mid-write. Where a command asks
// for it (abort_on_second_signal), a second signal means "now": the process removes the file
// named there, if any, and dies of that signal at once, without waiting for work in flight.
#pragma once

#include <atomic>
#include <string>

namespace grundy::app {

// Installs the handlers (once) and returns the flag they set. Also ignores SIGXFSZ, so that a
// file size limit fails the write (EFBIG) as a full disk does instead of killing the process.
const std::atomic<bool>& install_stop_handlers();
// The signal that set the flag, or 0.
int stop_signal();
// Makes a second signal end the process at once, removing `path` first unless it is empty
// (an unfinished output). Call it again with an empty path before the file may no longer be
// removed (before it is marked complete, or kept for --resume).
void abort_on_second_signal(const std::string& path);

}  // namespace grundy::app
