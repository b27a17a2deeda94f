"""The console's state and what every key does (pure: no terminal, no network).

How this works. `Console` holds everything the full-screen console shows: the
screen it is on (`hosts`, `rooms`, `form`, `connecting`, `waiting`, `table`),
the latest `view` message from the host, the room, the selected card, an open
picker, the help overlay, a one-line message and the log of moves in words.

Two doors change it, and both are plain method calls:

- `on_message(msg, now)`: a message from the host (after `Client`'s own
  bookkeeping). `now` is any monotonic time in seconds: the timers of a view
  count down from the moment it arrived (`timers_now(now)`).
- `press(key)`: one key. It returns a list of **intents** for the network
  side, tuples such as `("act", action, state_id)`, `("send", "start", {})`,
  `("connect", host, port, label)`, `("disconnect",)` or `("quit",)`. Key
  handlers (`app.py`) only call `press` and forward its intents; so what a key
  does is tested here without a terminal.

Keys are prompt_toolkit's names (`left`, `enter`, `escape`, `tab`,
`backspace`, `c-c`, ...) or one printable character.

What is drawn from this state lives in `screen.py`; the words for cards,
actions and events come from `render.py`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from lanmatch.console.render import (
    Words,
    action_label,
    card_sort_key,
    describe_events,
    tile_words,
)
from lanmatch.net.client import parse_address
from lanmatch.protocol import CLOCKS
from lanmatch.rules import GAMES, get_game
from lanmatch.table import GUEST_MAX_SEATS, default_clock

Intent = tuple
LOG_KEEP = 300
LEVELS = ("easy", "medium", "hard")
MODES = ("single", "match", "daily")
NOT_OPTIONS = ("mode", "target", "date")  # table options the form sets elsewhere (or never)
STAKES = (10, 25, 50, 100, 250)  # the coin stakes the form offers (those not above the balance)
PROFILE_MAX_SEATS = 6  # a room made by a peer with a profile (a guest's: GUEST_MAX_SEATS)
LEAVING_FEE_PERCENT = 10


def leaving_fee(stake: int, balance: int | None = None) -> int:
    """What leaving a running coin game costs on top of the stake: 10 %, rounded
    up, never more than the balance (docs/protocol.md section 12)."""
    fee = -(-stake * LEAVING_FEE_PERCENT // 100)
    return fee if balance is None else max(0, min(fee, balance))


def coins_words(n: int) -> str:
    """`1,030 coins`, `1 coin`."""
    return f"{n:,} coin" + ("" if abs(n) == 1 else "s")


# The host's coin-room refusals in the console's words (one line at 80 columns).
REFUSALS = {
    "wrong_key": "{name!r} is another player's name here: practice only. For coins: --name OTHER",
    "bad_profile": "This host cannot use your profile's name: practice rooms only here.",
    "need_profile": "A coin room needs a profile at this host, and you have none: pick practice.",
    "insufficient_coins": "Too few coins for that stake (you hold {balance}): pick a smaller one.",
    "profile_seated": "Your profile already sits at this table (another console of yours?).",
}
PROFILE_REFUSED = {
    "wrong_key": "the name is another player's",
    "bad_profile": "the host refused its name",
}


# ------------------------------------------------------------------ pieces


@dataclass
class Picker:
    """A small menu over the table: each option is (hotkey, label, intent)."""

    title: str
    options: list[tuple[str, str, Intent]]
    sel: int = 0
    state_id: int | None = None  # an action picker belongs to this state only
    numbered: bool = True  # digits pick by position (else digits are hotkeys too)


@dataclass
class TextPrompt:
    """A one-line text field over the screen (a room's password)."""

    title: str
    purpose: str
    value: str = ""
    secret: bool = False
    context: dict[str, Any] = field(default_factory=dict)


@dataclass
class HostRow:
    """One host found over mDNS (alive: the browser checked it over TCP)."""

    label: str
    address: str
    port: int
    rooms: str = "?"
    free: str = "?"
    games: str = ""
    password: bool = False


@dataclass
class HandItem:
    code: str  # card or tile code
    plays: list[dict[str, Any]]  # the legal plays of this card now

    @property
    def playable(self) -> bool:
        return bool(self.plays)


def bool_options(game: str, table: str | None) -> list[str]:
    """The on/off house options a table accepts (`stacking`, `jump_in`, ...)."""
    spec = _table_spec(game, table)
    return [o for o in getattr(spec, "options", ()) if o not in NOT_OPTIONS]


def takes_mode(game: str, table: str | None) -> bool:
    return "mode" in getattr(_table_spec(game, table), "options", ())


def _table_spec(game: str, table: str | None) -> Any:
    g = GAMES.get(game)
    if g is None:
        return None
    return g.tables.get(table or g.default_table) if g.named_tables else g.table()


@dataclass
class RoomForm:
    """The create-room form. `rows()` lists its fields for the current game and table."""

    name: str = ""
    game: str = "colormatch"
    table: str = "classic"
    options: dict[str, bool] = field(default_factory=dict)
    seats: int = 4
    clock: int | None = None  # None: the table's default
    mode: str = "single"
    stake: int = 0  # 0: practice; more: a coin room
    bots: str = "medium"
    password: str = ""
    focus: int = 0
    stakes: tuple[int, ...] = ()  # the coin stakes offered now (empty: practice only)
    stake_note: str = "this host keeps no coins"  # why practice only
    max_seats: int = GUEST_MAX_SEATS  # 6 with a profile the host recognised

    def seat_limit(self) -> int:
        return GUEST_MAX_SEATS if self.game == "dominoes" else self.max_seats

    TEXT = ("name", "password")

    def rows(self) -> list[str]:
        rows = ["name", "game"]
        if self.game == "colormatch":
            rows.append("table")
        rows += [f"opt:{o}" for o in bool_options(self.game, self.table)]
        rows += ["seats", "clock"]
        if takes_mode(self.game, self.table):
            rows.append("mode")
        rows += ["stake", "bots", "password", "create"]
        return rows

    def current(self) -> str:
        rows = self.rows()
        self.focus = max(0, min(self.focus, len(rows) - 1))
        return rows[self.focus]

    def value_text(self, row: str) -> str:
        """The value of a row, in words."""
        if row == "name":
            return self.name
        if row == "password":
            return "•" * len(self.password)
        if row == "game":
            return "Color Match" if self.game == "colormatch" else "Dominoes"
        if row == "table":
            spec = _table_spec(self.game, self.table)
            return spec.title if spec is not None else str(self.table)
        if row.startswith("opt:"):
            return "on" if self.options.get(row[4:]) else "off"
        if row == "seats":
            return str(self.seats)
        if row == "clock":
            if self.clock is None:
                return f"table default ({default_clock(self.game, self.table)} s)"
            return "10 min" if self.clock == 600 else f"{self.clock} s"
        if row == "mode":
            return {"single": "single game", "match": "match (first to the target)", "daily": "daily deal"}[self.mode]
        if row == "stake":
            if self.stake:
                return f"coins: {self.stake} a seat, the winner takes the pot"
            if self.stakes:
                return "practice (no coins)"
            return f"practice only ({self.stake_note})"
        if row == "bots":
            return f"{self.bots} bots in empty seats"
        return ""

    def change(self, row: str, step: int) -> None:
        """Left/right on a choice row."""

        def cycle(values: tuple | list, cur: Any) -> Any:
            values = list(values)
            i = values.index(cur) if cur in values else 0
            return values[(i + step) % len(values)]

        if row == "game":
            self.game = cycle(tuple(GAMES), self.game)
        elif row == "table":
            self.table = cycle(tuple(get_game(self.game).tables), self.table)
        elif row.startswith("opt:"):
            self.options[row[4:]] = not self.options.get(row[4:])
        elif row == "seats":
            self.seats = cycle(range(2, self.seat_limit() + 1), self.seats)
        elif row == "stake":
            self.stake = cycle((0, *self.stakes), self.stake)
        elif row == "clock":
            self.clock = cycle((None, *CLOCKS), self.clock)
        elif row == "mode":
            self.mode = cycle(MODES, self.mode)
        elif row == "bots":
            self.bots = cycle(LEVELS, self.bots)
        if not takes_mode(self.game, self.table):
            self.mode = "single"
        self.seats = min(self.seats, self.seat_limit())

    def offer(self, stakes: tuple[int, ...], note: str, max_seats: int) -> None:
        """What the host and the balance allow now: a chosen stake no longer
        allowed falls to the biggest one that is (or practice)."""
        self.stakes, self.stake_note, self.max_seats = stakes, note, max_seats
        if self.stake not in stakes:
            self.stake = max((x for x in stakes if x <= self.stake), default=0)
        self.seats = min(self.seats, self.seat_limit())

    def message(self) -> dict[str, Any]:
        """The fields of the `create` message."""
        fields: dict[str, Any] = {"room": self.name.strip(), "game": self.game, "seats": self.seats, "bots": self.bots}
        if self.game == "colormatch":
            fields["table"] = self.table
            opts = {o: True for o in bool_options(self.game, self.table) if self.options.get(o)}
            if opts:
                fields["options"] = opts
        if self.clock is not None:
            fields["clock"] = self.clock
        if self.mode != "single":
            fields["mode"] = self.mode
        if self.stake:
            fields["stake"] = self.stake
        if self.password:
            fields["password"] = self.password
        return fields


# ------------------------------------------------------------------ the console


class Console:
    """The state of the console. See the module docstring."""

    def __init__(self, name: str, *, kind: str = "join"):
        self.name = name  # the player's name at the table
        self.kind = kind  # "play" (quick play: one table) or "join" (the lobby)
        self.screen = "connecting" if kind == "play" else "hosts"
        self.overlay: str | None = None  # "help" | "confirm_quit" | "confirm_leave" | "confirm_stake"
        self.picker: Picker | None = None
        self.prompt: TextPrompt | None = None
        self.message = ""
        self.banner = ""  # a standing note under the title (e.g. "advertised on the LAN")
        self.status = ""  # connection trouble, shown in the title bar
        # lobby
        self.hosts: list[HostRow] = []
        self.host_sel = 0
        self.address_text = ""
        self.address_focus = False
        self.browsing = kind == "join"
        self.host_label: str | None = None  # the host we talk to
        self.host_address: tuple[str, int] | None = None
        self.rooms: list[dict[str, Any]] = []
        self.room_sel = 0
        self.form = RoomForm(name=f"{name}'s table"[:32])
        # profile and coins (docs/console.md "Coins")
        self.coins_host = False  # the host keeps a store: coin rooms exist there
        self.account: str | None = None  # the profile name the host recognised
        self.balance: int | None = None  # its coins, as the host last said
        self.profile_note = ""  # why this console has no profile at this host ("" : it brought none)
        self.pending: dict[str, Any] | None = None  # a coin room waiting for "Enter" (overlay "confirm_stake")
        self._fee_line = ""
        # the table
        self.room: dict[str, Any] | None = None
        self.seat: int | None = None
        self.watching = False
        self.msg: dict[str, Any] | None = None  # the latest view message
        self.received_at = 0.0
        self.sel = 0
        self.digits = ""
        self.sent_sid: int | None = None  # an action was sent for this state
        self.log: list[str] = []
        self._last_n = 0
        self._last_step: int | None = None
        self._had_outcome = False
        self._back = False  # reconnected: the next `seated` gives our seat back

    # ------------------------------------------------------------ reading

    @property
    def view(self) -> dict[str, Any] | None:
        return self.msg["view"] if self.msg else None

    @property
    def legal(self) -> list[dict[str, Any]]:
        return list(self.msg.get("legal") or []) if self.msg else []

    @property
    def state_id(self) -> int | None:
        return self.msg["state_id"] if self.msg else None

    @property
    def game(self) -> str:
        if self.view:
            return self.view.get("game", "colormatch")
        return (self.room or {}).get("game") or "colormatch"

    @property
    def table(self) -> str | None:
        if self.game == "dominoes":
            return None
        if self.view and self.view.get("table"):
            return self.view["table"]
        return (self.room or {}).get("table") or "classic"

    @property
    def outcome(self) -> dict[str, Any] | None:
        return self.view.get("outcome") if self.view else None

    def names(self) -> list[str]:
        """Each seat's name as shown: `You` for this seat."""
        n = 0
        if self.view:
            n = len(self.view.get("counts") or [])
        seats = (self.room or {}).get("seats") or []
        n = n or len(seats)
        out = []
        for s in range(n):
            if s == self.seat:
                out.append("You")
            elif s < len(seats) and seats[s].get("name"):
                out.append(str(seats[s]["name"]))
            else:
                out.append(f"Seat {s}")
        return out

    def words(self) -> Words:
        return Words(self.table, self.names(), self.seat if self.seat is not None else -1, False)

    def my_turn(self) -> bool:
        v = self.view
        return bool(v and self.seat is not None and v.get("turn") == self.seat and self.outcome is None)

    def hand(self) -> list[HandItem]:
        """The hand in table order (by color, then symbol; tiles as dealt), with each card's plays."""
        v = self.view
        if not v:
            return []
        legal = self.legal
        if self.game == "dominoes":
            codes = list(v.get("hand") or [])
            return [HandItem(t, [a for a in legal if a.get("type") == "play" and a.get("tile") == t]) for t in codes]
        codes = sorted(v.get("hand") or [], key=card_sort_key)
        return [HandItem(c, [a for a in legal if a.get("type") == "play" and a.get("card") == c]) for c in codes]

    def selected(self) -> HandItem | None:
        items = self.hand()
        if not items:
            return None
        self.sel = max(0, min(self.sel, len(items) - 1))
        return items[self.sel]

    def may_direct(self) -> bool:
        """May this peer start or rematch the room? (its creator; anyone seated when there is none)"""
        room = self.room or {}
        if self.seat is None:
            return False
        creator = room.get("creator")
        return creator is None or creator == self.seat

    def timers_now(self, now: float) -> list[dict[str, Any]]:
        """The view's timers with the seconds left at `now`."""
        if not self.msg:
            return []
        gone = max(0.0, now - self.received_at)
        return [{**t, "left": max(0.0, float(t.get("left", 0)) - gone)} for t in self.msg.get("timers") or []]

    def label(self, action: dict[str, Any]) -> str:
        return action_label(action, self.view or {}, self.words())

    def card_words(self, code: str) -> str:
        return tile_words(code) if self.game == "dominoes" else self.words().card(code)

    def standing(self) -> tuple[list[float], list[int]] | None:
        """The room's running score (wins, points) including a game just ended."""
        room = self.room or {}
        tally = room.get("tally")
        if not tally:
            return None
        wins = list(tally.get("wins") or [])
        points = list(tally.get("points") or [])
        out = self.outcome
        if out and room.get("state") == "over":  # the room counts a game at the next deal
            winners = out.get("winners") or []
            for s in winners:
                if s < len(wins):
                    wins[s] += 1 / len(winners)
            for s, p in enumerate(out.get("points") or []):
                if s < len(points):
                    points[s] += p
        return wins, points

    # ------------------------------------------------------------ the host's messages

    def say(self, text: str) -> None:
        self.message = text

    def add_log(self, lines: list[str]) -> None:
        self.log += lines
        del self.log[:-LOG_KEEP]

    def on_message(self, msg: dict[str, Any], now: float) -> None:
        """Take in one host message (already checked by `Client`)."""
        typ = msg.get("type")
        if typ == "welcome":
            self.host_label = msg.get("host") or self.host_label
            if self.status:
                self.say("Connected again.")
                self._back = True
                self.add_log(["── Connected again: what happened meanwhile ──"])
            elif self.message.startswith("Connecting"):
                self.say("")
            self.status = ""
            self.coins_host = bool(msg.get("coins"))
            acct = msg.get("profile")
            self.account = str(acct.get("name")) if isinstance(acct, dict) else None
            self.balance = acct.get("balance") if isinstance(acct, dict) else None
            self.offer_stakes()
            if self.kind == "join" and self.screen == "connecting":
                self.screen = "rooms"
        elif typ == "coins":
            self._on_coins(msg)
        elif typ == "rooms":
            self.rooms = list(msg.get("rooms") or [])
            self.room_sel = max(0, min(self.room_sel, len(self.rooms)))
        elif typ == "room":
            self.room = msg.get("room")
            if self.screen in ("rooms", "form", "connecting") and (self.seat is not None or self.watching):
                self.screen = "waiting"
            if self.screen == "waiting" and (self.room or {}).get("state") == "playing" and self.msg:
                self.screen = "table"
        elif typ == "seated":
            self.seat = msg.get("seat")
            self.watching = False
            self.screen = "table" if self.msg and self.outcome is None else "waiting"
            if self._back:
                self.say(f"Connected again: back at seat {self.seat} of {msg.get('room')}.")
            else:
                self.say(f"You sit at seat {self.seat} of {msg.get('room')}.")
            self._back = False
        elif typ == "watching":
            self.seat, self.watching = None, True
            self.screen = "waiting"
            self.say(f"You watch {msg.get('room')}.")
        elif typ == "left":
            self.reset_table()
            self.screen = "rooms" if self.kind == "join" else "connecting"
            self.say(self._fee_line or str(msg.get("reason") or "You left the room."))
            self._fee_line = ""
        elif typ == "view":
            self._on_view(msg, now)
        elif typ == "snapshot":
            self.room = msg.get("room") or self.room
            self.seat = msg.get("seat")
            if msg.get("view") is not None:
                self._on_view(msg["view"], now)
        elif typ == "rejected":
            self.sent_sid = None
            if msg.get("code") != "stale":  # stale: a newer view is on its way
                self.say(f"Refused: {msg.get('reason')}")
        elif typ == "error":
            code = msg.get("code")
            if code in ("wrong_key", "bad_profile") or (code == "store_failed" and msg.get("ref") == "hello"):
                self.account, self.balance = None, None
                self.profile_note = PROFILE_REFUSED.get(code, "the host's store failed")
                self.offer_stakes()
            mine = not msg.get("fatal") and msg.get("ref") in ("hello", "join", "create")
            words = REFUSALS.get(code) if mine else None  # at `start`, the host names whose coins fell short
            if words is not None:
                self.say(words.format(name=self.name, balance=coins_words(self.balance or 0)))
            else:
                self.say(("Disconnected: " if msg.get("fatal") else "") + str(msg.get("message")))
            if msg.get("ref") in ("create",) and self.screen == "connecting":
                self.screen = "form"

    # -- coins

    def offer_stakes(self) -> None:
        """Tell the form which stakes may be chosen now."""
        if not self.coins_host:
            self.form.offer((), "this host keeps no coins", GUEST_MAX_SEATS)
        elif self.balance is None:
            self.form.offer((), f"no profile here: {self.profile_note or 'none was sent'}", GUEST_MAX_SEATS)
        else:
            stakes = tuple(x for x in STAKES if x <= self.balance)
            self.form.offer(stakes, f"you hold {coins_words(self.balance)}", PROFILE_MAX_SEATS)

    def account_line(self) -> str:
        """Who plays and with how many coins, for the lobby's header."""
        if not self.coins_host:
            return "This host keeps no coins: practice rooms only."
        if self.balance is not None:
            return f"Playing as {self.account or self.name} · {coins_words(self.balance)}"
        return f"No profile at this host ({self.profile_note or 'none was sent'}): practice rooms only."

    def coin_game(self) -> bool:
        """Is this seat in a running coin game (leaving costs the stake and a fee)?"""
        room = self.room or {}
        return bool(room.get("stake")) and room.get("state") == "playing" and self.seat is not None \
            and self.view is not None and self.outcome is None

    def _on_coins(self, msg: dict[str, Any]) -> None:
        self.balance = msg.get("balance")
        self.account = msg.get("profile") or self.account
        change = int(msg.get("change") or 0)
        reason = msg.get("reason")
        signed = f"{change:+,} coin" + ("" if abs(change) == 1 else "s")
        balance = f"(balance {self.balance:,})" if isinstance(self.balance, int) else ""
        if reason == "stake":
            line = f"You posted the stake: {signed} {balance}"
        elif reason == "win":
            line = f"You won the pot: {signed} {balance}"
        elif reason == "loss":
            line = f"You lost: your stake stays in the pot {balance}"
        elif reason == "draw":
            line = f"A draw: your stake comes back: {signed} {balance}"
        elif reason == "fee":
            line = f"You left a coin game: the stake is forfeit and a fee charged: {signed} {balance}"
            self._fee_line = line
        elif reason == "refund":
            line = f"The game was abandoned: your stake comes back: {signed} {balance}"
        else:
            line = f"Your coins moved: {signed} {balance}"
        self.add_log([line.strip()])
        self.offer_stakes()

    def reset_table(self) -> None:
        self.room, self.seat, self.watching, self.msg = None, None, False, None
        self.picker = None
        self.sent_sid = None
        self._last_step, self._last_n, self._had_outcome = None, 0, False

    def _on_view(self, msg: dict[str, Any], now: float) -> None:
        view = msg["view"]
        old = self.selected()
        old_code = old.code if old else None
        was_mine = bool(self.legal) and self.msg is not None
        old_sid = self.state_id
        timed_out = self._clock_played(msg, was_mine, old_sid)
        step = view.get("step", 0)
        new_game = self._last_step is not None and (step < self._last_step or (self._had_outcome and view.get("outcome") is None))
        if new_game:
            self._last_n = 0
            self.add_log(["── A new game is dealt ──"])
        self.msg = msg
        self.received_at = now
        self._last_step = step
        self._had_outcome = view.get("outcome") is not None
        if self.state_id != old_sid:
            self.sent_sid = None
            if self.picker is not None and self.picker.state_id is not None:
                self.picker = None  # it offered actions of a state that is gone
        fresh = [e for e in view.get("events") or [] if e.get("n", 0) > self._last_n]
        if fresh:
            self._last_n = fresh[-1].get("n", self._last_n)
            self.add_log(
                describe_events(
                    fresh,
                    self.table,
                    names=self.names(),
                    seat=self.seat if self.seat is not None else -1,
                    game=self.game,
                )
            )
        if timed_out:
            self.add_log(["Your time ran out: the host played that move for you."])
        if self.screen in ("waiting", "connecting", "rooms", "form"):
            self.screen = "table"
        # keep the same card selected; at the start of a decision, a playable one
        items = self.hand()
        codes = [i.code for i in items]
        if old_code in codes:
            self.sel = codes.index(old_code)
        self.sel = max(0, min(self.sel, len(items) - 1)) if items else 0
        mine_now = bool(self.legal)
        if mine_now and (not was_mine or self.state_id != old_sid) and items and not items[self.sel].playable:
            first = next((k for k, i in enumerate(items) if i.playable), None)
            if first is not None:
                self.sel = first
        legal = self.legal
        if legal and all(a.get("type") == "color" for a in legal) and self.picker is None:
            self.picker = self._color_picker("Name the active color", legal)

    def _clock_played(self, msg: dict[str, Any], was_mine: bool, old_sid: int | None) -> bool:
        """Did the move clock run out on this seat (its `move` timer was
        running, nothing was sent for that state, and the new view tells of a
        move of this seat)? Autopilot says so on its own line."""
        old = self.msg
        if not was_mine or old is None or self.seat is None or self.sent_sid == old_sid:
            return False
        if not any(t.get("seat") == self.seat and t.get("kind") == "move" for t in old.get("timers") or []):
            return False
        fresh = [e for e in msg["view"].get("events") or [] if e.get("n", 0) > self._last_n]
        return any(e.get("seat") == self.seat for e in fresh)

    # ------------------------------------------------------------ keys

    def press(self, key: str) -> list[Intent]:
        """One key; returns the intents for the network side."""
        if key == "c-c":
            return [("quit",)]
        if self.prompt is not None:
            return self._press_prompt(key)
        if self.overlay == "help":
            self.overlay = None
            return []
        if self.overlay == "confirm_stake":
            self.overlay = None
            pending, self.pending = self.pending, None
            if key in ("y", "Y", "enter") and pending is not None:
                return self._staked(pending)
            self.say("Not joined: no coins moved.")
            return []
        if self.overlay in ("confirm_quit", "confirm_leave"):
            yes = key in ("y", "Y", "enter") or (key == "L" and self.overlay == "confirm_leave")
            intent = ("quit",) if self.overlay == "confirm_quit" else ("send", "leave", {})
            self.overlay = None
            return [intent] if yes else []
        if self.picker is not None:
            return self._press_picker(key)
        if key == "?" and not self._typing():
            self.overlay = "help"
            return []
        handler = getattr(self, f"_press_{self.screen}")
        return handler(key)

    def _typing(self) -> bool:
        """Is a text field taking printable keys?"""
        if self.screen == "hosts" and self.address_focus:
            return True
        return self.screen == "form" and self.form.current() in RoomForm.TEXT

    def _quit(self) -> list[Intent]:
        if self.screen == "table" and self.seat is not None and self.outcome is None:
            self.overlay = "confirm_quit"
            return []
        return [("quit",)]

    # -- text prompt and picker

    def _press_prompt(self, key: str) -> list[Intent]:
        p = self.prompt
        assert p is not None
        if key == "escape":
            self.prompt = None
        elif key == "backspace":
            p.value = p.value[:-1]
        elif key == "enter":
            self.prompt = None
            if p.purpose == "password":
                return self._join_intents({**p.context, "password": p.value})
        elif len(key) == 1 and key.isprintable() and len(p.value) < 64:
            p.value += key
        return []

    def _press_picker(self, key: str) -> list[Intent]:
        pk = self.picker
        assert pk is not None
        n = len(pk.options)
        if key == "escape" or key == "q":
            self.picker = None
            return []
        if key in ("up", "left"):
            pk.sel = (pk.sel - 1) % n
            return []
        if key in ("down", "right", "tab"):
            pk.sel = (pk.sel + 1) % n
            return []
        choice = None
        hits = [i for i, (hot, _l, _x) in enumerate(pk.options) if hot and hot == key.lower()]
        if key in ("enter", " "):
            choice = pk.sel
        elif pk.numbered and key.isdigit() and 1 <= int(key) <= n:
            choice = int(key) - 1
        elif len(hits) == 1:
            choice = hits[0]
        if choice is None:
            return []
        self.picker = None
        return self._run(pk.options[choice][2])

    def _run(self, intent: Intent) -> list[Intent]:
        """An intent about to be sent: an `act` is sent once per state."""
        if intent[0] == "act":
            if self.sent_sid is not None and self.sent_sid == intent[2]:
                return []
            self.sent_sid = intent[2]
            self.message = ""
        return [intent]

    def _act(self, action: dict[str, Any]) -> list[Intent]:
        return self._run(("act", action, self.state_id))

    def _color_picker(self, title: str, actions: list[dict[str, Any]]) -> Picker:
        w = self.words()
        options = []
        for a in actions:
            word = w.color_name(a.get("color"))
            options.append((word[:1].lower(), word, ("act", a, self.state_id)))
        return Picker(title, options, 0, self.state_id)

    def _action_picker(self, title: str, actions: list[dict[str, Any]]) -> Picker:
        return Picker(title, [("", self.label(a), ("act", a, self.state_id)) for a in actions], 0, self.state_id)

    # -- the table

    def _press_table(self, key: str) -> list[Intent]:
        if key == "q":
            return self._quit()
        if self.outcome is not None or self.view is None:
            return self._press_over(key)
        items = self.hand()
        if key.isdigit():
            return self._digit(key, items)
        self.digits = ""
        if key in ("left", "up", "h") and items:
            self.sel = (self.sel - 1) % len(items)
        elif key in ("right", "down", "l") and items:
            self.sel = (self.sel + 1) % len(items)
        elif key == "home":
            self.sel = 0
        elif key == "end" and items:
            self.sel = len(items) - 1
        elif key in ("enter", " "):
            return self._play_selected()
        elif key in ("tab", "m"):
            return self._all_moves()
        elif key == "d":
            return self._by_types(("draw", "pass", "keep"), "There is nothing to draw now.")
        elif key == "p":
            drawn = (self.view or {}).get("drawn")
            if (self.view or {}).get("phase") == "drawn" and drawn:
                return self._play_card(drawn)
            return self._play_selected()
        elif key == "k":
            return self._by_types(("keep", "pass"), "There is no drawn card to keep now.")
        elif key == "s":
            return self._by_types(("pass",), "You cannot pass now.")
        elif key == "c":
            return self._by_types(("call",), "There is no last card to call now.")
        elif key == "x":
            return self._catch()
        elif key == "a":
            return self._by_types(("accept",), "There is no +4 to accept now.")
        elif key == "!":
            return self._by_types(("challenge",), "There is no +4 to challenge now.")
        elif key == "n":
            colors = [a for a in self.legal if a.get("type") == "color"]
            if colors:
                self.picker = self._color_picker("Name the active color", colors)
            else:
                self.say("There is no color to name now.")
        elif key == "L" and self.kind == "join":
            self.overlay = "confirm_leave"
        return []

    def _digit(self, key: str, items: list[HandItem]) -> list[Intent]:
        """Digits pick a card: `3` the third; `1` then `2` the twelfth (when there is one)."""
        if not items:
            return []
        typed = self.digits + key
        if typed.lstrip("0") and 1 <= int(typed) <= len(items):
            self.digits = typed
        elif key != "0" and 1 <= int(key) <= len(items):
            self.digits = key
        else:
            self.digits = ""
            self.say(f"There is no card {typed}: your hand holds {len(items)}.")
            return []
        self.sel = int(self.digits) - 1
        if int(self.digits) * 10 > len(items):  # no longer number starts with these digits
            self.digits = ""
        return []

    def _by_types(self, types: tuple[str, ...], none: str) -> list[Intent]:
        for t in types:
            hits = [a for a in self.legal if a.get("type") == t]
            if hits:
                return self._act(hits[0])
        self.say(none if self.legal else self._waiting_words())
        return []

    def _waiting_words(self) -> str:
        v = self.view or {}
        turn = v.get("turn")
        if turn is None:
            return "Nothing to do now."
        return f"Not your turn: waiting for {self.words().name(turn)}."

    def _catch(self) -> list[Intent]:
        catches = [a for a in self.legal if a.get("type") == "catch"]
        if not catches:
            self.say("Nobody can be caught now.")
            return []
        if len(catches) == 1:
            return self._act(catches[0])
        self.picker = self._action_picker("Catch whom?", catches)
        return []

    def _all_moves(self) -> list[Intent]:
        legal = self.legal
        if not legal:
            self.say(self._waiting_words())
            return []
        self.picker = self._action_picker("All your moves", legal)
        return []

    def _play_card(self, code: str) -> list[Intent]:
        item = next((i for i in self.hand() if i.code == code), None)
        plays = item.plays if item else []
        if not plays:
            return []
        if len(plays) == 1:
            return self._act(plays[0])
        if all("color" in a and set(a) <= {"type", "card", "color"} for a in plays):
            self.picker = self._color_picker(f"Play {self.card_words(code)}: name a color", plays)
        elif self.game == "dominoes":
            self.picker = self._action_picker(f"Play {tile_words(code)}: which end?", plays)
            for k, (_h, label, intent) in enumerate(self.picker.options):
                self.picker.options[k] = ("l" if intent[1].get("end") == "left" else "r", label, intent)
        else:
            self.picker = self._action_picker(f"Play {self.card_words(code)}", plays)
        return []

    def _play_selected(self) -> list[Intent]:
        item = self.selected()
        if item is None:
            self.say(self._waiting_words() if not self.legal else "You hold nothing to play.")
            return []
        if item.playable:
            return self._play_card(item.code)
        if not self.legal:
            self.say(self._waiting_words())
        else:
            self.say(self._why_not(item.code))
        return []

    def _why_not(self, code: str) -> str:
        v = self.view or {}
        what = self.card_words(code)
        if self.game == "dominoes":
            ends = v.get("ends") or ["?", "?"]
            hint = "d draws from the boneyard" if any(a["type"] == "draw" for a in self.legal) else "s passes"
            return f"{what} fits neither open end ({ends[0]}, {ends[1]}); {hint}."
        phase = v.get("phase")
        if phase == "pile":
            return f"A penalty pile waits on you: {what} cannot answer it. d draws it."
        if phase == "drawn":
            return f"You drew {self.card_words(v.get('drawn') or '')}: p plays it, k keeps it."
        if phase == "challenge":
            return "A +4 waits on you: a accepts it, ! challenges it."
        if phase == "color":
            return "Name the active color first (n)."
        playable = [i for i in self.hand() if i.playable]
        top = self.words().card(v["top"]) if v.get("top") else "the top card"
        more = "pick a [bracketed] card" if playable else "d draws a card"
        return f"{what} does not match {top} (color {self.words().color_name(v.get('color'))}): {more}."

    # -- the end of a game, the waiting room

    def _press_over(self, key: str) -> list[Intent]:
        if key == "r":
            if self.outcome is None:
                return []
            if not self.may_direct():
                self.say("The room's creator deals the rematch.")
                return []
            return [("send", "rematch", {})]
        if key == "L" and self.kind == "join":
            return [("send", "leave", {})]
        return []

    def _press_waiting(self, key: str) -> list[Intent]:
        if key == "q":
            return [("quit",)]
        if key == "s":
            if not self.may_direct():
                self.say("The room's creator starts the game.")
                return []
            return [("send", "start", {})]
        if key in ("L", "escape") and self.kind == "join":
            return [("send", "leave", {})]
        return []

    def _press_connecting(self, key: str) -> list[Intent]:
        if key == "q":
            return [("quit",)]
        if key == "escape" and self.kind == "join":
            self.screen = "hosts"
            return [("disconnect",)]
        return []

    # -- the lobby: hosts

    def set_hosts(self, hosts: list[HostRow]) -> None:
        keep = self.hosts[self.host_sel].label if self.hosts and self.host_sel < len(self.hosts) else None
        self.hosts = sorted(hosts, key=lambda h: h.label.lower())
        labels = [h.label for h in self.hosts]
        self.host_sel = labels.index(keep) if keep in labels else min(self.host_sel, max(0, len(self.hosts) - 1))

    def _press_hosts(self, key: str) -> list[Intent]:
        if self.address_focus:
            if key in ("tab", "escape") or (key == "up" and self.hosts):
                self.address_focus = False
            elif key == "backspace":
                self.address_text = self.address_text[:-1]
            elif key == "enter":
                return self._connect_typed()
            elif len(key) == 1 and key.isprintable() and len(self.address_text) < 64:
                self.address_text += key
            return []
        if key == "q":
            return [("quit",)]
        if key in ("tab", "a") or (key == "down" and (not self.hosts or self.host_sel >= len(self.hosts) - 1)):
            self.address_focus = True
        elif key == "up" and self.hosts:
            self.host_sel = max(0, self.host_sel - 1)
        elif key == "down" and self.hosts:
            self.host_sel = min(len(self.hosts) - 1, self.host_sel + 1)
        elif key == "enter":
            if self.hosts:
                h = self.hosts[self.host_sel]
                return self.begin_connect(h.address, h.port, h.label)
            self.address_focus = True
            self.say("No host found yet: type an address (HOST:PORT) and Enter.")
        return []

    def _connect_typed(self) -> list[Intent]:
        try:
            host, port = parse_address(self.address_text.strip())
        except ValueError as e:
            self.say(str(e))
            return []
        return self.begin_connect(host, port, f"{host}:{port}")

    def begin_connect(self, host: str, port: int, label: str) -> list[Intent]:
        self.screen = "connecting"
        self.address_focus = False
        self.host_label = label
        self.host_address = (host, port)
        self.rooms = []
        self.room_sel = 0
        self.say(f"Connecting to {label} ({host}:{port})…")
        return [("connect", host, port, label)]

    # -- the lobby: rooms

    def _press_rooms(self, key: str) -> list[Intent]:
        n = len(self.rooms)
        if key == "q":
            return [("quit",)]
        if key == "up":
            self.room_sel = max(0, self.room_sel - 1)
        elif key == "down":
            self.room_sel = min(n, self.room_sel + 1)  # n: the "create a room" line
        elif key == "n" or (key == "enter" and self.room_sel >= n):
            self.form.focus = 0
            self.screen = "form"
        elif key == "enter":
            return self._join_room(self.rooms[self.room_sel])
        elif key == "w" and self.room_sel < n:
            room = self.rooms[self.room_sel]
            return [("send", "watch", {"room": room["name"]})]
        elif key == "r":
            return [("send", "list", {})]
        elif key == "escape":
            self.screen = "hosts"
            self.host_label = None
            self.host_address = None
            return [("disconnect",)]
        return []

    def _join_room(self, room: dict[str, Any], confirmed: bool = False) -> list[Intent]:
        if room.get("state") == "playing":
            self.say(f"{room['name']} is playing; seats open again after the game (w watches).")
            return []
        if not room.get("free"):
            self.say(f"{room['name']} has no free seat.")
            return []
        stake = room.get("stake") or 0
        if stake and not confirmed:
            problem = self._stake_problem(stake)
            if problem:
                self.say(problem)
                return []
            self.pending = {"what": "join", "room": room}
            self.overlay = "confirm_stake"
            return []
        if room.get("password"):
            self.prompt = TextPrompt(f"Password of {room['name']}", "password", secret=True, context={"room": room["name"]})
            return []
        return self._join_intents({"room": room["name"]})

    def _stake_problem(self, stake: int) -> str:
        """Why this console cannot sit at a stake of `stake` ('' when it may try)."""
        if not self.coins_host:
            return ""  # the host decides
        if self.balance is None:
            return f"A coin room (stake {stake}) needs a profile at this host: pick a practice room."
        if self.balance < stake:
            return f"You hold {coins_words(self.balance)}, less than the stake of {stake}: pick practice."
        return ""

    def _staked(self, pending: dict[str, Any]) -> list[Intent]:
        """The stake was confirmed: go on joining or creating."""
        if pending["what"] == "create":
            return self._send_create(pending["fields"])
        return self._join_room(pending["room"], confirmed=True)

    def _join_intents(self, fields: dict[str, Any]) -> list[Intent]:
        """Pick a seat (or the first free one) before sending `join`."""
        room = next((r for r in self.rooms if r.get("name") == fields["room"]), None)
        seats = room.get("seats") if room else None
        options: list[tuple[str, str, Intent]] = [("f", "the first free seat", ("send", "join", {**fields}))]
        open_seats = room.get("open_seats") if room else None
        if not isinstance(open_seats, list) and isinstance(seats, int):
            open_seats = list(range(seats))  # an older host: offer every number, the host refuses a taken one
        for s in open_seats or ():
            if isinstance(s, int):
                options.append((str(s), f"seat {s}", ("send", "join", {**fields, "seat": s})))
        self.picker = Picker(f"A seat at {fields['room']}", options, numbered=False)
        return []

    # -- the lobby: the create-room form

    def _press_form(self, key: str) -> list[Intent]:
        f = self.form
        row = f.current()
        rows = f.rows()
        if key == "escape":
            self.screen = "rooms"
            return []
        if key in ("up", "s-tab"):
            f.focus = (f.focus - 1) % len(rows)
        elif key in ("down", "tab"):
            f.focus = (f.focus + 1) % len(rows)
        elif key == "enter":
            return self._submit_form()
        elif row in RoomForm.TEXT:
            value = getattr(f, row)
            if key == "backspace":
                setattr(f, row, value[:-1])
            elif len(key) == 1 and key.isprintable() and len(value) < (32 if row == "name" else 64):
                setattr(f, row, value + key)
        elif key in ("left", "right", " "):
            f.change(row, -1 if key == "left" else 1)
        elif key == "q":
            return [("quit",)]
        return []

    def _submit_form(self) -> list[Intent]:
        fields = self.form.message()
        if not fields["room"]:
            self.form.focus = 0
            self.say("Give the room a name.")
            return []
        stake = fields.get("stake") or 0
        if stake:
            problem = self._stake_problem(stake)
            if problem:
                self.say(problem)
                return []
            self.pending = {"what": "create", "fields": fields, "room": {"name": fields["room"], "stake": stake}}
            self.overlay = "confirm_stake"
            return []
        return self._send_create(fields)

    def _send_create(self, fields: dict[str, Any]) -> list[Intent]:
        self.screen = "connecting"
        self.say(f"Creating {fields['room']}…")
        return [("send", "create", fields)]

    # ------------------------------------------------------------ words for the screen

    def prompt_line(self, now: float) -> str:
        """What this seat is asked to do now, in one line."""
        v = self.view
        if not v:
            return ""
        if self.outcome is not None:
            return "The game is over."
        if self.seat is None:
            return "You are watching this table."
        legal = self.legal
        mine = [t for t in self.timers_now(now) if t["seat"] == self.seat]
        clock = f" ({mine[0]['left']:.0f} s)" if mine else ""
        if not legal:
            if self.seat in ((self.msg or {}).get("autopilot") or []):
                return "Autopilot plays for you: make any move to take your seat back."
            turn = v.get("turn")
            return f"Waiting for {self.words().name(turn)}…" if turn is not None else "Waiting…"
        types = {a["type"] for a in legal}
        if self.sent_sid == self.state_id:
            return "Sent; waiting for the host…"
        if "call" in types:
            return f"ONE CARD left: press c to call it{clock}!"
        if types == {"catch"} or (not self.my_turn() and "catch" in types):
            return "A rival did not call the last card: x catches them!"
        if not self.my_turn():
            return "Jump in: you hold the same card as the top one (Enter plays it)."
        phase = v.get("phase")
        if phase == "drawn" and v.get("drawn"):
            verb = "KEEP" if "keep" in types else "PASS"
            key = "k" if "keep" in types else "s"
            return f"You drew {self.card_words(v['drawn'])}: p PLAY it, {key} {verb} it{clock}."
        if phase == "challenge":
            return f"A +4 waits on you: a accepts it (draw {v.get('pending') or 4}), ! challenges it{clock}."
        if phase == "color":
            return f"Name the active color (n){clock}."
        item = self.selected()
        if phase == "pile":
            head = f"Penalty pile of {v.get('pending') or 0} on you"
            if item and item.playable:
                return f"{head}: Enter answers with {self.card_words(item.code)}, d draws it{clock}."
            return f"{head}: answer with a [marked] card or d to draw it{clock}."
        if item and item.playable:
            return f"Your move{clock}: Enter plays {self.card_words(item.code)}."
        if any(i.playable for i in self.hand()):
            return f"Your move{clock}: pick a [marked] card (←/→ or its number), Enter plays it."
        if "draw" in types:
            return f"Your move{clock}: nothing matches; d draws " + (
                "from the boneyard." if self.game == "dominoes" else "a card."
            )
        return f"Your move{clock}: nothing to play; s passes."

    def keys(self) -> list[str]:
        """The keys that do something now, most useful first."""
        if self.screen == "table" and self.view is not None:
            if self.outcome is not None:
                keys = ["r rematch" if self.may_direct() else "(the creator deals the rematch)"]
                if self.kind == "join":
                    keys.append("L leave the room")
                return [*keys, "q quit"]
            types = {a["type"] for a in self.legal}
            keys = []
            if any(i.playable for i in self.hand()):
                keys.append("Enter play")
            if (self.view or {}).get("phase") == "drawn" and "play" in types:
                keys.append("p play it")
            for t, k in (("draw", "d draw"), ("keep", "k keep"), ("pass", "s pass"), ("call", "c call"),
                         ("catch", "x catch"), ("accept", "a accept"), ("challenge", "! challenge"),
                         ("color", "n name a color")):
                if t in types:
                    keys.append(k)
            if self.hand():
                keys.append("←→/1-9 choose")
            if self.legal:
                keys.append("Tab all moves")
            if self.kind == "join":
                keys.append("L leave")
            return [*keys, "? help", "q quit"]
        if self.screen == "waiting":
            keys = ["s start (bots fill empty seats)"] if self.may_direct() else []
            if self.kind == "join":
                keys.append("L leave")
            return [*keys, "? help", "q quit"]
        if self.screen == "hosts":
            if self.address_focus:
                return ["type HOST:PORT", "Enter connect", "Tab back to the list", "Ctrl-C quit"]
            return ["↑↓ choose", "Enter connect", "Tab type an address", "? help", "q quit"]
        if self.screen == "rooms":
            return ["↑↓ choose", "Enter sit", "w watch", "n new room", "r refresh", "Esc hosts", "q quit"]
        if self.screen == "form":
            return ["↑↓ field", "←→ change", "type text", "Enter create", "Esc back"]
        if self.screen == "connecting":
            return ["Esc back", "q quit"] if self.kind == "join" else ["q quit"]
        return ["q quit"]

    def keys_line(self, width: int = 80) -> str:
        """`keys()` in one line of at most `width` characters: the least useful
        keys (listed last, before `? help` and `q quit`) give way first."""
        keys = self.keys()
        tail = [k for k in keys[-2:] if k in ("? help", "q quit")]
        head = keys[: len(keys) - len(tail)]
        while head and len(" · ".join(head + tail)) > width:
            head.pop()
        line = " · ".join(head + tail)
        return line if len(line) <= width else " · ".join(head + tail[-1:])
