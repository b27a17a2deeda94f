"""Issue 14, "a real evening", the console's side, on the model and the screen
at 80x24 (no terminal, no network): a seat kept on this machine taken back
with what was played meanwhile, a host's goodbye, the reconnect countdown and
a host gone, names in the scores of departed seats, live coins, the room list
at every width, a wrong password said first, and a host's control characters
never reaching the screen. The seats file itself is real (tmp_path).
"""

from __future__ import annotations

import json
import os
import re
import stat

import pytest
from _console import (
    ROOM,
    coin_lobby,
    coin_rooms,
    push,
    rigged,
    room_msg,
    seated_ui,
    sheds_reds,
    text,
    to_seat0,
)

from lanmatch.console.model import Console, HostRow
from lanmatch.console.screen import ROOM_HEADS, render_screen, room_cells
from lanmatch.net.seats import KEEP_FOR, MAX_SEATS, SavedSeat, SeatBook
from lanmatch.rules import new_game
from lanmatch.table import SEAT_HOLD

# ------------------------------------------------------------------ the seats file


def test_the_seats_file_is_0600_keyed_by_player_host_and_room_and_forgets(tmp_path):
    path = tmp_path / "config" / "lanmatch" / "seats.json"
    book = SeatBook(path)
    assert book.load(100.0) == [] and book.latest("Ann", 100.0) is None
    ann = SavedSeat("Ann", "Kitchen", "127.0.0.1", 7070, "R", 1, "a" * 32, 100.0, n=5, step=9)
    book.keep(ann)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600 and stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert book.find("ann", "127.0.0.1", 7070, now=101.0) == ann  # the player's name without regard to case
    assert book.find("Ann", "127.0.0.1", 7070, host="Kitchen", now=101.0) == ann
    assert book.find("Ann", "127.0.0.1", 7070, host="Attic", now=101.0) is None  # another host at that address
    assert book.find("Ann", "127.0.0.1", 7071, now=101.0) is None and book.find("Bob", "127.0.0.1", 7070, now=101.0) is None
    # another room of the same host, and the same room a move later: one entry each, the newest first
    other = SavedSeat("Ann", "Kitchen", "127.0.0.1", 7070, "S", 0, "b" * 32, 102.0)
    book.keep(other)
    book.keep(SavedSeat("Ann", "Kitchen", "127.0.0.1", 7070, "R", 1, "a" * 32, 103.0, n=7, step=11))
    assert [(s.room, s.n) for s in book.load(104.0)] == [("R", 7), ("S", 0)]
    assert book.latest("Ann", 104.0).room == "R"
    book.forget("Ann", "127.0.0.1", 7070, "R", 105.0)
    assert [s.room for s in book.load(105.0)] == ["S"]
    assert book.load(102.0 + KEEP_FOR + 1) == []  # an evening later: forgotten
    for k in range(MAX_SEATS + 5):
        book.keep(SavedSeat("Ann", "Kitchen", "127.0.0.1", 7070, f"room {k}", 0, "c" * 32, 200.0 + k))
    assert len(book.load(300.0)) == MAX_SEATS
    path.write_text("{not json")
    assert book.load(300.0) == []  # a broken file is taken as empty, and replaced at the next write
    book.keep(ann)
    assert json.loads(path.read_text())["seats"][0]["token"] == "a" * 32
    assert not [p for p in os.listdir(path.parent) if p.endswith(".tmp")]


def test_a_finished_games_seat_is_kept_until_its_hold_ends_and_an_older_file_still_reads(tmp_path):
    """Between games the host holds a dropped seat for `SEAT_HOLD` seconds, so
    the console keeps the token of a finished game `until` then (a console
    killed after a game and started again goes back to it); past that, the
    entry is gone, and `lanmatch join` does not wait on a seat the host let go."""
    path = tmp_path / "seats.json"
    book = SeatBook(path)
    book.keep(SavedSeat("Ann", "Kitchen", "127.0.0.1", 7070, "R", 1, "a" * 32, 100.0, n=5, step=9,
                        until=100.0 + SEAT_HOLD))
    assert book.latest("Ann", 100.0 + SEAT_HOLD).room == "R"
    assert book.latest("Ann", 100.0 + SEAT_HOLD + 1) is None
    entry = {k: v for k, v in json.loads(path.read_text())["seats"][0].items() if k != "until"}
    path.write_text(json.dumps({"seats": [entry]}))  # written by a console before `until` was kept
    assert book.latest("Ann", 100.0 + SEAT_HOLD + 1).until == 0.0  # a running game's: kept for the evening


# ------------------------------------------------------------------ a kept seat, taken back


def _at_table():
    """A three-seat Classic game at seat 0's turn, and a `lanmatch join` console seated there."""
    g = new_game("colormatch", table="classic", players=3, seed=3)
    to_seat0(g)
    return g, seated_ui(g, kind="join")


def _back_at(g, saved: dict) -> Console:
    """A console started again: the seat kept on this machine is taken back."""
    ui = Console("Ann", kind="join")
    ui.begin_connect("127.0.0.1", 7070, "127.0.0.1:7070")
    ui.expect_seat(saved)
    ui.on_message({"type": "welcome", "seq": 1, "protocol": 1, "host": "Kitchen", "server": "x"}, 0.0)
    assert ui.screen == "connecting"  # no room list in between: the seat comes next
    ui.on_message({"type": "seated", "seq": 2, "room": ROOM, "seat": 0, "token": "0" * 32}, 0.0)
    ui.on_message(room_msg(3), 0.0)
    push(ui, g)
    return ui


def test_a_seat_kept_on_this_machine_comes_back_with_its_hand_and_what_was_played_meanwhile():
    g = new_game("colormatch", table="classic", players=3, seed=3)
    to_seat0(g)
    seen = g.view(0)
    n, step = seen["events"][-1]["n"], seen["step"]
    g.act(0, g.legal_actions(0)[0])  # the clock played for us while the console was gone...
    to_seat0(g)  # ...and the bots played on
    ui = _back_at(g, {"room": ROOM, "seat": 0, "n": n, "step": step, "host": "Kitchen"})
    screen = text(ui)
    assert ui.screen == "table" and ui.seat == 0
    assert sorted(ui.view["hand"]) == sorted(g.view(0)["hand"])
    assert "Back at your seat 0 of Test table" in screen
    moves = g.view(0)["step"] - step
    at = ui.log.index("── Back at your seat: what was played while you were away ──")
    assert ui.log[-1] == f"While you were away {moves} moves were played, 1 of them yours by the clock."
    assert len(ui.log) > at + 2  # the moves meanwhile, in words, between the two; and before them,
    # what this console had shown before it was killed, as far as the view's events go (a play-test
    # found the log of a console started again empty, where a new watcher sees the whole game)
    assert ui.log[0] == "── Earlier in this game ──" and at > 1
    assert "Back at your seat" in screen and "While you were away" in screen


def test_nothing_played_meanwhile_is_said_too_and_a_forgotten_seat_goes_to_the_rooms():
    g = new_game("colormatch", table="classic", players=3, seed=3)
    to_seat0(g)
    v = g.view(0)
    ui = _back_at(g, {"room": ROOM, "seat": 0, "n": v["events"][-1]["n"], "step": v["step"], "host": "Kitchen"})
    assert ui.log[0] == "── Earlier in this game ──" and len(ui.log) > 3
    assert ui.log[-2:] == ["── Back at your seat: what was played while you were away ──",
                           "Nothing was played while you were away."]
    gone = Console("Ann", kind="join")
    gone.begin_connect("127.0.0.1", 7070, "127.0.0.1:7070")
    gone.expect_seat({"room": "R", "seat": 1, "n": 3, "step": 4, "host": "Kitchen"})
    assert "Back to your seat at R (Kitchen)" in text(gone)
    gone.on_message({"type": "welcome", "seq": 1, "protocol": 1, "host": "Kitchen", "server": "x"}, 0.0)
    gone.on_message({"type": "error", "seq": 2, "code": "bad_token", "message": "That seat token is not known here.",
                     "fatal": False, "ref": "hello"}, 0.0)
    assert gone.screen == "rooms" and gone.returning is None
    assert ("Your seat at R is gone (its game ended, the host stopped between games, or it let the seat go): "
            "pick a room.") in " ".join(text(gone, width=200).split())


def test_quitting_says_the_seat_stays_and_lanmatch_join_takes_you_back():
    g, ui = _at_table()
    ui.press("q")
    screen = text(ui)
    assert "Your seat stays yours: the clock plays it until you come back" in screen
    assert "`lanmatch join` takes you back to it" in screen


# ------------------------------------------------------------------ hosts that leave


def test_a_host_that_says_goodbye_is_named_and_the_lobby_comes_back():
    g, ui = _at_table()
    ui.host_label = "Kitchen"
    ui.on_message({"type": "bye", "seq": 9, "reason": "The host is shutting down.", "host": "Kitchen"}, 0.0)
    screen = text(ui)
    assert ui.screen == "hosts" and ui.view is None and ui.seat is None
    assert "Kitchen closed the table (the host is shutting down)." in screen
    plain = seated_ui(g, kind="join")
    plain.on_message({"type": "bye", "seq": 9, "reason": "", "host": "Kitchen"}, 0.0)
    assert "Kitchen closed the table." in text(plain)
    closed = seated_ui(g, kind="join")  # a room closed: `left` with its sentence, back to the rooms
    closed.on_message({"type": "left", "seq": 9, "room": ROOM, "reason": "Kitchen closed this room."}, 0.0)
    assert closed.screen == "rooms" and "Kitchen closed this room." in text(closed)


def test_reconnecting_counts_down_then_the_host_is_gone_with_the_lobby_or_more_waiting():
    g, ui = _at_table()
    ui.host_label = "Kitchen"
    ui.connection_lost(100.0 + 60)
    first = text(ui, now=100.0).splitlines()
    assert first[0].endswith("connection lost: reconnecting… 60 s")
    assert "The connection to Kitchen was lost: trying again for a minute." in first[-1]
    assert text(ui, now=131.2).splitlines()[0].endswith("reconnecting… 29 s")
    ui.host_gone()
    screen = text(ui, now=161.0)
    assert "Kitchen is gone" in screen and "has not answered for a minute" in screen
    assert "if the host comes back, `lanmatch join`" in screen  # the seat's token stays on this machine
    assert "Enter back to the lobby · w keep waiting · q quit" in screen
    assert ui.press("w") == [("keep_waiting",)] and ui.overlay is None
    ui.connection_lost(161.0 + 60)
    assert text(ui, now=171.0).splitlines()[0].endswith("reconnecting… 50 s")
    ui.host_gone()
    assert ui.press("enter") == [("disconnect",)]
    assert ui.screen == "hosts" and "Left Kitchen: it did not answer for a minute." in text(ui)
    back = seated_ui(g, kind="join")  # a host restarted in time: rejoined by itself, the box closes
    back.connection_lost(60.0)
    back.host_gone()
    back.on_message({"type": "welcome", "seq": 1, "protocol": 1, "host": "Kitchen", "server": "x"}, 0.0)
    assert back.overlay is None and back.status == "" and back.reconnect_until is None


# ------------------------------------------------------------------ names in the scores


def _over(*, left: dict) -> Console:
    """A two-seat game won by seat 0 (Ann, this console) against Bob, whom the
    room names as `left` says once the game is over."""
    hands = [["R1", "R2", "R3", "R4", "R5", "R6", "R7"], ["Y1", "Y2", "Y3", "Y4", "Y5", "Y6", "Y7"]]
    g = rigged("classic", hands, "R8", first=0)
    ui = Console("Ann", kind="join")
    ui.on_message({"type": "seated", "seq": 1, "room": ROOM, "seat": 0, "token": "0" * 32}, 0.0)
    people = room_msg(2, creator=0)
    people["room"]["seats"][1] = {"seat": 1, "name": "Bob", "kind": "person", "connected": True}
    ui.on_message(people, 0.0)
    push(ui, g)
    sheds_reds(g)
    after = room_msg(2, state="over", creator=0, tally={"wins": [1.0, 0.0], "points": [30, 0]}, games=1)
    after["room"]["seats"][1] = {"seat": 1, **left}
    ui.on_message(after, 1.0)
    push(ui, g, 1.0)
    return ui


@pytest.mark.parametrize("left", [
    {"name": None, "kind": "empty", "connected": False},  # today's host: the seat is freed, its name gone
    {"name": "Bob", "kind": "empty", "connected": False, "left": True},  # a host that names departed seats
])
def test_the_final_points_and_the_tally_name_a_person_who_left(left):
    ui = _over(left=left)
    screen = text(ui)
    assert ui.outcome is not None and "You won!" in screen
    assert "Seat 1" not in screen
    assert "This room after 1 game: You 2 won, 73 pts · Bob 0 won, 0 pts" in screen
    assert re.search(r"^   Bob +0 = \d+ held in all − \d+ own", screen, re.M)  # the final points, explained


def test_a_seat_whose_person_left_says_so():
    g, ui = _at_table()
    room = room_msg(3, creator=0)
    room["room"]["seats"][1] = {"seat": 1, "name": "Bob", "kind": "bot", "connected": True, "left": True}
    ui.on_message(room, 0.0)
    assert "Bob" in text(ui) and "left, a bot plays" in text(ui)


# ------------------------------------------------------------------ coins, live


def test_every_coins_message_updates_the_lobby_and_the_table_at_once_and_r_refreshes_both():
    ui = coin_lobby(balance=900)
    ui.on_message({"type": "rooms", "seq": 2, "rooms": coin_rooms()}, 0.0)
    assert "Playing as Ann · 900 coins" in text(ui)
    ui.on_message({"type": "coins", "seq": 3, "profile": "Ann", "balance": 1050, "change": 150, "reason": "win",
                   "room": "Pot", "match": 4}, 0.0)
    assert "Playing as Ann · 1,050 coins" in text(ui)  # in the lobby, at once
    assert ui.press("r") == [("send", "list", {}), ("refresh_balance",)]
    ui.on_message({"type": "profile", "seq": 4, "profile": {"name": "Ann", "balance": 1010}}, 0.0)
    assert "Playing as Ann · 1,010 coins" in text(ui) and 50 in ui.form.stakes
    g, table = _at_table()
    table.coins_host, table.balance = True, 500
    assert "500 coins" in text(table).splitlines()[0]
    table.on_message({"type": "coins", "seq": 9, "profile": "Ann", "balance": 450, "change": -50, "reason": "stake",
                      "room": ROOM, "match": 4}, 0.0)
    assert "450 coins" in text(table).splitlines()[0]


# ------------------------------------------------------------------ the lobby


ROOMS = [
    {"name": "Pot", "game": "colormatch", "table": "classic", "seats": 3, "free": 2, "state": "open", "clock": 30,
     "mode": "single", "password": True, "bots": "medium", "kind": "coins", "stake": 250},
    {"name": "Practice at ten", "game": "colormatch", "table": "daynight", "seats": 6, "free": 0,
     "state": "playing", "clock": 600, "mode": "single", "password": False, "bots": "hard", "kind": "practice",
     "stake": 0},
    {"name": "A room named to the brim", "game": "dominoes", "table": None, "seats": 4, "free": 1, "state": "over",
     "clock": 90, "mode": "single", "password": False, "bots": "easy", "kind": "practice", "stake": 0},
]


def _fields(line: str) -> list[str]:
    return re.split(r" {2,}", line[3:].strip())


def _fits(shown: str, full: str) -> bool:
    return shown == full or (shown.endswith("…") and full.startswith(shown[:-1]))


@pytest.mark.parametrize("width", range(40, 201))
def test_the_room_list_never_runs_its_columns_together_at_any_width(width):
    ui = coin_lobby()
    ui.on_message({"type": "rooms", "seq": 2, "rooms": ROOMS}, 0.0)
    lines = text(ui, width=width, height=12).splitlines()
    head = next(k for k, line in enumerate(lines) if line.startswith("   Room"))
    heads = _fields(lines[head])
    assert heads == [h for h, _a, _l in ROOM_HEADS][: len(heads)] and len(heads) >= 4
    for k, room in enumerate(ROOMS):
        cells = room_cells(room)
        got = _fields(lines[head + 1 + k])
        assert len(got) == len(heads), (width, lines[head + 1 + k])
        assert all(_fits(a, b) for a, b in zip(got, cells, strict=False)), (width, got)
    if width >= 80:  # the whole row: "10 min" and "practice" two fields apart
        assert heads == [h for h, _a, _l in ROOM_HEADS]
        assert "10 min  practice" in lines[head + 2]


def test_the_hosts_list_counts_playing_rooms_and_keeps_its_columns_apart():
    ui = Console("Ann")
    # a newer host: `rooms` counts every room, `playing` those of them playing (it
    # used to be shown as their sum, each playing room counted twice)
    ui.set_hosts([HostRow("Kitchen", "10.0.0.2", 7070, "3", "2", "colormatch,dominoes", True, "2"),
                  HostRow("Attic", "10.0.0.3", 7070, "1", "0", "colormatch")])  # an older host: rooms not playing only
    attic, kitchen = ui.hosts  # in the order of their names
    assert ui.host_rooms(attic) == "1" and ui.host_rooms(kitchen) == "3"
    ui.rooms_seen[("10.0.0.3", 7070)] = 4  # its room list, playing rooms too
    assert ui.host_rooms(attic) == "4"
    for width in range(40, 201):
        lines = text(ui, width=width, height=10).splitlines()
        head = next(k for k, line in enumerate(lines) if line.startswith("   Host"))
        n = len(_fields(lines[head]))
        assert n >= 3
        assert _fields(lines[head + 1])[:3] == ["Attic", "4", "0"]
        assert [len(_fields(lines[head + 1 + k])) for k in range(2)] == [n, n], (width, lines)


def test_a_wrong_password_is_said_before_anything_else():
    ui = coin_lobby()
    rooms = [{**coin_rooms()[0], "stake": 0, "kind": "practice", "open_seats": [1, 2]}]
    ui.on_message({"type": "rooms", "seq": 2, "rooms": rooms}, 0.0)
    ui.press("enter")
    assert ui.prompt is not None and ui.prompt.title == "Password of Pot"
    for ch in "nope":
        ui.press(ch)
    assert ui.press("enter") == [("send", "watch", {"room": "Pot", "password": "nope"})]
    assert ui.picker is None and "Checking the password of Pot" in text(ui)
    ui.on_message({"type": "error", "seq": 3, "code": "bad_password", "message": "Room 'Pot' needs its password.",
                   "fatal": False, "ref": "watch"}, 0.0)
    screen = text(ui)
    assert ui.picker is None and ui.screen == "rooms" and "A seat at" not in screen
    assert "Wrong password for Pot: Enter on the room tries again." in screen
    ui.press("enter")  # the right one now: the seats come after the host said yes
    for ch in "x":
        ui.press(ch)
    ui.press("enter")
    ui.on_message({"type": "watching", "seq": 4, "room": "Pot"}, 0.0)
    ui.on_message({**room_msg(3, state="open"), "seq": 5}, 0.0)  # watching: the room's own news
    assert ui.screen == "rooms" and ui.picker is not None and ui.picker.title == "A seat at Pot"
    assert "Password accepted: pick a seat." in text(ui)
    assert ui.press("escape") == [("send", "leave", {})]  # no seat after all: stop watching it
    assert ui.checking is None


# ------------------------------------------------------------------ a host's control characters


BAD = "\x1b[2J\x07\u202e\u200b\u2028"
CONTROLS = "\x1b\x07\u202e\u200b\u2028"


def test_no_control_or_format_character_of_a_host_reaches_the_screen():
    ui = coin_lobby()
    ui.set_hosts([HostRow(f"Kitchen{BAD}", "10.0.0.2", 7070, "1", "2", "colormatch", False)])
    ui.on_message({"type": "rooms", "seq": 2, "rooms": [{**coin_rooms()[1], "name": f"Den{BAD}"}]}, 0.0)
    g, table = _at_table()
    room = room_msg(3, creator=0)
    room["room"]["name"] = f"Den{BAD}"
    room["room"]["seats"][1]["name"] = f"Bob{BAD}"
    table.on_message(room, 0.0)
    table.on_message({"type": "left", "seq": 4, "room": ROOM, "reason": f"bye{BAD}"}, 0.0)
    table.on_message(room, 0.0)
    table.seat = 0
    push(table, g)
    hosts = Console("Ann")
    hosts.set_hosts(ui.hosts)
    for console in (ui, table, hosts):
        for line in render_screen(console, 0.0, 80, 24):
            for _style, fragment in line:
                assert not any(c in fragment for c in CONTROLS), repr(fragment)
    assert "Bob\ufffd" in text(table) and "Kitchen\ufffd" in text(hosts) and "Den\ufffd" in text(ui)


def test_a_bye_in_the_hosts_own_words_is_said_once():
    """The host's `bye` says "Kitchen closed the table: the host stopped.";
    the console said "Kitchen closed the table (Kitchen closed the table: ...)"."""
    ui = Console("Ann", kind="join")
    ui.on_bye({"type": "bye", "host": "Kitchen", "reason": "Kitchen closed the table: the host stopped."})
    assert ui.message == "Kitchen closed the table: the host stopped."
    # seated at a running game of a host that keeps a store (it resumes it): the seat is said kept
    # (a play-test, after a clean stop, was not told, and did not look for it)
    g, seated = _at_table()
    seated.coins_host = True
    seated.on_bye({"type": "bye", "host": "Kitchen", "reason": "Kitchen closed the table: the host stopped."})
    assert seated.message == ("Kitchen closed the table: the host stopped. Your seat is kept: when Kitchen is "
                              "back, Enter on it takes you there.")
    assert seated.screen == "hosts"


def test_a_host_that_says_goodbye_between_games_keeps_the_seat_and_the_cursor_goes_to_it():
    """Found by a play-test: after Shed's Ctrl-C the console said the seat
    was kept only in a running game, and left the cursor on Gazebo, whose
    Enter said "Your seat at R is gone". A host with a store opens its rooms
    between games again too; the cursor waits on the host of the kept seat."""
    ui = Console("Ann", kind="join")
    ui.set_hosts([HostRow("Gazebo", "127.0.0.1", 7401), HostRow("Shed", "127.0.0.1", 7402)])
    ui.begin_connect("127.0.0.1", 7402, "Shed")
    ui.on_message({"type": "welcome", "seq": 1, "protocol": 3, "host": "Shed", "server": "x", "coins": True}, 0.0)
    ui.on_message({"type": "seated", "seq": 2, "room": ROOM, "seat": 0, "token": "0" * 32}, 0.0)
    ui.on_message({**room_msg(3, state="over"), "seq": 3}, 0.0)
    ui.on_message({"type": "bye", "seq": 4, "reason": "", "host": "Shed"}, 0.0)
    assert ui.screen == "hosts" and ui.hosts[ui.host_sel].label == "Shed"
    assert ui.message == "Shed closed the table. Your seat is kept: when Shed is back, Enter on it takes you there."


def test_a_console_that_comes_back_to_a_finished_game_names_it_as_it_was_played():
    """Found by a play-test: Cat, back after a crash, read the last game's
    points and standing under Dan's name, who sat in seat 1 after the game
    (a bot had played it); the others read "Dan 0 won, 0 pts". The room's
    `ended_names` (the seats' names when the game ended) label it now."""
    hands = [["R1", "R2", "R3", "R4", "R5", "R6", "R7"], ["Y1", "Y2", "Y3", "Y4", "Y5", "Y6", "Y7"]]
    g = rigged("classic", hands, "R8", first=0)
    sheds_reds(g)
    ui = Console("Ann", kind="join")  # started again: it never saw the game under way
    ui.on_message({"type": "seated", "seq": 1, "room": ROOM, "seat": 0, "token": "0" * 32}, 0.0)
    after = room_msg(2, state="over", creator=0, tally={"wins": [1.0, 0.0], "points": [30, 0]}, games=1)
    after["room"]["seats"][1] = {"seat": 1, "name": "Dan", "kind": "person", "connected": True}
    after["room"]["ended_names"] = ["Ann", "Bot 1 (medium)"]
    ui.on_message(after, 1.0)
    push(ui, g, 1.0)
    screen = text(ui)
    assert re.search(r"^   Bot 1 \(medium\) +0 = \d+ held in all − \d+ own", screen, re.M)
    assert "Dan" not in screen.split("This room after")[0].split("Points:")[1]
    assert "This room after 1 game: You 2 won," in screen and "Dan 0 won, 0 pts" in screen
