// Runs the built `grundy` binary (GRUNDY_EXE) for the CLI tests: exit status and output.
#pragma once

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "grundy/engine.hpp"
#include "grundy/hdf5_reader.hpp"
#include "grundy/memory_table.hpp"

namespace grundy::testing {

struct RunResult {
    int status = -1;     // exit status, or 128 + signal
    std::string output;  // stdout and stderr together
};

inline RunResult run_grundy(const std::string& args) {
    const std::string cmd = std::string(GRUNDY_EXE) + " " + args + " 2>&1";
    RunResult r;
    FILE* pipe = ::popen(cmd.c_str(), "r");
    if (!pipe) return r;
    std::array<char, 4096> buf;
    size_t n;
    while ((n = std::fread(buf.data(), 1, buf.size(), pipe)) > 0) r.output.append(buf.data(), n);
    const int raw = ::pclose(pipe);
    r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
    return r;
}

// A whole file's bytes ("" when it cannot be read).
inline std::string slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// Starts the binary in the background with stdout and stderr going to `log`, for tests that
// signal it. Arguments are split at spaces. Returns its process id (0 on failure).
inline pid_t spawn_grundy(const std::string& args, const std::string& log) {
    std::vector<std::string> words = {GRUNDY_EXE};
    std::istringstream in(args);
    for (std::string w; in >> w;) words.push_back(w);
    std::vector<char*> argv;
    for (auto& w : words) argv.push_back(w.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
    pid_t pid = 0;
    const int rc = posix_spawn(&pid, GRUNDY_EXE, &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    return rc == 0 ? pid : 0;
}

// Waits for a process started by spawn_grundy: its exit status, or 128 + signal.
inline int wait_grundy(pid_t pid) {
    int raw = 0;
    if (::waitpid(pid, &raw, 0) != pid) return -1;
    return WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
}

// A fresh directory under the system temp dir, removed with its contents at the end.
class TempDir {
  public:
    TempDir() {
        std::string tmpl = (std::filesystem::temp_directory_path() / "grundy-test-XXXXXX").string();
        path_ = ::mkdtemp(tmpl.data());
    }
    ~TempDir() {
        std::error_code ec;
        std::filesystem::remove_all(path_, ec);
    }
    std::string file(const std::string& name) const { return (path_ / name).string(); }
    const std::filesystem::path& path() const { return path_; }

  private:
    std::filesystem::path path_;
};

// The engine's table in memory: what a file written by the binary must hold.
inline MemoryTable table_in_memory(uint64_t rows, uint64_t cols) {
    MemoryTable t;
    EngineOptions o;
    o.rows = rows;
    o.cols = cols;
    compute_table(o, t);
    return t;
}

// The whole file read back by the library's reader equals `expected`.
inline void expect_file_equals(const std::string& path, const MemoryTable& expected) {
    Hdf5TableReader reader(path);
    ASSERT_EQ(reader.rows(), expected.rows());
    ASSERT_EQ(reader.cols(), expected.cols());
    std::vector<uint32_t> values(reader.rows() * reader.cols());
    reader.read(0, 0, reader.cols(), reader.rows(), values.data());
    EXPECT_EQ(values, expected.values());
}

}  // namespace grundy::testing
