"""Chat, emotes, mutes and watching in the console model, drawn at 80x24.

`t` opens a text field (200 characters at most) that sends a `chat`; `e`
the emote picker; `M` the mute picker (seats, and every watcher at once);
relayed chat lines are logged unless muted; the table and the waiting room
show who watches; a watcher is offered a seat that opens between games, and
Enter on a playing room offers to watch it.
"""

from __future__ import annotations

from _console import ROOM, push, rigged, room_msg, seated_ui, text

from lanmatch.console.chat import watchers_line
from lanmatch.console.model import Console

H0 = ["R1", "R2", "R3", "G4", "G5", "B6", "Y7"]
H1 = ["R4", "R5", "R6", "G1", "G2", "B3", "Y4"]
H2 = ["B1", "B2", "Y3", "G6", "G7", "B8", "Y9"]


def table_ui(watchers: list[str] | None = None) -> Console:
    g = rigged("classic", [H0, H1, H2], "R9", first=0)
    ui = seated_ui(g)
    room = room_msg(3, creator=0)
    room["room"]["seats"][1].update(name="Bob", kind="person")
    room["room"].update(watchers=watchers or [], spectators=len(watchers or []))
    ui.on_message(room, 0.0)
    push(ui, g)
    return ui


def chat(seat, name, **kw) -> dict:
    return {"type": "chat", "seq": 9, "room": ROOM, "seat": seat, "name": name, **kw}


def test_a_relayed_chat_is_a_line_of_the_log_at_80x24():
    ui = table_ui(["Cat"])
    ui.on_message(chat(1, "Bob", text="nice hand"), 0.0)
    ui.on_message(chat(None, "Cat", emote="gl"), 0.0)
    ui.on_message(chat(0, "Ann", emote="gg"), 0.0)
    screen = text(ui)
    assert "Bob says: nice hand" in screen
    assert "Cat (watching) says: Good luck!" in screen
    assert "You say: Good game!" in screen
    assert " Watching: Cat" in screen


def test_t_types_a_chat_of_at_most_200_characters_and_enter_sends_it():
    ui = table_ui()
    assert ui.press("t") == [] and ui.prompt is not None and ui.prompt.purpose == "chat"
    for ch in "x" * 250:
        ui.press(ch)
    assert len(ui.prompt.value) == 200
    screen = text(ui)
    assert "…" in screen and "█" in screen  # the end of a long text, where the typing is
    assert all(len(line) <= 80 for line in screen.splitlines())
    for _ in range(200):
        ui.press("backspace")
    for ch in "  hi all ":
        ui.press(ch)
    assert ui.press("enter") == [("send", "chat", {"text": "hi all"})] and ui.prompt is None
    ui.press("t")
    assert ui.press("enter") == []  # nothing typed: nothing sent
    ui.press("t")
    assert ui.press("escape") == [] and ui.prompt is None


def test_e_opens_the_emotes_each_on_its_key():
    ui = table_ui()
    ui.press("e")
    screen = text(ui)
    assert "Say quickly" in screen and "gg: Good game!" in screen and "hurry: Hurry up, please!" in screen
    assert ui.press("g") == [("send", "chat", {"emote": "gg"})]
    ui.press("e")
    assert ui.press("5") == [("send", "chat", {"emote": "hurry"})]
    for key, emote in (("l", "gl"), ("n", "nice"), ("o", "oops"), ("h", "hurry")):
        ui.press("e")
        assert ui.press(key) == [("send", "chat", {"emote": emote})]


def test_m_mutes_a_seat_and_every_watcher_at_once():
    ui = table_ui(["Cat"])
    ui.press("M")
    screen = text(ui)
    assert "Mute or unmute" in screen and "seat 1 Bob (shown)" in screen and "every watcher (shown)" in screen
    assert not [label for _, label, _ in ui.picker.options if label.startswith("seat 0")]  # not yourself
    assert ui.press("1") == [] and "Bob: muted" in ui.message
    ui.on_message(chat(1, "Bob", text="can you see me"), 0.0)
    assert "can you see me" not in text(ui)
    ui.on_message(chat(2, "Bot 2 (medium)", text="a bot node talks"), 0.0)
    assert "a bot node talks" in text(ui)
    ui.press("M")
    assert ui.press("w") == [] and ui.mutes.watchers
    ui.on_message(chat(None, "Cat", emote="hurry"), 0.0)
    assert "Cat (watching)" not in text(ui)
    ui.press("M")
    assert "seat 1 Bob (muted" in text(ui)
    ui.press("1")  # shown again
    ui.on_message(chat(1, "Bob", text="back again"), 0.0)
    assert "Bob says: back again" in text(ui)


def test_an_older_host_that_does_not_know_chat_is_said_once_and_the_keys_say_so():
    ui = table_ui()
    ui.on_message({"type": "error", "seq": 9, "code": "unknown_type", "message": "unknown message type 'chat'",
                   "fatal": False, "ref": "chat"}, 0.0)
    assert "does not relay chat" in ui.message and not ui.chat_ok
    ui.say("")
    assert ui.press("t") == [] and ui.prompt is None and "does not relay chat" in ui.message
    ui.on_message({"type": "error", "seq": 9, "code": "chat_too_fast", "message": "Chat at most 0.5 a second.",
                   "fatal": False, "ref": "chat"}, 0.0)
    assert ui.message == "Not sent: Chat at most 0.5 a second."


def test_the_waiting_room_shows_the_watchers_and_the_chat():
    ui = Console("Ann", kind="join")
    ui.on_message({"type": "seated", "room": ROOM, "seat": 0, "token": "0" * 32}, 0.0)
    room = room_msg(3, state="open", creator=0)
    room["room"].update(watchers=["Bob", "Cat"], spectators=2)
    ui.on_message(room, 0.0)
    ui.on_message(chat(None, "Bob", text="waiting for you"), 0.0)
    ui.on_message(chat(0, "Ann", emote="gl"), 0.0)
    screen = text(ui)
    assert "Watching: Bob, Cat" in screen
    assert "Bob (watching) says: waiting for you" in screen and "You say: Good luck!" in screen
    assert "t chat" in screen  # the key bar offers it in the waiting room
    assert ui.press("t") == [] and ui.prompt is not None


def test_the_watchers_line_fits_its_width():
    many = {"watchers": [f"Watcher number {k}" for k in range(16)], "spectators": 20}
    line = watchers_line(many, 78)
    assert line.startswith("Watching: Watcher number 0, ") and line.endswith(" more") and len(line) <= 78
    assert watchers_line({"watchers": [], "spectators": 3}) == "Watching: 3 watchers"
    assert watchers_line({"watchers": [], "spectators": 0}) == ""
    assert watchers_line({"spectators": 1}) == "Watching: 1 watcher"
    # a watcher's own screen names it "You", first (a play-test read "Watching: Cat" as Cat)
    two = {"watchers": ["Bob", "Cat"], "spectators": 2}
    assert watchers_line(two, 78, me="Cat") == "Watching: You, Bob" and watchers_line(two, 78) == "Watching: Bob, Cat"


def test_enter_on_a_playing_room_offers_to_watch_it():
    ui = Console("Ann")
    ui.begin_connect("10.0.0.2", 7070, "Kitchen")
    ui.on_message({"type": "welcome", "seq": 1, "protocol": 3, "host": "Kitchen", "server": "x"}, 0.0)
    ui.on_message({"type": "rooms", "rooms": [{"name": "Busy", "game": "colormatch", "table": "classic", "seats": 3,
                                               "free": 0, "state": "playing", "password": False}]}, 0.0)
    assert ui.press("enter") == []
    screen = text(ui)
    assert "Busy is playing" in screen and "watch it" in screen
    assert ui.press("w") == [("send", "watch", {"room": "Busy"})]
    ui.on_message({"type": "watching", "seq": 2, "room": "Busy"}, 0.0)
    assert ui.watching and ui.screen == "waiting"


def test_a_watcher_is_offered_a_seat_that_opens_between_games_and_j_takes_it():
    g = rigged("classic", [H0, H1, H2], "R9", first=0)
    ui = Console("Cat", kind="join")
    ui.on_message({"type": "watching", "seq": 1, "room": ROOM}, 0.0)
    playing = room_msg(3, creator=0)
    playing["room"].update(watchers=["Cat"], spectators=1)
    ui.on_message(playing, 0.0)
    push(ui, g, seat=0)
    ui.seat = None
    assert ui.press("j") == [] and "No seat" in ui.message
    over = room_msg(3, state="over", creator=0)
    over["room"].update(watchers=["Cat"], spectators=1, free=1, open_seats=[2])
    ui.on_message(over, 0.0)
    assert "A seat is open at Test table: j takes it" in ui.message
    assert "j take the open seat" in text(ui, width=120)
    ui.say("")
    ui.on_message(over, 0.0)
    assert ui.message == ""  # offered once for this state
    assert ui.press("j") == [] and ui.picker is not None
    assert [k for k, _, _ in ui.picker.options] == ["f", "2"]
    assert ui.press("2") == [("send", "join", {"room": ROOM, "seat": 2})]
    ui.on_message({"type": "seated", "seq": 3, "room": ROOM, "seat": 2, "token": "1" * 32}, 0.0)
    assert ui.seat == 2 and not ui.watching


def test_the_offer_of_a_seat_goes_when_the_next_game_is_dealt():
    """Found in a play-test: the watcher's "A seat is open ...: j takes it"
    stayed up through the next game, and `j` then said no seat was open."""
    ui = Console("Cat", kind="join")
    ui.on_message({"type": "watching", "seq": 1, "room": ROOM}, 0.0)
    over = room_msg(3, state="over", creator=0)
    over["room"].update(watchers=["Cat"], spectators=1, free=1, open_seats=[2])
    ui.on_message(over, 0.0)
    assert "A seat is open at Test table: j takes it" in ui.message
    playing = room_msg(3, creator=0)
    playing["room"].update(watchers=["Cat"], spectators=1, games=2)
    ui.on_message(playing, 0.0)
    assert ui.message == "" and not ui.may_sit()
    assert ui.press("j") == [] and "No seat" in ui.message
    ui.on_message(over, 0.0)  # between games again: offered again
    assert "A seat is open at Test table: j takes it" in ui.message
    ui.say("Bob says: hi")  # another line since: left as it is
    ui.on_message(playing, 0.0)
    assert ui.message == "Bob says: hi"


def test_a_guest_the_host_renamed_knows_itself_among_the_watchers_and_in_the_chat():
    """Found by a play-test: a guest called "Ann" at a host with a profile
    Ann sits and watches as "Ann (guest)"; its own screen said "Watching: Cat,
    Ann (guest)" and "Ann (guest) (watching) says: ..." for its own line.
    The welcome now says the name the host knows it by."""
    ui = Console("Ann", kind="join")
    ui.begin_connect("10.0.0.2", 7070, "Kitchen")
    ui.on_message({"type": "welcome", "seq": 1, "protocol": 3, "host": "Kitchen", "server": "x",
                   "name": "Ann (guest)"}, 0.0)
    ui.on_message({"type": "watching", "seq": 2, "room": ROOM}, 0.0)
    room = room_msg(3)
    room["room"].update(watchers=["Cat", "Ann (guest)"], spectators=2)
    ui.on_message(room, 0.0)
    assert "Watching: You, Cat" in text(ui, width=100)
    ui.on_message({"type": "chat", "seq": 3, "room": ROOM, "seat": None, "name": "Ann (guest)", "text": "hi"}, 0.0)
    assert ui.log[-1] == "You say: hi"


def test_the_mute_picker_leaves_out_a_seat_whose_person_left():
    """A play-test found Bob's seat in the picker after he left the game (a
    bot plays it: nobody there talks)."""
    ui = table_ui()
    room = room_msg(3, creator=0)
    room["room"]["seats"][1].update(name="Bob", kind="person", left=True)
    ui.on_message(room, 1.0)
    ui.press("M")
    assert not [label for _, label, _ in ui.picker.options if "Bob" in label], ui.picker.options
