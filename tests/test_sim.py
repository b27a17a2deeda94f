"""`lanmatch sim`: bot-only games through the host's referee, summed the same for any --jobs."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter

import pytest
from _declared import testtable  # noqa: F401 (a fixture)
from _rig_std import HAND1, HAND2, QUIET, SHED, SHED_TOP, do, play
from _rig_std import game as rig_game

from lanmatch import cli, sim
from lanmatch.bots import make_bot
from lanmatch.rules import GAMES, new_game
from lanmatch.table import Referee, Room
from lanmatch.table.referee import CALL_WINDOW


def run_cli(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONWARNINGS="error::DeprecationWarning")
    return subprocess.run(
        [sys.executable, "-m", "lanmatch", "sim", *args],
        capture_output=True, text=True, timeout=120, env=env,
    )


def test_sim_prints_a_sane_table():
    out = run_cli("--table", "classic", "--players", "3", "--bots", "hard,medium,easy", "--games", "20", "--seed", "3")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].startswith("20 games, classic, 3 players")
    header = next(i for i, line in enumerate(lines) if line.split()[:2] == ["seat", "bot"])
    rows = [line.split() for line in lines[header + 2 : header + 5]]
    assert [r[1] for r in rows] == ["hard", "medium", "easy"]
    assert abs(sum(float(r[2]) for r in rows) - 20) < 1e-6  # classic always has a winner
    assert any("average game length" in line for line in lines)
    assert "Shared wins count 1/k" in out.stdout
    assert "\x1b[" not in out.stdout  # no progress bar when stdout is not a terminal


def test_sim_json_adds_up():
    out = run_cli("--table", "standard", "--players", "4", "--bots", "medium", "--games", "20", "--json", "--seed", "5")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["games"] == 20 and data["table"] == "standard" and data["players"] == 4
    assert [s["bot"] for s in data["seats"]] == ["medium"] * 4  # one level fills every seat
    assert abs(sum(s["wins"] for s in data["seats"]) + data["no_winner"] - 20) < 1e-6
    for s in data["seats"]:
        lo, hi = s["ci95"]
        assert 0 <= lo <= s["win_share"] <= hi <= 1
        assert s["win_share"] == pytest.approx(s["wins"] / 20, abs=1e-4)
        assert {"seat", "bot", "wins", "win_share", "ci95", "avg_score"} <= set(s)


def test_results_do_not_depend_on_jobs():
    args = ("--table", "siege", "--players", "3", "--bots", "hard,medium,easy", "--games", "12", "--json", "--seed", "9")
    one = run_cli(*args, "--jobs", "1")
    two = run_cli(*args, "--jobs", "2")
    assert one.returncode == 0 and two.returncode == 0, one.stderr + two.stderr
    assert json.loads(one.stdout) == json.loads(two.stdout)


def test_runner_in_process_matches_for_any_split():
    config = sim.SimConfig(table="cards", players=2, bots=("medium", "easy"), games=9, seed=4)
    a = sim.simulate(config, jobs=1)
    b = sim.summarize(config, _merged(config, [(0, 4), (4, 5), (5, 9)]))
    assert a == b


def _merged(config, ranges):
    tally = sim.Tally(config.players)
    for start, stop in reversed(ranges):
        tally.merge(sim.play_range(config, start, stop))
    return tally


def test_shared_wins_count_a_fraction():
    tally = sim.Tally(3)
    tally.add({"winners": [0, 2], "points": [5, 0, 5], "turns": [1, 1, 1], "steps": 10, "cut": False})
    tally.add({"winners": [], "points": [0, 0, 0], "turns": [1, 1, 1], "steps": 4, "cut": False})
    config = sim.SimConfig(players=3, bots=("easy",) * 3, games=2)
    seats = sim.summarize(config, tally)["seats"]
    assert [s["wins"] for s in seats] == [0.5, 0, 0.5]


def test_wilson_interval():
    lo, hi = sim.wilson(50, 100)
    assert lo == pytest.approx(0.4038, abs=1e-3) and hi == pytest.approx(0.5962, abs=1e-3)
    assert sim.wilson(0, 10)[0] == pytest.approx(0.0) and sim.wilson(10, 10)[1] == pytest.approx(1.0)


def test_dominoes_sim_uses_the_dominoes_bots():
    out = run_cli("--game", "dominoes", "--players", "3", "--bots", "medium,easy,easy", "--games", "4", "--json")
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["table"] == "dominoes" and data["games"] == 4
    assert abs(sum(s["wins"] for s in data["seats"]) + data["no_winner"] - 4) < 1e-6


def test_a_domino_set_names_its_game(capsys):
    """`--table double-twelve` without `--game`: the set is Dominoes' (it was
    read as a Color Match table, and refused); `--game` still wins."""
    assert cli.main(["sim", "--table", "double-twelve", "--players", "5", "--games", "2", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["game"], data["table"], data["players"]) == ("dominoes", "double-twelve", 5)
    assert cli.main(["sim", "--game", "colormatch", "--table", "double-twelve", "--games", "1"]) == 2
    assert "Color Match has no table 'double-twelve'" in capsys.readouterr().err


@pytest.mark.parametrize(
    "args, says",
    [
        (("--bots", "grandmaster"), "unknown bot level"),
        (("--bots", "easy,hard", "--players", "3"), "2 levels for 3 players"),
        (("--players", "9"), "seats 2 to 6"),
        (("--game", "dominoes", "--players", "5"), "seats 2 to 4"),
        (("--games", "0"), "at least 1"),
        (("--jobs", "0"), "at least 1"),
        (("--options", "stacking"), "no option"),
    ],
)
def test_bad_flags_give_one_clear_line(args, says):
    out = run_cli(*args)
    assert out.returncode == 2
    assert says in out.stderr and len(out.stderr.strip().splitlines()) == 1
    assert "Traceback" not in out.stderr


def test_parse_bots():
    assert sim.parse_bots("hard", 3) == ("hard",) * 3
    assert sim.parse_bots("Hard, medium", 2) == ("hard", "medium")
    with pytest.raises(ValueError):
        sim.parse_bots("hard,medium", 3)


# ------------------------------------------------------------------ one referee


def host_loop(ref: Referee, now: float, limit: int = 20_000) -> None:
    """Drive `ref` as the host's room task does (net/host.py, `RoomActor`):
    wait for the next deadline, then fire every timer due by then; the room's
    clock moves on a millisecond for each action (sending the views)."""
    for _ in range(limit):
        if ref.over:
            return
        now = max(now, ref.next_deadline())
        while not ref.over and ref.next_deadline() <= now:
            job = ref.due(now)
            if job is not None and ref.resolve(job, job.choose(), now) is not None:
                now += 0.001
    raise AssertionError("the game did not end")


def moves(ref: Referee) -> list[tuple[int, dict]]:
    return [(seat, action) for _, seat, action, _ in ref.log]


@pytest.mark.parametrize("game, table", [(g, t) for g in GAMES for t in GAMES[g].tables])
@pytest.mark.parametrize("level", ["easy", "medium"])
def test_sim_plays_the_game_a_hosts_room_plays(game, table, level):
    """Game i of a run is the game a host's room of bots deals from the same
    seed, move for move (with the host's 3 s windows, which bots moving at
    once never reach)."""
    players = 3
    config = sim.SimConfig(game=game, table=table, players=players, bots=(level,) * players, games=3,
                           seed=7, call_window=CALL_WINDOW)
    for i in range(config.games):
        played = sim.referee_for(config, i)
        sim.run_referee(played)
        room = Room("R", game, table, players, bot_level=level, bot_delay=0.0)
        host = room.start(now=1000.0, seed=sim.game_seed(config.seed, i))
        host_loop(host, 1000.0)
        if not played.over:  # sim cut it off at MAX_STEPS: the host's game begins with those moves
            assert len(moves(played)) == sim.MAX_STEPS and moves(played) == moves(host)[: sim.MAX_STEPS]
            continue
        assert moves(played) == moves(host)
        assert played.outcome == host.outcome is not None
        assert sim.play_one(config, i)["winners"] == host.outcome["winners"]


def test_sim_closes_timed_windows_itself_where_bots_forget_to_call():
    """With sim's zero clock a window ends once every seat has had its chance:
    Easy's forgotten calls at `cards` are expired (no penalty for a bot), and
    the catch window that opens is caught or expired, as at the host."""
    config = sim.SimConfig(table="cards", players=4, bots=("medium", "easy", "easy", "easy"), games=12, seed=3)
    kinds = Counter()
    for i in range(config.games):
        ref = sim.referee_for(config, i)
        sim.run_referee(ref)
        assert ref.over and ref.notes == []
        kinds.update(by if action["type"] != "expire" else f"expire:{by}" for _, _, action, by in ref.log)
    assert kinds["expire:call"] > 0 and kinds["expire:catch"] + kinds["chance"] > kinds["expire:call"]
    assert kinds["bot"] > 0 and set(kinds) <= {"bot", "chance", "expire:call", "expire:catch"}


def test_a_window_owner_has_the_first_chance_at_its_own_call():
    """Chances due together: the owner of a last-card window calls before a
    lower seat may catch it (the seat order alone let seats 0 and 1 catch
    every Medium at seats 2 and 3 at `standard`)."""
    g = rig_game("standard", [HAND1, HAND2, SHED + ["R7"]], SHED_TOP, QUIET, first=2)
    for card in SHED[:-1]:
        play(g, 2, card)
        do(g, 0, "draw")
        do(g, 1, "draw")
    # seat 2 is Hard, which never forgets its call (Medium does, 1 time in 10)
    ref = Referee("colormatch", "standard", 3, seed=1, now=0.0, engine=g,
                  bots={0: "medium", 1: "medium", 2: "hard"}, bot_delay=0.5)
    seat, action, kind = ref.tick(0.5)
    assert (seat, kind, action["type"]) == (2, "bot", "play") and ref.view(0)["windows"][0]["seat"] == 2
    assert 1 in ref.view(0)["to_act"]  # seat 1 may catch seat 2 ...
    assert ref.tick(1.0) == (2, {"type": "call"}, "chance")  # ... but seat 2 calls first


def test_a_bot_whose_turn_it_is_calls_its_own_last_card_before_its_window_ends():
    """Two seats at `cards`: a Skip leaves seat 0 one card and the turn. With
    the zero clock of sim and the line mode (window and move both due at
    once) its move, which is its call, comes before the window's end."""
    hand0 = ["R1", "R2", "R3", "R4", "R5", "RS", "R7"]
    hand1 = ["R1", "R2", "R3", "R4", "R5", "Y7", "Y9"]
    g = rig_game("cards", [hand0, hand1], "R9")
    for card in hand0[:5]:
        play(g, 0, card)
        play(g, 1, card)
    play(g, 0, "RS")
    assert g.view(0)["turn"] == 0 and g.view(0)["windows"] == [{"seat": 0, "call": True, "catch": False}]
    ref = Referee("colormatch", "cards", 2, seed=1, now=0.0, engine=g, bots={0: "medium", 1: "medium"},
                  call_window=0.0)
    assert ref.tick(0.0) == (0, {"type": "call"}, "bot")


def test_play_game_plays_the_bots_it_is_given():
    """`play_game` (the bots' tests and bench/bots.py) seats the very bot
    objects it is handed in the referee."""
    seen = Counter()

    class Counted:
        def __init__(self, seat):
            self.bot = make_bot("easy", table="standard", seat=seat, seed=seat)

        def observe(self, view):
            seen["observe"] += 1

        def declines(self, view, legal):
            return self.bot.declines(view, legal)

        def choose(self, view, legal):
            seen["choose"] += 1
            return self.bot.choose(view, legal)

    g = new_game("colormatch", table="standard", players=3, seed=5)
    steps = sim.play_game(g, [Counted(s) for s in range(3)])
    assert g.outcome is not None and seen["choose"] == steps > 0 and seen["observe"] >= 3 * steps


# ------------------------------------------------------------------ a table declared here


@pytest.mark.usefixtures("testtable")
def test_sim_plays_a_table_declared_in_a_test(capsys):
    spec = GAMES["colormatch"].table("testtable")
    assert spec.timed_calls and spec.timed_keep
    config = sim.SimConfig(table="testtable", players=4, bots=("medium", "easy", "easy", "easy"), games=10, seed=2)
    data = sim.simulate(config)
    assert data["table"] == "testtable" and data["games"] == 10
    assert abs(sum(s["wins"] for s in data["seats"]) + data["no_winner"] - 10) < 1e-6
    expired = 0
    for i in range(config.games):
        ref = sim.referee_for(config, i)
        sim.run_referee(ref)
        expired += sum(action["type"] == "expire" for _, _, action, _ in ref.log)
    assert expired > 0  # its windows are timed, from its declaration alone
    assert cli.main(["sim", "--table", "testtable", "--players", "3", "--games", "3", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["table"] == "testtable"
