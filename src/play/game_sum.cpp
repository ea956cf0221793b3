// Sums of games by the Sprague-Grundy theorem: the value of a sum is the xor of its components'
// values, and a winning move turns one component of value g_i into an option of value
// g_i xor total. Wythoff values come from the engine or from a stored table.
#include <algorithm>
#include <sstream>
#include <string>

#include "grundy/engine.hpp"
#include "grundy/error.hpp"
#include "grundy/hdf5_reader.hpp"
#include "grundy/memory_table.hpp"
#include "grundy/play.hpp"
#include "play/exact_sqrt.hpp"

namespace grundy {
namespace {

using Kind = SumComponent::Kind;

uint64_t parse_number(const std::string& text, const std::string& what,
                      const std::string& component) {
    auto bad = [&](const std::string& why) {
        return Error("component '" + component + "' of the sum: " + what + " '" + text + "' " +
                     why);
    };
    if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos)
        throw bad("must be a whole number from 0 to 2^63 - 1");
    const std::string digits = text.substr(std::min(text.find_first_not_of('0'), text.size()));
    // Compare as text: stoull would wrap or throw beyond 64 bits.
    const std::string max = std::to_string(kMaxCoordinate);
    if (digits.size() > max.size() || (digits.size() == max.size() && digits > max))
        throw bad("exceeds 2^63 - 1");
    return digits.empty() ? 0 : std::stoull(digits);
}

std::vector<std::string> split(const std::string& s, char sep) {
    std::vector<std::string> parts;
    std::string::size_type start = 0;
    for (;;) {
        const auto end = s.find(sep, start);
        parts.push_back(s.substr(start, end - start));
        if (end == std::string::npos) return parts;
        start = end + 1;
    }
}

SumComponent parse_component(const std::string& token) {
    const auto colon = token.find(':');
    const std::string kind = token.substr(0, colon);
    const std::string rest = colon == std::string::npos ? "" : token.substr(colon + 1);
    SumComponent c;
    if (kind == "wythoff") {
        const auto xy = split(rest, ',');
        if (colon == std::string::npos || xy.size() != 2)
            throw Error("component '" + token + "' of the sum: expected wythoff:X,Y");
        c.kind = Kind::Wythoff;
        c.x = parse_number(xy[0], "coordinate", token);
        c.y = parse_number(xy[1], "coordinate", token);
    } else if (kind == "nim") {
        if (colon == std::string::npos || rest.find_first_of(",:") != std::string::npos)
            throw Error("component '" + token + "' of the sum: expected nim:HEAP");
        c.kind = Kind::Nim;
        c.x = parse_number(rest, "heap", token);
    } else if (kind == "sub") {
        const auto parts = split(rest, ':');
        if (colon == std::string::npos || parts.size() != 2)
            throw Error("component '" + token + "' of the sum: expected sub:M1,M2,...:HEAP");
        c.kind = Kind::Subtraction;
        for (const auto& m : split(parts[0], ','))
            c.moves.push_back(parse_number(m, "move", token));
        try {
            c.moves = normalize_subtraction_moves(c.moves);
        } catch (const Error& e) {
            throw Error("component '" + token + "' of the sum: " + e.what());
        }
        c.x = parse_number(parts[1], "heap", token);
        if (c.x >= kMaxSubtractionLength)
            throw Error("component '" + token + "' of the sum: heap " + std::to_string(c.x) +
                        " is more than the limit " + std::to_string(kMaxSubtractionLength - 1) +
                        " for subtraction games");
    } else {
        throw Error("component '" + token +
                    "' of the sum: unknown game (expected wythoff:X,Y, nim:HEAP or "
                    "sub:M1,M2,...:HEAP)");
    }
    return c;
}

}  // namespace

GameSum parse_sum(const std::string& text) {
    GameSum sum;
    std::istringstream in(text);
    for (std::string token; in >> token;) sum.push_back(parse_component(token));
    if (sum.empty()) throw Error("the sum '" + text + "' has no components");
    return sum;
}

std::string format_component(const SumComponent& c) {
    switch (c.kind) {
        case Kind::Wythoff:
            return "wythoff:" + std::to_string(c.x) + "," + std::to_string(c.y);
        case Kind::Nim:
            return "nim:" + std::to_string(c.x);
        case Kind::Subtraction: {
            std::string s = "sub:";
            for (size_t i = 0; i < c.moves.size(); ++i) {
                if (i) s += ',';
                s += std::to_string(c.moves[i]);
            }
            s += ':';
            s += std::to_string(c.x);
            return s;
        }
    }
    return {};
}

std::string format_sum(const GameSum& sum) {
    std::string s;
    for (const auto& c : sum) {
        if (!s.empty()) s += ' ';
        s += format_component(c);
    }
    return s;
}

// ---- Wythoff values ----------------------------------------------------------------------

struct WythoffValues::Impl {
    MemoryTable table;  // computed: rows 0..min, columns 0..max (g is symmetric)
    std::unique_ptr<Hdf5TableReader> file;
};

WythoffValues WythoffValues::computed(const GameSum& sum, uint64_t max_cells, int threads) {
    // Every option (a, b) of (x, y) has min(a, b) <= min(x, y) and max(a, b) <= max(x, y).
    uint64_t rows = 0, cols = 0;
    for (const auto& c : sum)
        if (c.kind == Kind::Wythoff) {
            rows = std::max(rows, std::min(c.x, c.y) + 1);
            cols = std::max(cols, std::max(c.x, c.y) + 1);
        }
    auto impl = std::make_shared<Impl>();
    if (rows > 0) {
        const uint128 cells = static_cast<uint128>(rows) * cols;
        if (cells > max_cells)
            throw ArgumentError(
                "the Wythoff components need a table of " + std::to_string(rows) + " rows x " +
                std::to_string(cols) + " columns, more than the " + std::to_string(max_cells) +
                " cells computed on the fly; store one with grundy compute and give "
                "{table} F.h5");
        EngineOptions o;
        o.rows = rows;
        o.cols = cols;
        o.threads = threads;
        compute_table(o, impl->table);
    }
    WythoffValues v;
    v.impl_ = impl;
    return v;
}

WythoffValues WythoffValues::from_file(const std::string& path, const GameSum& sum) {
    auto impl = std::make_shared<Impl>();
    impl->file = std::make_unique<Hdf5TableReader>(path);
    const uint64_t rows = impl->file->rows(), cols = impl->file->cols();
    for (const auto& c : sum) {
        if (c.kind != Kind::Wythoff) continue;
        // The table holds every option of (x, y) in one orientation or the other.
        const bool fits = (c.x < cols && c.y < rows) || (c.y < cols && c.x < rows);
        if (!fits)
            throw Error("position (" + std::to_string(c.x) + ", " + std::to_string(c.y) +
                        ") is outside the table " + path + " (" + std::to_string(rows) +
                        " rows x " + std::to_string(cols) + " columns)");
    }
    WythoffValues v;
    v.impl_ = impl;
    return v;
}

uint32_t WythoffValues::operator()(uint64_t x, uint64_t y) const {
    const Impl& m = *impl_;
    if (m.file) {
        if (x < m.file->cols() && y < m.file->rows()) return m.file->at(x, y);
        if (y < m.file->cols() && x < m.file->rows()) return m.file->at(y, x);
    } else {
        const uint64_t lo = std::min(x, y), hi = std::max(x, y);
        if (lo < m.table.rows() && hi < m.table.cols()) return m.table(hi, lo);
    }
    throw Error("Wythoff position (" + std::to_string(x) + ", " + std::to_string(y) +
                ") is outside the table of values");
}

// ---- The sum -----------------------------------------------------------------------------

namespace {

uint64_t component_value(const SumComponent& c, const WythoffValues* wythoff) {
    switch (c.kind) {
        case Kind::Nim:
            return c.x;
        case Kind::Subtraction:
            return subtraction_grundy(c.moves, c.x + 1).back();
        case Kind::Wythoff:
            if (!wythoff) throw Error("no table of Wythoff values for " + format_component(c));
            return (*wythoff)(c.x, c.y);
    }
    return 0;
}

// The smallest option of c with value t < g(c); one exists by the definition of the mex.
SumComponent move_to_value(const SumComponent& c, uint64_t t, const WythoffValues* wythoff) {
    SumComponent next = c;
    switch (c.kind) {
        case Kind::Nim:
            next.x = t;
            return next;
        case Kind::Subtraction: {
            const auto g = subtraction_grundy(c.moves, c.x + 1);
            for (uint64_t m : c.moves) {
                if (m > c.x) break;
                if (g[c.x - m] == t) {
                    next.x = c.x - m;
                    return next;
                }
            }
            break;
        }
        case Kind::Wythoff: {
            for (uint64_t k = 1; k <= std::max(c.x, c.y); ++k) {
                const WythoffPosition options[3] = {
                    {c.x >= k ? c.x - k : c.x, c.y},
                    {c.x, c.y >= k ? c.y - k : c.y},
                    {c.x >= k && c.y >= k ? c.x - k : c.x, c.x >= k && c.y >= k ? c.y - k : c.y}};
                for (const auto& o : options) {
                    if (o.x == c.x && o.y == c.y) continue;  // not a move at this k
                    if ((*wythoff)(o.x, o.y) == t) {
                        next.x = o.x;
                        next.y = o.y;
                        return next;
                    }
                }
            }
            break;
        }
    }
    throw std::logic_error("no option of value " + std::to_string(t) + " in " +
                           format_component(c));
}

}  // namespace

SumAnalysis analyze_sum(const GameSum& sum, const WythoffValues* wythoff) {
    SumAnalysis a;
    for (const auto& c : sum) {
        a.values.push_back(component_value(c, wythoff));
        a.nim_sum ^= a.values.back();
    }
    return a;
}

std::optional<GameSum> sum_winning_move(const GameSum& sum, const WythoffValues* wythoff) {
    const SumAnalysis a = analyze_sum(sum, wythoff);
    if (a.nim_sum == 0) return std::nullopt;
    for (size_t i = 0; i < sum.size(); ++i) {
        const uint64_t t = a.values[i] ^ a.nim_sum;
        if (t < a.values[i]) {
            GameSum next = sum;
            next[i] = move_to_value(sum[i], t, wythoff);
            return next;
        }
    }
    throw std::logic_error("nonzero nim-sum without a component to reduce");
}

std::optional<GameSum> sum_losing_move(const GameSum& sum) {
    for (size_t i = 0; i < sum.size(); ++i) {
        SumComponent c = sum[i];
        bool moved = false;
        switch (c.kind) {
            case Kind::Nim:
                if ((moved = c.x > 0)) --c.x;
                break;
            case Kind::Subtraction:
                if ((moved = c.moves.front() <= c.x)) c.x -= c.moves.front();
                break;
            case Kind::Wythoff:
                if (const auto m = wythoff_losing_move(c.x, c.y); (moved = m.has_value())) {
                    c.x = m->x;
                    c.y = m->y;
                }
                break;
        }
        if (moved) {
            GameSum next = sum;
            next[i] = c;
            return next;
        }
    }
    return std::nullopt;
}

std::vector<GameSum> sum_perfect_game(const GameSum& sum, const WythoffValues* wythoff,
                                      uint64_t max_moves) {
    std::vector<GameSum> game{sum};
    for (uint64_t i = 0; i < max_moves; ++i) {
        auto next = sum_winning_move(game.back(), wythoff);
        if (!next) next = sum_losing_move(game.back());
        if (!next) break;
        game.push_back(std::move(*next));
    }
    return game;
}

}  // namespace grundy
