"""Views into words: the pure half of the console.

Everything here turns plain data (a seat's `view`, its legal actions, the
public events, an outcome) into text. Nothing reads the keyboard, the clock or
the screen, so every function is a unit-testable pure function.

Cards are always written in words with their palette's shape (`red ● 5`,
`Teal ▲ Toll 2`, `Wild`), never as codes, so color-blind players can play; with
``color=True`` the color words are also painted with ANSI colors. Only what the
view holds is ever shown: the view is already redacted by the engine, and this
module adds nothing to it.
"""

from __future__ import annotations

import math
import re
from typing import Any

from lanmatch.rules import title_of
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


class Words:
    """How one table speaks: its palette, the seats' names, color or not."""

    def __init__(
        self,
        table: str | None,
        names: list[str],
        seat: int,
        color: bool = False,
    ):
        self.table = table or "classic"
        self.pal = PALETTES.get(self.table, PALETTES["classic"])
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
        return PALETTES["classic"]["colors"].get(letter, (letter, "?"))

    def color_name(self, letter: str | None) -> str:
        """A color letter in words with its shape: `blue ■`."""
        if not letter:
            return "not named yet"
        name, shape = self._color_entry(letter)
        return self.paint(f"{name} {shape}", name)

    def card(self, code: str) -> str:
        """A card in words with its shape: `red ● 5`, `Wild`."""
        text = describe(code, self.table)
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
        elif cur_len + len(sep) + add <= width:
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
    """One legal action in words, e.g. `play Wild, name blue ■` or `catch Bot 2`."""
    t = action.get("type")
    phase = view.get("phase")
    if t == "play" and "tile" in action:
        tile = tile_words(action["tile"])
        ends = view.get("ends")
        if not ends:
            return f"play {tile} to open the line"
        if ends[0] == ends[1]:
            return f"play {tile} on the {ends[0]}"
        end = action.get("end", "left")
        pip = ends[0] if end == "left" else ends[1]
        return f"play {tile} on the {end} end ({pip})"
    if t == "play":
        text = "play " + words.card(action["card"])
        if "color" in action:
            text += ", name " + words.color_name(action["color"])
        if "swap_with" in action:
            text += ", swap hands with " + words.name(action["swap_with"])
        if phase == "drawn" and view.get("drawn") == action["card"]:
            text += " (the card you drew)"
        return text
    if t == "draw":
        if view.get("game") == "dominoes":
            return "draw from the boneyard"
        if phase == "pile" and view.get("pending"):
            return f"draw the {plural(view['pending'], 'penalty card')}"
        return "draw a card"
    if t == "pass":
        if view.get("game") == "dominoes":
            return "pass (the boneyard is empty)"
        if phase == "drawn":
            return "pass (keep the card you drew)"
        return "pass (nothing left to draw)"
    if t == "keep":
        return "keep the card you drew"
    if t == "accept":
        return f"accept the +4 (draw {view.get('pending') or 4})"
    if t == "challenge":
        return "challenge the +4"
    if t == "call":
        return "call last card"
    if t == "catch":
        return f"catch {words.name(action.get('seat'))} (they draw 2)"
    if t == "color":
        return "name " + words.color_name(action.get("color"))
    return str(t)


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
        return f"{w.name(s)} accepted the +4 and drew {count}{shown}"
    if t == "challenge":
        of = e.get("of")
        if e.get("won"):
            return f"{w.name(s)} challenged {w.name(of)}'s +4 and won: {w.name(of)} drew {count}{shown}"
        return f"{w.name(s)} challenged {w.name(of)}'s +4 and lost, and drew {count}{shown}"
    if t == "color":
        return f"{w.name(s)} named {w.color_name(e.get('color'))}"
    if t == "keep":
        return f"{w.name(s)} kept the card drawn"
    if t == "pass":
        return f"{w.name(s)} passed"
    if t == "skipped":
        return f"{w.verb(s, 'were', 'was')} skipped"
    if t == "reverse":
        return "Reverse: play now goes " + ("clockwise ↻" if e.get("direction", 1) == 1 else "counterclockwise ↺")
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
        return f"{w.name(s)} passed (no {ends[0]} or {ends[1]})"
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
    game: str = "colormatch",
) -> list[str]:
    """Public events in words, one line each, oldest first.

    Cards drawn as a penalty are told once, with the reason ("Bot 1 takes 2
    penalty cards"), not as a bare draw; a run of Dominoes draws by one seat
    is folded into one line.
    """
    w = Words(palette_table, names, seat, color)
    out: list[str] = []
    if game == "dominoes":
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


# ---------------------------------------------------------------- the table


def _seat_lines(view: dict[str, Any], w: Words, unit: str, extras_of) -> list[str]:
    counts = view.get("counts") or []
    turn = view.get("turn")
    namew = max((len(w.name(s)) for s in range(len(counts))), default=4)
    lines = []
    for s, cnt in enumerate(counts):
        mark = "▶" if s == turn else " "
        line = f"  {mark} {w.name(s):<{namew}}  {cnt:>2} {unit if cnt == 1 else unit + 's'}"
        extras = extras_of(s)
        if extras:
            line += "   " + "  ".join(extras)
        lines.append(line)
    return lines


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
    lines.append(f"Top card: {w.card(view['top'])} · active color: {w.color_name(view.get('color'))}")
    if "face" in view:
        line = f"Face up: the {view['face'].upper()} side"
        if view.get("draw_far"):
            line += f" · the draw pile's top shows {w.card(view['draw_far'])} on its far side"
        lines.append(line)
    if view.get("pending"):
        kind = view.get("pending_kind")
        lines.append(
            w.bold(f"Penalty waiting: {plural(view['pending'], 'card')}")
            + (f" ({kind} pile)" if kind else "")
            + f" on {w.name(turn)}"
        )
    fuse = view.get("fuse")
    if fuse is not None:
        if view.get("table") == "daynight" or "face" in view:
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

    `view` is the seat's view (Color Match or Dominoes), `legal` its legal
    actions (numbered from 1 in this order), `palette_table` the table whose
    palette names the colors (default: the view's table). `names` gives each
    seat's name (default `You` / `Seat N`), `color` paints colors with ANSI
    codes, `width` wraps long lines, `recent` is how many events to tell.
    `watcher`: told to somebody else (a replay): "Ann's hand", not "Your
    hand", and no moves.
    """
    names = names or default_names(view)
    if view.get("game") == "dominoes":
        return _render_dominoes(view, legal, names=names, color=color, width=width, recent=recent, watcher=watcher)
    table = palette_table or view.get("table") or "classic"
    seat = view.get("seat", 0)
    w = Words(table, names, -1 if watcher else seat, color)
    turn = view.get("turn")
    far = {int(k): v for k, v in (view.get("far") or {}).items()}
    match = view.get("mode") in ("match", "daily") and view.get("target")

    title = f"{title_of(view.get('game') or 'colormatch', table)} table"
    if match:
        title += f" · round {view.get('round', 1)} · first to {view.get('target')}"
    lines = [w.bold(title)]

    for s, line in enumerate(_seat_lines(view, w, "card", lambda s: seat_tags(view, w, s))):
        lines.append(line)
        if s in far and s != seat:
            lines += wrap_items("        far side: ", [w.card(c) for c in far[s]], width)

    lines += table_lines(view, w)

    told = describe_events((view.get("events") or [])[-4 * recent :], table, names=names, seat=w.seat, color=color)
    if told and recent:
        lines.append("Recent:")
        lines += ["  " + t for t in told[-recent:]]

    shown = view.get("shown")
    if shown:
        lines += wrap_items(f"{_whose(w, seat, 'You')} saw {w.name(shown.get('seat'))}'s hand: ",
                            [w.card(c) for c in shown.get("hand", [])], width)

    hand = sorted(view.get("hand") or [], key=card_sort_key)
    lines += wrap_items(w.bold(f"{_whose(w, seat, 'Your', True)} hand ({plural(len(hand), 'card')}): "),
                        [w.card(c) for c in hand], width)
    if watcher:
        return "\n".join(lines)

    if turn == seat and legal:
        phase = view.get("phase")
        if phase == "drawn" and view.get("drawn"):
            verb = "keep" if any(a.get("type") == "keep" for a in legal) else "pass"
            lines.append(f"You drew {w.card(view['drawn'])}: PLAY it now, or {verb.upper()} it.")
        elif phase == "challenge":
            lines.append("A +4 waits on you: accept it, or challenge it if you think it was played illegally.")
        elif phase == "color":
            lines.append("Name the active color.")
        elif phase == "pile":
            lines.append("A penalty pile waits on you: answer it with a matching card, or draw it.")
    lines += _actions_block(view, legal, w, width)
    return "\n".join(lines)


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
        lines += wrap_items(f"Line ({plural(len(line), 'tile')}): ", [tile_words(t) for t in line], width, sep=" ")
        ends = view.get("ends") or ["?", "?"]
        lines.append(f"Open ends: left {ends[0]} · right {ends[1]}")
    else:
        lines.append("Line: empty; the round's lead tile opens it")
    lines.append(f"Boneyard: {plural(view.get('boneyard', 0), 'tile')}")
    return lines


def _render_dominoes(
    view: dict[str, Any],
    legal: list[dict[str, Any]],
    *,
    names: list[str],
    color: bool,
    width: int,
    recent: int,
    watcher: bool = False,
) -> str:
    seat = view.get("seat", 0)
    w = Words(None, names, -1 if watcher else seat, color)
    n = len(view.get("counts") or [])
    scores = view.get("scores") or [0] * n
    lines = [w.bold(f"Dominoes · round {view.get('round', 1)} · first to {view.get('target', 100)} points")]
    lines += _seat_lines(view, w, "tile", lambda s: [f"score {scores[s]}"])
    lines += domino_lines(view, w, width)
    told = describe_events((view.get("events") or [])[-4 * recent :], names=names, seat=w.seat, color=color, game="dominoes")
    if told and recent:
        lines.append("Recent:")
        lines += ["  " + t for t in told[-recent:]]
    hand = view.get("hand") or []
    lines += wrap_items(
        w.bold(f"{_whose(w, seat, 'Your', True)} rack ({plural(len(hand), 'tile')}, {plural(view.get('pips', 0), 'pip')}): "),
        [tile_words(t) for t in hand],
        width,
        sep=" ",
    )
    if not watcher:
        lines += _actions_block(view, legal, w, width)
    return "\n".join(lines)


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
    domino = view.get("game") == "dominoes"
    table = palette_table or view.get("table") or "classic"
    w = Words(None if domino else table, names, seat, color)
    winners = outcome.get("winners") or []
    if not winners:
        head = "Nobody won: it is a draw."
    elif winners == [seat]:
        head = "You won!"
    elif len(winners) == 1:
        head = f"{w.name(winners[0])} won."
    else:
        head = "Shared win: " + " and ".join(w.name(s) for s in winners) + "."
    reason = outcome.get("reason")
    if domino:
        why = "The last round ended with a domino." if reason == "out" else "The last round was blocked."
        title = f"Match over (first to {view.get('target', 100)} points). {why}"
    else:
        why = "went out" if reason == "out" else "blocked: nobody could move, lowest points won"
        title = f"Game over ({why})."
    lines = [w.bold(title), w.bold(head), "Points:"]
    points = outcome.get("points") or []
    hands = outcome.get("hands")
    namew = max((len(w.name(s)) for s in range(len(points))), default=4)
    for s, p in enumerate(points):
        line = f"  {w.name(s):<{namew}}  {p:>4}"
        if hands is not None and s < len(hands) and hands[s]:
            lines += wrap_items(line + "   held: ", [w.card(c) for c in sorted(hands[s], key=card_sort_key)], width)
        else:
            lines.append(line)
    return "\n".join(lines)
