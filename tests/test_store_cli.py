"""`lanmatch stats` and `lanmatch history` on a store filled by the test, and
the player's profile file."""

from __future__ import annotations

import io
import json
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from _store_play import play_match

from lanmatch.cli import main
from lanmatch.net.profile import ProfileFileError, ensure_profile, load_profile, profile_path
from lanmatch.report import format_table, step_through
from lanmatch.store import SeatSpec, Store

REPO = Path(__file__).resolve().parent.parent


@pytest.fixture
def filled(tmp_path):
    """Ann beats (or not) Bob in a coin room, a Dominoes practice match, a
    daily deal, and a live match left unfinished."""
    data = tmp_path / "data"
    with Store.open_dir(data) as store:
        ann = store.profile("Ann", "a" * 20, 1_700_000_000.0)
        bob = store.profile("Bob", "b" * 20, 1_700_000_000.0)
        m1, ref1, _ = play_match(store, [SeatSpec.player(ann), SeatSpec.player(bob), SeatSpec.bot("easy")],
                                 kind="coins", stake=50, seed=3, now=1_700_000_100.0, room="Pot")
        m2, _, _ = play_match(store, [SeatSpec.player(ann), SeatSpec.guest("Gus")], game="dominoes", table=None,
                              seed=4, now=1_700_000_200.0)
        m3, ref3, _ = play_match(store, [SeatSpec.player(ann), SeatSpec.bot("medium"), SeatSpec.bot("medium")],
                                 table="cards", options={"mode": "daily", "date": "2025-03-02"}, now=1_700_000_300.0)
        assert ref3.outcome["winners"] == [0], "this deal is meant to be Ann's daily win"
        m4 = store.begin_match(game="colormatch", table="siege", seats=[SeatSpec.player(bob), SeatSpec.bot("hard")],
                               seed=5, now=1_700_000_400.0)
    return {"data": data, "ids": (m1, m2, m3, m4), "refs": (ref1, ref3)}


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_stats_lists_every_profile(capsys, filled):
    code, out, err = run(capsys, "stats", "--data", str(filled["data"]))
    assert code == 0 and err == ""
    assert "2 profiles" in out and "2000 play coins issued" in out
    lines = {line.split()[0]: line.split() for line in out.splitlines() if line.startswith(("Ann", "Bob"))}
    assert lines["Ann"][2] == "3" and lines["Bob"][2] == "1"  # matches played (the live one is not counted)
    with Store.open_dir(filled["data"]) as store:
        assert lines["Ann"][1] == str(store.balance(store.find_profile("Ann").id))


def test_stats_of_one_profile_in_detail(capsys, filled):
    code, out, err = run(capsys, "stats", "--data", str(filled["data"]), "--profile", "ann")
    assert code == 0 and err == ""
    assert out.startswith("Ann: ")
    for heading in ("By table", "By bot level of the opponents", "By number of opponents", "By room", "Daily bests"):
        assert heading in out
    assert "Color Match · Classic" in out and "Dominoes" in out and "Color Match · Color Cards" in out
    assert "2025-03-02" in out


def test_history_lists_matches_newest_first(capsys, filled):
    code, out, err = run(capsys, "history", "--data", str(filled["data"]))
    assert code == 0 and err == ""
    rows = [line for line in out.splitlines() if line.strip()[:1].isdigit()]
    assert [int(r.split()[0]) for r in rows] == sorted(filled["ids"], reverse=True)
    assert "unfinished" in rows[0] and "50 coins" in rows[-1] and "practice" in rows[-2]
    head = next(line for line in out.splitlines() if line.lstrip().startswith("id"))
    assert head.split()[3:6] == ["mode", "room", "stake"]  # the room's name, then its stake (the room column held it)
    assert rows[-1].split()[rows[-1].split().index("Pot") + 1] == "50"
    assert " match " in rows[-2]  # Dominoes: a match to 100, as its room says
    code, out, _ = run(capsys, "history", "--data", str(filled["data"]), "--limit", "1", "--profile", "Ann")
    assert [line.split()[0] for line in out.splitlines() if line.strip()[:1].isdigit()] == [str(filled["ids"][2])]


def test_history_says_a_match_is_being_played_while_a_host_holds_the_store(capsys, filled):
    """A play-test ran `lanmatch history` beside its host and read the game
    being played as "unfinished (resumes when the host starts)"."""
    with Store.open_dir(filled["data"], lock=True):  # a host's hold on it
        code, out, _ = run(capsys, "history", "--data", str(filled["data"]))
    assert code == 0 and "being played now" in out and "resumes when the host starts" not in out
    code, out, _ = run(capsys, "history", "--data", str(filled["data"]))
    assert "unfinished (resumes when the host starts)" in out


def test_history_replay_prints_every_step_with_every_seats_view(capsys, filled):
    m3 = filled["ids"][2]
    ref = filled["refs"][1]
    code, out, err = run(capsys, "history", "--data", str(filled["data"]), "--replay", str(m3))
    assert code == 0 and err == ""
    steps = len(ref.log)
    assert out.count(f"=== Match {m3} · Color Match · Color Cards · step ") == steps + 1
    assert f"step {steps} of {steps}" in out
    assert out.count("--- Ann's view (seat 0) ---") == steps + 1
    assert out.count("--- Bot (medium) #2's view (seat 2) ---") == steps + 1
    assert out.count("Ann's hand (") == steps + 1  # told to a watcher: whose hand, and no moves
    assert "Your hand" not in out and "Waiting for" not in out and "Your move" not in out
    assert "Game over" in out
    code, out, _ = run(capsys, "history", "--data", str(filled["data"]), "--replay", str(m3), "--seat", "1")
    assert code == 0 and "Ann's view" not in out and out.count("view (seat 1)") == steps + 1


def test_a_replay_waits_for_enter_and_q_quits():
    out = io.StringIO()
    answers = iter(["", "", "q"])
    shown = step_through(iter(["one", "two", "three", "four", "five"]), out, lambda: next(answers))
    assert shown == 3 and out.getvalue() == "one\n\ntwo\n\nthree\n\n"
    out = io.StringIO()

    def eof():
        raise EOFError

    assert step_through(iter(["one", "two"]), out, eof) == 1


@pytest.mark.parametrize(
    "argv, message",
    [
        (["stats", "--profile", "Nobody"], "no profile named 'nobody'"),
        (["history", "--replay", "999"], "no match 999"),
    ],
)
def test_unknown_names_and_ids_are_one_line_and_status_1(capsys, filled, argv, message):
    code, out, err = run(capsys, *argv, "--data", str(filled["data"]))
    assert code == 1 and out == ""
    assert len(err.splitlines()) == 1 and message in err.lower()


def test_a_bad_seat_or_limit_is_status_2(capsys, filled):
    code, _, err = run(capsys, "history", "--data", str(filled["data"]), "--replay", str(filled["ids"][0]), "--seat", "7")
    assert code == 2 and len(err.splitlines()) == 1
    code, _, err = run(capsys, "history", "--data", str(filled["data"]), "--limit", "0")
    assert code == 2 and "--limit" in err


def test_no_store_yet_is_one_line_and_nothing_is_made(capsys, tmp_path):
    code, out, err = run(capsys, "stats", "--data", str(tmp_path / "none"))
    assert code == 1 and out == "" and len(err.splitlines()) == 1 and "no lanmatch store" in err
    assert not (tmp_path / "none").exists()


def test_the_default_data_dir_is_used_without_data(tmp_path, filled):
    """A subprocess with XDG_DATA_HOME pointing at the filled store's parent."""
    xdg = tmp_path / "xdg"
    xdg.mkdir()
    filled["data"].rename(xdg / "lanmatch")
    env = {"XDG_DATA_HOME": str(xdg), "HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}
    r = subprocess.run([sys.executable, "-m", "lanmatch", "history"], cwd=REPO, env=env,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert "Color Match · Classic" in r.stdout


def test_format_table_aligns_columns():
    assert format_table(["a", "bb"], [[1, "x"], [22, None]], right=[0]).splitlines() == [
        " a  bb", "--  --", " 1  x", "22  -",
    ]


# ---------------------------------------------------------------- the profile file


def test_the_profile_file_is_made_once_private_and_kept(monkeypatch, tmp_path):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    assert load_profile() is None
    me = ensure_profile("Ann")
    path = profile_path()
    assert path == tmp_path / "cfg/lanmatch/profile.json"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert json.loads(path.read_text()) == {"name": "Ann", "key": me.key}
    assert len(me.key) == 32
    assert ensure_profile("Someone else") == me, "an existing profile keeps its name and key"
    assert load_profile() == me
    # the host recognises it on return
    with Store.open_dir(tmp_path / "host") as store:
        first = store.profile(me.name, me.key, 1.0)
        assert store.profile(me.name, ensure_profile().key, 2.0) == first


def test_two_machines_get_different_keys(tmp_path):
    a = ensure_profile("Ann", tmp_path / "a.json")
    b = ensure_profile("Ann", tmp_path / "b.json")
    assert a.key != b.key


def test_a_broken_profile_file_is_reported(tmp_path):
    path = tmp_path / "profile.json"
    path.write_text("{not json")
    with pytest.raises(ProfileFileError, match="not a lanmatch profile file"):
        ensure_profile("Ann", path)
    assert path.read_text() == "{not json", "a broken file is not overwritten"


def test_history_says_a_seat_won_after_its_person_left(capsys, tmp_path):
    """A play-test read "Ivy won" for a coin match Ivy had left (her stake
    forfeit; a bot played her seat to the win). Tried on seeds until the
    leaver's seat wins (bounded)."""
    data = tmp_path / "data"
    with Store.open_dir(data) as store:
        ivy = store.profile("Ivy", "i" * 20, 1_700_000_000.0)
        hal = store.profile("Hal", "h" * 20, 1_700_000_000.0)
        for seed in range(40):
            m, ref, _ = play_match(store, [SeatSpec.player(ivy), SeatSpec.player(hal)], seed=seed,
                                   now=1_700_000_100.0 + seed, leave=(2, 0))
            if ref.outcome["winners"] == [0]:
                break
        else:
            pytest.fail("the leaver's seat never won")
    code, out, err = run(capsys, "history", "--data", str(data), "--limit", "1")
    assert code == 0 and "Ivy's seat (a bot, after Ivy left) won" in out and "Ivy won" not in out
