// parse_byte_size: sizes in bytes as users write them on the command line (--max-memory,
// --ring-memory, --cache ...), in exact integer arithmetic (byte_size.cpp), so that 8e9 is
// 8000000000 and not a rounded double.
#pragma once

#include <cstdint>
#include <string>

namespace grundy {

// A size in bytes as users write it, the one rule of every byte-size option:
//   8000000000      a whole number
//   8e9, 1.5e9      a decimal with an exponent, when its value is a whole number
//   8G, 8GB         decimal units K, M, G, T (10^3, 10^6, 10^9, 10^12), with or without B
//   8GiB            binary units KiB, MiB, GiB, TiB (2^10, 2^20, 2^30, 2^40)
//   2^33            a power B^E
// Units may follow a decimal (1.5G) when the value is a whole number of bytes; letters in any
// case. Throws grundy::ArgumentError naming {name} (with the text and the rule) otherwise, or
// when the value lies outside [min, max].
uint64_t parse_byte_size(const std::string& name, const std::string& text, uint64_t min = 0,
                         uint64_t max = ~uint64_t{0});

}  // namespace grundy
