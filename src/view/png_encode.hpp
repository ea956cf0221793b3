// RGB pixels to the bytes of a PNG file (libpng), for the tiles of `grundy view`.
#pragma once

#include <cstdint>
#include <string>

namespace grundy::view {

// `rgb`: width * height pixels, 3 bytes each, row by row from the top.
std::string encode_png(const uint8_t* rgb, uint32_t width, uint32_t height);

}  // namespace grundy::view
