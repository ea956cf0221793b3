// The exception types the library throws for problems a user can fix: bad sizes, bad options,
// missing or wrong files, unwritable paths, a full disk. The CLI prints the message on one line
// and exits with status 2, so messages must say what was wrong and with which value.
#pragma once

#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

namespace grundy {

class Error : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

// An error that names arguments of the call. In `text` each argument stands between braces, by
// its name in the library ("{rows} must be between 1 and 16384, got 0"); what() gives the text
// with the bare names ("rows must be ..."), and a front end with names of its own for the
// arguments (the CLI's --rows) renders it with those (render()).
class ArgumentError : public Error {
  public:
    using Spelling = std::function<std::string(std::string_view)>;
    explicit ArgumentError(std::string text)
        : Error(fill(text, [](std::string_view name) { return std::string(name); })),
          text_(std::move(text)) {}
    const std::string& text() const { return text_; }
    // The text with each {name} replaced by spell(name).
    std::string render(const Spelling& spell) const { return fill(text_, spell); }
    // `s` (a path, a value) as part of a text: its braces doubled, so they stay braces.
    static std::string literal(const std::string& s) {
        std::string out;
        for (char c : s) out += c == '{' ? std::string("{{") : std::string(1, c);
        return out;
    }

  private:
    static std::string fill(const std::string& text, const Spelling& spell) {
        std::string out;
        size_t i = 0;
        while (i < text.size()) {
            const size_t open = text.find('{', i);
            const size_t close = open == std::string::npos ? open : text.find('}', open);
            if (close == std::string::npos) {
                out.append(text, i, std::string::npos);
                break;
            }
            out.append(text, i, open - i);
            if (text[open + 1] == '{') {  // "{{": a literal brace
                out += '{';
                i = open + 2;
                continue;
            }
            out += spell(std::string_view(text).substr(open + 1, close - open - 1));
            i = close + 1;
        }
        return out;
    }
    std::string text_;
};

// A run refused up front because it would not fit in the memory budget (grundy/memory.hpp):
// the CLI exits with status 2 as for any Error, the Python module raises MemoryError. Its text
// may name arguments ({max_memory}) like ArgumentError's.
class MemoryError : public ArgumentError {
  public:
    using ArgumentError::ArgumentError;
};

}  // namespace grundy
