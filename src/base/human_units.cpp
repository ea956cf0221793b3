#include "base/human_units.hpp"

#include <cstdio>

namespace grundy::base {
namespace {

// value in the largest unit (base^i) that keeps it at least 1, with that unit's suffix.
std::string scaled(double value, double base, const char* const* suffix, int units) {
    int i = 0;
    while (value >= base && i + 1 < units) {
        value /= base;
        ++i;
    }
    char buf[32];
    std::snprintf(buf, sizeof buf, i ? "%.2f%s" : "%.0f%s", value, suffix[i]);
    return buf;
}

}  // namespace

std::string human(double value) {
    static const char* const suffix[] = {"", " k", " M", " G", " T", " P"};
    return scaled(value, 1000.0, suffix, 6);
}

std::string human_bytes(double bytes) {
    static const char* const suffix[] = {" B", " KiB", " MiB", " GiB", " TiB", " PiB", " EiB"};
    return scaled(bytes, 1024.0, suffix, 7);
}

std::string human_seconds(double s) {
    char text[32];
    if (s < 120)
        std::snprintf(text, sizeof text, "%.0f s", s);
    else if (s < 7200)
        std::snprintf(text, sizeof text, "%.0f min", s / 60);
    else
        std::snprintf(text, sizeof text, "%.1f h", s / 3600);
    return text;
}

}  // namespace grundy::base
