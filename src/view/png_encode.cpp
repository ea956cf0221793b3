#include "view/png_encode.hpp"

#include <png.h>

#include "grundy/error.hpp"

namespace grundy::view {
namespace {

void append(png_structp png, png_bytep data, png_size_t size) {
    static_cast<std::string*>(png_get_io_ptr(png))->append(reinterpret_cast<char*>(data), size);
}
void no_flush(png_structp) {}
[[noreturn]] void fail(png_structp png, png_const_charp) {
    png_longjmp(png, 1);
}

}  // namespace

std::string encode_png(const uint8_t* rgb, uint32_t width, uint32_t height) {
    std::string out;
    png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, nullptr, fail, nullptr);
    if (!png) throw Error("cannot encode a PNG");
    png_infop info = png_create_info_struct(png);
    if (!info || setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        throw Error("cannot encode a PNG");
    }
    png_set_write_fn(png, &out, append, no_flush);
    png_set_IHDR(png, info, width, height, 8, PNG_COLOR_TYPE_RGB, PNG_INTERLACE_NONE,
                 PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    // A tile is made for one look: the fastest deflate, and the one filter that suits
    // flat areas and gradients alike.
    png_set_compression_level(png, 1);
    png_set_filter(png, PNG_FILTER_TYPE_BASE, PNG_FILTER_SUB);
    png_write_info(png, info);
    for (uint32_t y = 0; y < height; ++y)
        png_write_row(png, const_cast<png_bytep>(rgb + static_cast<size_t>(y) * width * 3));
    png_write_end(png, nullptr);
    png_destroy_write_struct(&png, &info);
    return out;
}

}  // namespace grundy::view
