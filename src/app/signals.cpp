#include "app/signals.hpp"

#include <csignal>

namespace grundy::app {
namespace {

std::atomic<bool> g_stop{false};
std::atomic<int> g_signal{0};
static_assert(std::atomic<bool>::is_always_lock_free,
              "the handler may only touch lock-free atomics");

extern "C" void on_stop_signal(int sig) {
    g_signal.store(sig);
    g_stop.store(true);
}

}  // namespace

const std::atomic<bool>& install_stop_handlers() {
    struct sigaction sa {};
    sa.sa_handler = on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);
    return g_stop;
}

int stop_signal() {
    return g_signal.load();
}

}  // namespace grundy::app
