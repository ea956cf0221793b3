// The colourings of `grundy view` (docs/viewer.md): one colour per
// cell at full resolution, and one per block of cells when a pixel stands for many, from the
// block's statistic (BlockStats). The browser test recomputes the same colours from README's
// formulas, so a change here is a change there.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "io/pyramid_file.hpp"

namespace grundy::view {

enum class Colouring {
    Mod,     // g mod k: k hues around the colour wheel
    Scaled,  // seed 001's g - x + 2y, divided by 3y (so in 0..1 by Landman's bounds)
    Diff,    // x + y - g (0..3 min(x, y)), on a log scale up to the table's largest possible
    PPos,    // the P-positions (g = 0) in red on white
};

std::optional<Colouring> parse_colouring(const std::string& name);

struct Rgb {
    uint8_t r = 0, g = 0, b = 0;
};

// What a zoomed-out pixel shows of its block of cells, as the pyramid stores it.
using io::BlockStats;

struct Palette {
    Colouring colouring = Colouring::Scaled;
    uint32_t k = 5;       // g mod k, 2..64
    double diff_max = 1;  // 3 (min(rows, cols) - 1): where the log scale of x + y - g ends
    Rgb cell(uint64_t x, uint64_t y, uint32_t g) const;
    // `side`: the block's side in cells (a P-line crossing a block of side s holds about 1 of
    // its s^2 cells per row, so the share is shown times the side).
    Rgb block(const BlockStats& s, uint64_t side) const;
};

// The colour ramps, t in 0..1 (clamped).
Rgb ramp_scaled(double t);
Rgb ramp_diff(double t);
Rgb hue_of(uint32_t residue, uint32_t k);

}  // namespace grundy::view
