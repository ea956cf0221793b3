// The job file of `grundy run` (INI): sections named after commands, each with its key = value
// lines, which the command's own option parser reads (command.hpp: JobSection).
#pragma once

#include <string>
#include <vector>

#include "app/command.hpp"

namespace grundy::app {

struct JobFileSection {
    std::string name;  // the command
    JobSection job;
};

// The sections of the job file at `path`, in order. Throws grundy::Error naming the file and
// line for a line that is neither a comment, a [command] header nor key = value, for an option
// outside any section, and for a file without sections.
std::vector<JobFileSection> read_job_file(const std::string& path);

}  // namespace grundy::app
