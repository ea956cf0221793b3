// parse_byte_size: the one rule for sizes in bytes (byte_size.hpp), in exact integer
// arithmetic, so that 8e9 is 8000000000 and not a rounded double.
#include "io/byte_size.hpp"

#include <algorithm>
#include <cctype>
#include <optional>
#include <string>

#include "grundy/error.hpp"

namespace grundy {
namespace {

constexpr const char* kRule =
    "a size in bytes: 8000000000, 8e9, 8G or 8GB (10^9), 8GiB (2^30), 2^33";

// value * factor, or nothing when it overflows 64 bits.
std::optional<uint64_t> times(uint64_t value, uint64_t factor) {
    if (factor != 0 && value > ~uint64_t{0} / factor) return std::nullopt;
    return value * factor;
}

std::optional<uint64_t> power(uint64_t base, uint64_t exponent) {
    uint64_t value = 1;
    for (uint64_t i = 0; i < exponent; ++i) {
        const auto next = times(value, base);
        if (!next) return std::nullopt;
        value = *next;
        if (value <= 1) break;  // 0^E and 1^E: no need to go on
    }
    return exponent == 0 ? 1 : value;
}

std::optional<uint64_t> digits_value(const std::string& s) {
    if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
    // Beyond 2^64 - 1 (20 digits, compared as text: no leading zeros reach here but one "0").
    if (s.size() > 20 || (s.size() == 20 && s > "18446744073709551615")) return std::nullopt;
    return std::stoull(s);
}

// The unit's factor ("" is 1), case-insensitive; nothing for an unknown unit.
std::optional<uint64_t> unit_factor(std::string unit) {
    for (char& c : unit) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (unit.empty() || unit == "B") return 1;
    static const std::string prefixes = "KMGT";
    const size_t p = prefixes.find(unit[0]);
    if (p == std::string::npos) return std::nullopt;
    const std::string rest = unit.substr(1);
    if (rest.empty() || rest == "B") return power(1000, p + 1);
    if (rest == "IB") return power(1024, p + 1);
    return std::nullopt;
}

// DIGITS[.DIGITS][e[+]DIGITS] times `factor`, when that is a whole number of bytes.
std::optional<uint64_t> decimal_value(const std::string& number, uint64_t factor) {
    const size_t e = number.find_first_of("eE");
    std::string mantissa = number.substr(0, e);
    if (mantissa.empty()) return std::nullopt;
    uint64_t exponent = 0;
    if (e != std::string::npos) {
        std::string ex = number.substr(e + 1);
        if (!ex.empty() && ex[0] == '+') ex.erase(0, 1);
        const auto x = digits_value(ex);
        if (!x || *x > 40) return std::nullopt;
        exponent = *x;
    }
    const size_t dot = mantissa.find('.');
    std::string fraction;
    if (dot != std::string::npos) {
        fraction = mantissa.substr(dot + 1);
        mantissa.erase(dot);
        if (mantissa.empty() && fraction.empty()) return std::nullopt;
    }
    while (!fraction.empty() && fraction.back() == '0') fraction.pop_back();
    std::string all = mantissa + fraction;
    all.erase(0, std::min(all.find_first_not_of('0'), all.size()));
    // `all` * 10^exponent * factor / 10^(fraction digits), exactly.
    const auto whole = all.empty() ? std::optional<uint64_t>(0) : digits_value(all);
    if (!whole) return std::nullopt;
    std::optional<uint64_t> value = times(*whole, factor);
    for (uint64_t i = 0; value && i < exponent; ++i) value = times(*value, 10);
    for (size_t i = 0; value && i < fraction.size(); ++i) {
        if (*value % 10 != 0) return std::nullopt;  // not a whole number of bytes
        *value /= 10;
    }
    return value;
}

std::optional<uint64_t> size_value(const std::string& text) {
    if (const size_t caret = text.find('^'); caret != std::string::npos) {
        const auto base = digits_value(text.substr(0, caret));
        const auto exponent = digits_value(text.substr(caret + 1));
        if (!base || !exponent) return std::nullopt;
        return power(*base, *exponent);
    }
    // The number, then spaces, then the unit: the letters at the end (an exponent's e is
    // followed by digits).
    size_t unit = text.size();
    while (unit > 0 && std::isalpha(static_cast<unsigned char>(text[unit - 1]))) --unit;
    size_t end = unit;
    while (end > 0 && text[end - 1] == ' ') --end;
    const std::string number = text.substr(0, end);
    const auto factor = unit_factor(text.substr(unit));
    if (number.empty() || number.find_first_not_of("0123456789.eE+") != std::string::npos ||
        !std::isdigit(static_cast<unsigned char>(number.back())) || !factor)
        return std::nullopt;
    return decimal_value(number, *factor);
}

}  // namespace

uint64_t parse_byte_size(const std::string& name, const std::string& text, uint64_t min,
                         uint64_t max) {
    const std::optional<uint64_t> value = size_value(text);
    const std::string got = ", got '" + ArgumentError::literal(text) + "'";
    if (!value) throw ArgumentError("{" + name + "} must be " + kRule + got);
    if (*value < min || *value > max)
        throw ArgumentError("{" + name + "} must be between " + std::to_string(min) + " and " +
                            std::to_string(max) + " bytes" + got);
    return *value;
}

}  // namespace grundy
