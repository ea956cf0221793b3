#include "base/utc_time.hpp"

#include <ctime>

namespace grundy::base {

std::string iso8601_now() {
    const std::time_t t = std::time(nullptr);
    std::tm tm{};
    char buf[32] = "";
    if (::gmtime_r(&t, &tm)) std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

}  // namespace grundy::base
