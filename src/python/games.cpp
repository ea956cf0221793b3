// grundy.Game: seed 000's finite games with positions and a successor function written in
// Python, solved by the library's FiniteGame (Kahn's algorithm in C++).
#include <memory>
#include <sstream>

#include "grundy/game.hpp"
#include "python/common.hpp"

namespace grundy::python {
namespace {

// A Python object as a position: hashed and compared by Python, printed by its repr. A plain
// py::object would not do: game.hpp would take its shift operator for printing and its
// iterator for a range.
struct Position {
    py::object object;
    bool operator==(const Position& other) const { return object.equal(other.object); }
};

std::ostream& operator<<(std::ostream& out, const Position& p) {
    return out << std::string(py::repr(p.object));
}

struct PositionHash {
    size_t operator()(const Position& p) const { return static_cast<size_t>(py::hash(p.object)); }
};

using Game = FiniteGame<Position, PositionHash>;

std::vector<Position> positions_of(py::handle iterable) {
    std::vector<Position> out;
    for (py::handle p : py::iter(iterable)) out.push_back({py::reinterpret_borrow<py::object>(p)});
    return out;
}

py::list list_of(const std::vector<Position>& positions) {
    py::list out;
    for (const Position& p : positions) out.append(p.object);
    return out;
}

struct PyGame {
    std::unique_ptr<Game> game;
    py::object successors;
};

PyGame make_game(py::object successors, py::object positions, py::object start) {
    if (!PyCallable_Check(successors.ptr()))
        throw py::type_error("successors must be a callable: successors(position) -> iterable");
    if (positions.is_none() == start.is_none())
        throw py::type_error(
            "give exactly one of positions (every position of the game) and "
            "start (the game is every position reachable from it)");
    Game::Successors succ = [successors](const Position& p) {
        return positions_of(successors(p.object));
    };
    PyGame g;
    g.successors = successors;
    if (!positions.is_none())
        g.game = std::make_unique<Game>(Game::from_positions(positions_of(positions), succ));
    else
        g.game = std::make_unique<Game>(Game::from_start(Position{start}, succ));
    return g;
}

Position pos(py::handle p) {
    return Position{py::reinterpret_borrow<py::object>(p)};
}

}  // namespace

void bind_games(py::module_& m) {
    py::class_<PyGame>(m, "Game", R"(Game(successors, *, positions=None, start=None)

A finite impartial game (seed 000's GAME): successors(p) returns the positions reachable from
p in one move (any iterable; positions are any hashable Python values). Give either
`positions`, every position of the game (a successor outside them is a ValueError), or
`start`, and the game is every position reachable from it. The Grundy values of all positions
are computed at once by Kahn's algorithm in C++; a cycle raises ValueError naming a position
on it. Exceptions raised by successors() propagate.

g.grundy(p) or g[p]: the Grundy value; g.kernel(): the positions of value 0 (the P-positions);
g.is_kernel(k): seed 000's verifK; g.perfect_move(p), g.perfect_game(p), g.game_text(p).)")
        .def(py::init(&make_game), py::arg("successors"), py::kw_only(),
             py::arg("positions") = py::none(), py::arg("start") = py::none())
        .def(
            "__len__", [](const PyGame& g) { return g.game->size(); }, "Number of positions.")
        .def(
            "__contains__", [](const PyGame& g, py::handle p) { return g.game->contains(pos(p)); },
            py::arg("position"))
        .def(
            "grundy", [](const PyGame& g, py::handle p) { return g.game->grundy(pos(p)); },
            py::arg("position"),
            "The Grundy value of a position (ValueError for one not in the game).")
        .def("__getitem__", [](const PyGame& g, py::handle p) { return g.game->grundy(pos(p)); })
        .def_property_readonly(
            "positions", [](const PyGame& g) { return list_of(g.game->positions()); },
            "Every position, in the order they were found.")
        .def(
            "in_kernel", [](const PyGame& g, py::handle p) { return g.game->in_kernel(pos(p)); },
            py::arg("position"), "Whether the position's value is 0 (lost for the player to move).")
        .def(
            "kernel", [](const PyGame& g) { return list_of(g.game->kernel()); },
            "The positions of Grundy value 0 (the kernel), in the order of `positions`.")
        .def(
            "successors",
            [](const PyGame& g, py::handle p) { return list_of(g.game->successors(pos(p))); },
            py::arg("position"), "The successors as successors() gave them, without repeats.")
        .def(
            "is_kernel",
            [](const PyGame& g, py::object k) {
                if (k.is_none())
                    return g.game->is_kernel(
                        [&](const Position& p) { return g.game->in_kernel(p); });
                if (PyCallable_Check(k.ptr()))
                    return g.game->is_kernel(
                        [&](const Position& p) { return py::bool_(k(p.object)).cast<bool>(); });
                if (!py::hasattr(k, "__contains__"))
                    throw py::type_error(
                        "k must be a callable(position) -> bool or a collection "
                        "of positions");
                return g.game->is_kernel([&](const Position& p) {
                    return k.attr("__contains__")(p.object).cast<bool>();
                });
            },
            py::arg("k") = py::none(),
            R"(is_kernel(k=None) -> bool

Seed 000's verifK: whether k describes the kernel, i.e. a position is in k exactly when none of
its successors is. k: a callable(position) -> bool, a collection of positions (a set, ...), or
None for the kernel this game computed.)")
        .def(
            "perfect_move",
            [](const PyGame& g, py::handle p) -> py::object {
                const auto next = g.game->perfect_move(pos(p));
                return next ? next->object : py::object(py::none());
            },
            py::arg("position"),
            "A perfect player's move: the first successor in the kernel when there is one, else "
            "the first successor; None when the position has no successor.")
        .def(
            "perfect_game",
            [](const PyGame& g, py::handle p) { return list_of(g.game->perfect_game(pos(p))); },
            py::arg("position"),
            "A game between perfect players from the position to one without successors.")
        .def(
            "game_text",
            [](const PyGame& g, py::handle p) {
                std::ostringstream out;
                g.game->print_game(out, pos(p));
                return out.str();
            },
            py::arg("position"),
            "Seed 000's game(): one line per position of perfect_game, with \u2208 K or \u2209 K.")
        .def("__repr__", [](const PyGame& g) {
            return "<grundy.Game of " + std::to_string(g.game->size()) + " positions>";
        });
}

}  // namespace grundy::python
