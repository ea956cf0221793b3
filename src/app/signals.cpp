#include "app/signals.hpp"

#include <unistd.h>

#include <csignal>
#include <cstring>

namespace grundy::app {
namespace {

std::atomic<bool> g_stop{false};
std::atomic<int> g_signal{0};
// The path a second signal unlinks: a fixed buffer, because the handler may not allocate.
char g_abort_path[4096];
std::atomic<bool> g_abort_path_set{false};
std::atomic<bool> g_abort_armed{false};
static_assert(std::atomic<bool>::is_always_lock_free && std::atomic<int>::is_always_lock_free,
              "the handler may only touch lock-free atomics");

void say(const char* text) {
    // write(2) is async-signal-safe; iostreams are not.
    const ssize_t ignored = ::write(STDERR_FILENO, text, std::strlen(text));
    (void)ignored;
}

extern "C" void on_stop_signal(int sig) {
    if (!g_stop.exchange(true) || !g_abort_armed.load()) {
        if (!g_signal.load()) g_signal.store(sig);
        return;
    }
    // Second signal: the user does not want to wait for the tiles in flight.
    say("grundy: stopped at once by a second signal");
    if (g_abort_path_set.load()) {
        ::unlink(g_abort_path);
        say("; removed ");
        say(g_abort_path);
    }
    say("\n");
    ::signal(sig, SIG_DFL);
    ::raise(sig);
}

}  // namespace

const std::atomic<bool>& install_stop_handlers() {
    struct sigaction sa {};
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    // One handler runs at a time: a second signal waits for the first handler to return.
    sigaddset(&sa.sa_mask, SIGINT);
    sigaddset(&sa.sa_mask, SIGTERM);
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);
    // A file size limit (ulimit -f) would kill the process at the write that crosses it; with
    // SIGXFSZ ignored the write fails with EFBIG instead, and the run stops like on a full disk.
    ::signal(SIGXFSZ, SIG_IGN);
    return g_stop;
}

int stop_signal() {
    return g_signal.load();
}

void abort_on_second_signal(const std::string& path) {
    g_abort_path_set.store(false);
    g_abort_armed.store(true);
    if (path.empty() || path.size() >= sizeof g_abort_path) return;
    std::memcpy(g_abort_path, path.c_str(), path.size() + 1);
    g_abort_path_set.store(true);
}

}  // namespace grundy::app
