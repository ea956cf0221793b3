#include "view/access_token.hpp"

#include <fcntl.h>
#include <sys/random.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>

#include "grundy/error.hpp"

namespace grundy::view {
namespace {

constexpr size_t kRandomBytes = 24;     // 192 bits, as Jupyter's tokens
constexpr size_t kMinChosenChars = 16;  // a chosen token: at least 16 characters

// `n` bytes from the kernel's generator; /dev/urandom where getrandom is missing.
void os_random(uint8_t* out, size_t n) {
    size_t got = 0;
    while (got < n) {
        const ssize_t r = ::getrandom(out + got, n - got, 0);
        if (r > 0) {
            got += static_cast<size_t>(r);
        } else if (r < 0 && errno == ENOSYS) {
            break;
        } else if (r < 0 && errno != EINTR) {
            throw Error("no random numbers from the operating system (getrandom failed)");
        }
    }
    if (got == n) return;
    const int fd = ::open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    while (fd >= 0 && got < n) {
        const ssize_t r = ::read(fd, out + got, n - got);
        if (r <= 0 && errno != EINTR) break;
        if (r > 0) got += static_cast<size_t>(r);
    }
    if (fd >= 0) ::close(fd);
    if (got < n) throw Error("no random numbers from the operating system (/dev/urandom)");
}

bool url_safe(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
           c == '_' || c == '.' || c == '~';
}

std::string_view trimmed(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
    return s;
}

}  // namespace

AccessToken AccessToken::random() {
    uint8_t bytes[kRandomBytes];
    os_random(bytes, sizeof bytes);
    static constexpr char kHex[] = "0123456789abcdef";
    std::string text;
    for (const uint8_t b : bytes) {
        text += kHex[b >> 4];
        text += kHex[b & 15];
    }
    return AccessToken(std::move(text));
}

AccessToken AccessToken::chosen(const std::string& text) {
    const std::string problem = token_problem(text);
    if (!problem.empty()) throw Error("--token: " + problem);
    return AccessToken(text);
}

bool AccessToken::matches(std::string_view candidate) const {
    // Every character of the token is compared, whatever the candidate: the time tells at most
    // whether the lengths differ, never how much of a guess was right.
    unsigned char diff = candidate.size() == text_.size() ? 0 : 1;
    for (size_t i = 0; i < text_.size(); ++i) {
        const char c = i < candidate.size() ? candidate[i] : '\0';
        diff |= static_cast<unsigned char>(c ^ text_[i]);
    }
    return required() && diff == 0;
}

std::string token_problem(const std::string& text) {
    if (text.size() < kMinChosenChars)
        return "a token needs at least " + std::to_string(kMinChosenChars) + " characters (got " +
               std::to_string(text.size()) + "); leave --token out for a random one";
    for (const char c : text)
        if (!url_safe(c)) return "a token may hold only letters, digits and - _ . ~";
    return "";
}

std::string cookie_value(std::string_view header, std::string_view name) {
    while (!header.empty()) {
        const size_t end = header.find(';');
        const std::string_view pair = trimmed(header.substr(0, end));
        const size_t eq = pair.find('=');
        if (eq != std::string_view::npos && trimmed(pair.substr(0, eq)) == name)
            return std::string(trimmed(pair.substr(eq + 1)));
        if (end == std::string_view::npos) break;
        header.remove_prefix(end + 1);
    }
    return "";
}

}  // namespace grundy::view
