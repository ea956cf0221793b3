// Perfect play from Python: Wythoff's game exactly up to 2^63 - 1 (`grundy move X Y`), and sums
// of games (`grundy move --sum`) written in the CLI's syntax or as lists of tuples.
#include "grundy/play.hpp"

#include "python/common.hpp"

namespace grundy::python {
namespace {

py::tuple pair(const WythoffPosition& p) {
    return py::make_tuple(p.x, p.y);
}

uint64_t coordinate(py::handle v, const char* name) {
    return whole_number(v, name, 0, kMaxCoordinate);
}

// A sum as Python gives it: the CLI's text, or components ("wythoff", x, y), ("nim", heap),
// ("sub", moves, heap), written out as that text and parsed by the library (its checks, its
// messages). `as_text` says which form the answers take.
GameSum sum_arg(py::handle sum, bool& as_text) {
    as_text = py::isinstance<py::str>(sum);
    if (as_text) return parse_sum(sum.cast<std::string>());
    if (!py::isinstance<py::sequence>(sum))
        throw py::type_error(
            "a sum must be a str like \"wythoff:13,9 nim:5\" or a list of "
            "tuples like [(\"wythoff\", 13, 9), (\"nim\", 5)]");
    std::string text;
    for (py::handle c : sum) {
        if (!py::isinstance<py::tuple>(c) && !py::isinstance<py::list>(c))
            throw py::type_error("a component of a sum must be a tuple like (\"nim\", 5), not " +
                                 std::string(py::str(py::type::of(c).attr("__name__"))));
        const py::sequence t = py::reinterpret_borrow<py::sequence>(c);
        if (t.size() == 0 || !py::isinstance<py::str>(t[0]))
            throw py::type_error(
                "a component of a sum starts with its kind: \"wythoff\", "
                "\"nim\" or \"sub\"");
        const std::string kind = t[0].cast<std::string>();
        std::string part;
        auto number = [](py::handle v) {
            return std::to_string(whole_number(v, "a heap or coordinate", 0, kMaxCoordinate));
        };
        if (kind == "wythoff" && t.size() == 3) {
            part.append("wythoff:").append(number(t[1])).append(",").append(number(t[2]));
        } else if (kind == "nim" && t.size() == 2) {
            part.append("nim:").append(number(t[1]));
        } else if (kind == "sub" && t.size() == 3) {
            part = "sub:";
            bool first = true;
            for (py::handle move : py::reinterpret_borrow<py::sequence>(t[1])) {
                part.append(first ? "" : ",").append(number(move));
                first = false;
            }
            part.append(":").append(number(t[2]));
        } else {
            throw py::value_error("component " + std::string(py::repr(c)) +
                                  " of the sum: expected (\"wythoff\", X, Y), (\"nim\", HEAP) "
                                  "or (\"sub\", MOVES, HEAP)");
        }
        text.append(text.empty() ? "" : " ").append(part);
    }
    return parse_sum(text);
}

py::object sum_out(const GameSum& sum, bool as_text) {
    if (as_text) return py::str(format_sum(sum));
    py::list out;
    for (const SumComponent& c : sum) {
        switch (c.kind) {
            case SumComponent::Kind::Wythoff:
                out.append(py::make_tuple("wythoff", c.x, c.y));
                break;
            case SumComponent::Kind::Nim:
                out.append(py::make_tuple("nim", c.x));
                break;
            case SumComponent::Kind::Subtraction:
                out.append(py::make_tuple("sub", py::tuple(py::cast(c.moves)), c.x));
                break;
        }
    }
    return out;
}

// The Wythoff values a sum needs: none, a stored table, or the engine's (GIL released).
std::optional<WythoffValues> values_for(const GameSum& sum, py::object table, py::handle max_cells,
                                        py::handle threads) {
    bool wythoff = false;
    for (const auto& c : sum) wythoff |= c.kind == SumComponent::Kind::Wythoff;
    if (!table.is_none()) {
        const std::string path = path_arg(table, "table");
        const Hdf5Lock hdf5;
        py::gil_scoped_release release;
        return file_call([&] { return WythoffValues::from_file(path, sum); });
    }
    if (!wythoff) return std::nullopt;
    const uint64_t cells = whole_number(max_cells, "max_cells", 1, uint64_t{1} << 40);
    const int t = threads_arg(threads);
    py::gil_scoped_release release;
    return WythoffValues::computed(sum, cells, t);
}

const char* kSumDoc =
    "sum: the CLI's text, e.g. \"wythoff:13,9 nim:5 sub:1,3,4:10\", or a list of tuples "
    "[(\"wythoff\", 13, 9), (\"nim\", 5), (\"sub\", (1, 3, 4), 10)]; answers come in the same "
    "form. Wythoff values come from `table` (a stored table's path) or are computed for the "
    "rectangle the sum needs (at most max_cells cells, on `threads` threads).";

// Binds name(x, y): the position after move(x, y), or None where it has none.
template <class Move>
void def_optional_move(py::module_& m, const char* name, Move move, const char* doc) {
    m.def(
        name,
        [move](py::handle x, py::handle y) -> py::object {
            const auto p = move(coordinate(x, "X"), coordinate(y, "Y"));
            return p ? py::object(pair(*p)) : py::object(py::none());
        },
        py::arg("x"), py::arg("y"), doc);
}

}  // namespace

void bind_play(py::module_& m) {
    m.def(
        "wythoff_a", [](py::handle n) { return wythoff_a(coordinate(n, "n")); }, py::arg("n"),
        "a_n = floor(n phi), exactly (integer arithmetic), for 0 <= n <= 2^63 - 1: the P-positions "
        "are (a_n, a_n + n) and (a_n + n, a_n).");
    m.def(
        "is_p_position",
        [](py::handle x, py::handle y) {
            return wythoff_is_p_position(coordinate(x, "X"), coordinate(y, "Y"));
        },
        py::arg("x"), py::arg("y"),
        "Whether (x, y) is a P-position of Wythoff's game (lost for the player to move), exactly "
        "for coordinates up to 2^63 - 1.");
    m.def(
        "winning_moves",
        [](py::handle x, py::handle y) {
            py::list out;
            for (const auto& p : wythoff_winning_moves(coordinate(x, "X"), coordinate(y, "Y")))
                out.append(pair(p));
            return out;
        },
        py::arg("x"), py::arg("y"),
        R"(winning_moves(x, y) -> list[tuple[int, int]]

Every winning move of Wythoff's game from (x, y) as the position after it (at most three:
down the column, along the row, along the diagonal), best first: fewest tokens taken, then the
smaller position. Empty at a P-position. Exact for x, y up to 2^63 - 1 (ValueError beyond).)");
    def_optional_move(
        m, "winning_move", wythoff_winning_move,
        "winning_move(x, y) -> tuple[int, int] | None\n\nThe best of winning_moves(x, y) (the "
        "move `grundy move X Y` prints), or None at a P-position.");
    def_optional_move(
        m, "losing_move", wythoff_losing_move,
        "The move of a player who is lost: one token from the larger heap, which makes the game "
        "last longest. None at (0, 0).");
    m.def(
        "perfect_game",
        [](py::handle x, py::handle y, py::handle max_moves) {
            py::list out;
            for (const auto& p :
                 wythoff_perfect_game(coordinate(x, "X"), coordinate(y, "Y"),
                                      whole_number(max_moves, "max_moves", 0, kMaxCoordinate)))
                out.append(pair(p));
            return out;
        },
        py::arg("x"), py::arg("y"), py::kw_only(), py::arg("max_moves") = 1000,
        "The positions of a game of Wythoff's between perfect players from (x, y), (x, y) first, "
        "ending at (0, 0) unless max_moves moves were made first.");

    m.def(
        "parse_sum", [](const std::string& text) { return sum_out(parse_sum(text), false); },
        py::arg("text"),
        "The CLI's text of a sum (\"wythoff:13,9 nim:5 sub:1,3,4:10\") as a list of tuples; "
        "ValueError with the CLI's message for anything malformed.");
    m.def(
        "format_sum",
        [](py::handle sum) {
            bool as_text = false;
            return format_sum(sum_arg(sum, as_text));
        },
        py::arg("sum"), "A sum (text or list of tuples) in the CLI's text.");
    static const std::string value_doc =
        std::string(
            "sum_values(sum, *, table=None, max_cells=2**26, threads=0) -> "
            "tuple[list[int], int]\n\nEach component's Grundy value and their nim-sum "
            "(xor), as `grundy move --sum ... --explain`.\n\n") +
        kSumDoc;
    m.def(
        "sum_values",
        [](py::handle sum, py::object table, py::handle max_cells, py::handle threads) {
            bool as_text = false;
            const GameSum s = sum_arg(sum, as_text);
            const auto values = values_for(s, std::move(table), max_cells, threads);
            const SumAnalysis a = analyze_sum(s, values ? &*values : nullptr);
            return py::make_tuple(a.values, a.nim_sum);
        },
        py::arg("sum"), py::kw_only(), py::arg("table") = py::none(),
        py::arg("max_cells") = uint64_t{1} << 26, py::arg("threads") = 0, value_doc.c_str());
    static const std::string move_doc =
        std::string(
            "sum_winning_move(sum, *, table=None, max_cells=2**26, threads=0)\n\nThe sum "
            "after a winning move (`grundy move --sum`), or None when its nim-sum is 0 "
            "(no winning move).\n\n") +
        kSumDoc;
    m.def(
        "sum_winning_move",
        [](py::handle sum, py::object table, py::handle max_cells,
           py::handle threads) -> py::object {
            bool as_text = false;
            const GameSum s = sum_arg(sum, as_text);
            const auto values = values_for(s, std::move(table), max_cells, threads);
            const auto next = sum_winning_move(s, values ? &*values : nullptr);
            return next ? sum_out(*next, as_text) : py::object(py::none());
        },
        py::arg("sum"), py::kw_only(), py::arg("table") = py::none(),
        py::arg("max_cells") = uint64_t{1} << 26, py::arg("threads") = 0, move_doc.c_str());
    m.def(
        "sum_losing_move",
        [](py::handle sum) -> py::object {
            bool as_text = false;
            const auto next = sum_losing_move(sum_arg(sum, as_text));
            return next ? sum_out(*next, as_text) : py::object(py::none());
        },
        py::arg("sum"),
        "The move of a player who is lost: the smallest move in the first component that has "
        "one; None when no component has a move.");
    static const std::string game_doc =
        std::string(
            "sum_perfect_game(sum, *, max_moves=1000, table=None, max_cells=2**26, "
            "threads=0) -> list\n\nA whole game between perfect players from `sum`, "
            "`sum` first, until no component has a move or max_moves moves were "
            "made.\n\n") +
        kSumDoc;
    m.def(
        "sum_perfect_game",
        [](py::handle sum, py::handle max_moves, py::object table, py::handle max_cells,
           py::handle threads) {
            bool as_text = false;
            const GameSum s = sum_arg(sum, as_text);
            const uint64_t moves = whole_number(max_moves, "max_moves", 0, kMaxCoordinate);
            const auto values = values_for(s, std::move(table), max_cells, threads);
            py::list out;
            for (const GameSum& g : sum_perfect_game(s, values ? &*values : nullptr, moves))
                out.append(sum_out(g, as_text));
            return out;
        },
        py::arg("sum"), py::kw_only(), py::arg("max_moves") = 1000, py::arg("table") = py::none(),
        py::arg("max_cells") = uint64_t{1} << 26, py::arg("threads") = 0, game_doc.c_str());

    m.def(
        "subtraction_values",
        [](std::vector<uint64_t> moves, py::handle n) {
            const uint64_t count = whole_number(n, "n", 0, kMaxSubtractionLength);
            const std::vector<uint32_t> v =
                subtraction_grundy(normalize_subtraction_moves(std::move(moves)), count);
            return py::array_t<uint32_t>(static_cast<py::ssize_t>(v.size()), v.data());
        },
        py::arg("moves"), py::arg("n"),
        "g(0), ..., g(n - 1) of the subtraction game whose moves take any number in `moves` from "
        "the heap, as a numpy uint32 array.");
}

}  // namespace grundy::python
