"""The bigger domino sets (double-nine, double-twelve): deal sizes, conservation,
seat ranges, notation, rigged-deck scenarios for the lead, the draw and the
scoring of an emptied rack and of a blocked round, hidden information over
random games, the bots, and the console's 80x24 frame with a long line.
"""

from __future__ import annotations

import random
import re

import pytest

from lanmatch.bots import make_bot
from lanmatch.rules import GAMES, IllegalAction, new_game
from lanmatch.rules.dominoes import TABLES, domino_set

BIG = ["double-nine", "double-twelve"]
CASES = [(t, n) for t in TABLES for n in sorted(TABLES[t].hands)]
TILE_RE = re.compile(r"(?<!\d)\d{1,2}-\d{1,2}(?!\d)")


def full(table: str) -> list[str]:
    """Every tile of the table's set, top-top first."""
    return list(reversed(domino_set(TABLES[table].top).tiles))


def rig(table: str, *hands: list[str], boneyard: list[str] = ()) -> list[str]:
    """Hands in seat order, then the boneyard top first, then every tile not named yet."""
    named = [t for hand in hands for t in hand] + list(boneyard)
    assert len(set(named)) == len(named), "a tile is named twice"
    return named + [t for t in full(table) if t not in named]


def canon(code: str) -> str:
    a, b = map(int, code.split("-"))
    return f"{max(a, b)}-{min(a, b)}"


def pips(code: str) -> int:
    a, b = map(int, code.split("-"))
    return a + b


def held(g) -> list[list[str]]:
    return [g.view(s)["hand"] for s in range(g.players)]


def accounted(g) -> list[str]:
    """Every tile the game holds: hands, line, boneyard (the engine's own)."""
    tiles = [t for hand in held(g) for t in hand] + [canon(t) for t in g.view(0)["line"]]
    return tiles + [g.dset.tiles[i] for i in g._boneyard]


# ---------------------------------------------------------------- the sets


def test_the_sets_hold_the_tiles_they_should():
    assert [len(full(t)) for t in TABLES] == [28, 55, 91]
    assert full("double-twelve")[:3] == ["12-12", "12-11", "12-10"]
    assert full("double-nine")[-1] == "0-0"
    # the double-six codes keep their numbers in the bigger sets, and are written as before
    assert domino_set(12).tiles[:28] == domino_set(6).tiles


@pytest.mark.parametrize(("table", "players"), CASES)
def test_deal_sizes_and_conservation_at_every_set_and_seat_count(table, players):
    size = TABLES[table].hands[players]
    for seed in range(3):
        g = new_game("dominoes", table=table, players=players, seed=seed)
        v = g.view(0)
        assert v["counts"] == [size] * players and v["boneyard"] == len(full(table)) - players * size
        assert v["set"] == TABLES[table].top
        deal = [e for e in v["events"] if e["type"] == "deal"][-1]
        assert deal["counts"] == [size] * players and deal["boneyard"] == v["boneyard"]
        rng = random.Random(seed)
        rounds = g.view(0)["round"]
        for _ in range(3000):  # bounded: a match ends long before
            tiles = accounted(g)
            assert sorted(tiles) == sorted(full(table)), "every tile of the set, once"
            if g.view(0)["round"] != rounds:  # each new round deals the same sizes again
                rounds = g.view(0)["round"]
                assert g.view(0)["counts"] == [size] * players
            if g.outcome is not None:
                break
            seat = g.to_act[0]
            g.act(seat, rng.choice(g.legal_actions(seat)))
        assert g.outcome is not None


@pytest.mark.parametrize(("table", "bad"), [("dominoes", 5), ("dominoes", 6), ("double-nine", 7),
                                             ("double-twelve", 1), ("double-twelve", 7)])
def test_each_set_seats_its_own_range(table, bad):
    spec = TABLES[table]
    with pytest.raises(ValueError, match=f"{spec.min_players} to {spec.max_players}"):
        new_game("dominoes", table=table, players=bad, seed=1)
    assert not GAMES["dominoes"].seats_ok(bad, table)
    assert GAMES["dominoes"].seats_ok(spec.max_players, table)


def test_the_registry_declares_the_sets_and_the_double_six_table_stays_unnamed():
    game = GAMES["dominoes"]
    assert list(game.tables) == ["dominoes", "double-nine", "double-twelve"]
    assert game.table_name(None) is None and game.table_name("dominoes") is None
    assert game.table_name("double-twelve") == "double-twelve"
    assert game.title_of(None) == "Dominoes" and game.title_of("double-nine") == "Dominoes · Double-nine"
    assert game.seat_range("double-nine") == (2, 6) and game.seat_range(None) == (2, 4)


def test_a_rigged_deck_must_be_the_whole_bigger_set():
    deck = full("double-nine")
    with pytest.raises(ValueError, match="55 tiles"):
        new_game("dominoes", table="double-nine", players=2, seed=1, deck=deck[:-1])
    with pytest.raises(ValueError, match="not a double-nine tile"):
        new_game("dominoes", table="double-nine", players=2, seed=1, deck=[*deck[:-1], "10-0"])
    with pytest.raises(ValueError, match="not a double-six tile"):  # the double-six table takes no big tile
        new_game("dominoes", players=2, seed=1, deck=full("double-nine")[:28])


# ---------------------------------------------------------------- rigged scenarios


def test_the_highest_double_of_the_bigger_set_leads_and_is_written_as_dealt():
    hand0 = ["11-11", "12-3", "10-4", "9-9", "8-1", "7-0", "6-6", "5-2", "4-4", "3-0", "2-1", "1-0", "11-2", "10-10", "12-0"]
    hand1 = ["12-12", "12-11", "11-10", "9-8", "8-8", "7-7", "6-5", "5-5", "4-3", "3-3", "2-2", "1-1", "0-0", "10-9", "12-1"]
    g = new_game("dominoes", table="double-twelve", players=2, seed=1, deck=rig("double-twelve", hand0, hand1))
    assert g.to_act == [1] and g.legal_actions(1) == [{"type": "play", "tile": "12-12", "end": "left"}]
    with pytest.raises(IllegalAction, match="opens with 12-12"):
        g.act(1, {"type": "play", "tile": "11-10"})
    g.act(1, {"type": "play", "tile": "12-12"})
    # seat 0 may play 12-3 or 12-0 on either end: the ends are both 12
    assert {a["tile"] for a in g.legal_actions(0)} == {"12-3", "12-0"}
    g.act(0, {"type": "play", "tile": "3-12", "end": "right"})  # equal ends: either end means left
    assert g.view(0)["line"] == ["3-12", "12-12"] and g.view(0)["ends"] == [3, 12]
    g.act(1, {"type": "play", "tile": "11-12", "end": "right"})
    assert g.view(1)["line"] == ["3-12", "12-12", "12-11"] and g.view(1)["ends"] == [3, 11]


def test_no_double_dealt_the_heaviest_tile_leads():
    no_doubles = [t for t in full("double-nine") if t.split("-")[0] != t.split("-")[1]]
    hand0 = no_doubles[1:11]  # 9-7, 9-6, ...
    hand1 = [no_doubles[0], *no_doubles[11:20]]  # 9-8, the heaviest
    g = new_game("dominoes", table="double-nine", players=2, seed=1, deck=rig("double-nine", hand0, hand1))
    assert g.to_act == [1] and g.legal_actions(1)[0]["tile"] == "9-8"


def test_a_seat_with_no_fit_draws_until_a_tile_plays():
    # seat 0 leads 12-12; seat 1 holds no 12 and draws 4-3, 6-5 (no 12), then 12-7, which plays
    top = ["4-3", "6-5", "12-7"]
    others = [t for t in full("double-twelve") if "12" not in t.split("-") and t not in top]
    hand0 = ["12-12", *others[:14]]
    hand1 = others[14:29]
    g = new_game("dominoes", table="double-twelve", players=2, seed=1,
                 deck=rig("double-twelve", hand0, hand1, boneyard=top))
    g.act(0, {"type": "play", "tile": "12-12"})
    before = g.view(1)["boneyard"]
    for drawn in top:
        assert g.legal_actions(1) == [{"type": "draw"}]
        with pytest.raises(IllegalAction, match="matches neither"):
            g.act(1, {"type": "play", "tile": hand1[0]})
        with pytest.raises(IllegalAction, match="draw a tile"):
            g.act(1, {"type": "pass"})
        g.act(1, {"type": "draw"})
        assert drawn in g.view(1)["hand"] and g.to_act == [1]
    assert g.view(1)["boneyard"] == before - 3
    assert g.legal_actions(1) == [{"type": "play", "tile": "12-7", "end": "left"}]
    events = g.act(1, {"type": "play", "tile": "12-7"})
    assert events[0]["ends"] == [7, 12]


def _first_legal_playout(table: str, players: int, deck: list[str]):
    """Play round 1 with each seat's first legal action; return the game and
    each seat's pips just before the round's last action, and its events."""
    g = new_game("dominoes", table=table, players=players, seed=1, deck=deck, options={"target": 500})
    for _ in range(2000):
        before = [g.view(s)["pips"] for s in range(players)]
        seat = g.to_act[0]
        action = g.legal_actions(seat)[0]
        events = g.act(seat, action)
        ends = [e for e in events if e["type"] == "round_end"]
        if ends:
            if action["type"] == "play":  # the player who went out played its tile's pips
                before[seat] -= pips(action["tile"])
            return g, before, ends[0]
    raise AssertionError("round 1 did not end")


def test_going_out_scores_every_rivals_pips_at_the_bigger_set():
    for seed in range(200):  # rigged decks, shuffled by a fixed seed, until round 1 ends out
        deck = full("double-nine")
        random.Random(seed).shuffle(deck)
        g, before, end = _first_legal_playout("double-nine", 3, deck)
        if end["reason"] == "out":
            break
    else:
        raise AssertionError("no round ended out")
    w = end["winner"]
    assert before[w] == 0 and end["pips"] == before
    assert end["points"] == sum(before) and g.view(0)["scores"][w] == end["points"]


def test_a_blocked_round_scores_the_lowest_rack_or_nothing_on_a_tie_at_the_bigger_set():
    seen = set()
    for seed in range(600):
        deck = full("double-nine")
        random.Random(seed).shuffle(deck)
        g, before, end = _first_legal_playout("double-nine", 2, deck)
        if end["reason"] != "blocked":
            continue
        assert g.view(0)["round"] == 2 and end["pips"] == before
        low = min(before)
        if before.count(low) == 1:
            assert end["winner"] == before.index(low) and end["points"] == sum(before) - low
            assert g.view(0)["scores"][end["winner"]] == end["points"]
            seen.add("won")
        else:
            assert end["winner"] is None and end["points"] == 0 and g.view(0)["scores"] == [0, 0]
            seen.add("tie")
        if "won" in seen:
            break
    assert "won" in seen


# ---------------------------------------------------------------- hidden information


@pytest.mark.parametrize(("table", "players"), [(t, n) for t in BIG for n in (2, 4, 6)])
def test_a_seat_sees_only_its_own_tiles_over_random_games(table, players):
    for seed in range(4):
        rng = random.Random(seed)
        g = new_game("dominoes", table=table, players=players, seed=seed)
        for _ in range(400):
            views = [g.view(s) for s in range(players)]
            hands = [set(v["hand"]) for v in views]
            watcher = g.watch_view()
            assert watcher["hand"] == [] and watcher["pips"] == 0
            for seat, v in enumerate(views):
                line = {canon(t) for t in v["line"]}
                deals = [i for i, e in enumerate(v["events"]) if e["type"] == "deal"]
                recent = v["events"][deals[-1]:] if deals else v["events"]
                shown = {canon(m) for m in TILE_RE.findall(repr({**v, "events": recent}))}
                assert shown <= hands[seat] | line, f"seat {seat} sees {shown - hands[seat] - line}"
                assert all(e["type"] != "draw" or "tile" not in e for e in v["events"])
                for key in watcher.keys() - {"seat", "hand", "pips", "events"}:
                    assert watcher[key] == v[key]
            if g.outcome is not None:
                break
            seat = g.to_act[0]
            g.act(seat, rng.choice(g.legal_actions(seat)))


# ---------------------------------------------------------------- bots


@pytest.mark.parametrize("level", ["easy", "medium", "hard"])
@pytest.mark.parametrize("table", BIG)
def test_bots_play_the_bigger_sets_to_the_end(table, level):
    players = 5
    g = new_game("dominoes", table=table, players=players, seed=3)
    bots = [make_bot(level, game="dominoes", table=table, seat=s, seed=s) for s in range(players)]
    for _ in range(5000):
        if g.outcome is not None:
            break
        seat = g.to_act[0]
        action = bots[seat].choose(g.view(seat), g.legal_actions(seat))
        assert action in g.legal_actions(seat) or action["type"] == "play"
        g.act(seat, action)
    assert g.outcome is not None


# ---------------------------------------------------------------- the console at 80x24


def test_a_long_double_twelve_line_fits_the_80x24_table_with_both_ends_and_the_whole_rack():
    from _console import seated_ui, text

    g = new_game("dominoes", table="double-twelve", players=6, seed=3)
    for _ in range(3000):  # first legal actions until seat 0 moves beside a line of 60 tiles or more
        v = g.view(0)
        if v["turn"] == 0 and len(v["line"]) >= 60:
            break
        g.act(v["turn"], g.legal_actions(v["turn"])[0])
    else:
        raise AssertionError("no long line came up")
    ui = seated_ui(g, game="dominoes", table="double-twelve")
    screen = text(ui, 0.0, 80, 24)  # 24 rows, none wider than 80
    rows = screen.splitlines()
    at = next(k for k, row in enumerate(rows) if f"Line ({len(v['line'])} tiles)" in row)
    ends_at = next(k for k, row in enumerate(rows) if row.startswith(" Open ends:"))
    assert 1 <= ends_at - at <= 4, "the line takes at most four rows"
    assert "more …" in screen
    line_text = "\n".join(rows[at:ends_at])
    first, last = v["line"][0].split("-"), v["line"][-1].split("-")
    assert f"[{first[0]}|{first[1]}]" in line_text and f"[{last[0]}|{last[1]}]" in line_text
    assert f"Open ends: left {v['ends'][0]} · right {v['ends'][1]}" in screen
    assert f"Your rack: {len(v['hand'])} tiles, {v['pips']} pips" in screen
    for tile in v["hand"]:
        a, b = tile.split("-")
        assert f"{a}|{b}" in screen
    assert "Your move" in screen
