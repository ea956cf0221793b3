// A file's folder, and making a file durable before it is declared complete or renamed into
// place.
#pragma once

#include <filesystem>
#include <string>

namespace grundy::base {

// The folder that holds PATH: its parent, or "." for a bare file name (whose parent is empty,
// which no system call takes for the current folder).
std::filesystem::path folder_of(const std::string& path);

// Reopens PATH and fsyncs it: what was written through any descriptor, by this process or a
// library (HDF5), reaches the disk. Throws grundy::Error naming PATH when it cannot.
void sync_path(const std::string& path);

// Fsyncs the folder that holds PATH, so that a rename into it reaches the disk too. Best effort:
// a file system that cannot sync a folder has nothing more to make durable.
void sync_folder_of(const std::string& path);

}  // namespace grundy::base
