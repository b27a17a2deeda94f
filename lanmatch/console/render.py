"""Views into words: the pure half of the console.

Everything here turns plain data (a seat's `view`, its legal actions, the
public events, an outcome) into text. Nothing reads the keyboard, the clock or
the screen, so every function is a unit-testable pure function.

Cards are always written in words with their palette's shape (`red ● 5`,
`teal ▲ Toll 2`, `Wild`), never as codes, so color-blind players can play; with
``color=True`` the color words are also painted with ANSI colors. Only what the
view holds is ever shown: the view is already redacted by the engine, and this
module adds nothing to it.

Which words a game gets comes from its declaration (`lanmatch.rules`): the
game's `pieces` picks a `Pieces` (`pieces_of(game)`: Color Match's cards,
dominoes' tiles, or the plain rendering for a game the console does not
know: its hand and its legal actions listed with their labels), and a
table's `palette` names its colors (`palette_of(table)`). Nothing here tests
a game or a table by its name (docs/console.md "A new game or table").
"""

from __future__ import annotations

import math
import re
import unicodedata
from typing import Any

from lanmatch.protocol.messages import REFUSED_CATEGORIES
from lanmatch.rules import GAMES, title_of
from lanmatch.rules.cards import PALETTES, describe

# color word (lower case) -> ANSI SGR parameters
_ANSI = {
    "red": "31",
    "rose": "91",
    "yellow": "33",
    "amber": "33",
    "green": "32",
    "blue": "94",
    "pink": "95",
    "teal": "36",
    "orange": "38;5;208",
    "violet": "35",
}
_ANSI_RE = re.compile(r"\x1b\[[0-9;]*m")
_COLOR_ORDER = "RYGBPTOV"
_SYM_ORDER = [str(i) for i in range(10)] + ["S", "R", "+1", "+2", "+5", "A", "T", "B", "H"]
_WILD_ORDER = ["W", "W+4", "WC", "WH"]
# events that explain the cards drawn just before them (their "seat" drew)
_DRAW_REASONS = ("penalty", "blast", "missed_call", "accept", "hunt", "caught", "challenge")


def visible_len(text: str) -> int:
    """Length of `text` on screen (ANSI color codes take no room)."""
    return len(_ANSI_RE.sub("", text))


def shown(text: str) -> str:
    """`text` safe for a terminal: every character a peer may not send
    (controls, format characters, line separators: `REFUSED_CATEGORIES`)
    replaced by U+FFFD, visibly. A host's strings (names, rooms, reasons)
    are shown through this, whatever the host sent."""
    if text.isascii():
        if text.isprintable():
            return text
    elif all(unicodedata.category(c) not in REFUSED_CATEGORIES for c in text):
        return text
    return "".join("\ufffd" if unicodedata.category(c) in REFUSED_CATEGORIES else c for c in text)


def plural(n: int, word: str) -> str:
    """`1 card`, `2 cards`."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def card_sort_key(code: str) -> tuple[int, int, str]:
    """Hand order for people: by color, then numbers, actions, wilds last."""
    if code[0] == "W":
        return (len(_COLOR_ORDER), _WILD_ORDER.index(code) if code in _WILD_ORDER else 9, code)
    sym = code[1:]
    return (
        _COLOR_ORDER.index(code[0]) if code[0] in _COLOR_ORDER else 9,
        _SYM_ORDER.index(sym) if sym in _SYM_ORDER else 99,
        code,
    )


def tile_words(code: str) -> str:
    """A domino as drawn on the table: `6-4` -> `[6|4]`."""
    a, _, b = str(code).partition("-")
    return f"[{a}|{b}]"


def default_game() -> str:
    """The game of a message that names none: the first one registered."""
    return next(iter(GAMES))


def palette_of(table: str | None) -> str | None:
    """The key of `cards.PALETTES` the table named `table` writes its cards
    with: its declaration's `palette` (read from the registry now, so a table
    registered later has one); a palette's own key names itself; else None
    (the cards' default words)."""
    if table is None:
        return None
    for g in GAMES.values():
        spec = g.tables.get(table)
        if spec is not None:
            return getattr(spec, "palette", None)
    return table if table in PALETTES else None


class Words:
    """How one table speaks: its palette, the seats' names, color or not."""

    def __init__(
        self,
        table: str | None,
        names: list[str],
        seat: int,
        color: bool = False,
    ):
        self.table = table
        self.palette = palette_of(table)
        self.pal = PALETTES.get(self.palette or "", {"colors": {}, "symbols": {}})
        self.names = names
        self.seat = seat
        self.color = color

    # ---------------------------------------------------------------- pieces

    def paint(self, text: str, color_name: str) -> str:
        code = _ANSI.get(color_name.lower()) if self.color else None
        return f"\x1b[{code}m{text}\x1b[0m" if code else text

    def bold(self, text: str) -> str:
        return f"\x1b[1m{text}\x1b[0m" if self.color else text

    def _color_entry(self, letter: str) -> tuple[str, str]:
        colors = self.pal["colors"]
        if letter in colors:
            return colors[letter]
        # a letter this palette does not write: the first palette that does
        return next((p["colors"][letter] for p in PALETTES.values() if letter in p["colors"]), (letter, "?"))

    def sym(self, symbol: str) -> str:
        """A symbol's name at this table, from its palette (the table's
        declaration names it): `Reverse`, or `Flip` at `toll`; `W+4` is
        `+4 Wild`, or `Toll 4`."""
        symbols = self.pal["symbols"]
        if symbol == "+4" and "+4" not in symbols:  # a +4 pile: only the wild adds +4
            symbol = "W+4"
        return symbols.get(symbol, symbol)

    def color_word(self, letter: str) -> str:
        """A color letter's word in this palette: `blue`, `rose`."""
        return self._color_entry(letter)[0]

    def color_name(self, letter: str | None) -> str:
        """A color letter in words with its shape: `blue ■`."""
        if not letter:
            return "not named yet"
        name, shape = self._color_entry(letter)
        return self.paint(f"{name} {shape}", name)

    def card(self, code: str) -> str:
        """A card in words with its shape: `red ● 5`, `Wild`."""
        text = describe(code, self.palette)
        if code[0] == "W":
            return self.bold(text)
        return self.paint(text, self._color_entry(code[0])[0])

    def cards(self, codes: list[str]) -> str:
        return " · ".join(self.card(c) for c in codes)

    def name(self, seat: Any) -> str:
        if isinstance(seat, int) and 0 <= seat < len(self.names):
            return self.names[seat]
        return f"seat {seat}"

    def you(self, seat: Any) -> bool:
        return seat == self.seat

    def verb(self, seat: Any, you_form: str, other_form: str) -> str:
        """`You are` / `Bot 1 is`: the name with the verb that fits it."""
        return f"{self.name(seat)} {you_form if self.you(seat) else other_form}"


def default_names(view: dict[str, Any]) -> list[str]:
    """`You` for the view's own seat, `Seat N` for the others."""
    n = len(view.get("counts") or [])
    me = view.get("seat")
    return ["You" if s == me else f"Seat {s}" for s in range(n)]


def wrap_items(prefix: str, items: list[str], width: int, sep: str = " · ") -> list[str]:
    """`prefix` then `items` joined by `sep`, wrapped at `width` (ANSI-aware)."""
    if not items:
        return [prefix.rstrip()]
    indent = " " * visible_len(prefix)
    lines: list[str] = []
    cur, cur_len = prefix, visible_len(prefix)
    first = True
    for item in items:
        add = visible_len(item)
        if first:
            cur, cur_len, first = cur + item, cur_len + add, False
        elif cur_len + len(sep) + add + len(sep.rstrip()) <= width:  # (room for the " ·" a wrap leaves)
            cur, cur_len = cur + sep + item, cur_len + len(sep) + add
        else:
            lines.append(cur + sep.rstrip())
            cur, cur_len = indent + item, len(indent) + add
    lines.append(cur)
    return lines


def columns(entries: list[str], width: int, indent: str = "  ") -> list[str]:
    """Numbered entries, in two columns (down, then across) when many and they fit."""
    if len(entries) <= 6:
        return [indent + e for e in entries]
    colw = max(visible_len(e) for e in entries) + 3
    if len(indent) + 2 * colw > width:
        return [indent + e for e in entries]
    rows = math.ceil(len(entries) / 2)
    out = []
    for r in range(rows):
        left = entries[r]
        line = indent + left
        if r + rows < len(entries):
            line += " " * (colw - visible_len(left)) + entries[r + rows]
        out.append(line)
    return out


# -------------------------------------------------------------------- actions


def action_label(action: dict[str, Any], view: dict[str, Any], words: Words) -> str:
    """One legal action in words, e.g. `play Wild, name blue ■` or `catch Bot 2`
    (in the words of the view's game: `pieces_of(view["game"])`)."""
    return pieces_of(view.get("game")).label(action, view, words)


def _card_label(action: dict[str, Any], view: dict[str, Any], words: Words) -> str:
    t = action.get("type")
    phase = view.get("phase")
    if t == "play":
        text = "play " + words.card(action["card"])
        if "color" in action:
            text += ", name " + words.color_name(action["color"])
        if "swap_with" in action:
            text += ", swap hands with " + words.name(action["swap_with"])
        if phase == "drawn" and view.get("drawn") == action["card"]:
            text += " (the card you drew)"
        if action.get("call") is True:
            text += " and call last card"
        return text
    if t == "draw":
        if phase == "pile" and view.get("pending"):
            return f"draw the {plural(view['pending'], 'penalty card')}"
        return "draw a card"
    if t == "pass":
        if phase == "drawn":
            return "pass (keep the card you drew)"
        return "pass (nothing left to draw)"
    if t == "keep":
        return "keep the card you drew"
    if t == "accept":
        return f"accept the {words.sym('W+4')} (draw {view.get('pending') or 4})"
    if t == "challenge":
        return f"challenge the {words.sym('W+4')}"
    if t == "call":
        return "call last card"
    if t == "catch":
        return f"catch {words.name(action.get('seat'))} (they draw 2)"
    if t == "color":
        return "name " + words.color_name(action.get("color"))
    return str(t)


def _tile_label(action: dict[str, Any], view: dict[str, Any], words: Words) -> str:
    t = action.get("type")
    if t == "play":
        tile = tile_words(action["tile"])
        ends = view.get("ends")
        if not ends:
            return f"play {tile} to open the line"
        if ends[0] == ends[1]:
            return f"play {tile} on the {ends[0]}"
        end = action.get("end", "left")
        pip = ends[0] if end == "left" else ends[1]
        return f"play {tile} on the {end} end ({pip})"
    if t == "draw":
        return "draw from the boneyard"
    if t == "pass":
        return "pass (the boneyard is empty)"
    return str(t)


def _plain_value(key: str, value: Any, words: Words) -> str:
    return words.name(value) if key == "seat" else str(value)


def _plain_label(action: dict[str, Any], view: dict[str, Any], words: Words) -> str:
    """An action of a game the console does not know: its type and its values (`take 2`)."""
    rest = [_plain_value(k, v, words) for k, v in action.items() if k != "type"]
    return " ".join([str(action.get("type")), *rest])


def decline_index(legal: list[dict[str, Any]]) -> int | None:
    """Index of the action the `d` key means (draw, pass or keep), if any."""
    for i, a in enumerate(legal):
        if a.get("type") in ("draw", "pass", "keep"):
            return i
    return None


# -------------------------------------------------------------------- events


def _event_line(e: dict[str, Any], w: Words, drew: list[str] | None) -> str | None:
    """One Color Match event in words (None: not worth a line)."""
    t = e.get("type")
    s = e.get("seat")
    count = e.get("count", 0)
    shown = f": {w.cards(drew)}" if drew else ""
    if t == "deal":
        return f"Round {e.get('round', 1)} dealt; the starter is {w.card(e['top'])}; {w.name(e.get('first'))} first"
    if t == "play":
        text = f"{w.name(s)} played {w.card(e['card'])}"
        if e.get("color"):
            text += f", naming {w.color_name(e['color'])}"
        return text
    if t == "draw":
        cards = e.get("cards")
        return f"{w.name(s)} drew {plural(count, 'card') if not cards else w.cards(cards)}"
    if t == "penalty":
        return f"{w.name(s)} took {plural(count, 'penalty card')}{shown}"
    if t == "lapsed":
        return f"{plural(count, 'penalty card')} lapsed: nothing left to draw"
    if t == "accept":
        return f"{w.name(s)} accepted the {w.sym('W+4')} and drew {count}{shown}"
    if t == "challenge":
        of = e.get("of")
        if e.get("won"):
            return f"{w.name(s)} challenged {w.name(of)}'s {w.sym('W+4')} and won: {w.name(of)} drew {count}{shown}"
        return f"{w.name(s)} challenged {w.name(of)}'s {w.sym('W+4')} and lost, and drew {count}{shown}"
    if t == "color":
        return f"{w.name(s)} named {w.color_name(e.get('color'))}"
    if t == "keep":
        return f"{w.name(s)} kept the card drawn"
    if t == "pass":
        return f"{w.name(s)} passed"
    if t == "skipped":
        return f"{w.verb(s, 'were', 'was')} skipped"
    if t == "reverse":
        return f"{w.sym('R')}: play now goes " + ("clockwise ↻" if e.get("direction", 1) == 1 else "counterclockwise ↺")
    if t == "jump_in":
        return f"{w.name(s)} jumped in"
    if t == "swap":
        return f"{w.name(s)} swapped hands with {w.name(e.get('with'))}"
    if t == "rotate":
        return "Every hand moved on one seat"
    if t == "last_card":
        return f"{w.verb(s, 'have', 'has')} one card left!"
    if t == "call":
        return f"{w.name(s)} called last card"
    if t == "caught":
        return f"{w.name(e.get('by'))} caught {w.name(s)}, who drew {count}{shown}"
    if t == "missed_call":
        return f"{w.name(s)} missed the last-card call and drew {count}{shown}"
    if t == "catchable":
        return f"{w.name(s)} did not call last card: catch!"
    if t == "window_closed":
        return None
    if t == "fuse":
        return f"A Bomb is lit: it blows in 3 hand-offs, for {e.get('blast', 4)} cards"
    if t == "blast":
        return f"BOOM! The Bomb blew up on {w.name(s)}: {count} cards{shown}"
    if t == "clock":
        return "The Midnight Clock is wound: the table turns over in 3 hand-offs"
    if t == "flip":
        return f"The table turned over to the {e.get('face')} side; the top card is {w.card(e['top'])}"
    if t == "hunt":
        return f"Color Hunt: {w.name(s)} drew {count} looking for {w.color_name(e.get('color'))}{shown}"
    if t == "all_pass":
        return f"All Pass: everyone else passed, {w.name(s)} again"
    if t == "shield_stand":
        return f"{w.name(s)} stood a Shield"
    if t == "shield_cancel":
        return f"{w.name(s)}'s Shield cancelled the penalty pile"
    if t == "shield_absorb":
        return f"{w.name(s)}'s standing Shield absorbed the penalty pile"
    if t == "reshuffle":
        return f"The discards were shuffled into a new draw pile ({plural(e.get('draw_pile', 0), 'card')})"
    if t == "round_over":
        wins = e.get("winners") or []
        who = " and ".join(w.name(x) for x in wins) or "nobody"
        return f"Round {e.get('round', 1)} over ({e.get('reason')}): {who} won"
    if t == "game_over":
        return None
    return None


def _domino_event_line(e: dict[str, Any], w: Words, opens: bool = False) -> str | None:
    t = e.get("type")
    s = e.get("seat")
    if t == "play" and opens:
        return f"{w.name(s)} opened the line with {tile_words(e['tile'])}"
    if t == "deal":
        counts = e.get("counts") or [0]
        return (
            f"Round {e.get('round')} dealt: {plural(counts[0], 'tile')} each, "
            f"{e.get('boneyard')} in the boneyard; {w.verb(e.get('lead'), 'lead', 'leads')}"
        )
    if t == "play":
        ends = e.get("ends") or ["?", "?"]
        return f"{w.name(s)} played {tile_words(e['tile'])} on the {e.get('end')} (open ends {ends[0]} and {ends[1]})"
    if t == "draw":
        return f"{w.name(s)} drew from the boneyard ({e.get('boneyard')} left)"
    if t == "draws":  # consecutive draws, folded by describe_events
        return f"{w.name(s)} drew {plural(e['count'], 'tile')} from the boneyard ({e.get('boneyard')} left)"
    if t == "pass":
        ends = e.get("ends") or ["?", "?"]
        lacks = f"no {ends[0]}" if ends[0] == ends[1] else f"no {ends[0]} or {ends[1]}"  # (not "no 1 or 1")
        return f"{w.name(s)} passed ({lacks})"
    if t == "round_end":
        if e.get("winner") is None:
            return f"Round {e.get('round')} over ({e.get('reason')}): a tie, nobody scores"
        return (
            f"Round {e.get('round')} over ({e.get('reason')}): {w.name(e['winner'])} scored "
            f"{e.get('points')}; match points: "
            + ", ".join(f"{w.name(i)} {p}" for i, p in enumerate(e.get("scores") or []))
        )
    return None


def describe_events(
    events: list[dict[str, Any]],
    palette_table: str | None = None,
    *,
    names: list[str],
    seat: int = 0,
    color: bool = False,
    game: str | None = None,
) -> list[str]:
    """Public events in words, one line each, oldest first, in the words of
    `game` (default: the first game registered).

    Cards drawn as a penalty are told once, with the reason ("Bot 1 takes 2
    penalty cards"), not as a bare draw; a run of Dominoes draws by one seat
    is folded into one line.
    """
    return pieces_of(game).events(events, Words(palette_table, names, seat, color))


def _tile_events(events: list[dict[str, Any]], w: Words) -> list[str]:
    out: list[str] = []
    folded: list[dict[str, Any]] = []
    for e in events:
        prev = folded[-1] if folded else None
        if e.get("type") == "draw" and prev and prev["type"] in ("draw", "draws") and prev.get("seat") == e.get("seat"):
            folded[-1] = {
                "type": "draws",
                "seat": e.get("seat"),
                "count": prev.get("count", 1) + 1,
                "boneyard": e.get("boneyard"),
            }
        else:
            folded.append(e)
    for i, e in enumerate(folded):
        line = _domino_event_line(e, w, opens=i > 0 and folded[i - 1].get("type") == "deal")
        if line:
            out.append(line)
    return out


def _card_events(events: list[dict[str, Any]], w: Words) -> list[str]:
    out: list[str] = []
    i = 0
    while i < len(events):
        e = events[i]
        nxt = events[i + 1] if i + 1 < len(events) else None
        if e.get("type") == "draw" and nxt is not None and nxt.get("type") in _DRAW_REASONS:
            drawer = nxt.get("seat")
            if nxt.get("type") == "challenge" and nxt.get("won"):
                drawer = nxt.get("of")
            if drawer == e.get("seat"):
                line = _event_line(nxt, w, e.get("cards"))
                if line:
                    out.append(line)
                i += 2
                continue
        line = _event_line(e, w, None)
        if line:
            out.append(line)
        i += 1
    return out


def _plain_events(events: list[dict[str, Any]], w: Words) -> list[str]:
    """Events of a game the console does not know: who, what, and the rest (`Bot 1: round won (round 2)`)."""
    out = []
    for e in events:
        rest = [f"{k} {_plain_value(k, v, w)}" for k, v in e.items() if k not in ("type", "seat", "n")]
        who = f"{w.name(e['seat'])}: " if e.get("seat") is not None else ""
        out.append(f"{who}{str(e.get('type')).replace('_', ' ')}" + (f" ({', '.join(rest)})" if rest else ""))
    return out


# ---------------------------------------------------------------- the table


def _seat_lines(view: dict[str, Any], w: Words, unit: str, extras_of) -> list[str]:
    counts = view.get("counts") or []
    turn = view.get("turn")
    namew = max((len(w.name(s)) for s in range(len(counts))), default=4)
    lines = []
    for s, cnt in enumerate(counts):
        mark = "▶" if s == turn else " "
        line = f"  {mark} {w.name(s):<{namew}}  {cnt:>2} {unit if cnt == 1 else unit + 's'}"
        team = team_tag(view, w, s)
        if team:
            line += f"  {team}"
        extras = extras_of(s)
        if extras:
            line += "   " + "  ".join(extras)
        lines.append(line)
    return lines


def team_tag(view: dict[str, Any], w: Words, s: int) -> str:
    """Partners: seat `s`'s team (A: seats 0 and 2, B: seats 1 and 3) and, to
    a seat at the table, whether it is its partner; "" without teams. (A
    watcher's or the replay's words have no seat: no "partner" then.)"""
    if not view.get("teams"):
        return ""
    mine = w.seat is not None and w.seat >= 0 and s != w.seat and s % 2 == w.seat % 2
    return f"team {'AB'[s % 2]}" + (" (partner)" if mine else "")


def _whose(w: Words, seat: int, you: str, possessive: bool = False) -> str:
    """`you` ("You", "Your") when the text is told to `seat`, else its name ("Ann", "Ann's")."""
    if w.seat == seat:
        return you
    return w.name(seat) + ("'s" if possessive else "")


def _actions_block(view: dict[str, Any], legal: list[dict[str, Any]], w: Words, width: int) -> list[str]:
    if not legal:
        turn = view.get("turn")
        return [f"Waiting for {w.name(turn)}…"] if turn is not None else []
    entries = [f"{i:>2}  {action_label(a, view, w)}" for i, a in enumerate(legal, 1)]
    keys = "Type a number and Enter"
    d = decline_index(legal)
    if d is not None:
        keys += f" · d = {legal[d]['type']}"
    keys += " · ? help · q quit"
    return [w.bold("Your move:"), *columns(entries, width), keys]


def seat_tags(view: dict[str, Any], w: Words, s: int) -> list[str]:
    """What stands next to a seat's name: ONE CARD!, a standing Shield, an open
    last-card window, its match points."""
    out = []
    if s in (view.get("one_card") or []):
        out.append(w.bold("ONE CARD!"))
    if s in (view.get("shields") or []):
        out.append("Shield standing")
    for win in view.get("windows") or []:
        if win.get("seat") == s:
            out.append("last card: may call" if win.get("call") else "did not call: catch!")
    if view.get("mode") in ("match", "daily") and view.get("target"):
        out.append(f"{view['scores'][s]} points")
    return out


def last_play(view: dict[str, Any]) -> dict[str, Any] | None:
    """The `play` event that put the top card (or the tile) down, if it is the
    latest move of the round that the view's events tell (None otherwise)."""
    for e in reversed(view.get("events") or []):
        t = e.get("type")
        if t == "play":
            return e if e.get("card", e.get("tile")) is not None else None
        if t in ("deal", "flip", "round_end", "match_end", "game_over"):
            return None
    return None


def just_played(view: dict[str, Any], w: Words) -> str:
    """` (just played by Bot 2)` after the top card, when the latest play put it there."""
    e = last_play(view)
    if e is None or e.get("card") != view.get("top"):
        return ""
    return f" (just played by {w.name(e.get('seat'))})" if not w.you(e.get("seat")) else " (you just played it)"


def table_lines(view: dict[str, Any], w: Words) -> list[str]:
    """The middle of a Color Match table in words: whose turn and which way, the
    top card and active color, the Day & Night face, a waiting penalty pile,
    the Bomb fuse or the Midnight Clock, standing Shields, the ONE CARD banner,
    open last-card windows and the draw pile."""
    lines = []
    counts = view.get("counts") or []
    n = len(counts)
    turn = view.get("turn")
    one = sorted(view.get("one_card") or [])
    shields = sorted(view.get("shields") or [])
    if turn is not None and n and view.get("phase") != "over":
        direction = view.get("direction", 1)
        nxt = (turn + direction) % n
        way = "clockwise ↻" if direction == 1 else "counterclockwise ↺"
        lines.append(f"Turn: {w.bold(w.name(turn))} · play goes {way} · next: {w.name(nxt)}")
    lines.append(f"Top card: {w.card(view['top'])}{just_played(view, w)} · active color: "
                 f"{w.color_name(view.get('color'))}")
    if "face" in view:
        line = f"Face up: the {view['face'].upper()} side"
        if view.get("draw_far"):
            line += f" · the draw pile's top shows {w.card(view['draw_far'])} on its far side"
        lines.append(line)
    if view.get("pending"):
        kind = view.get("pending_kind")
        lines.append(
            w.bold(f"Penalty waiting: {plural(view['pending'], 'card')}")
            + (f" ({w.sym(kind)} pile)" if kind else "")
            + f" on {w.name(turn)}"
        )
    fuse = view.get("fuse")
    if fuse is not None:
        if "face" in view:  # a two-faced table: its fuse is the Midnight Clock
            lines.append(f"Midnight Clock: the table turns over in {plural(fuse, 'hand-off')}")
        else:
            lines.append(
                f"Bomb fuse: {plural(fuse, 'hand-off')} left, then it blasts "
                f"{plural(view.get('blast') or 4, 'card')} on the seat holding the turn"
            )
    if shields:
        lines.append("Shields standing: " + ", ".join(w.name(s) for s in shields))
    if one:
        lines.append(w.bold("*** ONE CARD: " + ", ".join(w.name(s) for s in one) + " ***"))
    for win in sorted(view.get("windows") or [], key=lambda x: x.get("seat", 0)):
        s = win.get("seat")
        if win.get("call"):
            lines.append(f"Last card: {w.verb(s, 'have', 'has')} one card and may call it")
        else:
            lines.append(f"Last card: {w.name(s)} did not call; others may catch")
    lines.append(f"Draw pile: {plural(view.get('draw_pile', 0), 'card')}")
    return lines


def render_table(
    view: dict[str, Any],
    legal: list[dict[str, Any]],
    palette_table: str | None = None,
    *,
    names: list[str] | None = None,
    color: bool = False,
    width: int = 80,
    recent: int = 5,
    watcher: bool = False,
) -> str:
    """The table as one seat sees it, in words, ending with its numbered legal actions.

    `view` is the seat's view (of any game: its `game` picks the words),
    `legal` its legal actions (numbered from 1 in this order),
    `palette_table` the table whose palette names the colors (default: the
    view's table). `names` gives each seat's name (default `You` / `Seat
    N`), `color` paints colors with ANSI codes, `width` wraps long lines,
    `recent` is how many events to tell. `watcher`: told to somebody else (a
    replay): "Ann's hand", not "Your hand", and no moves.
    """
    names = names or default_names(view)
    pieces = pieces_of(view.get("game"))
    table = palette_table or view.get("table")
    seat = view.get("seat", 0)
    w = Words(table, names, -1 if watcher else seat, color)
    return "\n".join(pieces.table_text(view, legal, w, width=width, recent=recent, watcher=watcher))


def _told(view: dict[str, Any], w: Words, recent: int) -> list[str]:
    """The last `recent` events of the view, under "Recent:"."""
    told = pieces_of(view.get("game")).events((view.get("events") or [])[-4 * recent :], w)
    if not (told and recent):
        return []
    return ["Recent:"] + ["  " + t for t in told[-recent:]]


def _card_table_text(view: dict[str, Any], legal: list[dict[str, Any]], w: Words, *, width: int, recent: int,
                     watcher: bool) -> list[str]:
    seat = view.get("seat", 0)
    turn = view.get("turn")
    far = {int(k): v for k, v in (view.get("far") or {}).items()}
    match = view.get("mode") in ("match", "daily") and view.get("target")

    title = f"{title_of(view.get('game') or default_game(), w.table)} table"
    if match:
        title += f" · round {view.get('round', 1)} · first to {view.get('target')}"
    lines = [w.bold(title)]

    for s, line in enumerate(_seat_lines(view, w, "card", lambda s: seat_tags(view, w, s))):
        lines.append(line)
        if s in far and s != seat:
            lines += wrap_items("        far side: ", [w.card(c) for c in far[s]], width)

    lines += table_lines(view, w)
    lines += _told(view, w, recent)

    shown = view.get("shown")
    if shown:
        lines += wrap_items(f"{_whose(w, seat, 'You')} saw {w.name(shown.get('seat'))}'s hand: ",
                            [w.card(c) for c in shown.get("hand", [])], width)

    hand = sorted(view.get("hand") or [], key=card_sort_key)
    lines += wrap_items(w.bold(f"{_whose(w, seat, 'Your', True)} hand ({plural(len(hand), 'card')}): "),
                        [w.card(c) for c in hand], width)
    if watcher:
        return lines

    if turn == seat and legal:
        phase = view.get("phase")
        if phase == "drawn" and view.get("drawn"):
            verb = "keep" if any(a.get("type") == "keep" for a in legal) else "pass"
            lines.append(f"You drew {w.card(view['drawn'])}: PLAY it now, or {verb.upper()} it.")
        elif phase == "challenge" and any(a.get("type") == "challenge" for a in legal):
            lines.append(f"A {w.sym('W+4')} waits on you: accept it, or challenge it if you think it was played "
                         "illegally.")
        elif phase == "challenge":  # a pile of +4s (stacking): no challenge
            lines.append(f"{w.sym('W+4')} cards wait on you: accept them, or stack one more.")
        elif phase == "color":
            lines.append("Name the active color.")
        elif phase == "pile":
            lines.append("A penalty pile waits on you: answer it with a matching card, or draw it.")
    lines += _actions_block(view, legal, w, width)
    return lines


def domino_lines(view: dict[str, Any], w: Words, width: int) -> list[str]:
    """The middle of a Dominoes table in words: whose turn, the line of tiles
    with its open ends, the boneyard."""
    counts = view.get("counts") or []
    n = len(counts)
    turn = view.get("turn")
    lines = []
    if turn is not None and n:
        lines.append(f"Turn: {w.bold(w.name(turn))} · next: {w.name((turn + 1) % n)}")
    line = view.get("line") or []
    if line:
        lines += _line_rows(line, width)
        ends = view.get("ends") or ["?", "?"]
        told = f"Open ends: left {ends[0]} · right {ends[1]}"
        e = last_play(view)
        if e is not None and e.get("tile"):  # the tile just played, on the same row (a big set's rows are few)
            who = "you" if w.you(e.get("seat")) else w.name(e.get("seat"))
            told += f" · just played: {tile_words(e['tile'])} by {who}"
        lines.append(told)
    else:
        lines.append("Line: empty; the round's lead tile opens it")
    lines.append(f"Boneyard: {plural(view.get('boneyard', 0), 'tile')}")
    return lines


def round_end_lines(e: dict[str, Any], w: Words, width: int, target: int | None = None) -> list[str]:
    """The screen of a Dominoes round that just ended (its `round_end` event):
    why it ended, who scored and how, then every seat's pips and rack."""
    pips = e.get("pips") or []
    hands = e.get("hands") or [[] for _ in pips]
    win = e.get("winner")
    points = e.get("points", 0)
    reason = e.get("reason")
    if win is None:
        low = min(pips, default=0)
        lines = [f"The line is blocked; {' and '.join(w.name(s) for s, p in enumerate(pips) if p == low)} tie "
                 f"on {plural(low, 'pip')}: nobody scores."]
    else:
        others = " + ".join(str(p) for s, p in enumerate(pips) if s != win) or "0"
        score = "score" if w.you(win) else "scores"
        if reason == "out":
            how = f"{w.verb(win, 'went', 'went')} out and {score}"
        else:
            how = f"The line is blocked; {w.verb(win, 'hold', 'holds')} the fewest pips ({pips[win]}) and {score}"
        lines = [f"{how} {points}: the pips left in the others' racks ({others})."]
    names = [w.name(s) for s in range(len(pips))]
    namew = max((len(x) for x in names), default=4)
    for s, p in enumerate(pips):
        tag = f"+{points}" if s == win else ""
        head = f"  {names[s]:<{namew}} {tag:>4} {p:>3} {'pip: ' if p == 1 else 'pips:'} "
        tiles = [tile_words(t) for t in (hands[s] if s < len(hands) else [])]
        lines += wrap_items(head, tiles, width, sep=" ") if tiles else [head + ("out" if s == win else "—")]
    scores = e.get("scores") or []
    told = [f"{names[s]} {p}" for s, p in enumerate(scores)]
    if target and told:
        told[-1] += f" (first to {target})"
    lines += wrap_items("Match points: ", told, width)
    return lines


LINE_ROWS = 4
"""The most rows the line of tiles takes; a longer line shows both ends and elides its middle."""


def _line_rows(line: list[str], width: int) -> list[str]:
    """The line of tiles wrapped to `width`, in at most `LINE_ROWS` rows: a
    long line (a double-twelve set's) keeps its two ends, which are what
    plays, and says how many tiles its middle holds."""
    head = f"Line ({plural(len(line), 'tile')}): "
    words = [tile_words(t) for t in line]
    rows = wrap_items(head, words, width, sep=" ")
    keep = len(words) // 2
    while len(rows) > LINE_ROWS and keep > 1:
        keep -= 1
        middle = f"… {len(words) - 2 * keep} more …"
        rows = wrap_items(head, [*words[:keep], middle, *words[-keep:]], width, sep=" ")
    return rows


def _tile_table_text(view: dict[str, Any], legal: list[dict[str, Any]], w: Words, *, width: int, recent: int,
                     watcher: bool) -> list[str]:
    seat = view.get("seat", 0)
    n = len(view.get("counts") or [])
    scores = view.get("scores") or [0] * n
    lines = [w.bold(f"{_tile_title(view, w.table)} points")]
    lines += _seat_lines(view, w, "tile", lambda s: [f"score {scores[s]}"])
    lines += domino_lines(view, w, width)
    lines += _told(view, w, recent)
    hand = view.get("hand") or []
    lines += wrap_items(
        w.bold(f"{_whose(w, seat, 'Your', True)} rack ({plural(len(hand), 'tile')}, {plural(view.get('pips', 0), 'pip')}): "),
        [tile_words(t) for t in hand],
        width,
        sep=" ",
    )
    if not watcher:
        lines += _actions_block(view, legal, w, width)
    return lines


def _tile_title(view: dict[str, Any], table: str | None) -> str:
    """`Dominoes · round 2 · first to 100`: the game's title (with the set
    where it is not the default one: `Dominoes · Double-nine`) and the match."""
    return (f"{title_of(view.get('game') or '', table)} · round {view.get('round', 1)}"
            f" · first to {view.get('target', 100)}")


# view keys the plain rendering does not list as the middle of the table
_PLAIN_OWN = ("seat", "hand", "counts", "turn", "to_act", "events", "outcome", "game", "table", "step", "players",
              "scores")


def plain_lines(view: dict[str, Any], w: Words) -> list[str]:
    """The middle of the table of a game the console does not know: whose
    turn, then each public value of the view (`Pile: 7`, `Stones: 3, 4`)."""
    lines = []
    turn = view.get("turn")
    if turn is not None:
        lines.append(f"Turn: {w.bold(w.name(turn))}")
    for key, value in view.items():
        if key in _PLAIN_OWN or isinstance(value, (bool, dict)) or value is None:
            continue
        if isinstance(value, list):
            if len(value) > 24 or any(isinstance(x, (list, dict)) for x in value):
                continue
            value = ", ".join(str(x) for x in value) or "none"
        lines.append(f"{key.replace('_', ' ').capitalize()}: {value}")
    return lines


def _plain_middle(view: dict[str, Any], w: Words, width: int) -> list[str]:
    return plain_lines(view, w)


def _plain_tags(view: dict[str, Any], w: Words, s: int) -> list[str]:
    scores = view.get("scores")
    return [f"score {scores[s]}"] if isinstance(scores, list) and s < len(scores) else []


def _plain_table_text(view: dict[str, Any], legal: list[dict[str, Any]], w: Words, *, width: int, recent: int,
                      watcher: bool) -> list[str]:
    seat = view.get("seat", 0)
    lines = [w.bold(f"{title_of(view.get('game') or '', w.table)} table")]
    lines += _seat_lines(view, w, "piece", lambda s: _plain_tags(view, w, s))
    lines += plain_lines(view, w)
    lines += _told(view, w, recent)
    hand = [str(x) for x in view.get("hand") or []]
    lines += wrap_items(w.bold(f"{_whose(w, seat, 'Your', True)} hand ({plural(len(hand), 'piece')}): "), hand, width)
    if not watcher:
        lines += _actions_block(view, legal, w, width)
    return lines


# ---------------------------------------------------------------- the end


def render_outcome(
    outcome: dict[str, Any],
    view: dict[str, Any],
    palette_table: str | None = None,
    *,
    names: list[str] | None = None,
    color: bool = False,
    width: int = 80,
) -> str:
    """The end of a game in words: who won, why, and the points per seat."""
    names = names or default_names(view)
    seat = view.get("seat", 0)
    pieces = pieces_of(view.get("game"))
    w = Words(palette_table or view.get("table"), names, seat, color)
    winners = outcome.get("winners") or []
    if not winners:
        head = "Nobody won: it is a draw."
    elif winners == [seat]:
        head = "You won!"
    elif len(winners) == 1:
        head = f"{w.name(winners[0])} won."
    else:
        head = "Shared win: " + " and ".join(w.name(s) for s in winners) + "."
    lines = [w.bold(pieces.over(view, outcome)), w.bold(head)]
    spec = _spec_of(view, palette_table)
    rule = getattr(spec, "scoring_rule", "")
    if rule:
        lines += wrap_items("Scoring: ", rule.split(" "), width, sep=" ")
    lines.append("Points:")
    points = outcome.get("points") or []
    hands = outcome.get("hands")
    namew = max((len(w.name(s)) for s in range(len(points))), default=4)
    worth = getattr(spec, "card_points", None)
    # a single round: each seat's points from the cards that made them (a match's are totals)
    held = ([sum(worth(c) for c in h) for h in hands]
            if worth is not None and hands is not None and len(hands) == len(points)
            and view.get("mode") not in ("match", "daily") else None)
    for s, p in enumerate(points):
        line = f"  {w.name(s):<{namew}}  {p:>4}"
        if held is not None:
            if getattr(spec, "each_seat_scores", False):
                line += f" = {sum(held)} held in all − {held[s]} own"
            elif p:
                line += " = what the others hold"
        if hands is not None and s < len(hands) and hands[s]:
            own = f" ({held[s]})" if held is not None else ""
            cards = [pieces.piece(c, w) for c in pieces.order(hands[s])]
            if held is not None:  # the sum on the seat's line, its cards below it
                lines.append(line)
                lines += wrap_items(f"      held{own}: ", cards, width - 2)
            else:
                lines += wrap_items(line + "   held: ", cards, width)
        else:
            lines.append(line)
    return "\n".join(lines)


def _spec_of(view: dict[str, Any], table: str | None) -> Any:
    """The table declaration of `view` (None for a game without named tables)."""
    g = GAMES.get(view.get("game") or default_game())
    name = view.get("table") or table
    return g.tables.get(name) if g is not None and name else None


# ---------------------------------------------------------------- each game's pieces


class Pieces:
    """How the console writes one kind of game: this base class is the plain
    rendering, for a game whose `pieces` the console does not know (its hand
    and its legal actions listed with their labels, every public value of the
    view). `CardPieces` and `TilePieces` write Color Match and dominoes."""

    unit = "piece"  # what a seat's count counts
    hand = "hand"  # what a seat holds
    compact = False  # a short form for a hand too big for its rows
    # words of the help page (`keymap.Key.help` says "{play}", "{draw}", ...)
    words = {"wild4": "+4", "piece": "piece", "play": "play it", "draw": "draw", "pass": "pass"}
    draws = ""  # what `d` draws, in "d draws …" ("" : nothing said)

    def moves(self, spec: Any) -> frozenset[str]:
        """The moves (action types and decisions) a table of this game may
        offer; the help lists the keys of these (`keymap.Key.needs`)."""
        return frozenset({"play", "draw", "pass"})

    def order(self, codes: list[Any]) -> list[Any]:
        """A hand in the order people see it."""
        return list(codes)

    def plays(self, code: Any, legal: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The legal plays of the piece `code`."""
        return [a for a in legal if a.get("type") == "play" and code in [v for k, v in a.items() if k != "type"]]

    def piece(self, code: Any, w: Words) -> str:
        """A piece in words."""
        return str(code)

    def chip(self, code: Any, w: Words, compact: bool) -> str:
        """A piece in the hand's row (the row adds brackets to a playable one)."""
        return self.piece(code, w)

    # the words of the table, each a function of this module:
    label = staticmethod(_plain_label)  # (action, view, words): one legal action
    events = staticmethod(_plain_events)  # (events, words): one line each
    middle = staticmethod(_plain_middle)  # (view, words, width): between the seats and the hand
    tags = staticmethod(_plain_tags)  # (view, words, seat): beside a seat's name
    table_text = staticmethod(_plain_table_text)  # (view, legal, words, width=, recent=, watcher=): all of it

    def title(self, view: dict[str, Any], table: str | None) -> str:
        """The title bar's name of the table."""
        return title_of(view.get("game") or "", table)

    def hand_note(self, view: dict[str, Any]) -> str:
        """Said after the hand's count (`, 31 pips`)."""
        return ""

    def play_title(self, what: str) -> str:
        """The title of the picker for a piece with several plays."""
        return f"Play {what}"

    def hotkey(self, action: dict[str, Any]) -> str:
        """A letter that picks `action` in that picker ("" : its number only)."""
        return ""

    def why_not(self, view: dict[str, Any], legal: list[dict[str, Any]], what: str, key) -> str:
        """Why the piece `what` cannot be played now; `key(does)` writes the key that does it."""
        return f"{what} cannot be played now; {key('moves')} lists your moves."

    def over(self, view: dict[str, Any], outcome: dict[str, Any]) -> str:
        """The first line of the outcome (the view's game and its `outcome`)."""
        return "Game over."



class CardPieces(Pieces):
    """Color Match: cards in words and shapes of their table's palette."""

    unit = "card"
    compact = True
    words = {"wild4": "+4", "piece": "card", "play": "play it", "draw": "draw (or take a penalty pile)", "pass": "pass"}
    draws = "a card"

    def moves(self, spec: Any) -> frozenset[str]:
        moves = {"play", "draw", "pass", "color", "drawn", getattr(spec, "decline", "keep")}
        if getattr(spec, "challenge", None):
            moves |= {"accept", "challenge"}
        if getattr(spec, "call", None):
            moves |= {"call", "catch"}
        return frozenset(moves)

    def order(self, codes: list[Any]) -> list[Any]:
        return sorted(codes, key=card_sort_key)

    def plays(self, code: Any, legal: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [a for a in legal if a.get("type") == "play" and a.get("card") == code]

    def piece(self, code: Any, w: Words) -> str:
        return w.card(code)

    label = staticmethod(_card_label)
    events = staticmethod(_card_events)
    middle = staticmethod(lambda view, w, width: table_lines(view, w))
    tags = staticmethod(seat_tags)
    table_text = staticmethod(_card_table_text)

    def title(self, view: dict[str, Any], table: str | None) -> str:
        title = title_of(view.get("game") or default_game(), table)
        if view.get("mode") == "daily":
            title += f" · daily deal {view.get('daily') or ''}".rstrip()
        if view.get("mode") in ("match", "daily") and view.get("target"):
            title += f" · round {view.get('round', 1)} · first to {view.get('target')}"
        return title

    def why_not(self, view: dict[str, Any], legal: list[dict[str, Any]], what: str, key) -> str:
        phase = view.get("phase")
        if phase == "pile":
            return f"A penalty pile waits on you: {what} cannot answer it. {key('draw')} draws it."
        w = Words(view.get("table"), [], -1)
        if phase == "drawn":
            verb = "keeps it" if any(a.get("type") == "keep" for a in legal) else "passes"  # (its table's word)
            return f"You drew {w.card(view.get('drawn') or '')}: {key('drawn')} plays it, {key('keep')} {verb}."
        if phase == "challenge":
            return f"A {w.sym('W+4')} waits on you: {key('accept')} accepts it, {key('challenge')} challenges it."
        if phase == "color":
            return f"Name the active color first ({key('color')})."
        top = w.card(view["top"]) if view.get("top") else "the top card"
        more = "pick a [bracketed] card" if any(a.get("type") == "play" for a in legal) else \
            f"{key('draw')} draws a card"
        return f"{what} does not match {top} (color {w.color_name(view.get('color'))}): {more}."

    def over(self, view: dict[str, Any], outcome: dict[str, Any]) -> str:
        # a blocked round without a winner (a table that draws it, or the lowest hands equal): no "lowest won"
        why = "went out" if outcome.get("reason") == "out" else \
            "blocked: nobody could move" + (", lowest points won" if outcome.get("winners") else "")
        return f"Game over ({why})."



class TilePieces(Pieces):
    """Dominoes: tiles as `[6|4]`, on a line with two open ends."""

    unit = "tile"
    hand = "rack"
    words = {"wild4": "+4", "piece": "tile", "play": "play it (then l/r: which end)", "draw": "draw from the boneyard",
             "pass": "pass (the boneyard is empty)"}
    draws = "from the boneyard"

    def plays(self, code: Any, legal: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [a for a in legal if a.get("type") == "play" and a.get("tile") == code]

    def piece(self, code: Any, w: Words) -> str:
        return tile_words(code)

    def chip(self, code: Any, w: Words, compact: bool) -> str:
        return tile_words(code)[1:-1]  # the chip's brackets are the tile's

    label = staticmethod(_tile_label)
    events = staticmethod(_tile_events)
    middle = staticmethod(domino_lines)
    tags = staticmethod(lambda view, w, s: [f"score {(view.get('scores') or [0] * len(view.get('counts') or []))[s]}"])
    table_text = staticmethod(_tile_table_text)

    def title(self, view: dict[str, Any], table: str | None) -> str:
        return _tile_title(view, table)

    def hand_note(self, view: dict[str, Any]) -> str:
        return f", {plural(view.get('pips', 0), 'pip')}"

    def play_title(self, what: str) -> str:
        return f"Play {what}: which end?"

    def hotkey(self, action: dict[str, Any]) -> str:
        return "l" if action.get("end") == "left" else "r"

    def why_not(self, view: dict[str, Any], legal: list[dict[str, Any]], what: str, key) -> str:
        ends = view.get("ends") or ["?", "?"]
        fits = len({a["tile"] for a in legal if a["type"] == "play"})
        if fits:  # (no draw or pass is offered while a tile plays)
            hint = f"{plural(fits, 'tile')} in brackets {'plays' if fits == 1 else 'play'}"
        elif any(a["type"] == "draw" for a in legal):
            hint = f"{key('draw')} draws from the boneyard"
        else:
            hint = f"{key('pass')} passes"
        return f"{what} fits neither open end ({ends[0]}, {ends[1]}); {hint}."

    def over(self, view: dict[str, Any], outcome: dict[str, Any]) -> str:
        why = "The last round ended with a domino." if outcome.get("reason") == "out" else "The last round was blocked."
        return f"Match over (first to {view.get('target', 100)} points). {why}"



PIECES: dict[str, Pieces] = {"cards": CardPieces(), "tiles": TilePieces()}
PLAIN = Pieces()


def pieces_of(game: str | None) -> Pieces:
    """How the console writes `game` (None: the first game registered): its
    declaration's `pieces` (`Game.pieces`), or the plain rendering for a game
    not registered here or whose kind of pieces the console does not know."""
    g = GAMES.get(game or default_game())
    return PIECES.get(g.pieces or "", PLAIN) if g is not None else PLAIN
