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
  `("connect", host, port, label)`, `("disconnect",)`, `("keep_waiting",)`,
  `("refresh_balance",)` or `("quit",)`. Key handlers (`app.py`) only call
  `press` and forward its intents; so what a key does is tested here
  without a terminal.

The network side also tells it about the connection in plain calls:
`expect_seat` (a seat kept on this machine is being taken back: the first
view logs what was played meanwhile), `connection_lost(until)` (the title
counts the reconnecting down, `status_text(now)`), `host_gone()` (the
"gone" box: the lobby or more waiting) and `to_lobby(line)`.

Keys are prompt_toolkit's names (`left`, `enter`, `escape`, `tab`,
`backspace`, `c-c`, ...) or one printable character. Which key does what,
where and when is the key map (`keymap.KEYS`): `press` runs the
`_key_<does>` method of the entry it picks, and the key bar (`keys()`) is
its words.

Nothing here tests a game or a table by its name: the game's declaration
(`lanmatch.rules.get_game`) says whether its tables are named, its seats and
its default table, and its `pieces` the words (`render.pieces_of`).

What is drawn from this state lives in `screen.py`; the words for cards,
actions and events come from `render.py`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from lanmatch.console import keymap
from lanmatch.console.chat import (
    CHAT_KEEP,
    EMOTE_KEYS,
    EMOTE_WORDS,
    EMOTES,
    MAX_CHAT,
    Mutes,
    chat_line,
)
from lanmatch.console.render import (
    Pieces,
    Words,
    action_label,
    default_game,
    describe_events,
    pieces_of,
    plural,
    shown,
)
from lanmatch.net.client import parse_address
from lanmatch.protocol import CLOCKS
from lanmatch.rules import GAMES, find_table, game_title, get_game
from lanmatch.rules import teams as T
from lanmatch.rules.colormatch import DAILY_PLAYERS
from lanmatch.table import GUEST_MAX_SEATS, default_clock

Intent = tuple
LOG_KEEP = 300
NOT_YOUR_TURN = "Not your turn: waiting for "  # (a key pressed out of turn; the line goes when the turn comes)
SEAT_OPEN = "A seat is open at "  # (a watcher's offer between games; the line goes at the next deal)
ROUND_SECONDS = 8.0  # how long a Dominoes round's end stays up (a key closes it sooner)
LEVELS = ("easy", "medium", "hard")
MODES = ("single", "match", "daily")
NOT_OPTIONS = ("mode", "target", "date", "teams")  # table options the form sets elsewhere (or never)
STAKES = (10, 25, 50, 100, 250)  # the coin stakes the form offers (those not above the balance)
PROFILE_MAX_SEATS = 6  # a room made by a peer with a profile (a guest's: GUEST_MAX_SEATS)
LEAVING_FEE_PERCENT = 10
RECONNECT_FOR = 60.0  # seconds of failed reconnects before the console says the host is gone


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
    "started": "{room} is playing and you have no seat there; seats open again after the game.",
    "bad_password": "Wrong password for {room}: Enter on the room tries again.",
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
    cancel: list[Intent] = field(default_factory=list)  # what closing it without a pick sends


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
    playing: str = ""  # rooms playing (a newer host's TXT `playing`; "" when it does not say)
    fingerprint: str = ""  # its certificate's, as its TXT `fp` says ("" when it does not)
    found: str = "mDNS"  # how it is known: "mDNS", or "played before" (the known hosts' file), with its status


def with_known_hosts(found: list[HostRow], known: list[Any], alive: dict[str, bool | None]) -> list[HostRow]:
    """The hosts mDNS found, then every host this machine played at that mDNS
    did not find (`known`: `lanmatch.net.hostbook.KnownHost`s, matched by
    name or address), with its live status (`alive[name]`: True answering,
    False not, None not checked yet)."""
    names = {h.label.casefold() for h in found}
    places = {(h.address, h.port) for h in found}
    rows = list(found)
    for k in known:
        if k.name.casefold() in names or (k.address, k.port) in places:
            continue
        state = alive.get(k.name)
        status = {True: "played before", False: "played before, not answering"}.get(state, "played before, checking…")
        rows.append(HostRow(k.name, k.address, k.port, "?", "?", "", False, "", k.fingerprint, status))
    return rows


_MOVES = ("play", "draw", "pass", "keep", "accept", "challenge", "color")  # events of a seat's own move
_NOT_MOVES = ("missed_call", "caught", "blast")  # ... but a draw they explain was nobody's move


@dataclass
class HandItem:
    code: str  # card or tile code
    plays: list[dict[str, Any]]  # the legal plays of this card now (without the call)
    calls: list[dict[str, Any]] = field(default_factory=list)  # its plays that carry the last-card call

    @property
    def playable(self) -> bool:
        return bool(self.plays)


def bool_options(game: str, table: str | None) -> list[str]:
    """The on/off house options a table accepts (`stacking`, `jump_in`, ...)."""
    spec = find_table(game, table)
    return [o for o in getattr(spec, "options", ()) if o not in NOT_OPTIONS]


def option_title(game: str, option: str) -> str:
    """A house option in words, as the game declares them (else by its name)."""
    g = GAMES.get(game)
    return (g.option_titles.get(option) if g is not None else None) or f"option {option}"


def options_on(game: str, options: Any) -> list[str]:
    """The house options a room's `options` turn on, in the game's words (those
    it names: partners, a match's target and the like are shown elsewhere)."""
    g = GAMES.get(game)
    titles = g.option_titles if g is not None else {}
    return [titles[k] for k, v in options.items() if v is True and k in titles] if isinstance(options, dict) else []


def takes_mode(game: str, table: str | None) -> bool:
    return "mode" in getattr(find_table(game, table), "options", ())




@dataclass
class RoomForm:
    """The create-room form. `rows()` lists its fields for the current game and table."""

    name: str = ""
    game: str = field(default_factory=default_game)
    table: str = ""  # "": the game's default table
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

    def __post_init__(self) -> None:
        self.table = self.table or get_game(self.game).default_table

    def seat_limit(self) -> int:
        """The most seats the form offers: the table's, within the host's cap for this peer."""
        g = get_game(self.game)
        return min(g.seat_range(self.table)[1],
                   self.max_seats if self.max_seats > GUEST_MAX_SEATS else g.guest_max_players)

    TEXT = ("name", "password")

    def rows(self) -> list[str]:
        rows = ["name", "game"]
        if get_game(self.game).picks_tables:  # (Dominoes too: its sets)
            rows.append("table")
        rows += [f"opt:{o}" for o in bool_options(self.game, self.table)]
        rows += ["seats", "clock"]
        if takes_mode(self.game, self.table):
            rows.append("mode")
        rows += ["stake", "bots", "password"]
        rows += ["teams"] if self.seats == 4 and "teams" in getattr(find_table(self.game, self.table), "options", ()) else []
        rows += ["create"]
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
            return game_title(self.game)
        if row == "table":
            spec = find_table(self.game, self.table)
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
        if row == "teams":
            return "partners: seats 0+2 against 1+3" if self.options.get("teams") else "off (each for themselves)"
        return ""

    def change(self, row: str, step: int) -> None:
        """Left/right on a choice row."""

        def cycle(values: tuple | list, cur: Any) -> Any:
            values = list(values)
            i = values.index(cur) if cur in values else 0
            return values[(i + step) % len(values)]

        if row == "game":
            self.game = cycle(tuple(GAMES), self.game)
            if self.table not in get_game(self.game).tables:
                self.table = get_game(self.game).default_table
        elif row == "table":
            self.table = cycle(tuple(get_game(self.game).tables), self.table)
            self.seats = max(self.seats, get_game(self.game).seat_range(self.table)[0])
        elif row.startswith("opt:") or row == "teams":
            key = row[4:] if row != "teams" else row
            self.options[key] = not self.options.get(key)
        elif row == "seats":
            self.seats = cycle(range(get_game(self.game).seat_range(self.table)[0], self.seat_limit() + 1), self.seats)
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
        if self.mode == "daily":  # the same deal for everyone: its own seats, no partners, no coins
            self.seats, self.options["teams"], self.stake = DAILY_PLAYERS, False, 0

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
        g = get_game(self.game)
        if g.named_tables or (g.picks_tables and self.table != g.default_table):  # (an unnamed default travels as none)
            fields["table"] = self.table
        opts = {o: True for o in bool_options(self.game, self.table) if self.options.get(o)}
        if opts:
            fields["options"] = opts
        if self.options.get("teams") and "teams" in self.rows():
            fields.setdefault("options", {})["teams"] = True
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
        # "help" | "confirm_quit" | "confirm_leave" | "confirm_stake" | "confirm_deal" | "host_gone"
        self.overlay: str | None = None
        self.picker: Picker | None = None
        self.prompt: TextPrompt | None = None
        self.message = ""
        self.banner = ""  # a standing note under the title (e.g. "advertised on the LAN")
        self.status = ""  # connection trouble, shown in the title bar
        self.reconnect_until: float | None = None  # reconnecting until then (monotonic), counted down on screen
        # chat, the turn bell, watching (docs/console.md "Chat", "The turn bell", "Watching")
        self.mutes = Mutes()  # whose talk is not shown
        self.chat: list[str] = []  # the room's chat lines shown (the waiting room shows the last ones)
        self.chat_ok = True  # False once the host said it does not know `chat` (an older host)
        self.bells: list[tuple[str, str]] = []  # (title, body) of bells due: the application rings and clears them
        self.sends: list[Intent] = []  # intents a message (not a key) gave rise to: the application sends and clears them
        self.watch_password = ""  # the password this console watches its room with (a seat there needs it too)
        self.room_at = 0.0  # when `room` came (its `deals_in` counts from then)
        self.as_name = name  # the name the host knows this console by (its `welcome`'s: "Ann (guest)")
        self._ended_names: list[str] | None = None  # the seats' names when the game shown ended (`outcome_names`)
        self._meanwhile_due = False  # connected again at a table: the next view tells what happened meanwhile
        self._seat_offered: tuple[Any, ...] | None = None  # the room state a watcher was last offered a seat in
        # lobby
        self.hosts: list[HostRow] = []
        self.host_key = ""  # the connected host's certificate fingerprint, short (`lanmatch host` prints the same)
        self.host_sel = 0
        self.host_pref: tuple[str, int] | None = None  # the host the cursor goes to when it is listed (a kept seat's)
        self.address_text = ""
        self.address_focus = False
        self.browsing = kind == "join"
        self.host_label: str | None = None  # the host we talk to
        self.host_address: tuple[str, int] | None = None
        self.rooms: list[dict[str, Any]] = []
        self.room_sel = 0
        self.rooms_seen: dict[tuple[str, int], int] = {}  # rooms (playing ones too) the last list of a host held
        self.checking: dict[str, Any] | None = None  # a password being checked (`watch`) before the seat picker
        self.form = RoomForm(name=f"{name}'s table"[:32])
        # profile and coins (docs/console.md "Coins")
        self.coins_host = False  # the host keeps a store: coin rooms exist there
        self.account: str | None = None  # the profile name the host recognised
        self.balance: int | None = None  # its coins, as the host last said
        self.profile_note = ""  # why this console has no profile at this host ("" : it brought none)
        self.pending: dict[str, Any] | None = None  # a coin room waiting for "Enter" (overlay "confirm_stake")
        self._fee_line = ""
        self._deal_typ = "rematch"  # what `confirm_deal`'s y sends: start or rematch
        # the table
        self.room: dict[str, Any] | None = None
        self.seat: int | None = None
        self.watching = False
        self.msg: dict[str, Any] | None = None  # the latest view message
        self.received_at = 0.0
        self.sel = 0
        self.bar_now: float | None = None  # the time the key bar was last drawn at (its clocks)
        self.digits = ""
        self.sent_sid: int | None = None  # an action was sent for this state
        self.log: list[str] = []
        self._last_n = 0
        self._last_step: int | None = None
        self._had_outcome = False
        self._back = False  # reconnected: the next `seated` gives our seat back
        self.known_names: dict[int, str] = {}  # the last name each seat of this room had (for departed seats)
        self.returning: dict[str, Any] | None = None  # a seat kept on this machine, being taken back
        self._resumed: dict[str, Any] | None = None  # ... taken back: the next view tells what was played meanwhile
        # the table screen's own layers (issue 15): a Dominoes round's end, the move history scrolled back
        self.round_end: dict[str, Any] | None = None  # the `round_end` event the "round" layer shows
        self.round_until = 0.0  # ... until then (monotonic), or until a key
        self.log_back = 0  # how many lines the move history is scrolled back (0: the latest)
        self.log_page = 5  # the rows the history had when last drawn (a page for PgUp/PgDn)
        self.paused_by: str | None = None  # this console asked the host to pause: "help" (its page is open) or "key" (p)

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
        """The game at the table (the view's, else the room's; else the first registered)."""
        if self.view and self.view.get("game"):
            return self.view["game"]
        return (self.room or {}).get("game") or default_game()

    @property
    def table(self) -> str | None:
        """The table's name as rooms carry it (None for the unnamed default
        table of a game that names only its others: Dominoes' double-six)."""
        g = GAMES.get(self.game)
        if self.view and self.view.get("table"):
            return self.view["table"]
        table = (self.room or {}).get("table")
        if g is not None and not g.named_tables:
            return table
        return table or (g.default_table if g is not None else None)

    def table_spec(self) -> Any:
        """The declaration of the table (None for a game or table not registered here)."""
        return find_table(self.game, self.table)

    def pieces(self) -> Pieces:
        """How this game's pieces are written (`render.pieces_of`)."""
        return pieces_of(self.game)

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
                out.append(shown(str(seats[s]["name"])))
            elif s in self.known_names:  # a person who left: the name the room last gave
                out.append(shown(self.known_names[s]))
            else:
                out.append(f"Seat {s}")
        return out

    def _left_seats(self) -> set[int]:
        """The seats whose person left the running game (the room's `left`)."""
        seats = (self.room or {}).get("seats") or []
        return {x["seat"] for x in seats if isinstance(x, dict) and x.get("left") is True and type(x.get("seat")) is int}

    def _learn_names(self) -> None:
        """Remember the name of every seat the room names (it may later send none for a seat whose person left)."""
        for k, info in enumerate((self.room or {}).get("seats") or []):
            if isinstance(info, dict) and isinstance(info.get("name"), str) and info["name"]:
                self.known_names[info.get("seat", k) if isinstance(info.get("seat"), int) else k] = info["name"]

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
        plain = [a for a in legal if a.get("call") is not True]
        calling = [a for a in legal if a.get("call") is True] if len(plain) < len(legal) else []
        pieces = self.pieces()
        return [HandItem(c, pieces.plays(c, plain), pieces.plays(c, calling) if calling else [])
                for c in pieces.order(v.get("hand") or [])]

    def play_calls(self) -> bool:
        """Is a play that carries the last-card call offered now (protocol "Play-and-call")?"""
        return any(a.get("call") is True for a in self.legal)

    def catch_words(self, now: float | None = None) -> str:
        """`catch Bot 2 (2 s)`: whom `x` catches now, with the time its window has left when timed."""
        seats = [a.get("seat") for a in self.legal if a.get("type") == "catch"]
        if not seats:
            return "catch"
        w = self.words()
        parts = []
        for s in seats:
            left = [t["left"] for t in (self.timers_now(now) if now is not None else []) if t.get("seat") == s
                    and t.get("kind") == "catch"]
            parts.append(w.name(s) + (f" ({max(1, round(left[0]))} s)" if left else ""))
        return "catch " + " or ".join(parts)

    def selected(self) -> HandItem | None:
        items = self.hand()
        if not items:
            return None
        self.sel = max(0, min(self.sel, len(items) - 1))
        return items[self.sel]

    def deals_in(self, now: float) -> float | None:
        """Seconds until the room deals the next game by itself (the room's
        `deals_in`, counted down since it came), or None: it waits for its director."""
        left = (self.room or {}).get("deals_in")
        if type(left) not in (int, float) or (self.room or {}).get("state") == "playing":
            return None
        return max(0.0, left - (now - self.room_at))

    def may_direct(self) -> bool:
        """May this peer start or rematch the room? Its director, as the room
        says (a host of protocol 2: the creator while here, else the first
        seated person; any seated peer once the rematch is `open_rematch`), else
        its creator (anyone seated when there is none)."""
        room = self.room or {}
        if self.seat is None:
            return False
        if "director" in room:
            d = room.get("director")
            return d is None or d == self.seat or (room.get("open_rematch") is True and room.get("state") == "over")
        creator = room.get("creator")
        return creator is None or creator == self.seat

    def director_name(self) -> str:
        """Who deals the room's games, in words ("the room's creator" when the room does not say)."""
        room = self.room or {}
        d = room.get("director") if "director" in room else room.get("creator")
        names = self.names()
        if type(d) is int and 0 <= d < len(names) and names[d] and d != self.seat:
            return shown(str(names[d]))  # (a play-test read "the room's creator" where a name was known)
        return "the room's creator"

    def timers_now(self, now: float) -> list[dict[str, Any]]:
        """The view's timers with the seconds left at `now`."""
        if not self.msg:
            return []
        gone = 0.0 if self.paused() else max(0.0, now - self.received_at)
        return [{**t, "left": max(0.0, float(t.get("left", 0)) - gone)} for t in self.msg.get("timers") or []]

    def label(self, action: dict[str, Any]) -> str:
        return action_label(action, self.view or {}, self.words())

    def card_words(self, code: str) -> str:
        """A card, a tile or any piece of this game, in words."""
        return self.pieces().piece(code, self.words())

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
            # ... for the seats whose player played it (a newcomer's seat starts afresh)
            now, then = self.names(), self.outcome_names()
            counts = [s < len(now) and s < len(then) and now[s] == then[s] for s in range(len(wins))]
            winners = out.get("winners") or []
            share = T.win_share(winners, room.get("teams") is True)
            for s in winners:
                if s < len(wins) and counts[s]:
                    wins[s] += share
            for s, p in enumerate(out.get("points") or []):
                if s < len(points) and counts[s]:
                    points[s] += p
        return wins, points

    def outcome_names(self) -> list[str]:
        """The seats' names as they were when the game shown ended (a person
        may sit since where a bot played it): what its outcome is labelled with."""
        now = self.names()
        room = self.room or {}
        ended = room.get("ended_names")  # the host's word: a console that came back since knows no better
        if isinstance(ended, list) and len(ended) == len(now):
            seats = room.get("seats") or []
            mine = seats[self.seat].get("name") if self.seat is not None and self.seat < len(seats) else None
            return [now[s] if n is None or (s == self.seat and n == mine) else shown(str(n))
                    for s, n in enumerate(ended)]
        return self._ended_names if self._ended_names is not None else now

    # ------------------------------------------------------------ the host's messages

    def say(self, text: str) -> None:
        self.message = text

    def add_log(self, lines: list[str]) -> None:
        if self.log_back:  # scrolled back: the lines shown stay in place
            self.log_back += len(lines)
        self.log += lines
        del self.log[:-LOG_KEEP]

    def on_message(self, msg: dict[str, Any], now: float) -> None:
        """Take in one host message (already checked by `Client`)."""
        typ = msg.get("type")
        if typ == "welcome":
            self.host_label = msg.get("host") or self.host_label
            said = msg.get("name")  # (a host before it says nothing: the name this console gave)
            self.as_name = said if isinstance(said, str) and said else self.name
            if self.status:
                self.say("Connected again.")
                self._back = True
                if self.seat is not None and self.msg is not None:  # a table to follow: the next view says
                    self._meanwhile_due = True
            elif self.message.startswith("Connecting"):
                self.say("")
            self.status = ""
            self.reconnect_until = None
            if self.overlay == "host_gone":
                self.overlay = None
            self.coins_host = bool(msg.get("coins"))
            self._on_profile(msg.get("profile"))
            if self.kind == "join" and self.screen == "connecting" and self.returning is None:
                self.screen = "rooms"
        elif typ == "profile":  # protocol 2: the profile this console registered at the host
            self._on_profile(msg.get("profile"))
            if self.account is not None:
                self.profile_note = ""
        elif typ == "coins":
            self._on_coins(msg)
        elif typ == "rooms":
            self.rooms = list(msg.get("rooms") or [])
            self.room_sel = max(0, min(self.room_sel, len(self.rooms)))
            if self.host_address is not None:
                self.rooms_seen[self.host_address] = len(self.rooms)
        elif typ == "room":
            gone = self._left_seats()
            self.room, self.room_at = msg.get("room"), now
            if self.msg is not None and self.outcome is None:  # a game under way: who left it is a line of its log
                for s in sorted(self._left_seats() - gone):
                    if s != self.seat:
                        self.add_log([f"{self.words().name(s)} left the table: a bot plays that seat now."])
            self._learn_names()
            self._offer_seat()
            if self.checking is not None:
                pass  # a password check: the seat picker is up over the room list
            elif self.screen in ("rooms", "form", "connecting") and (self.seat is not None or self.watching):
                self.screen = "waiting"
            if self.screen == "waiting" and (self.room or {}).get("state") == "playing" and self.msg:
                self.screen = "table"
        elif typ == "seated":
            self.seat = msg.get("seat")
            self.watching = False
            taken_back = (self.checking or {}).get("back") and self.checking.get("room") == msg.get("room")
            self.checking = None
            self.screen = "table" if self.msg and self.outcome is None else "waiting"
            back = self.returning
            if back is not None and back.get("room") == msg.get("room"):
                self._resumed = back
                self._last_n, self._last_step = back.get("n", 0), back.get("step")
                self.say(f"Back at your seat {self.seat} of {msg.get('room')}.")
            elif self._back or taken_back:
                self.say(f"Connected again: back at seat {self.seat} of {msg.get('room')}.")
            else:
                self.say(f"You sit at seat {self.seat} of {msg.get('room')}.")
            self.returning = None
            self._back = False
        elif typ == "watching":
            self.seat, self.watching = None, True
            if self.checking is not None and self.checking.get("room") == msg.get("room"):
                self._password_ok()
                return
            self.screen = "waiting"
            if self._back:  # the connection came back and the client watches again
                self._back = False
                self.say(f"Connected again: you watch {msg.get('room')}.")
            else:
                self.say(f"You watch {msg.get('room')}.")
        elif typ == "left":
            self.reset_table()
            self.screen = "rooms" if self.kind == "join" else "connecting"
            self.say(self._fee_line or str(msg.get("reason") or "You left the room."))
            self._fee_line = ""
        elif typ == "bye":
            self.on_bye(msg)
        elif typ == "view":
            self._on_view(msg, now)
        elif typ == "snapshot":
            self.room, self.room_at = msg.get("room") or self.room, now
            self._learn_names()
            self.seat = msg.get("seat")
            if msg.get("view") is not None:
                self._on_view(msg["view"], now)
        elif typ == "rejected":
            self.sent_sid = None
            if msg.get("code") != "stale":  # stale: a newer view is on its way
                self.say(f"Refused: {msg.get('reason')}")
        elif typ == "error":
            self._on_error(msg)
        elif typ == "chat":
            self._on_chat(msg)

    def _on_chat(self, msg: dict[str, Any]) -> None:
        """A chat line of the room, unless its sender is muted here."""
        if self.room is not None and msg.get("room") != self.room.get("name"):
            return  # (another room's: never sent; a late one after a move)
        if self.mutes.hides(msg):
            return
        line = chat_line(msg, self.seat, self.watching, self.as_name)
        self.chat = [*self.chat, line][-CHAT_KEEP:]
        self.add_log([line])

    def _offer_seat(self) -> None:
        """A watcher is told, once per room state, when a seat opens between
        games; the line goes when no seat is open any more (the next deal)."""
        room = self.room or {}
        seats = room.get("open_seats") if isinstance(room.get("open_seats"), list) else []
        if self.screen_mode() not in ("table", "waiting"):  # a password checked from the rooms: its picker offers the seats
            return
        if not seats or not self.may_sit():
            self._seat_offered = None
            if self.message.startswith(SEAT_OPEN):
                self.say("")  # (it said `j` takes a seat: `j` would now say none is open)
            return
        key = (room.get("name"), room.get("games"), room.get("state"), tuple(seats))
        if self._seat_offered == key:
            return
        self._seat_offered = key
        self.say(f"{SEAT_OPEN}{shown(str(room.get('name')))}: "
                 f"{keymap.key_name('sit', self.screen_mode())} takes it (you stay a watcher otherwise).")

    def may_sit(self) -> bool:
        """Is this console a watcher of a room with a seat open now (not playing)?"""
        room = self.room or {}
        return self.watching and self.seat is None and room.get("state") != "playing" and bool(room.get("open_seats"))

    def _on_error(self, msg: dict[str, Any]) -> None:
        code = msg.get("code")
        ref = msg.get("ref")
        if code == "unknown_profile":  # protocol 2: the client registers the profile; nothing to tell
            return
        if ref == "chat" and code == "unknown_type":  # an older host: no chat there
            self.chat_ok = False
            self.say("This host does not relay chat (it runs an older lanmatch).")
            return
        if ref == "chat":
            self.say(f"Not sent: {shown(str(msg.get('message')))}")
            return
        if code == "started" and (self.checking or {}).get("back"):  # no seat of this profile there: watch?
            room_name = self.checking.get("room")
            self.checking = None
            room = next((r for r in self.rooms if r.get("name") == room_name), {"name": room_name})
            self.say(REFUSALS["started"].format(name=self.name, balance="", room=room_name))
            self._offer_watch(room)
            return
        if code in ("wrong_key", "bad_profile") or (code == "store_failed" and ref == "hello"):
            self.account, self.balance = None, None
            self.profile_note = PROFILE_REFUSED.get(code, "the host's store failed")
            self.offer_stakes()
        if code == "bad_token" and ref == "hello":
            self._seat_gone()
            return
        room = (self.checking or {}).get("room") or "that room"
        if code == "started" and (self.checking or {}).get("back"):
            self.checking = None  # not this profile's seat: the sentence below says so
        if code == "bad_password" and self.checking is not None:
            self.checking = None
            self.picker = None
            self.watching = False
        if ref == "watch" and self.watching and self.checking is None:
            # watching again after a reconnect was refused (the room closed, its password changed)
            room_name = (self.room or {}).get("name") or "The room you watched"
            self.reset_table()
            if self.kind == "join":
                self.screen = "rooms"
            if code == "no_room":
                self.say(f"{room_name} closed while you were away: pick a room.")
                return
        mine = not msg.get("fatal") and ref in ("hello", "join", "create", "watch")
        words = REFUSALS.get(code) if mine else None  # at `start`, the host names whose coins fell short
        if words is not None:
            self.say(words.format(name=self.name, balance=coins_words(self.balance or 0), room=room))
        else:
            self.say(("Disconnected: " if msg.get("fatal") else "") + str(msg.get("message")))
        if ref in ("create",) and self.screen == "connecting":
            self.screen = "form"

    def _seat_gone(self) -> None:
        """The host knows the seat token no more (the seat was freed, its game
        ended, or a restarted host forgot it): back to the room list."""
        back = self.returning
        room = (back or {}).get("room") or (self.room or {}).get("name")
        self.returning = None
        self.reset_table()
        if self.kind == "join":
            self.screen = "rooms"
        where = f" at {room}" if room else ""
        self.say(f"Your seat{where} is gone (its game ended, the host stopped between games, or it let the seat go): "
                 "pick a room.")

    # -- the connection: coming back, reconnecting, a host gone

    def expect_seat(self, saved: dict[str, Any]) -> None:
        """The seat kept on this machine (`room`, `seat`, `n`, `step`, `host`)
        is being taken back: the connecting screen says so, and the first view
        tells what was played meanwhile."""
        self.returning = dict(saved)
        host = saved.get("host") or self.host_label or "the host"
        self.say(f"Back to your seat at {saved.get('room')} ({host})…")

    def connection_lost(self, until: float) -> None:
        """The connection dropped: reconnecting until `until` (monotonic), counted down."""
        if self.reconnect_until is None:
            self.say(f"The connection to {self.host_label or 'the host'} was lost: trying again for a minute.")
        self.status = "connection lost: reconnecting…"
        self.reconnect_until = until

    def host_gone(self) -> None:
        """A minute of failed reconnects: say the host is gone, offer the lobby or more waiting."""
        self.reconnect_until = None
        self.status = "the host is gone"
        self.picker, self.prompt = None, None
        self.overlay = "host_gone"

    def status_text(self, now: float) -> str:
        """The title bar's connection state, with the seconds of reconnecting left."""
        if self.reconnect_until is not None and self.status:
            return f"{self.status} {max(0.0, self.reconnect_until - now):.0f} s"
        if not self.status and self.paused() and self.outcome is None:
            return "PAUSED"
        return self.status

    def on_bye(self, msg: dict[str, Any]) -> None:
        """The host said goodbye before closing: say why, back to the lobby."""
        host = shown(str(msg.get("host") or self.host_label or "The host"))
        reason = str(msg.get("reason") or "").strip().rstrip(".")
        # a seat at a host that keeps a store: it resumes the game, or opens the room between games
        # again, when it starts again, and this machine keeps the seat's token (a play-test was not
        # told, and did not look for it; another found the cursor on another host)
        kept = (f" Your seat is kept: when {host} is back, Enter on it takes you there."
                if self.kind == "join" and self.seat is not None and self.coins_host else "")
        where = self.host_address
        if reason.startswith(f"{host} closed the table"):  # the host's own sentence says it all
            line = shown(reason) + "."
        else:
            if reason[1:2].islower():
                reason = reason[:1].lower() + reason[1:]
            line = f"{host} closed the table" + (f" ({reason})." if reason else ".")
        self.say(line + kept)
        self.to_lobby()
        if kept:
            self.host_pref = where
            self.set_hosts(self.hosts)

    def to_lobby(self, line: str | None = None) -> None:
        """Leave this host for the lobby (`line`: the one line saying why)."""
        self.reset_table()
        self.returning = None
        self.status, self.reconnect_until = "", None
        self.overlay = None if self.overlay == "host_gone" else self.overlay
        if line is not None:
            self.say(line)
        if self.kind == "join":
            self.screen = "hosts"
            self.host_label = None
            self.host_address = None
        else:
            self.screen = "connecting"

    # -- coins

    def _on_profile(self, acct: Any) -> None:
        """The profile the host recognised (or made), with its coins now; None: no profile there."""
        self.account = str(acct.get("name")) if isinstance(acct, dict) else None
        self.balance = acct.get("balance") if isinstance(acct, dict) else None
        self.offer_stakes()

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
        self.chat, self.mutes, self.watch_password, self._seat_offered = [], Mutes(), "", None
        self.picker = None
        self.checking = None
        self.sent_sid = None
        self.known_names = {}
        self._ended_names = None
        self._resumed = None
        self._back = False
        self.log = []  # the next table's moves are its own
        self.log_back = 0
        self.round_end = None
        if self.overlay == "round":
            self.overlay = None
        self._last_step, self._last_n, self._had_outcome = None, 0, False

    def _on_view(self, msg: dict[str, Any], now: float) -> None:
        view = msg["view"]
        old = self.selected()
        old_code = old.code if old else None
        was_mine = bool(self.legal) and self.msg is not None
        old_sid = self.state_id
        old_view = self.view
        old_catch = any(a.get("type") == "catch" for a in self.legal)
        timed_out = self._clock_played(msg, was_mine, old_sid)
        step = view.get("step", 0)
        new_game = self._last_step is not None and (step < self._last_step or (self._had_outcome and view.get("outcome") is None))
        if new_game:
            self._last_n = 0
            self.log_back = 0  # a new deal shows its own moves, not the last game's scrolled back
            self.add_log(["── A new game is dealt ──"])
        self.msg = msg
        self.received_at = now
        self._last_step = step
        self._had_outcome = view.get("outcome") is not None
        if self.state_id != old_sid:
            self.sent_sid = None
            if self.picker is not None and self.picker.state_id is not None:
                self.picker = None  # it offered actions of a state that is gone
        back, self._resumed = self._resumed, None

        def told(events: list[dict[str, Any]]) -> list[str]:
            return describe_events(events, self.table, names=self.names(),
                                   seat=self.seat if self.seat is not None else -1, game=self.game)

        events = view.get("events") or []
        if back is not None:
            earlier = [e for e in events if e.get("n", 0) <= self._last_n]
            if earlier and not self.log:  # a console started again: what it had shown, as far as the view holds
                self.add_log(["── Earlier in this game ──", *told(earlier)])
            self.add_log(["── Back at your seat: what was played while you were away ──"])
        fresh = [e for e in events if e.get("n", 0) > self._last_n]
        if self._meanwhile_due:  # connected again after a drop: what happened meanwhile, or that nothing did
            self._meanwhile_due = False
            self.add_log(["── Connected again: what happened meanwhile ──"] if fresh
                         else ["Connected again: nothing was played meanwhile."])
        if timed_out:  # (before the move it says was played for you, and what followed it)
            self.add_log(["Your time ran out: the host played that move for you."])
        if fresh:
            self._last_n = fresh[-1].get("n", self._last_n)
            self.add_log(told(fresh))
        if back is not None:
            self.add_log([self._meanwhile(back, step, fresh)])
        self._note_round(view, fresh, now)
        if self.screen in ("waiting", "connecting", "rooms", "form"):
            self.screen = "table"
        # keep the same card selected; at the start of a decision, a playable one
        items = self.hand()
        codes = [i.code for i in items]
        if old_code in codes:
            self.sel = codes.index(old_code)
        self.sel = max(0, min(self.sel, len(items) - 1)) if items else 0
        mine_now = bool(self.legal)
        if mine_now and self.message.startswith(NOT_YOUR_TURN):
            self.say("")  # (`_waiting_words`: no longer true)
        if mine_now and (not was_mine or self.state_id != old_sid) and items and not items[self.sel].playable:
            first = next((k for k, i in enumerate(items) if i.playable), None)
            if first is not None:
                self.sel = first
        legal = self.legal
        if legal and all(a.get("type") == "color" for a in legal) and self.picker is None:
            self.picker = self._color_picker("Name the active color", legal)
        if view.get("outcome") is None:
            self._ended_names = None
        elif self._ended_names is None:
            self._ended_names = self.names()
        self._ring(old_view, old_catch)

    def _ring(self, old: dict[str, Any] | None, old_catch: bool) -> None:
        """Note a bell (`bells`) when the turn comes to this seat after another
        seat moved, and when a catch window opens for it (docs/console.md, "The turn bell")."""
        v = self.view
        if v is None or self.seat is None or self.outcome is not None or not self.legal:
            return
        room = shown(str((self.room or {}).get("name") or "lanmatch"))
        if any(a.get("type") == "catch" for a in self.legal) and not old_catch:
            self.bells.append((room, "A rival did not call the last card: catch it!"))
        elif self.my_turn() and old is not None and old.get("turn") != self.seat and old.get("outcome") is None \
                and old.get("step") != v.get("step"):
            self.bells.append((room, "Your turn."))

    def _note_round(self, view: dict[str, Any], fresh: list[dict[str, Any]], now: float) -> None:
        """A Dominoes round just ended and the next one is dealt: open the
        "round" layer (every rack, the pips, the points) for `ROUND_SECONDS`
        or until a key. The match's last round is told by the end screen."""
        ends = [e for e in fresh if e.get("type") == "round_end" and e.get("hands") is not None]
        if not ends or view.get("outcome") is not None or ends[-1].get("round") != view.get("round", 0) - 1:
            return
        self.round_end = ends[-1]
        self.round_until = now + ROUND_SECONDS
        if self.overlay is None and self.prompt is None:
            self.overlay = "round"
            if self.paused_by is None and self.alone_with_bots():  # alone with bots: the next deal waits for it
                self.paused_by = "round"
                self.sends.append(("send", "pause", {"on": True}))

    def due(self, now: float) -> list[Intent]:
        """What the passing of time asks of the host: the round layer that held
        the clocks goes by itself after its seconds (the clocks run again)."""
        if self.paused_by == "round" and now >= self.round_until:
            if self.overlay == "round":
                self.overlay = None
            return self._resume_from("round")
        return []

    def round_shown(self, now: float | None) -> bool:
        """Is the "round" layer up at `now` (None: the last time the screen was drawn)?"""
        now = self.bar_now if now is None else now
        return self.overlay == "round" and self.round_end is not None and (now is None or now < self.round_until)

    # -- the pause (docs/protocol.md "Pause"): alone with bots, help and p stop the clocks

    def alone_with_bots(self) -> bool:
        """A running game where this console holds the only seat a person sits in."""
        if self.seat is None or self.view is None or self.outcome is not None:
            return False
        seats = (self.room or {}).get("seats") or []
        return bool(seats) and all(x.get("kind") != "person" for x in seats if x.get("seat") != self.seat)

    def paused(self) -> bool:
        """Are the host's clocks stopped (its latest view says so)?"""
        return bool((self.msg or {}).get("paused"))

    def _pause_for(self, why: str) -> list[Intent]:
        if self.paused_by is not None or not self.alone_with_bots():
            return []
        self.paused_by = why
        return [("send", "pause", {"on": True})]

    def _resume_from(self, why: str) -> list[Intent]:
        if self.paused_by != why:
            return []
        self.paused_by = None
        return [("send", "pause", {"on": False})]

    def _key_pause(self, key: str) -> list[Intent]:
        if self.paused_by is not None or self.paused():
            self.paused_by = None
            self.say("The clocks run again.")
            return [("send", "pause", {"on": False})]
        if not self.alone_with_bots():
            self.say("With other people at the table the clocks run on: there is no pause.")
            return []
        self.say(f"Paused: no clock runs. {keymap.key_name('pause')} (or any move) goes on.")
        return self._pause_for("key")

    def log_scroll(self) -> int:
        """How many lines the move history is scrolled back, kept within the
        log: at most to where its first page fills the pane (it stopped a line
        from the start, and a long game left one line showing of six)."""
        self.log_back = max(0, min(self.log_back, len(self.log) - max(1, self.log_page)))
        return self.log_back

    def _key_log_back(self, key: str) -> list[Intent]:
        self.log_back += max(1, self.log_page - 1)
        self.log_scroll()
        return []

    def _key_log_forward(self, key: str) -> list[Intent]:
        self.log_back -= max(1, self.log_page - 1)
        self.log_scroll()
        return []

    def _meanwhile(self, back: dict[str, Any], step: int, fresh: list[dict[str, Any]]) -> str:
        """One line: how many moves were played since this machine last saw the seat's game."""
        moves = step - int(back.get("step") or 0)
        if moves <= 0:
            return "Nothing was played while you were away."
        mine = sum(1 for e in fresh if e.get("seat") == self.seat and e.get("type") in ("play", "draw", "pass", "keep"))
        line = f"While you were away {plural(moves, 'move')} {'was' if moves == 1 else 'were'} played"
        if mine:
            line += f", {mine} of them yours by the clock"
        if fresh and fresh[0].get("n", 0) > int(back.get("n") or 0) + 1:
            line += " (the earliest are no longer shown)"
        return line + "."

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
        # a move of this seat: not a missed call, a catch or a penalty, which say what happened themselves
        for i, e in enumerate(fresh):
            if e.get("seat") != self.seat or e.get("type") not in _MOVES:
                continue
            after = fresh[i + 1] if i + 1 < len(fresh) else {}
            if e.get("type") == "draw" and after.get("type") in _NOT_MOVES and after.get("seat") == self.seat:
                continue  # the 2 cards of a missed call or a catch: the log says so in its own line
            return True
        return False

    # ------------------------------------------------------------ keys

    def mode(self) -> str:
        """What takes the keys now: the layer on top (`prompt`, `help`,
        `confirm_quit`, `confirm_leave`, `confirm_stake`, `host_gone`,
        `picker`), the address field (`address`), else the screen (keymap.py)."""
        if self.prompt is not None:
            return "prompt"
        if self.overlay is not None and (self.overlay != "round" or self.round_shown(None)):
            return self.overlay
        if self.picker is not None:
            return "picker"
        return self.screen_mode()

    def screen_mode(self) -> str:
        """The mode of the screen under any layer: `address` while the address field takes keys, else the screen."""
        if self.screen == "hosts" and self.address_focus:
            return "address"
        return self.screen

    def press(self, key: str) -> list[Intent]:
        """One key; returns the intents for the network side. The key map
        (`keymap.KEYS`) says which `_key_<does>` method handles it."""
        if self.overlay == "round" and not self.round_shown(None):
            self.overlay = None  # its seconds are up: the key goes to the table
        entry = keymap.find(self, key)
        intents = self._press(entry, key)
        if any(i[0] == "act" for i in intents):
            self.paused_by = None  # the host ends a pause at a move of ours
        return intents

    def _press(self, entry: keymap.Key | None, key: str) -> list[Intent]:
        """Run `entry` (the key map's pick for `key`): the intents of its `_key_<does>` method."""
        if self.mode() == "table" and not (entry is not None and entry.does == "choose" and key.isdigit()):
            self.digits = ""
        if entry is None:
            return []
        return getattr(self, f"_key_{entry.does}")(key)

    def typing(self) -> bool:
        """Is a text field taking printable keys?"""
        if self.screen == "hosts" and self.address_focus:
            return True
        return self.screen == "form" and self.form.current() in RoomForm.TEXT

    def _key_quit_now(self, key: str) -> list[Intent]:
        return [("quit",)]

    def _key_quit(self, key: str) -> list[Intent]:
        if self.screen == "table" and self.seat is not None and self.outcome is None:
            self.overlay = "confirm_quit"
            return []
        return [("quit",)]

    def _key_help(self, key: str) -> list[Intent]:
        self.overlay = "help"
        return self._pause_for("help")

    # -- the layers: help, "leave?", a coin room's stake, a text prompt, a picker

    def _key_close(self, key: str) -> list[Intent]:
        """Close the layer on top (the help, "leave?", a text prompt, a picker)."""
        if self.prompt is not None:
            self.prompt = None
        elif self.overlay is not None:
            was, self.overlay = self.overlay, None
            if was in ("help", "round"):
                return self._resume_from(was)
        elif self.picker is not None:
            cancel, self.picker = self.picker.cancel, None
            if cancel:
                self.checking = None
            return list(cancel)
        return []

    def _key_leave_now(self, key: str) -> list[Intent]:
        self.overlay = None
        return [("send", "leave", {})]

    def _key_stake_ok(self, key: str) -> list[Intent]:
        self.overlay = None
        pending, self.pending = self.pending, None
        return self._staked(pending) if pending is not None else []

    def _key_stake_no(self, key: str) -> list[Intent]:
        self.overlay = None
        self.pending = None
        self.say("Not joined: no coins moved.")
        return []

    def _key_prompt_type(self, key: str) -> list[Intent]:
        p = self.prompt
        assert p is not None
        if key == "backspace":
            p.value = p.value[:-1]
        elif len(p.value) < (MAX_CHAT if p.purpose == "chat" else 64):
            p.value += key
        return []

    def _key_prompt_confirm(self, key: str) -> list[Intent]:
        p = self.prompt
        assert p is not None
        self.prompt = None
        if p.purpose == "chat":
            text = p.value.strip()
            return [("send", "chat", {"text": text})] if text else []
        if p.purpose == "watch":  # a room with a password, to watch
            self.watch_password = p.value
            return [("send", "watch", {**p.context, "password": p.value})]
        if p.purpose == "password":  # checked first (by watching the room): a wrong one is said before the seats
            self.checking = {**p.context, "password": p.value}
            self.say(f"Checking the password of {p.context['room']}…")
            return [("send", "watch", {**p.context, "password": p.value})]
        return []

    def _password_ok(self) -> None:
        """The host let this console watch the room with its password: now the seat picker."""
        check = self.checking or {}
        self._join_intents({"room": check.get("room"), "password": check.get("password", "")})
        if self.picker is not None:
            self.picker.cancel = [("send", "leave", {})]  # no seat after all: stop watching
        self.say("Password accepted: pick a seat.")

    def _key_picker_move(self, key: str) -> list[Intent]:
        pk = self.picker
        assert pk is not None
        pk.sel = (pk.sel + (-1 if key in ("up", "left") else 1)) % len(pk.options)
        return []

    def _key_pick(self, key: str) -> list[Intent]:
        pk = self.picker
        assert pk is not None
        n = len(pk.options)
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
        self.checking = None
        return self._run(pk.options[choice][2])

    def _run(self, intent: Intent) -> list[Intent]:
        """An intent about to be sent: an `act` is sent once per state; `mute`
        (a seat, or None: the watchers) stays here."""
        if intent[0] == "mute":
            return self._mute(intent[1])
        if intent[0] == "watch_room":
            return self._watch_intents(intent[1])
        if intent[0] == "noop":
            return []
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
        hot = self.pieces().hotkey
        return Picker(title, [(hot(a), self.label(a), ("act", a, self.state_id)) for a in actions], 0, self.state_id)

    # -- the table, during a game

    def _key_choose(self, key: str) -> list[Intent]:
        items = self.hand()
        if key.isdigit():
            return self._digit(key, items)
        if key in ("left", "up", "h") and items:
            self.sel = (self.sel - 1) % len(items)
        elif key in ("right", "down", "l") and items:
            self.sel = (self.sel + 1) % len(items)
        elif key == "home":
            self.sel = 0
        elif key == "end" and items:
            self.sel = len(items) - 1
        return []

    def _key_play(self, key: str) -> list[Intent]:
        return self._play_selected()

    def _key_moves(self, key: str) -> list[Intent]:
        legal = self.legal
        if not legal:
            self.say(self._waiting_words())
            return []
        self.picker = Picker("All your moves", [("", self.label(a), ("act", a, self.state_id)) for a in legal], 0,
                             self.state_id)
        return []

    def _key_draw(self, key: str) -> list[Intent]:
        none = "There is nothing to draw now."
        spec = self.table_spec()
        if (spec is not None and getattr(spec, "draw_with_play", True) is False
                and any(a.get("type") == "play" for a in self.legal)
                and not any(a.get("type") in ("draw", "pass", "keep") for a in self.legal)):
            # the table's rule, not an empty pile (a play-test was told there was nothing to draw)
            none = f"At {spec.title} you may draw only when no card plays: play one."
        return self._by_types(("draw", "pass", "keep"), none)

    def _key_drawn(self, key: str) -> list[Intent]:
        drawn = (self.view or {}).get("drawn")
        if (self.view or {}).get("phase") == "drawn" and drawn:
            return self._play_card(drawn)
        return self._play_selected()

    def _key_keep(self, key: str) -> list[Intent]:
        return self._by_types(("keep", "pass"), "There is no drawn card to keep now.")

    def _key_pass(self, key: str) -> list[Intent]:
        return self._by_types(("pass",), "You cannot pass now.")

    def _key_call(self, key: str) -> list[Intent]:
        if any(a.get("type") == "call" for a in self.legal):
            return self._by_types(("call",), "There is no last card to call now.")
        item = self.selected()
        if item is not None and item.calls:  # play-and-call: the card leaving you one, with the call
            calls = item.calls
            if len(calls) == 1:
                return self._act(calls[0])
            title = f"Play {self.card_words(item.code)} and call last card"
            if all("color" in a for a in calls):
                self.picker = self._color_picker(title + ": name a color", calls)
            else:
                self.picker = self._action_picker(title, calls)
            return []
        if self.play_calls():
            self.say(f"Choose the [marked] card to play with the call, then {keymap.key_name('call')}.")
            return []
        self.say("There is no last card to call now.")
        return []

    def _key_accept(self, key: str) -> list[Intent]:
        return self._by_types(("accept",), f"There is no {self.words().sym('W+4')} to accept now.")

    def _key_challenge(self, key: str) -> list[Intent]:
        return self._by_types(("challenge",), f"There is no {self.words().sym('W+4')} to challenge now.")

    def _key_catch(self, key: str) -> list[Intent]:
        catches = [a for a in self.legal if a.get("type") == "catch"]
        if not catches:
            self.say("Nobody can be caught now.")
            return []
        if len(catches) == 1:
            return self._act(catches[0])
        self.picker = self._action_picker("Catch whom?", catches)
        return []

    def _key_color(self, key: str) -> list[Intent]:
        colors = [a for a in self.legal if a.get("type") == "color"]
        if colors:
            self.picker = self._color_picker("Name the active color", colors)
        else:
            self.say("There is no color to name now.")
        return []

    def _key_leave(self, key: str) -> list[Intent]:
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
            self.say(f"There is no {self.pieces().unit} {typed}: your {self.pieces().hand} holds {len(items)}.")
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
        return f"{NOT_YOUR_TURN}{self.words().name(turn)}."

    def _play_card(self, code: str) -> list[Intent]:
        item = next((i for i in self.hand() if i.code == code), None)
        plays = item.plays if item else []
        if not plays:
            return []
        if len(plays) == 1:
            return self._act(plays[0])
        if all("color" in a and set(a) <= {"type", "card", "color"} for a in plays):
            self.picker = self._color_picker(f"Play {self.card_words(code)}: name a color", plays)
        else:
            self.picker = self._action_picker(self.pieces().play_title(self.card_words(code)), plays)
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
            self.say(self.pieces().why_not(self.view or {}, self.legal, self.card_words(item.code), keymap.key_name))
        return []

    # -- the end of a game, the waiting room, connecting

    def _key_rematch(self, key: str) -> list[Intent]:
        return self._directs("rematch", "deals the rematch")

    def _key_start(self, key: str) -> list[Intent]:
        return self._directs("start", "starts the game")

    def _directs(self, typ: str, what: str) -> list[Intent]:
        """Send `typ` if this peer directs the room, else say who does (`what`)."""
        if not self.may_direct():
            who = self.director_name()
            self.say(f"{who[0].upper()}{who[1:]} {what}.")
            return []
        if self.away() and self.overlay != "confirm_deal":
            # a person's seat is held for them (their connection dropped): dealing now gives it to a bot
            # (a play-test's stand-in director dealt without knowing it)
            self.overlay, self._deal_typ = "confirm_deal", typ
            return []
        return [("send", typ, {})]

    def away(self) -> list[str]:
        """The names of the people whose seats wait for them (dropped between games)."""
        room = self.room or {}
        if room.get("state") == "playing":
            return []
        return [shown(str(x.get("name"))) for x in room.get("seats") or []
                if isinstance(x, dict) and x.get("kind") == "person" and not x.get("connected")
                and x.get("seat") != self.seat]

    def _key_deal_now(self, key: str) -> list[Intent]:
        self.overlay = None
        return [("send", self._deal_typ, {})]

    def _key_leave_room(self, key: str) -> list[Intent]:
        return [("send", "leave", {})]

    def _key_cancel_connect(self, key: str) -> list[Intent]:
        self.screen = "hosts"
        return [("disconnect",)]

    # -- the lobby: hosts

    def host_rooms(self, h: HostRow) -> str:
        """The rooms a host holds, playing ones too: its TXT's `rooms` where it
        also says `playing` (a host of protocol 2, whose `rooms` counts every
        room, `playing` those of them playing), else the last room list this
        console got from it, else `rooms` (an older host: the rooms not playing)."""
        if h.rooms.isdigit() and h.playing.isdigit():
            return h.rooms
        seen = self.rooms_seen.get((h.address, h.port))
        return str(seen) if seen is not None else h.rooms

    def set_hosts(self, hosts: list[HostRow]) -> None:
        keep = self.hosts[self.host_sel].label if self.hosts and self.host_sel < len(self.hosts) else None
        self.hosts = sorted(hosts, key=lambda h: h.label.lower())
        labels = [h.label for h in self.hosts]
        self.host_sel = labels.index(keep) if keep in labels else min(self.host_sel, max(0, len(self.hosts) - 1))
        pref = [k for k, h in enumerate(self.hosts) if (h.address, h.port) == self.host_pref]
        if pref:  # the host of a kept seat, once listed: the cursor on it
            self.host_sel, self.host_pref = pref[0], None

    def _key_address_type(self, key: str) -> list[Intent]:
        if key == "backspace":
            self.address_text = self.address_text[:-1]
        elif len(self.address_text) < 64:
            self.address_text += key
        return []

    def _key_address_leave(self, key: str) -> list[Intent]:
        if key != "up" or self.hosts:
            self.address_focus = False
        return []

    def _key_address_connect(self, key: str) -> list[Intent]:
        try:
            host, port = parse_address(self.address_text.strip())
        except ValueError as e:
            self.say(str(e))
            return []
        return self.begin_connect(host, port, f"{host}:{port}")

    def _key_address(self, key: str) -> list[Intent]:
        self.address_focus = True
        return []

    def _key_host_move(self, key: str) -> list[Intent]:
        if key == "down" and (not self.hosts or self.host_sel >= len(self.hosts) - 1):
            self.address_focus = True
        elif key == "up" and self.hosts:
            self.host_sel = max(0, self.host_sel - 1)
        elif key == "down":
            self.host_sel = min(len(self.hosts) - 1, self.host_sel + 1)
        return []

    def _key_host_open(self, key: str) -> list[Intent]:
        if self.hosts:
            h = self.hosts[self.host_sel]
            return self.begin_connect(h.address, h.port, h.label)
        self.address_focus = True
        self.say("No host found yet: type an address (HOST:PORT) and Enter.")
        return []

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

    def _key_room_move(self, key: str) -> list[Intent]:
        if key == "up":
            self.room_sel = max(0, self.room_sel - 1)
        else:
            self.room_sel = min(len(self.rooms), self.room_sel + 1)  # len: the "create a room" line
        return []

    def _key_room_open(self, key: str) -> list[Intent]:
        if self.room_sel >= len(self.rooms):
            return self._key_new_room(key)
        return self._join_room(self.rooms[self.room_sel])

    def _key_new_room(self, key: str) -> list[Intent]:
        self.form.focus = 0
        self.screen = "form"
        self.say("")  # (the room list's last line, "You left the room.", is not the form's)
        return []

    def _key_watch(self, key: str) -> list[Intent]:
        if self.room_sel >= len(self.rooms):
            return []
        return self._watch_intents(self.rooms[self.room_sel])

    # -- chat, emotes, mutes, a watcher's seat

    def _key_talk(self, key: str) -> list[Intent]:
        if not self.chat_ok:
            self.say("This host does not relay chat (it runs an older lanmatch).")
            return []
        self.prompt = TextPrompt(f"Say to the room (up to {MAX_CHAT} characters)", "chat")
        return []

    def _key_emote(self, key: str) -> list[Intent]:
        if not self.chat_ok:
            self.say("This host does not relay chat (it runs an older lanmatch).")
            return []
        self.picker = Picker("Say quickly", [(EMOTE_KEYS[e], f"{e}: {EMOTE_WORDS[e]}", ("send", "chat", {"emote": e}))
                                             for e in EMOTES])
        return []

    def mute_options(self) -> list[tuple[str, str, Intent]]:
        """The mute picker: every other seat where a person sits, then the watchers."""
        options: list[tuple[str, str, Intent]] = []
        names = self.names()
        for info in (self.room or {}).get("seats") or []:
            s = info.get("seat")
            if not isinstance(s, int) or s == self.seat or info.get("kind") == "empty" or info.get("left"):
                continue  # (a seat a bot plays since its person left says nothing)
            state = "muted: Enter shows them again" if s in self.mutes.seats else "shown"
            name = names[s] if s < len(names) else f"Seat {s}"
            options.append((str(s), f"seat {s} {name} ({state})", ("mute", s)))
        state = "muted" if self.mutes.watchers else "shown"
        options.append(("w", f"every watcher ({state})", ("mute", None)))
        return options

    def _key_mute(self, key: str) -> list[Intent]:
        self.picker = Picker("Mute or unmute", self.mute_options(), numbered=False)
        return []

    def _mute(self, seat: int | None) -> list[Intent]:
        muted = self.mutes.toggle(seat)
        who = "the watchers" if seat is None else self.words().name(seat) if self.view else f"seat {seat}"
        self.say(f"{who[:1].upper() + who[1:]}: {'muted (their chat is not shown)' if muted else 'shown again'}.")
        return []

    def _key_sit(self, key: str) -> list[Intent]:
        if not self.may_sit():
            self.say("No seat is open here now.")
            return []
        return self._join_room(dict(self.room or {}))

    def _key_refresh(self, key: str) -> list[Intent]:
        """The rooms, and the balance (coins move while the clock plays a seat, or at another console)."""
        return [("send", "list", {}), ("refresh_balance",)]

    def _key_gone_lobby(self, key: str) -> list[Intent]:
        self.to_lobby(f"Left {self.host_label or 'the host'}: it did not answer for a minute.")
        return [("disconnect",)]

    def _key_keep_waiting(self, key: str) -> list[Intent]:
        self.overlay = None
        self.status = "connection lost: reconnecting…"
        self.say("Waiting another minute for the host.")
        return [("keep_waiting",)]

    def _key_hosts(self, key: str) -> list[Intent]:
        self.screen = "hosts"
        self.host_label = None
        self.host_address = None
        return [("disconnect",)]

    def _join_room(self, room: dict[str, Any], confirmed: bool = False) -> list[Intent]:
        watch = keymap.key_name("watch", "rooms")
        if room.get("state") == "playing" and not self.watching:
            if self.account is not None:  # the host gives a profile its seat back (from another machine, too)
                self.checking = {"room": room["name"], "back": True}
                return [("send", "join", {"room": room["name"]})]
            self.say(f"{room['name']} is playing; seats open again after the game.")
            self._offer_watch(room)
            return []
        if room.get("state") == "playing":
            self.say(f"{room['name']} is playing; seats open again after the game ({watch} watches).")
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
            if self.watching and self.watch_password and (self.room or {}).get("name") == room["name"]:
                return self._join_intents({"room": room["name"], "password": self.watch_password})
            self.prompt = TextPrompt(f"Password of {room['name']}", "password", secret=True, context={"room": room["name"]})
            return []
        return self._join_intents({"room": room["name"]})

    def _offer_watch(self, room: dict[str, Any]) -> None:
        """A playing room where this console has no seat: offer to watch it."""
        name = room.get("name")
        self.picker = Picker(f"{shown(str(name))} is playing: no seat for you until the game ends", [
            ("w", "watch it (a seat is offered when one opens between games)", ("watch_room", room)),
            ("b", "back to the rooms", ("noop",)),
        ], numbered=True)

    def _watch_intents(self, room: dict[str, Any]) -> list[Intent]:
        if room.get("password"):
            self.prompt = TextPrompt(f"Password of {room['name']}", "watch", secret=True, context={"room": room["name"]})
            return []
        return [("send", "watch", {"room": room["name"]})]

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
        if self.room is not None and self.room.get("name") == fields["room"]:
            room = self.room  # a watcher's room: its seats as they are now
        seats = room.get("seats") if room else None
        seats = len(seats) if isinstance(seats, list) else seats
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

    def _key_form_back(self, key: str) -> list[Intent]:
        self.screen = "rooms"
        return []

    def _key_field(self, key: str) -> list[Intent]:
        f = self.form
        f.focus = (f.focus + (-1 if key in ("up", "s-tab") else 1)) % len(f.rows())
        return []

    def _key_form_type(self, key: str) -> list[Intent]:
        f = self.form
        row = f.current()
        value = getattr(f, row)
        if key == "backspace":
            setattr(f, row, value[:-1])
        elif len(value) < (32 if row == "name" else 64):
            setattr(f, row, value + key)
        return []

    def _key_change(self, key: str) -> list[Intent]:
        self.form.change(self.form.current(), -1 if key == "left" else 1)
        return []

    def _key_create(self, key: str) -> list[Intent]:
        return self._submit_form()

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
        """What this seat is asked to do now, in one line (paused: says so first)."""
        line = self._prompt_line(now)
        if line and self.paused() and self.seat is not None and self.outcome is None:
            return f"PAUSED, no clock runs ({keymap.key_name('pause')} goes on). {line}"
        return line

    def _prompt_line(self, now: float) -> str:
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
        k = keymap.key_name
        unit = self.pieces().unit
        if "call" in types:
            return f"ONE CARD left: press {k('call')} to call it{clock}!"
        if types == {"catch"} or (not self.my_turn() and "catch" in types):
            return f"A rival did not call the last card: {k('catch')}: {self.catch_words(now)}!"
        if not self.my_turn():
            return f"Jump in: you hold the same {unit} as the top one ({k('play')} plays it)."
        line = self._turn_prompt(v, types, clock)
        if "catch" in types:  # a rival forgot its call during your turn: say so first
            line = f"{k('catch')}: {self.catch_words(now)}! " + line
        return line

    def _turn_prompt(self, v: dict[str, Any], types: set[str], clock: str) -> str:
        """The prompt of this seat's own turn (`prompt_line`)."""
        k = keymap.key_name
        unit = self.pieces().unit
        phase = v.get("phase")
        if phase == "drawn" and v.get("drawn"):
            verb, key = ("KEEP", k("keep")) if "keep" in types else ("PASS", k("pass"))
            return f"You drew {self.card_words(v['drawn'])}: {k('drawn')} PLAY it, {key} {verb} it{clock}."
        if phase == "challenge":
            head = f"A {self.words().sym('W+4')} waits on you: {k('accept')} accepts it (draw {v.get('pending') or 4})"
            if "challenge" in types:
                return f"{head}, {k('challenge')} challenges it{clock}."
            # a pile of +4s under `stacking`: only the lone +4 may be challenged
            more = f", or stack a {self.words().sym('W+4')} from your hand" if "play" in types else ""
            return f"{head}{more}{clock}."
        if phase == "color":
            return f"Name the active color ({k('color')}){clock}."
        item = self.selected()
        if phase == "pile":
            head = f"Penalty pile of {v.get('pending') or 0} on you"
            if item and item.playable:
                return f"{head}: {k('play')} answers with {self.card_words(item.code)}, {k('draw')} draws it{clock}."
            if any(i.playable for i in self.hand()):
                return f"{head}: answer with a [marked] {unit} or {k('draw')} to draw it{clock}."
            return f"{head}: nothing of yours answers it; {k('draw')} draws it{clock}."
        if item and item.calls:
            return (f"Your move{clock}: {k('call')} plays {self.card_words(item.code)} and calls last card "
                    f"({k('play')}: no call).")
        if item and item.playable:
            return f"Your move{clock}: {k('play')} plays {self.card_words(item.code)}."
        if any(i.playable for i in self.hand()):
            return f"Your move{clock}: pick a [marked] {unit} (←/→ or its number), {k('play')} plays it."
        if "draw" in types:
            draws = self.pieces().draws
            return f"Your move{clock}: nothing matches; {k('draw')} draws{' ' + draws if draws else ''}."
        return f"Your move{clock}: nothing to play; {k('pass')} passes."

    def keys(self) -> list[str]:
        """The keys that do something now, most useful first (the key map's
        `bar` words of the screen's mode: a layer's box writes its own)."""
        return keymap.bar(self, self.screen_mode())

    def keys_line(self, width: int = 80, now: float | None = None) -> str:
        """`keys()` in one line of at most `width` characters: the least useful
        keys (listed last, before the keys of every screen: `? help`, `q quit`)
        give way first. `now` gives the key bar's clocks (a catch window's time left)."""
        self.bar_now = now
        entries = keymap.shown(self, self.screen_mode())
        cut = len(entries)
        while cut and keymap.everywhere(entries[cut - 1][0]):
            cut -= 1
        head = [text for _k, text in entries[:cut]]
        tail = [text for _k, text in entries[cut:]]
        while head and len(" · ".join(head + tail)) > width:
            head.pop()
        line = " · ".join(head + tail)
        return line if len(line) <= width else " · ".join(head + tail[-1:])
