"""Every key of the full-screen console, declared once (the key map).

How this works. `KEYS` lists one `Key` per thing a key does: which keys
(`keys`: prompt_toolkit's names such as `enter`, `left`, `c-c`, or one
character), what it does (`does`: the `Console` method `_key_<does>(key)`
that returns the intents), where (`modes`: a screen, or the layer drawn on
top of it, see `Console.mode`), when it works (`when`), when the key bar
shows it (`shown`, by default `when`), its words in the key bar or the box
of its layer (`bar`), and its line in the help page (`help`: the keys as
written and what they do, with `{piece}`, `{play}`, `{draw}`, `{pass}`
filled in by the game's `render.Pieces.words`). `needs` names a move the
game's table must have for the help to list the key (`Pieces.moves`), and
`kinds` the consoles it belongs to (`play`: quick play, `join`: the lobby).

Its readers, and no other place spells a key:

- `Console.press` (model.py) runs the entry that `find(ui, key)` picks: an
  entry of the `any` mode that names the key, else among the entries of the
  mode on top that work now, one that names the key, then one taking any
  digit (`DIGIT`), then any printable character (`TEXT`), then any key at
  all (`ANY`), the first in this order;
- `Console.keys` (the key bar) lists the `bar` words of the entries of the
  mode on top that are shown now, in this order (most useful first);
- `screen.help_lines` writes the help from the `help` words (the table) and
  the `bar` words (the lobby); the boxes of the layers write their `bar`s;
- `app.create_key_bindings` binds every named key here (`named_keys`), and
  every printable character.

Words the console says about a key (`d draws a card`) write it with
`key_name(does)`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

DIGIT = "<digit>"  # any of 0-9
TEXT = "<text>"  # any printable character
ANY = "<any>"  # any key at all
WILDCARDS = (DIGIT, TEXT, ANY)

SCREENS = ("table", "waiting", "connecting", "hosts", "rooms", "form")
LOBBY = ("hosts", "address", "rooms", "form", "waiting")  # the modes the lobby's help tells
KINDS = ("play", "join")

# how the help and the console's words write a key
WRITTEN = {"enter": "Enter", "escape": "Esc", "tab": "Tab", "s-tab": "Shift-Tab", "backspace": "Backspace",
           "c-c": "Ctrl-C", "left": "←", "right": "→", "up": "↑", "down": "↓", "home": "Home", "end": "End",
           " ": "Space", "pageup": "PgUp", "pagedown": "PgDn"}

Pred = Callable[[Any], bool]


@dataclass(frozen=True)
class Key:
    """What one key (or a few keys with one meaning) does. See the module docstring."""

    keys: tuple[str, ...]
    does: str
    modes: tuple[str, ...]
    bar: str | Callable[[Any], str] = ""
    help: tuple[str, str] | None = None
    when: Pred | None = None  # it works now (None: always)
    shown: Pred | None = None  # the key bar shows it now (None: when it works)
    needs: str | None = None  # a move of the game (`Pieces.moves`) the help needs to list it
    kinds: tuple[str, ...] = KINDS
    helps: Pred | None = None  # the help lists it (None: always; chat: where somebody could read it)

    def works(self, ui: Any) -> bool:
        return ui.kind in self.kinds and (self.when is None or self.when(ui))

    def shows(self, ui: Any) -> bool:
        if ui.kind not in self.kinds:
            return False
        pred = self.shown if self.shown is not None else self.when
        return pred is None or pred(ui)

    def bar_text(self, ui: Any) -> str:
        return self.bar(ui) if callable(self.bar) else self.bar

    def takes(self, key: str, tier: int) -> bool:
        """Tier 0: the key is named; 1: a digit; 2: a printable character; 3: anything."""
        if tier == 0:
            return key in self.keys
        if tier == 1:
            return DIGIT in self.keys and len(key) == 1 and key.isdigit()
        if tier == 2:
            return TEXT in self.keys and len(key) == 1 and key.isprintable()
        return ANY in self.keys


def _always(ui: Any) -> bool:
    return True


def _playing(ui: Any) -> bool:
    return ui.view is not None and ui.outcome is None


def _over(ui: Any) -> bool:
    return ui.view is not None and ui.outcome is not None


def _not_playing(ui: Any) -> bool:
    return not _playing(ui)


def _offers(*types: str) -> Pred:
    """Shown while a legal action of one of `types` is offered."""
    return lambda ui: _playing(ui) and any(a.get("type") in types for a in ui.legal)


def _plays_drawn(ui: Any) -> bool:
    return _offers("play")(ui) and (ui.view or {}).get("phase") == "drawn"


def _text_row(ui: Any) -> bool:
    return ui.form.current() in ui.form.TEXT


def _choice_row(ui: Any) -> bool:
    return not _text_row(ui)


def _not_typing(ui: Any) -> bool:
    return not ui.typing()


def _calls(ui: Any) -> bool:
    """A last-card call is offered: the call itself, or a play that carries it."""
    return _offers("call")(ui) or (_playing(ui) and ui.play_calls())


def _call_words(ui: Any) -> str:
    if _offers("call")(ui):
        return "c call"
    item = ui.selected()
    return "c play+call" if item is not None and item.calls else "c call (pick the card)"


def _catch_words(ui: Any) -> str:
    return "x " + ui.catch_words(getattr(ui, "bar_now", None))


def _chatting(ui: Any) -> bool:
    """In a room (seated or watching) where somebody could read it: chat keys
    work. Quick play's room, with nobody but bots and nobody watching, has
    none to offer (a play-test found chat, emote and mute listed there)."""
    room = ui.room
    if room is None or (ui.seat is None and not ui.watching):
        return False
    if ui.kind != "play" or ui.watching or room.get("spectators"):
        return True
    return any(x.get("kind") == "person" and x.get("seat") != ui.seat for x in room.get("seats") or [])


def _chat_shown(ui: Any) -> bool:
    """The key bar offers chat when nothing more urgent is asked (a watcher, the waiting room, a game over)."""
    return _chatting(ui) and (ui.seat is None or ui.screen_mode() == "waiting" or not _playing(ui))


def _rematch_words(ui: Any) -> str:
    return "r rematch" if ui.may_direct() else f"({ui.director_name()} deals the rematch)"


def _stake_words(ui: Any) -> str:
    return "Enter " + ("create" if (ui.pending or {}).get("what") == "create" else "join")


def _paused(ui: Any) -> bool:
    return _playing(ui) and (ui.paused() or ui.paused_by is not None)


def _pause_words(ui: Any) -> str:
    return "p go on (paused)"


def _has_log(ui: Any) -> bool:
    return ui.view is not None and bool(ui.log)


def _scrolled(ui: Any) -> bool:
    """The key bar tells the history keys while it is scrolled back (the log's rule always does)."""
    return _has_log(ui) and ui.log_back > 0


_HISTORY_HELP = ("PgUp/PgDn or [ ]", "scroll the move history back and forth")


def _help_shown(ui: Any) -> bool:
    return ui.screen_mode() in ("waiting", "hosts") or (ui.screen_mode() == "table" and _playing(ui))


KEYS: tuple[Key, ...] = (
    # -- the table, during a game (the key bar keeps the first ones when short of room)
    Key(("enter", " "), "play", ("table",), "Enter play", ("Enter", "{play}"), _playing,
        lambda ui: _playing(ui) and any(i.playable for i in ui.hand())),
    Key(("p",), "drawn", ("table",), "p play it", ("p", "PLAY the card you drew"), _plays_drawn, _plays_drawn,
        needs="drawn"),
    # (the help tells the pause in its clocks line, screen.help_lines)
    Key(("p", "P"), "pause", ("table",), _pause_words, None, _playing, _paused),
    Key(("d",), "draw", ("table",), "d draw", ("d", "{draw}"), _playing, _offers("draw"), needs="draw"),
    Key(("k",), "keep", ("table",), "k keep", ("k", "KEEP it"), _playing, _offers("keep"), needs="keep"),
    Key(("s",), "pass", ("table",), "s pass", ("s", "{pass}"), _playing, _offers("pass"), needs="pass"),
    Key(("c",), "call", ("table",), _call_words, ("c", "call your last card, or play the card that leaves you one "
        "and call at once"), _playing, _calls, needs="call"),
    Key(("x",), "catch", ("table",), _catch_words, ("x", "catch a rival who did not call"), _playing,
        _offers("catch"), needs="catch"),
    Key(("a",), "accept", ("table",), "a accept", ("a", "accept a {wild4}"), _playing, _offers("accept"),
        needs="accept"),
    Key(("!",), "challenge", ("table",), "! challenge", ("!", "challenge a {wild4}"), _playing, _offers("challenge"),
        needs="challenge"),
    Key(("n",), "color", ("table",), "n name a color", ("n", "name a color"), _playing, _offers("color"),
        needs="color"),
    # -- the table, always (before the keys that give way first in the bar): the move history scrolled back (PgUp, [) and forth (PgDn, ])
    Key(("pageup", "["), "log_back", ("table",), "[ ] history", _HISTORY_HELP, _has_log, _scrolled),
    Key(("pagedown", "]"), "log_forward", ("table",), "[ ] history", _HISTORY_HELP, _has_log, _scrolled),
    Key(("left", "right", "up", "down", "h", "l", "home", "end", DIGIT), "choose", ("table",), "←→/1-9 choose",
        ("←/→ or a number", "choose a {piece}"), _playing, lambda ui: _playing(ui) and bool(ui.hand())),
    Key(("tab", "m"), "moves", ("table",), "Tab all moves", ("Tab", "every move you have"), _playing,
        lambda ui: _playing(ui) and bool(ui.legal)),
    Key(("L",), "leave", ("table",), "L leave", ("L", "leave the room"), _playing, kinds=("join",)),
    # -- the table and the waiting room: chat, emotes, mutes, a watcher's seat (docs/console.md "Chat")
    Key(("j",), "sit", ("table", "waiting"), "j take the open seat", ("j", "watching: take a seat that opened"),
        lambda ui: ui.watching, lambda ui: ui.may_sit(), kinds=("join",)),
    Key(("t",), "talk", ("table", "waiting"), "t chat", ("t", "chat: a line to the room"), _chatting,
        _chat_shown, helps=_chatting),
    Key(("e",), "emote", ("table", "waiting"), "e emote", ("e", "an emote (gg, gl, nice…)"), _chatting,
        _chat_shown, helps=_chatting),
    Key(("M",), "mute", ("table", "waiting"), "M mute", ("M", "mute a seat or the watchers"), _chatting,
        _chat_shown, helps=_chatting),
    # -- the table, the game over
    Key(("r",), "rematch", ("table",), _rematch_words, ("r", "rematch when the game is over"), _over),
    Key(("L",), "leave_room", ("table",), "L leave the room", None, _not_playing, _over, kinds=("join",)),
    # -- the waiting room
    Key(("s",), "start", ("waiting",), "s start (bots fill empty seats)", None, None, lambda ui: ui.may_direct()),
    # (L alone: Esc, which also closes the chat field, left a seat without a word)
    Key(("L",), "leave_room", ("waiting",), "L leave", kinds=("join",)),
    # -- connecting
    Key(("escape",), "cancel_connect", ("connecting",), "Esc back", kinds=("join",)),
    # -- the lobby: hosts, the address field, rooms, the form
    Key(("up", "down"), "host_move", ("hosts",), "↑↓ choose"),
    Key(("enter",), "host_open", ("hosts",), "Enter connect"),
    Key(("tab", "a"), "address", ("hosts",), "Tab type an address"),
    Key((TEXT, "backspace"), "address_type", ("address",), "type HOST:PORT"),
    Key(("enter",), "address_connect", ("address",), "Enter connect"),
    Key(("tab", "escape", "up"), "address_leave", ("address",), "Tab back to the list"),
    Key(("up", "down"), "room_move", ("rooms",), "↑↓ choose"),
    Key(("enter",), "room_open", ("rooms",), "Enter sit"),
    Key(("w",), "watch", ("rooms",), "w watch"),
    Key(("n",), "new_room", ("rooms",), "n new room"),
    Key(("r",), "refresh", ("rooms",), "r refresh"),
    Key(("escape",), "hosts", ("rooms",), "Esc hosts"),
    Key(("up", "s-tab", "down", "tab"), "field", ("form",), "↑↓ field"),
    Key(("left", "right", " "), "change", ("form",), "←→ change", None, _choice_row, _always),
    Key((TEXT, "backspace"), "form_type", ("form",), "type text", None, _text_row, _always),
    Key(("enter",), "create", ("form",), "Enter create"),
    Key(("escape",), "form_back", ("form",), "Esc back"),
    # -- every screen
    Key(("?",), "help", SCREENS, "? help", None, _not_typing, _help_shown),
    Key(("q",), "quit", SCREENS, "q quit", ("q", "quit (during a game it asks first)"), _not_typing, lambda ui: ui.screen_mode() != "form"),
    # -- the layers over a screen: their boxes write these words
    Key((TEXT, "backspace"), "prompt_type", ("prompt",)),
    Key(("enter",), "prompt_confirm", ("prompt",), "Enter confirm"),
    Key(("escape",), "close", ("prompt",), "Esc cancel"),
    Key(("up", "left", "down", "right", "tab"), "picker_move", ("picker",), "↑↓ choose"),
    Key(("enter", " ", DIGIT, TEXT), "pick", ("picker",), "Enter or its key picks"),
    Key(("escape", "q"), "close", ("picker",), "Esc cancel"),
    Key((ANY,), "close", ("help",), "any key closes this help"),
    Key((ANY,), "close", ("round",), "any key goes on to the next round"),
    Key(("y", "Y", "enter"), "stake_ok", ("confirm_stake",), _stake_words),
    Key((ANY,), "stake_no", ("confirm_stake",), "Esc back"),
    Key(("enter", "l"), "gone_lobby", ("host_gone",), "Enter back to the lobby", kinds=("join",)),
    Key(("w",), "keep_waiting", ("host_gone",), "w keep waiting"),
    Key(("q",), "quit_now", ("host_gone",), "q quit"),
    Key(("y", "Y", "enter"), "quit_now", ("confirm_quit",), "y leave"),
    Key(("y", "Y", "enter", "L"), "leave_now", ("confirm_leave",), "L again (or y) leaves"),
    Key(("y", "Y", "enter"), "deal_now", ("confirm_deal",), "y deals now"),
    Key((ANY,), "close", ("confirm_quit", "confirm_leave", "confirm_deal"), "any other key stays"),
    # -- everywhere, whatever is on top
    Key(("c-c",), "quit_now", ("any",), "Ctrl-C quit", None, None, lambda ui: ui.screen_mode() == "address"),
)


def find(ui: Any, key: str, keys: tuple[Key, ...] | None = None) -> Key | None:
    """The entry that handles `key` now (see the module docstring), or None."""
    keys = KEYS if keys is None else keys
    for k in keys:
        if "any" in k.modes and k.takes(key, 0) and k.works(ui):
            return k
    mode = ui.mode()
    mine = [k for k in keys if mode in k.modes and k.works(ui)]
    for tier in range(4):
        for k in mine:
            if k.takes(key, tier):
                return k
    return None


def shown(ui: Any, mode: str | None = None, keys: tuple[Key, ...] | None = None) -> list[tuple[Key, str]]:
    """The entries of `mode` (default: the mode on top) shown now, with their
    words, in the map's order."""
    mode = ui.mode() if mode is None else mode
    out: list[tuple[Key, str]] = []
    for k in KEYS if keys is None else keys:
        if (mode in k.modes or "any" in k.modes) and k.shows(ui):
            text = k.bar_text(ui)
            if text and all(text != t for _k, t in out):
                out.append((k, text))
    return out


def bar(ui: Any, mode: str | None = None, keys: tuple[Key, ...] | None = None) -> list[str]:
    """The key bar (or a layer's box) of `mode` (default: the mode on top): the
    words of its entries shown now, in the map's order."""
    return [text for _k, text in shown(ui, mode, keys)]


def everywhere(key: Key) -> bool:
    """A key of every screen (`? help`, `q quit`): the key bar keeps it when short of room."""
    return key.modes == SCREENS


def help_entries(ui: Any, moves: frozenset[str], words: dict[str, str],
                 keys: tuple[Key, ...] | None = None) -> list[tuple[str, str]]:
    """The table's help: `(keys, what they do)` of every table key this console
    has, for the moves the game's table has (`Key.needs`)."""
    out: list[tuple[str, str]] = []
    for k in KEYS if keys is None else keys:
        if ("table" in k.modes and k.help and ui.kind in k.kinds and (k.needs is None or k.needs in moves)
                and (k.helps is None or k.helps(ui))):
            entry = (k.help[0], k.help[1].format(**words))
            if entry not in out:
                out.append(entry)
    return out


def mode_words(ui: Any, mode: str, keys: tuple[Key, ...] | None = None) -> list[str]:
    """Every `bar` word of the entries of `mode` alone, shown now or not (the lobby's help)."""
    out = []
    for k in KEYS if keys is None else keys:
        if k.modes == (mode,) and ui.kind in k.kinds:
            text = k.bar_text(ui)
            if text and text not in out:
                out.append(text)
    return out


def words_of(ui: Any, does: str, mode: str) -> str:
    """The `bar` words of the entry that does `does` in `mode`."""
    return next(k.bar_text(ui) for k in KEYS if k.does == does and mode in k.modes)


def key_name(does: str, mode: str = "table") -> str:
    """The first key of the entry that does `does` in `mode`, as people write it (`Enter`, `d`)."""
    for k in KEYS:
        if k.does == does and mode in k.modes:
            return WRITTEN.get(k.keys[0], k.keys[0])
    raise KeyError(f"no key does {does!r} in {mode!r}")


def named_keys() -> tuple[str, ...]:
    """Every key of the map that is not one character or a wildcard: the
    prompt_toolkit names the Application binds one by one."""
    out: dict[str, None] = {}
    for k in KEYS:
        for key in k.keys:
            if len(key) > 1 and key not in WILDCARDS:
                out[key] = None
    return tuple(out)
