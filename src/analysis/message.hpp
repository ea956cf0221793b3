// Messages of the analysis built from strings and numbers in one call.
#pragma once

#include <string>
#include <type_traits>

namespace grundy::analysis {

// Builds a message from strings and numbers (GCC 12 warns falsely on "literal" + std::string&&).
inline void append_all(std::string&) {}
template <typename T, typename... Rest>
void append_all(std::string& out, const T& first, const Rest&... rest) {
    if constexpr (std::is_arithmetic_v<T>)
        out += std::to_string(first);
    else
        out += first;
    append_all(out, rest...);
}
template <typename... Parts>
std::string cat(const Parts&... parts) {
    std::string out;
    append_all(out, parts...);
    return out;
}

}  // namespace grundy::analysis
