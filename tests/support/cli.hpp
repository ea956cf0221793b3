// Running the built `grundy` binary (GRUNDY_EXE) in the CLI tests, the one way: to completion
// with its output (run_grundy), or in the background with its output in a log (spawn_grundy,
// optionally under a file size limit and with more environment), then waited for. Tests that
// stop a run wait for a sign of its progress (wait_for_*, whose result they assert), never for a
// fixed time, so that a busy machine cannot make them fail, and signal it with
// signal_while_running, which says whether the run was still under way.
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <initializer_list>
#include <iterator>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace grundy::testing {

struct RunResult {
    int status = -1;     // exit status, or 128 + signal
    std::string output;  // stdout and stderr together
};

// A whole file's bytes ("" when it cannot be read).
inline std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// The words of a command line as a shell splits them where no expansion is involved: at spaces,
// except inside "..." or '...' (the quotes removed): `move --sum "nim:1 nim:2"` is three words.
inline std::vector<std::string> words(const std::string& args) {
    std::vector<std::string> out;
    std::string word;
    bool in_word = false;
    char quote = 0;
    for (char c : args) {
        if (quote) {
            if (c == quote)
                quote = 0;
            else
                word += c;
        } else if (c == '"' || c == '\'') {
            quote = c;
            in_word = true;
        } else if (c == ' ' || c == '\t' || c == '\n') {
            if (in_word) out.push_back(word);
            word.clear();
            in_word = false;
        } else {
            word += c;
            in_word = true;
        }
    }
    if (in_word) out.push_back(word);
    return out;
}

struct SpawnOptions {
    std::string log;                         // stdout and stderr; empty: /dev/null
    bool append = false;                     // append to the log instead of truncating it
    rlim_t file_size_limit = RLIM_INFINITY;  // RLIMIT_FSIZE (SIGXFSZ at its default action)
    std::vector<std::string> env;            // NAME=VALUE added to the environment
};

// Starts the binary with `args`; returns its process id (0 on failure).
inline pid_t spawn_grundy(const std::vector<std::string>& args, const SpawnOptions& o) {
    std::vector<std::string> all = {GRUNDY_EXE};
    all.insert(all.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : all) argv.push_back(a.data());
    argv.push_back(nullptr);
    std::vector<std::string> vars(o.env);
    for (char** e = environ; *e; ++e) vars.push_back(*e);
    std::vector<char*> envp;
    for (auto& e : vars) envp.push_back(e.data());
    envp.push_back(nullptr);
    const std::string log = o.log.empty() ? "/dev/null" : o.log;
    const int flags = O_WRONLY | O_CREAT | (o.append ? O_APPEND : O_TRUNC);
    const pid_t pid = ::fork();
    if (pid == 0) {  // only async-signal-safe calls from here to exec
        const rlimit limit{o.file_size_limit, o.file_size_limit};
        ::signal(SIGXFSZ, SIG_DFL);
        const int fd = ::open(log.c_str(), flags, 0644);
        if (fd < 0 || ::dup2(fd, STDOUT_FILENO) < 0 || ::dup2(fd, STDERR_FILENO) < 0 ||
            (o.file_size_limit != RLIM_INFINITY && ::setrlimit(RLIMIT_FSIZE, &limit) != 0))
            ::_exit(126);
        ::execve(GRUNDY_EXE, argv.data(), envp.data());
        ::_exit(127);
    }
    return pid > 0 ? pid : 0;
}
// `args` as one command line, its output replacing the log's contents.
inline pid_t spawn_grundy(const std::string& args, const std::string& log) {
    SpawnOptions o;
    o.log = log;
    return spawn_grundy(words(args), o);
}
// `args` as words, its output appended to the log (several runs of one test into one log).
inline pid_t spawn_grundy(const std::vector<std::string>& args, const std::string& log) {
    SpawnOptions o;
    o.log = log;
    o.append = true;
    return spawn_grundy(args, o);
}

// Whether the process still runs (it is left waitable for wait_grundy).
inline bool still_running(pid_t pid) {
    siginfo_t info{};
    return ::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
           info.si_pid == 0;
}

// How long one run may last before wait_grundy calls it hung: far beyond any run of the suites
// (the longest take seconds, a minute under the sanitizers), and half of ctest's limit for a
// whole test, so that a hung run is described and ended before ctest kills the test.
inline constexpr std::chrono::seconds kHungRun{300};

// The fields of a /proc/PID/stat or /proc/PID/task/TID/stat file from the third on (the state,
// then the parent, ...: field n at index n - 3), after the ")" that ends the name, which may hold
// spaces and parentheses itself; none for a file that is gone (the process ended).
inline std::vector<std::string> stat_fields(const std::string& path) {
    const std::string stat = slurp(path);
    const size_t close = stat.rfind(')');
    std::vector<std::string> fields;
    if (close == std::string::npos) return fields;
    std::istringstream in(stat.substr(close + 1));
    for (std::string field; in >> field;) fields.push_back(field);
    return fields;
}

// What a process is doing, from /proc: its name (the test binary's until the exec), and each
// thread's state (R running, S sleeping, D in the kernel, T stopped) and the kernel function it
// waits in.
inline std::string describe_process(pid_t pid) {
    const std::string proc = "/proc/" + std::to_string(pid);
    std::string comm = slurp(proc + "/comm");
    if (!comm.empty() && comm.back() == '\n') comm.pop_back();
    std::string out = "process " + std::to_string(pid) + " (" + comm + "):";
    std::error_code ec;
    for (const auto& t : std::filesystem::directory_iterator(proc + "/task", ec)) {
        const std::vector<std::string> fields = stat_fields(t.path() / "stat");
        const std::string state = fields.empty() ? "?" : fields[0];
        out += " thread " + t.path().filename().string() + " state " + state + " in " +
               slurp(t.path() / "wchan") + ";";
    }
    return out;
}

// Waits for a process started by spawn_grundy: its exit status, or 128 + signal. A run that has
// not ended after `limit` is described on stderr and killed (status 128 + SIGKILL), so that a
// hang shows what hung instead of ctest's bare timeout.
inline int wait_grundy(pid_t pid, std::chrono::seconds limit = kHungRun) {
    if (pid <= 0) return -1;
    const auto deadline = std::chrono::steady_clock::now() + limit;
    while (still_running(pid)) {
        if (std::chrono::steady_clock::now() > deadline) {
            std::fprintf(stderr, "hung run, killed after %lld s: %s\n",
                         static_cast<long long>(limit.count()), describe_process(pid).c_str());
            ::kill(pid, SIGKILL);
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    int raw = 0;
    if (::waitpid(pid, &raw, 0) != pid) return -1;
    return WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
}

// Runs the binary to its end: exit status (stdout and stderr into `log`).
inline int run_grundy(const std::vector<std::string>& args, const std::string& log,
                      bool append = true) {
    SpawnOptions o;
    o.log = log;
    o.append = append;
    return wait_grundy(spawn_grundy(args, o));
}

// Runs the binary to its end: exit status and output.
inline RunResult run_grundy(const std::string& args) {
    char pattern[] = "/tmp/grundy-output-XXXXXX";
    const int fd = ::mkstemp(pattern);
    RunResult r;
    if (fd < 0) return r;
    ::close(fd);
    r.status = run_grundy(words(args), pattern, false);
    r.output = slurp(pattern);
    ::unlink(pattern);
    return r;
}

// Runs the binary to its end with stdout and stderr on a terminal of its own (a pseudo-terminal,
// as at a user's shell, where the terminal turns each "\n" into "\r\n"): exit status and all
// it wrote there. The terminal is read while the run goes on, so that it never fills up.
inline RunResult run_grundy_on_terminal(const std::string& args) {
    RunResult r;
    const int master = ::posix_openpt(O_RDWR | O_NOCTTY | O_NONBLOCK);
    if (master < 0) return r;
    const char* name =
        ::grantpt(master) == 0 && ::unlockpt(master) == 0 ? ::ptsname(master) : nullptr;
    // This process holds the terminal open too, so that it stays readable however the run ends.
    const int held = name ? ::open(name, O_RDWR | O_NOCTTY) : -1;
    SpawnOptions o;
    o.log = name ? name : "";
    o.append = true;
    const pid_t pid = held >= 0 ? spawn_grundy(words(args), o) : 0;
    auto drain = [&] {
        char buf[4096];
        ssize_t n;
        while ((n = ::read(master, buf, sizeof buf)) > 0)
            r.output.append(buf, static_cast<size_t>(n));
    };
    while (pid > 0 && still_running(pid)) {
        pollfd p{master, POLLIN, 0};
        ::poll(&p, 1, 50);
        drain();
    }
    if (pid > 0) {
        r.status = wait_grundy(pid);
        drain();
    }
    if (held >= 0) ::close(held);
    ::close(master);
    return r;
}

// Polls `sign` until it holds or the process has ended (or 300 s have passed, a hung run);
// returns whether it held. The deadline is far from what a working run needs: under the
// sanitizers a run reaches its signs many times later than in Release, and a strip that must
// sweep some millions of columns first (GrowRingCli.PhaseTwoAfterALongerRing, about 58 k columns
// a second there on a 2-core Zen 3) took more than 60 s.
inline bool wait_for(pid_t pid, const std::function<bool()>& sign) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(300);
    while (std::chrono::steady_clock::now() < deadline) {
        if (sign()) return true;
        if (!still_running(pid)) return sign();
        std::this_thread::sleep_for(std::chrono::microseconds(500));
    }
    return false;
}

// The run has written at least `bytes` bytes of `path`.
inline bool wait_for_file_size(pid_t pid, const std::string& path, uintmax_t bytes) {
    return wait_for(pid, [&] {
        std::error_code ec;
        const uintmax_t size = std::filesystem::file_size(path, ec);
        return !ec && size >= bytes;
    });
}

// The run has written the file `path` `n` times (each write renames a new file over it, with a
// new modification time).
inline bool wait_for_rewrites(pid_t pid, const std::string& path, int n) {
    int seen = 0;
    struct timespec last {};
    return wait_for(pid, [&] {
        struct stat st {};
        if (::stat(path.c_str(), &st) == 0 &&
            (st.st_mtim.tv_sec != last.tv_sec || st.st_mtim.tv_nsec != last.tv_nsec)) {
            last = st.st_mtim;
            ++seen;
        }
        return seen >= n;
    });
}

// The process has handled signal `sig` (its handler is installed) and used `ms` milliseconds of
// CPU time: well into its work, however busy the machine is.
inline bool wait_for_cpu_time(pid_t pid, int sig, unsigned ms) {
    const std::string proc = "/proc/" + std::to_string(pid);
    const long ticks_per_s = ::sysconf(_SC_CLK_TCK);
    return wait_for(pid, [&] {
        const std::string status = slurp(proc + "/status");
        const size_t at = status.find("SigCgt:");
        if (at == std::string::npos) return false;
        const unsigned long long caught = std::stoull(status.substr(at + 7), nullptr, 16);
        if (!((caught >> (sig - 1)) & 1)) return false;
        // utime and stime: fields 14 and 15.
        const std::vector<std::string> fields = stat_fields(proc + "/stat");
        if (fields.size() < 13) return false;
        const unsigned long long used = std::stoull(fields[14 - 3]) + std::stoull(fields[15 - 3]);
        return used * 1000 >= static_cast<unsigned long long>(ms) * ticks_per_s;
    });
}

// Waits until the child `pid` is stopped (by SIGSTOP), then sends it `signals`, in this order,
// and SIGCONT; false, sending nothing, if it ended instead.
inline bool signal_when_stopped(pid_t pid, std::initializer_list<int> signals) {
    siginfo_t info{};
    // A child's stop or end, left waitable (WNOWAIT) for wait_grundy.
    while (::waitid(P_PID, static_cast<id_t>(pid), &info, WSTOPPED | WEXITED | WNOWAIT) != 0)
        if (errno != EINTR) return false;
    if (info.si_code != CLD_STOPPED) return false;  // it ended before the stop
    for (const int sig : signals) ::kill(pid, sig);
    ::kill(pid, SIGCONT);
    return true;
}

// Sends `signals`, in this order, to a run that is still under way, and returns true; returns
// false, sending nothing, if the run had already ended. The run is first frozen (SIGSTOP, and
// waited for until every thread is stopped), so that it cannot end between the check and the
// signals, and so that signals sent together are all pending when it goes on (SIGCONT): its
// handlers see them one after another before any of its own code runs again.
inline bool signal_while_running(pid_t pid, std::initializer_list<int> signals) {
    if (pid <= 0 || ::kill(pid, SIGSTOP) != 0) return false;
    return signal_when_stopped(pid, signals);
}

// Waits until the run stops itself (grundy compute --test-pause-after-chunks N: N chunks written
// and flushed), then sends `signals` and lets it go on: the signals come at exactly that point
// of the run, however busy the machine. Returns false, sending nothing, if the run ended first.
inline bool signal_at_pause(pid_t pid, std::initializer_list<int> signals) {
    return pid > 0 && signal_when_stopped(pid, signals);
}

}  // namespace grundy::testing
