// SIGINT and SIGTERM (what batch schedulers send before the wall-time limit) set a flag that
// long computations poll, so they stop cleanly instead of dying mid-write.
#pragma once

#include <atomic>

namespace grundy::app {

// Installs the handlers (once) and returns the flag they set.
const std::atomic<bool>& install_stop_handlers();
// The signal that set the flag, or 0.
int stop_signal();

}  // namespace grundy::app
