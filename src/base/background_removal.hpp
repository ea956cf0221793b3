// Removing a large file without waiting for its blocks to be freed.
//
// Replacing a table with --force used to truncate the old file as the new one was created: the
// file system frees every block of it there and then, 0.08-0.10 s for the 307 MiB of a 16384^2
// table and 0.8 s for 1.5 GB on this project's test machine (ext4 mounted with discard, most of
// it waiting on the disk), paid before the first tile, and tens of seconds for the tables of the
// largest jobs. The name can go at once instead: the file is opened, unlinked and its last
// descriptor closed on a thread of its own, which is where the blocks are freed, while the run
// computes. If the process ends first, the kernel closes the descriptor and frees them all the
// same: nothing is left behind.
#pragma once

#include <string>
#include <thread>

namespace grundy::base {

class BackgroundRemoval {
  public:
    // Removes PATH (a regular file: the caller replaces a link's target as it always did) from
    // its folder now. Returns with the name free, or throws Error (the file stays) where it
    // cannot be removed.
    explicit BackgroundRemoval(const std::string& path);
    ~BackgroundRemoval();  // waits for the blocks to be freed
    BackgroundRemoval(const BackgroundRemoval&) = delete;
    BackgroundRemoval& operator=(const BackgroundRemoval&) = delete;

  private:
    std::thread thread_;
};

}  // namespace grundy::base
