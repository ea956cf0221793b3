// Files the program writes whole (a checkpoint, a CSV): readers see the old file or the new one,
// never a part of either.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace grundy::base {

// The bytes go to PATH.tmp; commit() syncs it to disk, renames it over PATH and syncs the
// folder, so that the rename survives a crash too. A file not committed (an error, an exception
// on the way) has its PATH.tmp removed and leaves PATH as it was. Errors throw grundy::Error
// naming PATH, or "<what> PATH.tmp" where `what` is given ("checkpoint": whose messages name
// the file being written).
class AtomicFile {
  public:
    explicit AtomicFile(std::string path, std::string what = "");
    ~AtomicFile();
    AtomicFile(const AtomicFile&) = delete;
    AtomicFile& operator=(const AtomicFile&) = delete;

    void write(const void* data, size_t bytes);
    void write(std::string_view text) { write(text.data(), text.size()); }
    void commit();
    const std::string& path() const { return path_; }

  private:
    [[noreturn]] void fail(const std::string& verb, int err);
    std::string path_, tmp_, what_;
    int fd_ = -1;
    bool committed_ = false;
};

// A text file written through a buffer into an AtomicFile: for files too large to build in
// memory first (a CSV with the blocks of a thousand rows runs to gigabytes).
class AtomicTextFile {
  public:
    explicit AtomicTextFile(std::string path) : file_(std::move(path)) {}
    AtomicTextFile& operator<<(std::string_view text) {
        buffer_ += text;
        if (buffer_.size() >= kFlushBytes) flush();
        return *this;
    }
    AtomicTextFile& operator<<(uint64_t v) { return *this << std::string_view(std::to_string(v)); }
    AtomicTextFile& operator<<(int64_t v) { return *this << std::string_view(std::to_string(v)); }
    void commit() {
        flush();
        file_.commit();
    }

  private:
    static constexpr size_t kFlushBytes = size_t{1} << 20;
    void flush() {
        file_.write(buffer_);
        buffer_.clear();
    }
    AtomicFile file_;
    std::string buffer_;
};

}  // namespace grundy::base
