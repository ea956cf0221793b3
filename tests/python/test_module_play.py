"""The Python module `grundy` (src/python): perfect play of Wythoff's game (seed 004) and of sums
of games, exact up to 2^63, and seed 000's games written in Python. The module's other calls are
test_module.py's.

scripts/test puts build/python on PYTHONPATH and sets GRUNDY_REQUIRE_MODULE=1, so a module that
does not build or import fails the run; elsewhere these tests are skipped without it.
"""

import math
import random

import numpy as np
import pytest

from conftest import import_grundy

grundy = import_grundy()


# ---- perfect play --------------------------------------------------------------------------------


def test_seed_004_moves():
    assert grundy.winning_move(5, 0) == (0, 0)
    assert grundy.winning_move(2, 2) in {(1, 2), (2, 1), (0, 0)}
    assert grundy.winning_move(1, 2) is None and grundy.winning_moves(1, 2) == []
    assert grundy.winning_move(13, 9) in {(13, 8), (10, 6)}
    assert set(grundy.winning_moves(13, 9)) == {(13, 8), (10, 6)}
    assert grundy.winning_move(10, 6) is None
    assert grundy.winning_move(5, 10) == (5, 3)
    assert grundy.winning_move(25, 30) == (8, 13)


def exact_a(n):
    return (n + math.isqrt(5 * n * n)) // 2


def test_moves_are_exact_up_to_2_63():
    rng = random.Random(17)
    top = 2**63 - 1
    for _ in range(200):
        x, y = rng.randrange(top), rng.randrange(top)
        moves = grundy.winning_moves(x, y)
        assert moves == [] if grundy.is_p_position(x, y) else moves
        for (u, v) in moves:
            legal = (u == x and v < y) or (v == y and u < x) or (x - u == y - v > 0)
            assert legal and grundy.is_p_position(u, v)
            lo, hi = min(u, v), max(u, v)
            assert lo == exact_a(hi - lo)  # (a_n, a_n + n) by exact integers
    n = 10**18
    assert grundy.wythoff_a(n) == exact_a(n)
    assert grundy.is_p_position(exact_a(n), exact_a(n) + n)
    assert (0, 0) in grundy.winning_moves(top, top)


def test_sums_in_text_and_as_tuples():
    assert grundy.sum_winning_move("nim:3 nim:3") is None
    assert grundy.sum_winning_move("wythoff:13,9 nim:5") is None  # g(13, 9) = 5
    values, total = grundy.sum_values("wythoff:13,9 nim:5 sub:1,3,4:10")
    assert values == [5, 5, 1] and total == 1
    move = grundy.sum_winning_move([("wythoff", 13, 9), ("nim", 5), ("sub", (1, 3, 4), 10)])
    assert isinstance(move, list) and move[1:] == [("nim", 5), ("sub", (1, 3, 4), 10)]
    assert grundy.sum_values(move)[1] == 0
    text = grundy.sum_winning_move("wythoff:13,9 nim:5 sub:1,3,4:10")
    assert grundy.parse_sum(text) == move and grundy.format_sum(move) == text
    game = grundy.sum_perfect_game("nim:2 nim:5")
    assert game[0] == "nim:2 nim:5" and game[-1] == "nim:0 nim:0"
    np.testing.assert_array_equal(grundy.subtraction_values([1, 3, 4], 14),
                                  [0, 1, 0, 1, 2, 3, 2, 0, 1, 0, 1, 2, 3, 2])


def test_sum_values_from_a_stored_table(tmp_path):
    path = tmp_path / "w.h5"
    grundy.compute(path, 20, 20)
    assert grundy.sum_values("wythoff:13,9", table=path)[0] == [5]
    with pytest.raises(OSError):
        grundy.sum_values("wythoff:30,9", table=path)


# ---- seed 000's games ----------------------------------------------------------------------------


def blackjack(n=6, x=0):
    from itertools import combinations

    def succ(state):
        if sum(state) <= x:
            return set()
        s = set(state)
        return {tuple(sorted(s - {i} | {j})) for i in s for j in set(range(2 * n)) - s if j < i}

    return set(combinations(range(2 * n), n)), succ


@pytest.mark.parametrize("x", [0, 21])
def test_blackjack_kernel(x):
    positions, succ = blackjack(x=x)
    g = grundy.Game(succ, positions=positions)
    assert len(g) == 924
    assert g.is_kernel() and g.is_kernel(set(g.kernel()))
    assert g.is_kernel(lambda p: g.grundy(p) == 0)
    assert not g.is_kernel(set(g.kernel()[1:]))
    for p in positions:  # a position is in the kernel exactly when no successor is
        assert g.in_kernel(p) == all(not g.in_kernel(q) for q in succ(p))
    start = (6, 7, 8, 9, 10, 11)
    game = g.perfect_game(start)
    assert game[0] == start and not g.successors(game[-1])
    for a, b in zip(game, game[1:]):
        assert b in succ(a)
        if not g.in_kernel(a):
            assert g.in_kernel(b)  # a perfect player moves into the kernel
    if x == 0:
        assert g.in_kernel(start) and game[-1] == (0, 1, 2, 3, 4, 5)
        lines = g.game_text(start).splitlines()
        assert lines[0] == "   (6, 7, 8, 9, 10, 11) \u2208 K"


def test_batonnets():
    k = 4
    g = grundy.Game(lambda s: {s - h for h in range(1, k) if s >= h}, start=20)
    assert len(g) == 21 and all(g[s] == s % k for s in range(21))
    assert g.kernel() == [20, 16, 12, 8, 4, 0]
    game = g.perfect_game(20)
    assert game[-1] == 0 and all(game[i] % k == 0 for i in range(2, len(game), 2))


def test_game_errors():
    with pytest.raises(ValueError, match=r"cycle through position \d"):
        grundy.Game(lambda s: [(s + 1) % 5], start=0)
    with pytest.raises(ValueError, match="'b' of 'a' is not among the game's positions"):
        grundy.Game(lambda s: ["b"] if s == "a" else [], positions=["a"])
    with pytest.raises(ZeroDivisionError):
        grundy.Game(lambda s: [1 // 0], start=0)
    with pytest.raises(TypeError):
        grundy.Game(lambda s: [[1]], start=0)  # a list is not hashable
    with pytest.raises(TypeError):
        grundy.Game(lambda s: [], positions=[1], start=1)
    g = grundy.Game(lambda s: [], start=1)
    with pytest.raises(ValueError, match="position 2 is not in the game"):
        g.grundy(2)
