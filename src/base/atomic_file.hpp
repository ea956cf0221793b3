// Files the program writes whole (a checkpoint, a CSV): readers see the old file or the new one,
// never a part of either.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "base/background_sync.hpp"

namespace grundy::base {

// The bytes go to PATH.tmp; commit() syncs it to disk, renames it over PATH and syncs the
// folder, so that the rename survives a crash too. A file not committed (an error, an exception
// on the way) has its PATH.tmp removed and leaves PATH as it was. Errors throw grundy::Error
// naming PATH, or "<what> PATH.tmp" where `what` is given ("checkpoint": whose messages name
// the file being written).
//
// With `direct`, the bytes are gathered in an aligned buffer and written past the page cache
// (O_DIRECT) a few MiB at a time, the last partial buffer through the cache: for files of
// gigabytes written once and read back only by a later run (a strip's checkpoint), which would
// otherwise be copied into as many gigabytes of cached pages, charged to a batch job's memory.
// Where the file system refuses direct I/O, everything goes through the cache. The file is
// flushed on a thread of its own as it grows (BackgroundSync), and commit() waits only for the
// rest.
class AtomicFile {
  public:
    explicit AtomicFile(std::string path, std::string what = "", bool direct = false);
    ~AtomicFile();
    AtomicFile(const AtomicFile&) = delete;
    AtomicFile& operator=(const AtomicFile&) = delete;

    void write(const void* data, size_t bytes);
    void write(std::string_view text) { write(text.data(), text.size()); }
    // Writes what the direct writes still gather, so that PATH.tmp holds every byte; later
    // writes go through the cache. commit() does it too.
    void flush();
    void commit();
    const std::string& path() const { return path_; }

    // Bytes written past the page cache so far (tests).
    uint64_t direct_bytes() const { return direct_bytes_; }

  private:
    [[noreturn]] void fail(const std::string& verb, int err);
    void put(const char* p, size_t bytes);  // at offset_, through fd_
    void flush_staged();                    // the staging buffer's whole blocks, directly
    std::string path_, tmp_, what_;
    int fd_ = -1;
    bool committed_ = false;
    uint64_t offset_ = 0;     // bytes of the file written so far
    int direct_fd_ = -1;      // the same file opened O_DIRECT; -1: not (any more)
    char* staged_ = nullptr;  // kStageBytes, aligned, gathering what direct_fd_ writes
    size_t staged_bytes_ = 0;
    uint64_t direct_bytes_ = 0;
    std::unique_ptr<BackgroundSync> syncer_;  // with direct writes: flushes as they go
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
