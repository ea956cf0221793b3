// The compression options of a table (`--compression`): parsing, the description stored in the
// file's `compression` attribute and back, and the bytes per value of a table.
#include <string>

#include "grundy/error.hpp"
#include "grundy/hdf5_writer.hpp"
#include "io/chunk_codec.hpp"

namespace grundy {

Compression Compression::parse(const std::string& text) {
    Compression c;
    auto level_of = [](const std::string& s, int& level) {
        if (s.size() != 1 || s[0] < '1' || s[0] > '9') return false;
        level = s[0] - '0';
        return true;
    };
    if (text == "none") {
        c.kind = Kind::None;
        return c;
    }
    if (text == "deflate") return c;
    const std::string deflate = "deflate:";
    if (text.compare(0, deflate.size(), deflate) == 0 &&
        level_of(text.substr(deflate.size()), c.level))
        return c;
    if (text == "blosc" || text.compare(0, 6, "blosc:") == 0) {
        c.kind = Kind::Blosc;
        c.level = kDefaultBloscLevel;
        const std::string rest = text.size() > 6 ? text.substr(6) : "";
        const size_t colon = rest.find(':');
        if (colon != std::string::npos)
            c.codec = rest.substr(0, colon);
        else if (!rest.empty())
            c.codec = rest;
        const bool level_ok =
            colon == std::string::npos || level_of(rest.substr(colon + 1), c.level);
        if (level_ok && io::blosc_codec_code(c.codec) >= 0) return c;
    }
    throw Error(
        "compression must be none, deflate, deflate:LEVEL (1..9), blosc, blosc:CODEC or "
        "blosc:CODEC:LEVEL (CODEC " +
        io::blosc_codecs() + ", LEVEL 1..9), not '" + text + "'");
}

std::string Compression::describe() const {
    // The option that selects it, with the byte shuffle each compressed kind applies.
    switch (kind) {
        case Kind::Deflate:
            return "shuffle+" + option();
        case Kind::Blosc:
            return option() + " (shuffle)";
        default:
            return option();
    }
}

std::optional<Compression> Compression::from_description(const std::string& text) {
    for (const std::string& option :
         {std::string("none"), text.rfind("shuffle+deflate:", 0) == 0 ? text.substr(8) : "",
          text.size() > 10 && text.rfind("blosc:", 0) == 0 &&
                  text.compare(text.size() - 10, 10, " (shuffle)") == 0
              ? text.substr(0, text.size() - 10)
              : ""}) {
        if (option.empty()) continue;
        try {
            const Compression c = parse(option);
            if (c.describe() == text) return c;
        } catch (const Error&) {
        }
    }
    return std::nullopt;
}

std::string Compression::option() const {
    switch (kind) {
        case Kind::None:
            return "none";
        case Kind::Deflate:
            return "deflate:" + std::to_string(level);
        case Kind::Blosc:
            return "blosc:" + codec + ":" + std::to_string(level);
    }
    return "?";
}

unsigned value_bytes(uint64_t rows, uint64_t cols) {
    // The largest value of the table is at most X + Y - 2.
    return rows + cols - 2 <= 0xFFFF ? 2 : 4;
}

}  // namespace grundy
