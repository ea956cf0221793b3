#include "view/colouring.hpp"

#include <algorithm>
#include <cmath>

namespace grundy::view {
namespace {

struct Anchor {
    double r, g, b;
};

// Five colours at t = 0, 1/4, 1/2, 3/4, 1, linear between them.
Rgb interpolate(const Anchor (&a)[5], double t) {
    if (!(t > 0)) t = 0;  // NaN too
    if (t > 1) t = 1;
    const double u = t * 4;
    const int i = std::min(3, static_cast<int>(u));
    const double f = u - i;
    auto mix = [&](double p, double q) {
        return static_cast<uint8_t>(std::lround(p + (q - p) * f));
    };
    return {mix(a[i].r, a[i + 1].r), mix(a[i].g, a[i + 1].g), mix(a[i].b, a[i + 1].b)};
}

constexpr Anchor kScaled[5] = {
    {68, 1, 84}, {59, 82, 139}, {33, 145, 140}, {94, 201, 98}, {253, 231, 37}};
constexpr Anchor kDiff[5] = {
    {0, 0, 4}, {81, 18, 124}, {183, 55, 121}, {252, 137, 97}, {252, 253, 191}};
constexpr Rgb kWhite{255, 255, 255};
constexpr Rgb kRed{200, 30, 30};

}  // namespace

std::optional<Colouring> parse_colouring(const std::string& name) {
    if (name == "mod") return Colouring::Mod;
    if (name == "scaled") return Colouring::Scaled;
    if (name == "diff") return Colouring::Diff;
    if (name == "ppos") return Colouring::PPos;
    return std::nullopt;
}

Rgb ramp_scaled(double t) {
    return interpolate(kScaled, t);
}
Rgb ramp_diff(double t) {
    return interpolate(kDiff, t);
}

Rgb hue_of(uint32_t residue, uint32_t k) {
    // HSV with saturation 0.6 and value 0.95, hue residue / k of the wheel.
    const double h = 6.0 * residue / k, s = 0.6, v = 0.95;
    const int i = static_cast<int>(h) % 6;
    const double f = h - std::floor(h);
    const double p = v * (1 - s), q = v * (1 - s * f), t = v * (1 - s * (1 - f));
    double r = v, g = t, b = p;
    switch (i) {
        case 1:
            r = q, g = v, b = p;
            break;
        case 2:
            r = p, g = v, b = t;
            break;
        case 3:
            r = p, g = q, b = v;
            break;
        case 4:
            r = t, g = p, b = v;
            break;
        case 5:
            r = v, g = p, b = q;
            break;
        default:
            break;
    }
    auto byte = [](double c) { return static_cast<uint8_t>(std::lround(c * 255)); };
    return {byte(r), byte(g), byte(b)};
}

Rgb Palette::cell(uint64_t x, uint64_t y, uint32_t g) const {
    switch (colouring) {
        case Colouring::Mod:
            return hue_of(g % k, k);
        case Colouring::Scaled:
            return ramp_scaled(y == 0 ? 0.0
                                      : (static_cast<double>(g) - static_cast<double>(x) +
                                         2.0 * static_cast<double>(y)) /
                                            (3.0 * static_cast<double>(y)));
        case Colouring::Diff:
            return ramp_diff(std::log1p(static_cast<double>(x) + static_cast<double>(y) -
                                        static_cast<double>(g)) /
                             std::log1p(diff_max));
        case Colouring::PPos:
            return g == 0 ? kRed : kWhite;
    }
    return {};
}

Rgb Palette::block(const BlockStats& s, uint64_t side) const {
    switch (colouring) {
        case Colouring::Mod:
            return hue_of(s.sample % k, k);
        case Colouring::Scaled:
            return ramp_scaled(s.scaled);
        case Colouring::Diff:
            return ramp_diff(std::log1p(std::max(0.0f, s.diff)) / std::log1p(diff_max));
        case Colouring::PPos: {
            const double a =
                std::min(1.0, static_cast<double>(s.p_share) * static_cast<double>(side));
            auto mix = [a](uint8_t w, uint8_t r) {
                return static_cast<uint8_t>(std::lround(w + (r - w) * a));
            };
            return {mix(kWhite.r, kRed.r), mix(kWhite.g, kRed.g), mix(kWhite.b, kRed.b)};
        }
    }
    return {};
}

}  // namespace grundy::view
