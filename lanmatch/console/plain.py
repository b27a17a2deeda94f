"""The plain mode of `lanmatch play --plain` (and of `lanmatch play` when
`TERM=dumb`): for screen readers and simple terminals.

How this works. No full screen, no colors, no cursor movement, no
completion menu: every line is a sentence, written once, in order. The game
is the line mode's (`quick.QuickGame`: the host's referee in-process, the
person in seat 0, the referee's bots in the others, no clock); `PlainGame`
changes only how it speaks:

- every event is one sentence (`Bot 1 played red 5.`);
- when a decision comes to the person, the table is told in a few
  sentences (whose turn, the top card or the line's open ends, the counts,
  the person's hand), then every legal action the engine offers is listed
  on its own line, numbered (`3: play Wild, name blue.`), and the prompt
  says which numbers it takes (`Your move, 1 to 7: `). Colour choices,
  swaps, calls, catches, challenges, PLAY/KEEP, Dominoes' ends, draw and
  pass are all entries of that list: nothing needs a key of its own;
- a colour is said by its word only (the shape after it, `●`, is left out:
  a screen reader would spell it);
- the game ends with one sentence saying who won, then one with the points.

Input is plain lines (`input()`-style, no prompt_toolkit), so a pipe plays
as well as a person. `q` leaves, `?` tells the table's rules.
"""

from __future__ import annotations

import collections
import re
from typing import Any, TextIO

from lanmatch.console.chat import chat_line
from lanmatch.console.quick import LineAsker, QuickGame, run_quick
from lanmatch.console.render import Words, action_label, pieces_of, plural, render_outcome, shown
from lanmatch.rules.cards import PALETTES

WIDTH = 10_000
"""No wrapping: one sentence is one line, however long."""

_SHAPES = sorted({shape for p in PALETTES.values() for _, shape in p["colors"].values()}, key=len, reverse=True)
_SHAPE_RE = re.compile(r"([A-Za-z]) (?:" + "|".join(re.escape(s) for s in _SHAPES) + r")(?=$|[\s,.;:!)])")
_GLYPHS_RE = re.compile(r"\s*[↻↺▶]\s*")


def unshaped(text: str) -> str:
    """`red ● 5` -> `red 5`: a colour's word without its shape (and no arrows)."""
    return _GLYPHS_RE.sub(" ", _SHAPE_RE.sub(r"\1", text)).strip()


def sentence(text: str) -> str:
    """One line of words as a sentence: shapes out, runs of spaces and `·`
    separators made commas and semicolons, a full stop at the end."""
    t = unshaped(text).strip().strip("*").strip()
    t = t.replace(" · ", "; ")
    t = re.sub(r"\s{2,}", ", ", t)
    if t and t[-1] not in ".!?:":
        t += "."
    return t


class PlainAsker(LineAsker):
    """Plain lines from stdin; when stdin is not a terminal (nothing echoes
    what was typed), the answer is written after the prompt, so that what was
    chosen stays in the transcript."""

    def __init__(self, out: Any):
        super().__init__(out)
        import sys

        try:
            self.echo = not sys.stdin.isatty()
        except (AttributeError, ValueError):
            self.echo = True


class PlainGame(QuickGame):
    """The line mode's game, told in sentences with numbered choices."""

    def __init__(self, *args: Any, **kw: Any):
        kw.update(color=False, clear=False, width=WIDTH)
        super().__init__(*args, **kw)

    # ----------------------------------------------------------- words

    def say(self, text: str = "") -> None:
        super().say(unshaped(text) if text else text)

    def tell_event(self, line: str) -> None:
        self.say(sentence(line))

    def table_sentences(self, view: dict[str, Any]) -> list[str]:
        return table_sentences(view, self.table, self.names, 0)

    def show_table(self, view: dict[str, Any], legal: list[dict[str, Any]]) -> None:
        self.say("")
        for line in self.table_sentences(view):
            self.say(line)
        self.list_choices(legal, view)
        self._mark_seen()

    def list_choices(self, legal: list[dict[str, Any]], view: dict[str, Any]) -> None:
        for line in choice_lines(legal, view, self.table, self.names, 0):
            self.say(line)

    def turn_prompt(self, legal: list[dict[str, Any]]) -> str:
        return f"Your move, 1 to {len(legal)}: " if len(legal) > 1 else "Your move, 1: "

    def window_prompt(self, legal: list[dict[str, Any]]) -> str:
        return f"Your choice, 1 to {len(legal)}, or Enter to let it go: "

    def tell_outcome(self, outcome: dict[str, Any]) -> None:
        self.say(plain_outcome(outcome, self.g.view(0), self.table, self.names))

    again_prompt = "Play again? 1: yes, a new deal. 2: no, leave. Choose 1 or 2: "
    again_options = [("1", "a new deal"), ("2", "leave")]

    def wants_again(self, text: str) -> bool:
        return text.strip().lower() in ("1", "y", "yes")


def table_sentences(view: dict[str, Any], table: str | None, names: list[str], seat: int) -> list[str]:
    """The table as the person at `seat` needs it to decide, in sentences:
    the seats and their counts, the middle (whose turn, the top card or the
    line), far sides, the person's hand."""
    w = Words(table, names, seat)
    pieces = pieces_of(view.get("game"))
    counts = view.get("counts") or []
    seats = []
    for s, n in enumerate(counts):
        tags = [unshaped(t) for t in pieces.tags(view, w, s)]
        seats.append(f"{w.name(s)} {plural(n, pieces.unit)}" + (f" ({', '.join(tags)})" if tags else ""))
    out = [f"At the table: {'; '.join(seats)}."] if seats else []
    for line in pieces.middle(view, w, WIDTH):
        out.append(sentence(line))
    far = {int(k): v for k, v in (view.get("far") or {}).items()}
    for s, faces in sorted(far.items()):
        if s != seat and faces:
            out.append(f"{w.name(s)}'s cards show on their far side: {', '.join(w.card(c) for c in faces)}.")
    if view.get("seat") is not None:
        hand = pieces.order(list(view.get("hand") or []))
        held = ", ".join(pieces.piece(c, w) for c in hand) or "nothing"
        out.append(f"Your {pieces.hand}, {plural(len(hand), pieces.unit)}{pieces.hand_note(view)}: {held}.")
        if view.get("phase") == "drawn" and view.get("drawn") and view.get("turn") == seat:
            out.append(f"You drew {w.card(view['drawn'])}: play it now, or keep it.")
    return [unshaped(x) for x in out]


def choice_lines(legal: list[dict[str, Any]], view: dict[str, Any], table: str | None, names: list[str],
                 seat: int) -> list[str]:
    """`Your choices, 3:` then `1: play red 5.`, one a line."""
    w = Words(table, names, seat)
    return [f"Your choices, {len(legal)}:"] + [f"{i}: {unshaped(sentence(action_label(a, view, w)))}"
                                               for i, a in enumerate(legal, 1)]


def plain_outcome(outcome: dict[str, Any], view: dict[str, Any], table: str | None, names: list[str]) -> str:
    """The end in two sentences: `Game over (went out). You won!` then the points."""
    lines = render_outcome(outcome, view, table, names=names, width=WIDTH).splitlines()
    head = " ".join(sentence(x) for x in lines[:2])
    w = Words(table, names, view.get("seat", 0))
    pieces = pieces_of(view.get("game"))
    hands = outcome.get("hands")
    parts = []
    for s, p in enumerate(outcome.get("points") or []):
        part = f"{w.name(s)} {p}"
        if hands is not None and s < len(hands) and hands[s]:
            part += " (held " + ", ".join(pieces.piece(c, w) for c in pieces.order(hands[s])) + ")"
        parts.append(part)
    return unshaped(head + (f" Points: {'; '.join(parts)}." if parts else ""))


def run_plain(game: str, table: str | None, seats: int, level: str, seed: int | None, *, fast: bool = False,
              out: TextIO | None = None) -> int:
    """Plain games until the person stops (see `quick.run_quick`)."""
    import sys

    out = out or sys.stdout
    return run_quick(game, table, seats, level, seed, fast=fast, out=out, asker=PlainAsker(out), color=False,
                     kind=PlainGame)


def main_play(args: Any) -> int:
    """`lanmatch play --plain` from parsed arguments (see `lanmatch.cli`)."""
    return run_plain(args.game, args.table, args.seats, args.bots, args.seed, fast=args.fast)


# ---------------------------------------------------------------- at a host: `lanmatch join --plain`


class Question:
    """A numbered question: `choices` are (label, what to do) pairs; `blank`
    is what an empty answer does (None: an empty answer is refused)."""

    def __init__(self, prompt: str, choices: list[tuple[str, Any]], blank: Any = None):
        self.prompt = prompt
        self.choices = choices
        self.blank = blank


class PlainPeer:
    """`lanmatch join --plain HOST:PORT`: the lobby and the table told in
    sentences over the protocol, like any console (docs/console.md, "Plain mode").

    In the lobby the rooms are listed, numbered, with a last choice that makes
    a room of one's own (the game, the table and the seats are asked in turn,
    numbered; bots fill the seats left empty, the clock is 600 s a move); a
    room's director is asked to deal. At the table every view is told (its
    new events, one sentence each) and, when the view offers this seat legal
    actions, they are listed, numbered. What happens while a prompt waits
    starts on a line of its own. Lines are read only while a prompt waits. A
    person (stdin a terminal) answers the question shown now; a pipe answers
    every prompt in turn, so a line written for a question that has gone
    meanwhile (the chance went by) is passed over, not taken for the next one.
    """

    def __init__(self, name: str, profile: dict[str, str] | None, out: TextIO):
        from lanmatch.net.client import Client

        peer = self

        class _Client(Client):
            def on_message(self, msg: dict[str, Any]) -> None:
                peer.on_message(msg)

        self.client = _Client(name, profile=profile)
        self.out = out
        self.question: Question | None = None
        self.asked = None  # trio.Event set when a question waits (made in `run`)
        self.seen = 0
        self.step = -1
        self.sid: int | None = None
        self.exit_code = 0
        self.done = False
        self.creating: dict[str, Any] = {}
        self.printed: collections.deque[Question] = collections.deque()  # prompts printed, not yet answered
        self.prompting = False  # the last thing written is a prompt
        self.piped = True  # stdin is not a terminal (set in `run`)

    # ----------------------------------------------------------- words

    def say(self, text: str) -> None:
        if self.prompting:  # a prompt waits on its line: what happens meanwhile starts a line of its own
            self.out.write("\n")
            self.prompting = False
        self.out.write(unshaped(shown(text)) + "\n")  # a host's words never reach the terminal raw
        self.out.flush()

    def ask(self, q: Question | None) -> None:
        """Ask `q` (its numbered choices, then its prompt), or forget the question (None)."""
        self.question = q
        if q is None:
            return
        for i, (label, _) in enumerate(q.choices, 1):
            self.say(f"{i}: {label}")
        self.out.write(q.prompt)
        self.out.flush()
        self.prompting = True
        self.printed.append(q)
        if self.asked is not None:
            self.asked.set()

    def names(self) -> list[str]:
        room = self.client.room or {}
        seats = room.get("seats") or []
        n = max([x.get("seat", 0) + 1 for x in seats] + [len((self.client.view_msg or {}).get("view", {})
                                                               .get("counts") or [])])
        names = [f"Seat {s}" for s in range(n)]
        for x in seats:
            if x.get("name"):
                names[x["seat"]] = x["name"]
        if self.client.seat is not None and self.client.seat < n:
            names[self.client.seat] = "You"
        return names

    # ----------------------------------------------------------- the lobby

    def on_rooms(self, rooms: list[dict[str, Any]]) -> None:
        from lanmatch.rules import title_of

        choices = []
        for r in rooms:
            if r.get("free", 0) <= 0 or r.get("state") != "open":
                continue
            what = title_of(r["game"], r.get("table"))
            label = (f"join {r['name']}: {what}, {plural(r['free'], 'free seat')} of {r['seats']}, "
                     f"{r['clock']} s a move" + (", with a password" if r.get("password") else "")
                     + (f", a coin room (stake {r.get('stake')})" if r.get("kind") == "coins" else "") + ".")
            choices.append((unshaped(label), ("join", r)))
        choices.append(("make a room of your own, against bots.", ("create", None)))
        choices.append(("leave.", ("quit", None)))
        self.say(f"{plural(len(choices) - 2, 'room')} with a free seat.")
        self.ask(Question(f"Your choice, 1 to {len(choices)}: ", choices))

    def ask_game(self) -> None:
        from lanmatch.rules import GAMES

        choices = [(f"{g.title}.", ("game", key)) for key, g in GAMES.items()]
        self.ask(Question(f"Which game, 1 to {len(choices)}: ", choices))

    def ask_table(self) -> None:
        from lanmatch.rules import get_game

        g = get_game(self.creating["game"])
        if not g.picks_tables:
            self.creating["table"] = None
            self.ask_seats()
            return
        choices = [(f"{g.title_of(t)}." + (f" {g.table(t).brief}" if g.table(t).brief else ""), ("table", g.table_name(t)))
                   for t in g.tables]  # (an unnamed default table travels as none)
        self.ask(Question(f"Which table, 1 to {len(choices)}: ", choices))

    def ask_seats(self) -> None:
        from lanmatch.rules import get_game

        g = get_game(self.creating["game"])
        low, high = g.seat_range(self.creating.get("table"))
        top = high if self.client.profile is not None else min(g.guest_max_players, high)
        choices = [(f"{n} seats, you and {plural(n - 1, 'bot')}.", ("seats", n))
                   for n in range(low, top + 1)]
        self.ask(Question(f"How many seats, 1 to {len(choices)}: ", choices))

    def create(self) -> None:
        c = self.creating
        room = f"{self.client.name[:20]}'s table"
        fields = {"room": room, "game": c["game"], "seats": c["seats"], "clock": 600, "bots": "easy"}
        if c.get("table") is not None:
            fields["table"] = c["table"]
        self.say(f"Making the room {room}.")
        self.client.send("create", **fields)

    def offer_start(self) -> None:
        room = self.client.room or {}
        if room.get("state") != "open" or room.get("director") != self.client.seat or self.client.seat is None:
            return
        self.ask(Question("Your choice, 1 to 2: ", [("deal now: bots take the empty seats.", ("start", None)),
                                                   ("leave the room.", ("quit", None))]))

    # ----------------------------------------------------------- the table

    def on_view(self, msg: dict[str, Any]) -> None:
        from lanmatch.console.render import describe_events

        view = msg["view"]
        seat = self.client.seat if self.client.seat is not None else -1
        names = self.names()
        if view.get("step", 0) < self.step:  # a new game: its events start again
            self.seen = 0
        self.step = view.get("step", 0)
        table = view.get("table")
        events = [e for e in view.get("events") or [] if e.get("n", 0) > self.seen]
        if events:
            self.seen = events[-1]["n"]
            for line in describe_events(events, table, names=names, seat=seat, game=view.get("game")):
                self.say(sentence(line))
        if view.get("outcome") is not None:
            if self.sid != ("over", msg["state_id"]):
                self.sid = ("over", msg["state_id"])
                self.say(plain_outcome(view["outcome"], view, table, names))
                self.after_game()
            return
        legal = msg.get("legal") or []
        if not legal:
            if self.question is not None and self.question.choices and self.question.choices[0][1][0] == "act":
                self.question = None  # the chance went by
            return
        if self.sid == msg["state_id"]:
            return
        self.sid = msg["state_id"]
        self.say("")
        for line in table_sentences(view, table, names, seat):
            self.say(line)
        left = next((t.get("left") for t in msg.get("timers") or [] if t.get("seat") == seat), None)
        clock = f" ({int(left)} seconds)" if isinstance(left, (int, float)) and left < 10_000 else ""
        w = Words(table, names, seat)
        choices = [(unshaped(sentence(action_label(a, view, w))), ("act", (msg["state_id"], a))) for a in legal]
        self.say(f"Your choices, {len(legal)}:")
        if view.get("turn") == seat:
            prompt = f"Your move{clock}, 1 to {len(legal)}: " if len(legal) > 1 else f"Your move{clock}, 1: "
            self.ask(Question(prompt, choices))
        else:
            many = f"1 to {len(legal)}" if len(legal) > 1 else "1"
            self.ask(Question(f"Your choice{clock}, {many}, or Enter to let it go: ", choices, ("pass", None)))

    def after_game(self) -> None:
        room = self.client.room or {}
        if room.get("director") == self.client.seat and self.client.seat is not None:
            first = ("deal a rematch: same seats, a new deal.", ("rematch", None))
        else:
            first = ("stay for the next game (the room's director deals it).", ("wait", None))
        self.ask(Question("Your choice, 1 to 2: ", [first, ("leave.", ("quit", None))]))

    # ----------------------------------------------------------- messages and answers

    def on_message(self, msg: dict[str, Any]) -> None:
        typ = msg["type"]
        if typ == "welcome":
            prof = msg.get("profile")
            if prof:
                extra = f" Playing as {prof.get('name')}, {prof.get('balance')} coins."
            elif self.client.profile is None or not msg.get("coins"):
                extra = " No profile: practice rooms only."
            else:  # (first use at this host: the client registers the profile, and `profile` says so)
                extra = ""
            self.say(f"Connected to {msg.get('host') or 'the host'}." + extra)
            self.client.send("list")
        elif typ == "profile":
            prof = msg.get("profile") or {}
            self.say(f"Your profile {prof.get('name')} is made at this host: {prof.get('balance')} coins.")
        elif typ == "rooms":
            if self.client.seat is None:
                self.on_rooms(msg["rooms"])
        elif typ == "seated":
            self.say(f"You sit at seat {msg['seat']} of {msg['room']}. At any question, say and a line talks to the room.")
        elif typ == "room":
            if self.client.view_msg is None or (self.client.room or {}).get("state") == "open":
                room = msg["room"]
                waiting = ", ".join(x["name"] for x in room.get("seats") or [] if x.get("name"))
                self.say(f"{room['name']}: {room.get('state')}; seated: {waiting or 'nobody'}.")
                self.offer_start()
        elif typ == "view":
            self.on_view(msg)
        elif typ == "rejected":
            self.say(f"Refused: {msg.get('reason') or msg.get('code')}.")
            self.sid = None
            if self.client.view_msg is not None:
                self.on_view(self.client.view_msg)
        elif typ == "error":
            if msg.get("code") == "unknown_profile":  # the client registers it (a play-test read "no profile")
                return
            self.say(sentence(msg.get("message") or msg.get("code") or "an error"))
            if msg.get("ref") in ("join", "create") and self.client.seat is None:
                self.client.send("list")
        elif typ == "left":
            self.say(sentence(f"You left the room: {msg.get('reason') or 'gone'}"))
            self.client.send("list")
        elif typ == "bye":
            self.say(sentence(msg.get("reason") or "The host said goodbye"))
        elif typ == "chat":  # the room's talk, one sentence a line
            self.say(sentence(chat_line(msg, self.client.seat)))

    def answer(self, line: str) -> None:
        """Apply one line to the question waiting (if still any)."""
        q = self.question
        if q is None:
            return
        t = line.strip().lower()
        if t in ("q", "quit", "exit"):
            self.quit()
            return
        if t.startswith("say ") and self.client.room_name is not None:  # a line to the room, then the question again
            self.client.send("chat", text=line.strip()[4:].strip()[:200])
            self.ask(q)
            return
        if not t and q.blank is not None:
            self.question = None
            return
        if not (t.isdigit() and 1 <= int(t) <= len(q.choices)):
            self.say(f"Type a number from 1 to {len(q.choices)}" + (", or Enter" if q.blank else "") + ".")
            self.ask(q)
            return
        self.question = None
        kind, value = q.choices[int(t) - 1][1]
        if kind == "act":
            sid, action = value
            self.client.act(action, sid)
        elif kind == "join":
            fields = {"room": value["name"]}
            if value.get("password"):
                self.say("This room has a password; join it in the full-screen console, or choose another.")
                self.client.send("list")
                return
            self.client.send("join", **fields)
        elif kind == "create":
            self.creating = {}
            self.ask_game()
        elif kind == "game":
            self.creating["game"] = value
            self.ask_table()
        elif kind == "table":
            self.creating["table"] = value
            self.ask_seats()
        elif kind == "seats":
            self.creating["seats"] = value
            self.create()
        elif kind == "start":
            self.client.send("start")
        elif kind == "rematch":
            self.client.send("rematch")
        elif kind == "wait":
            self.say("Waiting for the next deal.")
        elif kind == "quit":
            self.quit()

    def quit(self) -> None:
        self.done = True
        self.question = None
        self.client.close()

    async def run(self, address: tuple[str, int]) -> int:
        import sys

        import trio

        self.asked = trio.Event()
        try:
            self.piped = not sys.stdin.isatty()
        except (AttributeError, ValueError):
            self.piped = True

        async def answers() -> None:
            while not self.done:
                while not self.printed:
                    await self.asked.wait()
                    self.asked = trio.Event()
                line = await trio.to_thread.run_sync(sys.stdin.readline, abandon_on_cancel=True)
                asked = self.printed.popleft()
                if self.piped:  # a pipe answers every prompt in turn: this line is `asked`'s
                    late = asked is not self.question
                else:  # a person answers the question on the screen now
                    self.printed.clear()
                    late = False
                if not line:
                    self.say("The input ended: you leave.")
                    self.quit()
                    return
                if late:
                    continue  # its question is gone; the one that replaced it has its own prompt
                if self.piped:
                    self.out.write(line.strip() + "\n")
                self.prompting = False
                self.answer(line)

        async with trio.open_nursery() as nursery:
            nursery.start_soon(answers)
            try:
                reason = await self.client.connect_once(address)
            except OSError as e:
                from lanmatch.net.client import reach_error

                self.say(f"Cannot reach {address[0]}:{address[1]}: {reach_error(e)}.")
                self.exit_code = 1
            except Exception as e:  # NotLanmatch and the like: one sentence
                self.say(sentence(str(e)))
                self.exit_code = 1
            else:
                if not self.done:
                    self.say(f"The connection ended ({reason}).")
                    self.exit_code = 1
            nursery.cancel_scope.cancel()
        self.say("Bye!")
        return self.exit_code


def main_join(args: Any) -> int:
    """`lanmatch join --plain HOST:PORT` from parsed arguments (see `lanmatch.cli`)."""
    import sys

    import trio

    from lanmatch.console.app import join_profile
    from lanmatch.net.client import parse_address

    profile, name, note = join_profile(args.name)
    peer = PlainPeer(name, profile, sys.stdout)
    if note:
        peer.say(f"No profile ({note}): practice rooms only.")
    try:
        return trio.run(peer.run, parse_address(args.address))
    except KeyboardInterrupt:
        peer.say("Interrupted. Bye!")
        return 0


__all__ = ["PlainAsker", "PlainGame", "PlainPeer", "main_join", "main_play", "plain_outcome", "run_plain", "sentence", "unshaped"]
