// The token that `grundy view` asks of every request: every user of a shared node can connect
// to its 127.0.0.1, so the table is shown only to whoever holds the URL the program printed
// (the convention of Jupyter's servers). The token comes in the URL's query (?token=T), or, once
// a page has been loaded with it, in a cookie the server set.
#pragma once

#include <string>
#include <string_view>

namespace grundy::view {

class AccessToken {
  public:
    // A fresh token: 192 bits from the operating system (getrandom), in hex.
    static AccessToken random();
    // No token: every request is served (--no-token).
    static AccessToken none() { return AccessToken(); }
    // A token the user chose (--token). Throws grundy::Error when `text` is unfit (see
    // token_problem).
    static AccessToken chosen(const std::string& text);

    bool required() const { return !text_.empty(); }
    const std::string& text() const { return text_; }
    // Whether `candidate` is the token, in a time that does not depend on where they differ.
    bool matches(std::string_view candidate) const;

  private:
    AccessToken() = default;
    explicit AccessToken(std::string text) : text_(std::move(text)) {}
    std::string text_;
};

// Why `text` cannot be a token (too short to guess, or characters a URL or a cookie would have
// to escape), or "" when it can.
std::string token_problem(const std::string& text);

// The value of the cookie `name` in a Cookie header ("a=1; b=2"), or "" when it has none.
std::string cookie_value(std::string_view header, std::string_view name);

}  // namespace grundy::view
