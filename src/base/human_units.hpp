// Numbers for people: the progress lines' and summaries' counts, sizes and durations.
#pragma once

#include <string>

namespace grundy::base {

// "1.23 G", "456.00 M", "17": a count in the largest unit of 1000 that keeps it at least 1.
std::string human(double value);
// "1.50 GiB": bytes in units of 1024.
std::string human_bytes(double bytes);
// "45 s", "12 min", "3.4 h".
std::string human_seconds(double seconds);

}  // namespace grundy::base
