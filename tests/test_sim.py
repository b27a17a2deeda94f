"""`lanmatch sim`: bot-only games on the engine, summed the same for any --jobs."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from lanmatch import sim


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
