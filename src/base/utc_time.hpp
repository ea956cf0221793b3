// The time of day for files and logs: the current time in UTC as ISO 8601.
#pragma once

#include <string>

namespace grundy::base {

// "2026-11-22T07:31:17Z": the files' `created` attributes and the stamp of a progress line in a
// log (app/progress.cpp, the Python module's).
std::string iso8601_now();

}  // namespace grundy::base
