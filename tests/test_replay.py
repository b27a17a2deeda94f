"""The replay viewer (`lanmatch history --replay`), the match file of
`--export` and `--replay FILE`: the model at 80x24, the file's checks, and a
real terminal stepping forth and back."""

from __future__ import annotations

import json
import sys

import pytest
from _console import NEED_TMUX, Tmux
from _store_play import play_match

from lanmatch.cli import main
from lanmatch.console.replay import (
    MatchFileError,
    ReplayModel,
    load_match_file,
    match_from_json,
    replay_steps,
)
from lanmatch.store import SeatSpec, Store


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    """Three finished matches: Color Cards (an Easy bot forgets calls: call,
    catch and the host's expire are in the log), Dominoes to 100, and a
    six-seat Day & Night."""
    d = tmp_path_factory.mktemp("replay") / "data"
    with Store.open_dir(d) as store:
        ann = store.profile("Ann", "a" * 20, 1.0)
        ids = [
            play_match(store, [SeatSpec.player(ann), SeatSpec.bot("easy"), SeatSpec.bot("easy")],
                       table="cards", seed=190)[0],
            play_match(store, [SeatSpec.player(ann), SeatSpec.guest("Gus")], game="dominoes", table=None, seed=4)[0],
            play_match(store, [SeatSpec.player(ann)] + [SeatSpec.bot("medium")] * 5, table="daynight", seed=8)[0],
        ]
    return d, ids


def export(capsys, data, which: int) -> dict:
    d, ids = data
    assert main(["history", "--data", str(d), "--export", str(ids[which])]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    return json.loads(out)


@pytest.fixture
def model_of(capsys, data):
    def make(which: int) -> ReplayModel:
        match = match_from_json(export(capsys, data, which))
        return ReplayModel(match, replay_steps(match))
    return make


def check_screen(lines: list[str], width: int = 80, height: int = 24) -> str:
    assert len(lines) == height
    assert all(len(x) <= width for x in lines), lines
    return "\n".join(lines)


# ------------------------------------------------------------------ the file


def test_an_exported_match_names_everything_a_replay_needs_and_no_secret(capsys, data):
    m = export(capsys, data, 0)
    assert {"format", "version", "game", "table", "players", "options", "seed", "first_seat", "seats",
            "actions", "outcome"} <= set(m)
    assert m["format"] == "lanmatch-match" and m["game"] == "colormatch" and m["table"] == "cards"
    kinds = {a["action"]["type"] for a in m["actions"]}
    assert {"call", "catch", "expire"} <= kinds
    assert all(set(s) == {"seat", "name", "kind", "bot_level"} for s in m["seats"])  # no tokens, no profile ids


@pytest.mark.parametrize("which", [0, 1, 2], ids=["cards", "dominoes", "daynight"])
def test_a_file_replays_to_its_recorded_outcome_on_any_machine(capsys, data, tmp_path, which):
    """The file alone (no store) deals the game again and ends in its outcome."""
    m = export(capsys, data, which)
    path = tmp_path / "match.json"
    path.write_text(json.dumps(m))
    match = load_match_file(str(path))
    steps = replay_steps(match)
    assert len(steps) == len(m["actions"]) + 1
    assert steps[-1].outcome["winners"] == m["outcome"]["winners"]
    assert main(["history", "--replay", str(path)]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    assert out.count("=== Replay of match") == len(steps)
    assert "won" in out.splitlines()[-1] or "won" in out


def test_export_to_a_file_then_replay_it(capsys, data, tmp_path):
    d, ids = data
    path = tmp_path / "m.json"
    assert main(["history", "--data", str(d), "--export", str(ids[1]), "--out", str(path)]) == 0
    assert "written to" in capsys.readouterr().out
    assert load_match_file(str(path))["game"] == "dominoes"


def _edit(m: dict, how: str) -> object:
    m = json.loads(json.dumps(m))
    if how == "not-json":
        return "{"
    if how == "a-list":
        return [1, 2]
    if how == "no-format":
        m.pop("format")
    elif how == "newer":
        m["version"] = 99
    elif how == "unknown-game":
        m["game"] = "chess"
    elif how == "unknown-table":
        m["table"] = "moon"
    elif how == "seats":
        m["players"] = 9
    elif how == "seed":
        m["seed"] = "seven"
    elif how == "bad-action":
        m["actions"][3] = {"seat": 0, "action": "play"}
    elif how == "refused-action":
        m["actions"][3]["action"] = {"type": "play", "card": "ZZ"}
    elif how == "cut-short":
        m["actions"] = m["actions"][:-2]
    elif how == "other-outcome":
        m["outcome"]["winners"] = [w + 1 for w in m["outcome"]["winners"]]
    elif how == "other-seed":
        m["seed"] += 1
    return m


BAD = ["not-json", "a-list", "no-format", "newer", "unknown-game", "unknown-table", "seats", "seed", "bad-action",
       "refused-action", "cut-short", "other-outcome", "other-seed"]


@pytest.mark.parametrize("how", BAD)
def test_a_bad_match_file_is_one_clear_line_and_status_1(capsys, data, tmp_path, how):
    bad = _edit(export(capsys, data, 0), how)
    path = tmp_path / "bad.json"
    path.write_text(bad if isinstance(bad, str) else json.dumps(bad))
    assert main(["history", "--replay", str(path)]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith("lanmatch history: ") and err.count("\n") == 1, err
    assert "Traceback" not in err


def test_a_missing_file_and_contradicting_flags(capsys, tmp_path, data):
    assert main(["history", "--replay", str(tmp_path / "none.json")]) == 1
    assert "no file" in capsys.readouterr().err
    assert main(["history", "--data", str(data[0]), "--export", "1", "--replay", "1"]) == 2
    assert main(["history", "--data", str(data[0]), "--export", "999"]) == 1
    assert "no match 999" in capsys.readouterr().err


def test_names_in_a_file_never_reach_the_terminal_raw(capsys, data):
    m = export(capsys, data, 1)
    m["seats"][0]["name"] = "Ann\x1b[2J\x07"
    m["seats"][1]["name"] = "  "
    match = match_from_json(m)
    assert "\x1b" not in "".join(match["names"]) and "\x07" not in "".join(match["names"])
    assert match["names"][1] == "Seat 1"
    model = ReplayModel(match, replay_steps(match))
    assert "\x1b" not in "\n".join(model.screen())


def test_match_from_json_refuses_an_object_without_actions():
    with pytest.raises(MatchFileError, match="actions"):
        match_from_json({"format": "lanmatch-match", "version": 1, "game": "dominoes", "table": None,
                         "players": 2, "seed": 1})


# ------------------------------------------------------------------ the model at 80x24


@pytest.mark.parametrize("which", [0, 1, 2], ids=["cards", "dominoes", "daynight"])
def test_every_hand_is_shown_at_every_step(model_of, which):
    m = model_of(which)
    for n in (0, 1, m.last // 2, m.last):
        m.go(n)
        body = "\n".join(m.body(80))
        unit = "rack" if m.match["game"] == "dominoes" else "hand"
        for name in m.names:
            assert f"{name}'s {unit} (" in body, (name, body)
        m.scroll = 0
        check_screen(m.screen(80, 24))


def test_steps_forward_back_and_jumps(model_of):
    m = model_of(0)
    first = check_screen(m.screen())
    assert "step 0 of" in first.splitlines()[0] and "The deal." in first
    m.key("right")
    one = check_screen(m.screen())
    assert "step 1 of" in one and "Move 1: " in one
    m.key("right")
    m.key("left")
    assert m.cursor == 1 and check_screen(m.screen()) == one
    m.key("pagedown")
    assert m.cursor == 11
    m.key("pageup")
    m.key("pageup")
    assert m.cursor == 0
    m.key("end")
    last = check_screen(m.screen())
    assert f"step {m.last} of {m.last}" in last
    m.key("right")
    assert m.cursor == m.last
    for ch in "42":
        m.key(ch)
    assert "Go to step: 42" in check_screen(m.screen())
    m.key("enter")
    assert m.cursor == 42 and "Move 42: " in check_screen(m.screen())
    for ch in "99999":
        m.key(ch)
    m.key("enter")
    assert m.cursor == m.last and "There is no step 99999" in check_screen(m.screen())
    m.key("home")
    assert m.cursor == 0
    m.key("3")
    m.key("escape")  # forgets the digits, as the bar says (a play-test saw it quit the viewer)
    assert not m.done and m.cursor == 0 and "Go to step" not in check_screen(m.screen())
    m.key("escape")
    assert m.done
    m.done = False
    m.key("q")
    assert m.done


def test_the_last_step_tells_the_outcome_and_scrolls(model_of):
    """Six seats at Day & Night do not fit 24 rows: the body scrolls, and the
    end tells who won."""
    m = model_of(2)
    m.key("end")
    body = m.body(80)
    assert len(body) > 22
    top = check_screen(m.screen())
    assert "more lines (↓)" in top
    for _ in range(len(body)):
        m.key("down")
    bottom = check_screen(m.screen())
    assert "won" in bottom and "Points:" in bottom
    assert "more lines" not in bottom


def test_a_call_and_a_catch_are_told_in_words(model_of):
    m = model_of(0)
    told = []
    for n in range(1, m.last + 1):
        m.go(n)
        told.append(m.body(80)[0])
    assert any("call last card" in t for t in told)
    assert any(t.startswith("Move ") and "catch " in t for t in told)
    assert any("the host ended a timed window" in t for t in told)


# ------------------------------------------------------------------ a real terminal


@NEED_TMUX
def test_the_viewer_steps_forward_and_back_in_a_real_terminal(capsys, data, tmp_path):
    path = tmp_path / "m.json"
    path.write_text(json.dumps(export(capsys, data, 1)))
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "XDG_CACHE_HOME": str(tmp_path),
           "TERM": "xterm-256color", "LANG": "C.UTF-8"}
    with Tmux(f"{sys.executable} -m lanmatch history --replay {path}", env, width=80, height=24) as t:
        t.wait_for(lambda s: "step 0 of 219" in s and "The deal." in s)
        t.keys("Right")
        t.wait_for(lambda s: "step 1 of 219" in s and "Move 1: " in s)
        t.keys("Right")
        t.wait_for(lambda s: "step 2 of 219" in s and "Move 2: " in s)
        t.keys("Left")
        t.wait_for(lambda s: "step 1 of 219" in s and "Move 1: " in s)
        t.keys("End")
        t.wait_for(lambda s: "step 219 of 219" in s)
        t.keys("1", "0", "0", "Enter")
        t.wait_for(lambda s: "step 100 of 219" in s and "Move 100: " in s)
        t.keys("Home")
        t.wait_for(lambda s: "step 0 of 219" in s)
        t.keys("q")
        t.wait_dead()


def test_a_wrapped_list_never_leaves_its_separator_alone_on_a_line():
    """A play-test's replay showed a lone "·" on its own line: a wrapped hand
    ended a row exactly at the width, and the " ·" it leaves went over."""
    from lanmatch.console.render import wrap_items

    for width in range(40, 80):  # (the prefix and the longest item fit on a row)
        lines = wrap_items("Dan's hand (7 cards): ", ["yellow ◆ 5", "red ● 1", "green ▲ Reverse", "blue ■ 9"] * 3,
                           width)
        assert all(len(x) <= width for x in lines), (width, lines)
