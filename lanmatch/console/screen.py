"""The full-screen console drawn from a `Console` (pure: no terminal).

How this works. `render_screen(ui, now, width, height)` returns the whole
screen as `height` lines of `(style, text)` fragments, the format
prompt_toolkit's `FormattedTextControl` takes, overlays (help, a picker, a
password field, "leave?") already drawn on top. `screen_text(lines)` turns it
into plain text for tests. Every word comes from `render.py` (cards, actions,
events, the table's middle, the outcome), written with ANSI colors and turned
into fragments here (`ansi_fragments`), so the line-mode console and this one
say the same things.

Styles are prompt_toolkit style strings (`fg:ansired`, `bold`, `reverse`) and
a few classes (`class:title`, `class:sel`, ...) that `app.py` defines. With
`NO_COLOR` set prompt_toolkit drops the colors and keeps bold and reverse;
every card keeps its words and its shape, so nothing depends on color.

Layout of the table (80x24 and up): title bar, seats (with turn clocks,
connection state, ONE CARD, Shields, Day & Night far faces), the middle of
the table, the log of recent moves (it takes the rows left over), your hand
as cards (playable ones in [brackets], the selected one reversed with ▶),
what you are asked to do, the keys that work now, and a message line.
"""

from __future__ import annotations

import math
import re
import textwrap
from typing import Any

from lanmatch.console import keymap
from lanmatch.console.chat import watchers_line
from lanmatch.console.model import (
    LEAVING_FEE_PERCENT,
    Console,
    RoomForm,
    coins_words,
    leaving_fee,
    option_title,
    options_on,
)
from lanmatch.console.render import (
    Words,
    card_sort_key,
    palette_of,
    plural,
    render_outcome,
    round_end_lines,
    shown,
    team_tag,
    wrap_items,
)
from lanmatch.rules import GAMES, game_title, title_of
from lanmatch.rules.cards import describe

Frag = tuple[str, str]
Line = list[Frag]

_SGR = re.compile(r"\x1b\[([0-9;]*)m")
_SGR_STYLE = {
    "1": "bold",
    "31": "fg:ansired",
    "91": "fg:ansibrightred",
    "33": "fg:ansiyellow",
    "32": "fg:ansigreen",
    "94": "fg:ansibrightblue",
    "95": "fg:ansibrightmagenta",
    "36": "fg:ansicyan",
    "38;5;208": "fg:#ff8700",
    "35": "fg:ansimagenta",
}
SHORT_SYMBOLS = {
    "Reverse": "Rev",
    "Bypass": "Byp",
    "Shield": "Shld",
    "Turnover": "Turn",
    "All Pass": "AllP",
    "+4 Wild": "+4W",
    "Midnight Clock": "Clock",
    "Color Hunt": "Hunt",
    "Toll 2": "T2",
    "Toll 4": "T4",
}
TIMER_WORDS = {"move": "", "keep": "keep ", "call": "call ", "catch": "catch ", "autopilot": "autopilot "}


# ------------------------------------------------------------------ fragments


def ansi_fragments(text: str, base: str = "") -> Line:
    """Text painted by `render.Words` (ANSI SGR codes) as fragments with `base` added."""
    out: Line = []
    cur = ""
    pos = 0
    for m in _SGR.finditer(text):
        if m.start() > pos:
            out.append((f"{base} {cur}".strip(), text[pos : m.start()]))
        code = m.group(1)
        cur = "" if code in ("", "0") else f"{cur} {_SGR_STYLE.get(code, '')}".strip()
        pos = m.end()
    if pos < len(text):
        out.append((f"{base} {cur}".strip(), text[pos:]))
    return out


def line_len(line: Line) -> int:
    return sum(len(t) for _s, t in line)


def cut(line: Line, width: int) -> Line:
    """`line` cut to `width` columns (an ellipsis marks the cut)."""
    if line_len(line) <= width:
        return line
    out: Line = []
    room = width - 1
    for style, text in line:
        if room <= 0:
            break
        out.append((style, text[:room]))
        room -= len(text[:room])
    out.append(("", "…"))
    return out


def wrap(line: Line, width: int, indent: int = 3) -> list[Line]:
    """`line` wrapped at its spaces into rows of at most `width` columns, the
    rows after the first indented by `indent` (a word longer than a row is
    split). Nothing is cut off."""
    if line_len(line) <= width:
        return [line]
    cells = _cells(line)
    rows: list[Line] = []
    lead: list[Frag] = []
    while cells:
        room = width - len(lead)
        if len(cells) <= room:
            rows.append(_group(lead + cells))
            break
        at = next((k for k in range(room, 0, -1) if cells[k][1] == " "), room)
        rows.append(_group(lead + cells[:at]))
        cells = cells[at:]
        while cells and cells[0][1] == " ":
            cells = cells[1:]
        lead = [("", " ")] * min(indent, max(0, width // 2))
    return rows


def pad(line: Line, width: int, style: str = "") -> Line:
    line = cut(line, width)
    n = line_len(line)
    return [*line, (style, " " * (width - n))] if n < width else line


def screen_text(lines: list[Line]) -> str:
    """The screen as plain text (what a terminal shows, without styles)."""
    return "\n".join("".join(t for _s, t in line).rstrip() for line in lines)


def _cells(line: Line) -> list[Frag]:
    return [(s, ch) for s, t in line for ch in t]


def _group(cells: list[Frag]) -> Line:
    out: Line = []
    for s, ch in cells:
        if out and out[-1][0] == s:
            out[-1] = (s, out[-1][1] + ch)
        else:
            out.append((s, ch))
    return out


def _plain(text: str, style: str = "") -> Line:
    return [(style, text)]


def short_card(code: str, table: str | None) -> str:
    """A card in few letters, its shape kept: `●5`, `◆Skip`, `+4W` (in the palette of `table`)."""
    words = describe(code, palette_of(table))
    if code[0] == "W":
        return SHORT_SYMBOLS.get(words, words)
    name, shape, sym = words.split(" ", 2)
    return shape + SHORT_SYMBOLS.get(sym, sym)


def _paint_short(code: str, w: Words) -> str:
    text = short_card(code, w.table)
    if code[0] == "W":
        return w.bold(text)
    return w.paint(text, w.color_word(code[0]))


def _flow(chips: list[Line], width: int, indent: str = " ") -> list[Line]:
    """Chips laid out left to right, wrapped at `width`."""
    lines: list[Line] = []
    cur: Line = [("", indent)]
    n = len(indent)
    for chip in chips:
        k = line_len(chip)
        if n + k > width and n > len(indent):
            lines.append(cur)
            cur, n = [("", indent)], len(indent)
        cur = [*cur, *chip, ("", " ")]
        n += k + 1
    lines.append(cur)
    return lines


def _rule(title: str, width: int) -> Line:
    head = f"── {title} " if title else ""
    return [("class:rule", (head + "─" * width)[: max(0, width - 1)])]


def _title(left: str, right: str, width: int) -> Line:
    if len(left) + len(right) + 3 > width and len(right) < width - 8:  # the right side (the state) stays whole
        left = left[: max(0, width - len(right) - 4)] + "…"
    gap = max(1, width - len(left) - len(right) - 2)
    text = f" {left}{' ' * gap}{right} "
    return [("class:title", text[:width].ljust(width))]


def _everywhere(ui: Console) -> str:
    """The title bar's keys: those of every screen (`? help · q quit`)."""
    return " · ".join(k.bar_text(ui) for k in keymap.KEYS if keymap.everywhere(k))


def _secs(left: float) -> str:
    return f"{left:.0f} s" if left < 100 else f"{int(left // 60)} min {int(left % 60):02d} s"


MARK = 3  # the columns before a list's first column: " ▶ "


def grid(heads: list[tuple[str, str, int]], rows: list[list[str]], width: int) -> tuple[str, list[str]]:
    """A list laid out in columns that never run together: `(header, row
    texts)`, each after `MARK` columns. `heads` are `(title, align, least)`:
    `align` `<` or `>`, `least` the width a column may shrink to (0: never).
    Each column is as wide as its widest cell, two spaces apart; when that
    is wider than `width`, the columns that may shrink do (their cells cut
    with "…"), the widest first, then the last columns are left out whole."""
    widths = [max([len(h), *(len(r[k]) for r in rows)]) for k, (h, _a, _l) in enumerate(heads)]
    least = [min(w, low) if low else w for w, (_h, _a, low) in zip(widths, heads, strict=True)]
    n = len(heads)

    def total(k: int) -> int:
        return MARK + sum(widths[:k]) + 2 * (k - 1)

    while n > 1 and total(n) > width:  # bounded: each turn takes a column's character, or a column, away
        give = [k for k in range(n) if widths[k] > least[k]]
        if give:
            widths[max(give, key=lambda k: widths[k])] -= 1
        else:
            n -= 1

    def cell(text: str, k: int) -> str:
        w = widths[k]
        text = text if len(text) <= w else text[: max(0, w - 1)] + "…"
        return f"{text:{heads[k][1]}{w}}"

    head = " " * MARK + "  ".join(cell(h, k) for k, (h, _a, _l) in enumerate(heads[:n]))
    return head.rstrip(), ["  ".join(cell(r[k], k) for k in range(n)) for r in rows]


# ------------------------------------------------------------------ the table


def _seat_block(ui: Console, w: Words, now: float, width: int, far_room: bool) -> list[Line]:
    v = ui.view or {}
    counts = v.get("counts") or []
    seats = (ui.room or {}).get("seats") or []
    timers = {}
    for t in ui.timers_now(now):
        timers.setdefault(t["seat"], t)
    auto = set((ui.msg or {}).get("autopilot") or [])
    turn = v.get("turn") if v.get("outcome") is None else None
    pieces = ui.pieces()
    unit = pieces.unit
    far = {int(k): x for k, x in (v.get("far") or {}).items()}
    names = [w.name(s) for s in range(len(counts))]
    namew = min(max((len(x) for x in names), default=4), 22)
    lines = []
    for s, cnt in enumerate(counts):
        me = s == ui.seat
        style = "class:turn" if s == turn else ""
        mark = "▶" if s == turn else " "
        line: Line = [(style, f" {mark} {names[s][:namew]:<{namew}} {cnt:>2} {unit if cnt == 1 else unit + 's'}")]
        tags = pieces.tags(v, w, s)
        team = team_tag(v, w, s)
        if team:
            tags.insert(0, team)
        info = seats[s] if s < len(seats) else {}
        if info.get("left"):
            tags.append("left, a bot plays")
        elif info.get("kind") in ("person", "bot") and not info.get("connected", True):  # (a bot node's connection too)
            tags.append("away")
        if s in auto:
            tags.append("autopilot")
        t = timers.get(s) if v.get("outcome") is None else None
        if t is not None and t["kind"] != "autopilot":
            tags.append(w.bold(f"{TIMER_WORDS.get(t['kind'], '')}{_secs(t['left'])}") if me else
                        f"{TIMER_WORDS.get(t['kind'], '')}{_secs(t['left'])}")
        for tag in tags:
            line += [("", "  ")] + ansi_fragments(tag, "class:tag")
        if s in far and s != ui.seat and far_room:
            faces = sorted(far[s], key=card_sort_key)
            room = width - line_len(line) - 8
            chips: list[str] = []
            used = 0
            letter = None
            for k, code in enumerate(faces):
                text = short_card(code, w.table)
                if code[0] != "W" and code[0] != letter:  # each color's faces after its name
                    letter = code[0]
                    text = w.color_word(letter) + " " + text
                    chip = w.paint(w.color_word(letter), w.color_word(letter)) + " " + _paint_short(code, w)
                else:
                    chip = _paint_short(code, w)
                if used + len(text) + 1 > room - 4 and k < len(faces) - 1:
                    chips.append(f"+{len(faces) - k}")
                    break
                chips.append(chip)
                used += len(text) + 1
            line += [("class:dim", "  far: ")] + ansi_fragments(" ".join(chips))
        lines.append(cut(line, width))
    return lines


def _hand_block(ui: Console, w: Words, width: int, budget: int, most: int) -> tuple[Line, list[Line]]:
    """The hand's header and rows: in words within `budget` rows, else short
    (where the game has a short form), else up to `most` rows; what still
    does not fit, the rows around the selection, the others counted."""
    items = ui.hand()
    pieces = ui.pieces()
    playable = sum(1 for i in items if i.playable)
    if ui.seat is None:
        return _rule("Spectating", width), []
    head = f"Your {pieces.hand}: {plural(len(items), pieces.unit)}{pieces.hand_note(ui.view or {})}"
    if ui.legal and items:
        head += f", {playable} playable [in brackets]"
    sel = ui.sel if items else -1

    painted = Words(w.table, w.names, w.seat, True)

    def chips(compact: bool) -> list[Line]:
        out = []
        for k, item in enumerate(items):
            text = _paint_short(item.code, painted) if compact else pieces.chip(item.code, painted, compact)
            body = f"[{text}]" if item.playable else f" {text} "
            if k == sel:
                chip = [("class:sel", "▶")] + ansi_fragments(body, "class:sel")
            else:
                chip = [("class:num", str(k + 1))] + ansi_fragments(body, "" if item.playable else "class:dim")
            out.append(chip)
        return out

    lines = _flow(chips(False), width)
    if len(lines) > budget and pieces.compact:
        lines = _flow(chips(True), width)
    budget = max(budget, min(most, len(lines)))
    if len(lines) > budget:  # still too many: the rows around the selection
        row = 0
        count = 0
        for r, line in enumerate(lines):
            count += sum(1 for s, t in line if t == "▶" and "class:sel" in s)
            if count:
                row = r
                break
        start = max(0, min(row - budget // 2, len(lines) - budget))
        hidden = sum(1 for line in lines[:start] + lines[start + budget:] for s, t in line if "class:num" in s)
        lines = lines[start : start + budget]
        head += f" · {hidden} more: ←→"  # (the selection moves onto them)
    return _rule(head, width), [cut(x, width) for x in lines]


def _countdown(ui: Console, deal_now: str, later: str) -> Line:
    """A room that deals by itself: its director reads how to deal now and
    when it deals; everyone else, when."""
    return _plain(f" {deal_now}; {later}." if ui.may_direct() else f" {later[:1].upper()}{later[1:]}.", "bold")


def _outcome_block(ui: Console, now: float, width: int) -> list[Line]:
    v = ui.view or {}
    text = render_outcome(ui.outcome or {}, v, ui.table, names=ui.outcome_names(), color=True, width=width - 2)
    lines = [ansi_fragments(" " + x) for x in text.splitlines()]
    stand = ui.standing()
    room = ui.room or {}
    if stand is not None and room.get("games", 0) >= 1:
        wins, points = stand
        names = ui.names()
        parts = []
        for s in range(min(len(names), len(wins))):
            x = wins[s]
            won = f"{x:g}" if x == int(x) else f"{x:.2f}"
            parts.append(f"{names[s]} {won} won, {points[s]} pts")
        games = room.get("games", 1)
        lines.append(_plain(f" This room after {plural(games, 'game')}: " + " · ".join(parts), "bold"))
    lines += [_plain(" " + x, "bold") for x in tournament_lines(room, width - 2, ui.as_name)]
    deals_in = ui.deals_in(now)
    if deals_in is not None:  # a room that deals by itself
        lines.append(_countdown(ui, f"{keymap.key_name('rematch')} deals it now",
                                f"the next game is dealt in {math.ceil(deals_in)} s"))
    elif ui.may_direct():
        again = "the same daily deal again" if (ui.view or {}).get("mode") == "daily" else "same seats, a new deal"
        lines.append(_plain(f" {keymap.key_name('rematch')} deals a rematch ({again}).", "bold"))
    else:
        lines.append(_plain(f" Waiting for {ui.director_name()} to deal a rematch…"))
    return [row for x in lines for row in wrap(x, width)]


def _log_block(ui: Console, width: int, rows: int) -> list[Line]:
    """The move history: its rule, then `rows` rows ending `ui.log_back`
    lines before the latest, each line wrapped (never cut)."""
    ui.log_page = rows
    back = ui.log_scroll()
    end = len(ui.log) - back
    out: list[Line] = []
    k = end - 1
    while k >= 0 and len(out) < rows:
        text = ui.log[k]
        style = "bold" if text.startswith("You ") else ""
        out = wrap(_plain(" " + text, style), width) + out
        k -= 1
    first_shown = k + 1
    out = out[-rows:]
    if back:
        keys = f"{keymap.key_name('log_back')}/{keymap.key_name('log_forward')}"
        title = f"Moves {first_shown + 1}-{end} of {len(ui.log)}, scrolled back ({keys} or [ ])"
    else:
        title = f"Recent moves ({keymap.key_name('log_back')} or [ scrolls back)" if k >= 0 else "Recent moves"
    return [_rule(title, width), *out, *([[]] * (rows - len(out)))]


def table_screen(ui: Console, now: float, width: int, height: int) -> list[Line]:
    v = ui.view or {}
    names = ui.outcome_names()  # (a game that ended: its seats as they were, whoever sits there since)
    w = Words(ui.table, names, ui.seat if ui.seat is not None else -1, True)
    pieces = ui.pieces()
    room = ui.room or {}
    title = pieces.title({"game": ui.game, **v}, ui.table)
    if room.get("name"):
        title += f" · {room['name']}"
    if room.get("stake"):
        title += f" · pot {room['pot']:,}" if room.get("pot") else f" · stake {room['stake']:,}"
    right = ui.status_text(now) or (f"{coins_words(ui.balance)} · {_everywhere(ui)}" if ui.balance is not None else _everywhere(ui))
    top: list[Line] = [_title(title, right, width)]
    if ui.banner:
        top.append(cut(_plain(" " + ui.banner, "class:dim"), width))
    top += _seat_block(ui, w, now, width, far_room=True)
    top += _watchers(ui, width)
    middle = pieces.middle(v, w, width - 2)
    for text in middle:
        style = "class:warn" if text.startswith(("Penalty", "Bomb", "Midnight", "*** ONE")) else ""
        top += wrap(ansi_fragments(" " + text, style), width)
    shown = v.get("shown")
    if shown:
        cards = " · ".join(w.card(c) for c in shown.get("hand", []))
        top += wrap(ansi_fragments(f" You saw {w.name(shown.get('seat'))}'s hand: {cards}"), width)

    bottom: list[Line] = []
    over = ui.outcome is not None
    if over:
        block = _outcome_block(ui, now, width)
    else:
        hand_budget = max(1, min(4, (height - len(top) - 6) // 2))  # shared with the log
        most = max(hand_budget, min(4, height - len(top) - 5))  # ... which gives way before a card is hidden
        head, hand = _hand_block(ui, w, width, hand_budget, most)
        block = [head, *hand]
        bottom.append(cut(_plain(" " + ui.prompt_line(now), "class:prompt"), width))
    bottom.append(cut(_plain(" " + ui.keys_line(width - 2, now), "class:keys"), width))
    bottom.append(cut(_plain(" " + ui.message, "class:msg"), width))
    rows_left = height - len(top) - len(block) - len(bottom)
    log_rows = rows_left - 1
    log = _log_block(ui, width, log_rows) if log_rows >= 1 else []
    lines = top + log + block + bottom
    if len(lines) > height:  # a small terminal: keep the top and the bottom
        keep_bottom = len(block) + len(bottom)
        lines = lines[: max(0, height - keep_bottom)] + (block + bottom)[-min(keep_bottom, height) :]
    return lines


# ------------------------------------------------------------------ before the table


def tournament_lines(room: dict[str, Any], width: int, me: str | None = None) -> list[str]:
    """The room's tournament, if any: where it stands and its standings,
    wrapped (`Tournament Friday: match 2 of 5 · 1. You 5 · 2. Bot 1 (easy) 3`;
    `me`, the name this console plays under, reads "You")."""
    t = room.get("tournament")
    if not isinstance(t, dict):
        return []
    state = "over: final standings" if t.get("over") else f"{t.get('played', 0)} of {t.get('matches', '?')} played"
    rows = [f"{k + 1}. {'You' if me is not None and x.get('name') == me else x.get('name')} {x.get('points')}"
            for k, x in enumerate(t.get("standings") or [])]
    return textwrap.wrap(f"Tournament {t.get('name')}: {state}" + "".join(" · " + r for r in rows), width,
                         subsequent_indent="  ")


def waiting_screen(ui: Console, now: float, width: int, height: int) -> list[Line]:
    room = ui.room or {}
    game = title_of(room.get("game", ""), room.get("table"))
    table = ""
    clock = room.get("clock")
    head = f"Room {room.get('name', '?')} · {game}{' · ' + table if table else ''}"
    lines = [_title(head, ui.status_text(now) or _everywhere(ui), width)]
    if ui.banner:
        lines.append(cut(_plain(" " + ui.banner, "class:dim"), width))
    lines.append([])
    lines += [_plain(" " + x, "bold") for x in tournament_lines(room, width - 2, ui.as_name)]
    info = f" {plural(len(room.get('seats') or []), 'seat')}"
    if clock:
        info += f" · move clock {clock:g} s"
    info += f" · {room.get('mode', 'single')}"
    if room.get("password"):
        info += " · password"
    info += f" · empty seats get {room.get('bots', 'medium')} bots"
    lines.append(_plain(info))
    chosen = options_on(str(room.get("game", "")), room.get("options"))
    if chosen:
        lines.append(cut(_plain(" House options: " + ", ".join(chosen)), width))
    if room.get("stake"):
        lines.append(_plain(f" A coin room: every seat posts {coins_words(room['stake'])} at each deal; the winner"
                            " takes the pot."))
    elif ui.kind == "join":  # quick play's room is never a coin room: it says nothing of coins
        lines.append(_plain(" A practice room: no coins move.", "class:dim"))
    if ui.kind == "join":
        lines.append(_plain(" " + ui.account_line(), "class:dim"))
    lines.append([])
    for s in room.get("seats") or []:
        me = s.get("seat") == ui.seat
        if s.get("kind") == "empty":
            level = str(room.get("bots", "medium"))
            who, what = "(empty)", f"{'an' if level[:1] in 'aeiou' else 'a'} {level} bot sits here at the start"
        else:
            who = "You" if me else str(s.get("name"))
            what = s.get("kind", "")
            if s.get("left"):
                what += ", left: a bot plays"
            elif not s.get("connected", True):
                what += ", away"
            if room.get("creator") == s.get("seat"):
                what += ", creator"
        lines.append(cut(_plain(f"  {s.get('seat')}  {who:<22} {what}", "bold" if me else ""), width))
    lines += _watchers(ui, width)
    lines.append([])
    if room.get("state") == "playing":
        lines.append(_plain(" The game is being dealt…"))
    elif ui.watching:
        lines.append(_plain(" You are watching this room."))
    elif (deals_in := ui.deals_in(now)) is not None:  # a room that deals by itself
        lines.append(_countdown(ui, f"Press {keymap.key_name('start', 'waiting')} to start now",
                                f"it deals itself in {math.ceil(deals_in)} s, bots in the empty seats"))
    elif ui.may_direct():
        empty = any(isinstance(x, dict) and x.get("kind") == "empty" for x in room.get("seats") or [])
        tail = ": the empty seats get bots." if empty else "."  # (every seat taken: no bot comes)
        lines.append(_plain(f" Press {keymap.key_name('start', 'waiting')} to start{tail}", "bold"))
    else:
        lines.append(_plain(f" Waiting for {ui.director_name()} to start the game…"))
    return _with_footer(ui, lines + _chat_block(ui, width, height - len(lines) - 3), width, height)


def _watchers(ui: Console, width: int) -> list[Line]:
    """`Watching: Bob, Cat` under the seats, when anybody watches (chat.watchers_line)."""
    text = watchers_line(ui.room, width - 2, ui.as_name if ui.watching and ui.seat is None else None)
    return [cut(_plain(" " + text, "class:dim"), width)] if text else []


def _chat_block(ui: Console, width: int, rows: int) -> list[Line]:
    """The waiting room's last chat lines, in the rows left (none: nothing)."""
    if rows < 2 or not ui.chat:
        return []
    said = ui.chat[-(rows - 1):]
    return [_rule("Chat", width), *(cut(_plain(" " + x, "bold" if x.startswith("You ") else ""), width) for x in said)]


def connecting_screen(ui: Console, now: float, width: int, height: int) -> list[Line]:
    head = "lanmatch play" if ui.kind == "play" else f"lanmatch join · {ui.host_label or ''}"
    lines = [_title(head, ui.status_text(now) or keymap.words_of(ui, "quit", "connecting"), width), []]
    if ui.banner:
        lines.append(cut(_plain(" " + ui.banner, "class:dim"), width))
    lines.append(_plain(" Setting the table…" if ui.kind == "play" else " Connecting…"))
    return _with_footer(ui, lines, width, height)


def _yes(flag: Any) -> str:
    return "yes" if flag else "no"


def hosts_screen(ui: Console, now: float, width: int, height: int) -> list[Line]:
    lines = [_title("lanmatch join · hosts on your network", ui.status_text(now) or _everywhere(ui), width), []]
    heads = [("Host", "<", 8), ("Rooms", ">", 0), ("Free seats", ">", 0), ("Games", "<", 8), ("Password", "<", 0),
             ("Found", "<", 6)]
    rows = [[h.label, ui.host_rooms(h), h.free, ", ".join(game_title(g) for g in h.games.split(",") if g),
             _yes(h.password) if h.found == "mDNS" else "?", h.found] for h in ui.hosts]
    head, texts = grid(heads, rows, width)
    lines.append(_plain(head, "bold"))
    if not ui.hosts:
        lines.append(_plain("   Looking for hosts over mDNS… they appear here as they are found." if ui.browsing
                            else "   (not browsing: type an address below)", "class:dim"))
    for k, text in enumerate(texts):
        sel = k == ui.host_sel and not ui.address_focus
        lines.append(cut(_plain(f" {'▶' if sel else ' '} {text}", "class:sel" if sel else ""), width))
    lines.append([])
    field = ui.address_text + ("█" if ui.address_focus else "")
    lines.append(cut([("", " Or an address (HOST or HOST:PORT): "), ("class:field" + (" reverse" if ui.address_focus else ""),
                                                               f" {field:<24}")], width))
    return _with_footer(ui, lines, width, height)


def room_cells(r: dict[str, Any]) -> list[str]:
    """A room of the list, as the cells of its row."""
    clock = r.get("clock")
    return [
        str(r.get("name")),
        title_of(r.get("game", ""), r.get("table")) + (" · partners" if r.get("teams") else ""),
        f"{r.get('free', 0)}/{r.get('seats', 0)}",
        str(r.get("state", "")),
        "" if not clock else ("10 min" if clock >= 600 else _secs(float(clock))),
        f"coins {r['stake']}" if r.get("stake") else "practice",
        _yes(r.get("password")),
    ]


ROOM_HEADS = [("Room", "<", 8), ("Game", "<", 10), ("Free", ">", 0), ("State", "<", 0), ("Clock", "<", 0),
              ("Stake", "<", 0), ("Password", "<", 0)]


def rooms_screen(ui: Console, now: float, width: int, height: int) -> list[Line]:
    where = ui.host_label or "?"
    if ui.host_address:
        where += f" ({ui.host_address[0]}:{ui.host_address[1]})"
    lines = [_title(f"Rooms at {where}", ui.status_text(now) or _everywhere(ui), width)]
    account = ui.account_line()
    key = f" · host key {ui.host_key}" if ui.host_key else ""  # as `lanmatch host` prints it: compare them
    if len(account) + len(key) > width - 2:
        account = account.replace(": practice rooms only.", ".")
    lines.append(cut(_plain(" " + account + key, "class:dim"), width))
    head, texts = grid(ROOM_HEADS, [room_cells(r) for r in ui.rooms], width)
    lines.append(_plain(head, "bold"))
    if not ui.rooms:
        lines.append(_plain(f"   No rooms yet: create one ({keymap.key_name('new_room', 'rooms')}).", "class:dim"))
    for k, text in enumerate(texts):
        sel = k == ui.room_sel
        lines.append(cut(_plain(f" {'▶' if sel else ' '} {text}", "class:sel" if sel else ""), width))
    sel = ui.room_sel >= len(ui.rooms)
    lines.append(_plain(f" {'▶' if sel else ' '} + create a new room", "class:sel" if sel else ""))
    picked = ui.rooms[ui.room_sel] if not sel else {}
    chosen = options_on(str(picked.get("game", "")), picked.get("options"))
    if chosen:  # the selected room's house options, before sitting down (a play-test saw them only after)
        lines.append([])
        lines.append(cut(_plain(f" {picked.get('name')}: " + ", ".join(chosen), "class:dim"), width))
    return _with_footer(ui, lines, width, height)


FORM_LABEL_WIDTH = 27  # (the longest option title and a space)
FORM_LABELS = {"name": "Name", "game": "Game", "table": "Table", "seats": "Seats", "clock": "Move clock",
               "mode": "Mode", "stake": "Stake", "bots": "Bots", "password": "Password", "teams": "Partners", "create": ""}


def form_screen(ui: Console, now: float, width: int, height: int) -> list[Line]:
    f = ui.form
    lines = [_title(f"A new room at {ui.host_label or '?'}", ui.status_text(now) or keymap.words_of(ui, "form_back", "form"), width)]
    lines.append(cut(_plain(" " + ui.account_line(), "class:dim"), width))
    cur = f.current()
    for row in f.rows():
        sel = row == cur
        mark = "▶" if sel else " "
        if row == "create":
            lines.append([])
            lines.append(_plain(f" {mark} [ Create the room ]", "class:sel" if sel else "bold"))
            continue
        label = option_title(f.game, row[4:]) if row.startswith("opt:") else FORM_LABELS[row]
        value = f.value_text(row)
        if row in RoomForm.TEXT:
            value = value + ("█" if sel else "")
        elif row != "stake" or f.stakes:
            value = f"◀ {value} ▶" if sel else f"  {value}"
        else:
            value = f"  {value}"
        lines.append(cut(_plain(f" {mark} {label:<{FORM_LABEL_WIDTH}}{value}", "class:sel" if sel else ""), width))
    return _with_footer(ui, lines, width, height)


def _with_footer(ui: Console, lines: list[Line], width: int, height: int) -> list[Line]:
    """The screen's lines, then the key bar and the message (on two lines when it is long)."""
    said = textwrap.wrap(ui.message, max(10, width - 2))[:2] or [""]
    footer = [cut(_plain(" " + ui.keys_line(width - 2), "class:keys"), width),
              *(cut(_plain(" " + x, "class:msg"), width) for x in said)]
    body = lines[: max(0, height - len(footer))]
    return body + [[] for _ in range(height - len(body) - len(footer))] + footer


# ------------------------------------------------------------------ overlays


LOBBY_NAMES = {"hosts": "Hosts", "address": "An address", "rooms": "Rooms at a host", "form": "The new-room form",
               "waiting": "The waiting room"}


def help_lines(ui: Console) -> list[str]:
    """The help overlay: the keys (the key map's words), then the rules in
    brief (the game's `brief` and its table's)."""
    close = keymap.bar(ui, "help")[0]
    closing = close[:1].upper() + close[1:] + "."
    if ui.screen in ("hosts", "rooms", "form", "connecting"):
        out = [
            "The lobby",
            "",
            "Hosts on your network appear as they are found (mDNS); each is",
            "checked over TCP before it is listed; an address (HOST:PORT) works too.",
            "",
        ]
        for mode in keymap.LOBBY:
            out += wrap_items(f"{LOBBY_NAMES[mode] + ':':<19}", keymap.mode_words(ui, mode), 68)
        out += wrap_items(f"{'Everywhere:':<19}", [t for k, t in keymap.shown(ui, "hosts") if keymap.everywhere(k)], 68)
        out += [
            "",
            "The form sets the game, table, options, seats, clock, mode, stake,",
            "bots and password. A coin room (stake) needs your profile: every seat",
            "posts the stake at each deal, the winner takes the pot. Sitting down",
            "asks first; leaving a running coin game forfeits the stake plus a",
            "10% fee. The room's creator starts the game: bots fill empty seats.",
            "",
            closing,
        ]
        return out
    g = GAMES.get(ui.game)
    spec = ui.table_spec()
    pieces = ui.pieces()
    entries = keymap.help_entries(ui, pieces.moves(spec), {**pieces.words, "wild4": ui.words().sym("W+4")})
    keys = ["Keys"] + ["{}  {}".format(*e) for e in entries if len(e[0]) > 6]  # long ones alone, first
    left = None  # two columns of short keys; an entry too long for its column stands alone
    for e in (e for e in entries if len(e[0]) <= 6):
        text = "{:<6} {}".format(*e)  # (both columns' keys padded alike: their words line up)
        if left is None:
            left = text
        elif len(left) <= 39 and len(text) <= 39:
            keys.append(left.ljust(39) + " " + text)
            left = None
        else:
            keys.append(left)
            left = text
    if left is not None:
        keys.append(left)
    rules = list(g.brief if g is not None else ())
    if getattr(spec, "brief", ""):
        rules.append(spec.brief)
    p = keymap.key_name("pause")
    if ui.paused_by == "help":
        clocks = f"The clocks are stopped while this help is open ({p} pauses too)."
    elif ui.alone_with_bots():
        clocks = f"Alone with bots: {p} pauses the clocks; they stop while help is open."
    else:
        clocks = f"{p} pauses the clocks alone with bots; with people they run on."
    out = [*keys, clocks, "", "The rules in brief"]
    for text in rules:
        out += textwrap.wrap(text, 68)
    if g is not None:
        out += [f"Every rule of this table: {g.rules_doc(getattr(spec, 'name', None))}"]
    out += ["", closing]
    return out


def _box(title: str, body: list[Line], width: int) -> list[Line]:
    """A framed layer: `body`'s lines wrapped to fit `width` (never cut)."""
    body = [row for b in body for row in wrap(b, width - 3, indent=1)]
    inner = min(max([line_len(b) + 1 for b in body] + [len(title) + 4]), width - 2)
    title = title[: max(0, inner - 4)]
    out = [[("class:box", "┌─ " + title + " " + "─" * max(0, inner - len(title) - 3) + "┐")]]
    for b in body:
        out.append([("class:box", "│")] + pad(b, inner, "class:box.body") + [("class:box", "│")])
    out.append([("class:box", "└" + "─" * inner + "┘")])
    return out


def _compose(base: list[Line], box: list[Line], width: int, height: int) -> list[Line]:
    h = len(box)
    w = max(line_len(b) for b in box)
    top = max(1, (height - h) // 2)
    left = max(0, (width - w) // 2)
    out = list(base)
    for k, b in enumerate(box):
        r = top + k
        if r >= len(out):
            break
        cells = _cells(pad(out[r], width))
        bc = _cells(b)[: width - left]
        cells[left : left + len(bc)] = bc
        out[r] = _group(cells)
    return out


def _keys_of(ui: Console) -> Line:
    """The last line of a layer's box: the keys of the layer on top (the key map)."""
    return _plain(" " + " · ".join(keymap.bar(ui)), "class:dim")


def round_box(ui: Console, now: float | None, width: int, height: int) -> list[Line]:
    """The "round" layer: a Dominoes round's end, every rack with its pips and the points."""
    e = ui.round_end or {}
    w = Words(ui.table, ui.names(), ui.seat if ui.seat is not None else -1, True)
    body = [row for x in round_end_lines(e, w, width - 6, (ui.view or {}).get("target"))
            for row in wrap(ansi_fragments(" " + x), width - 4)]
    left = max(0.0, ui.round_until - now) if now is not None else 0.0
    body.append(_plain(f" Round {(ui.view or {}).get('round', '?')} is dealt: it shows in {left:.0f} s,"
                       f" or {keymap.bar(ui, 'round')[0]}.", "class:dim"))
    body = body[: max(1, height - 3)]
    return _box(f"Round {e.get('round', '?')} is over", body, width)


def overlay_box(ui: Console, width: int, height: int = 24, now: float | None = None) -> list[Line] | None:
    if ui.overlay == "round":
        return round_box(ui, now, width, height) if ui.round_shown(now) else None
    if ui.prompt is not None:
        p = ui.prompt
        room = max(10, width - 8)  # a long text shows its end, where the typing is
        value = p.value if p.secret or len(p.value) < room else "…" + p.value[-(room - 1):]
        shown = ("•" * len(value) if p.secret else value) + "█"
        return _box(p.title, [_plain(" " + shown + " " * 24), _keys_of(ui)], width)
    if ui.overlay == "help":
        lines = help_lines(ui)
        room = max(3, height - 3)  # the box's borders and the title bar
        if len(lines) > room:  # a short terminal: the keys first, the rules as far as they go
            lines = [*lines[: room - 2], f"… more in docs/rules/ · {keymap.bar(ui, 'help')[0]}", ""][:room]
        return _box("Help", [_plain(" " + x) for x in lines], width)
    if ui.overlay == "confirm_stake" and ui.pending is not None:
        room = ui.pending["room"]
        stake = room.get("stake") or 0
        verb = "Create" if ui.pending["what"] == "create" else "Join"
        body = [_plain(f" {verb} {room.get('name')} for a stake of {coins_words(stake)}?", "bold"),
                _plain(" Every seat posts the stake at each deal; the winner takes the pot."),
                _plain(f" Leaving a running game forfeits the stake plus a {LEAVING_FEE_PERCENT}% fee.")]
        if ui.balance is not None:
            body.append(_plain(f" You hold {coins_words(ui.balance)}."))
        body.append(_keys_of(ui))
        return _box("A coin room", body, width)
    if ui.overlay == "confirm_leave" and ui.coin_game():
        stake = (ui.room or {}).get("stake") or 0
        fee = leaving_fee(stake, ui.balance)
        return _box("Leave this coin game?", [
            _plain(f" Your stake of {coins_words(stake)} is forfeit, plus a fee of {coins_words(fee)}"
                   f" ({LEAVING_FEE_PERCENT}%)."),
            _plain(" A bot plays your seat from now on."),
            _keys_of(ui)], width)
    if ui.overlay == "confirm_leave" and ui.seat is None:  # a watcher: no seat to give up
        return _box("Stop watching?", [_plain(" Back to the room list; the game goes on without you."), _keys_of(ui)],
                    width)
    if ui.overlay == "confirm_leave":
        return _box("Leave the room?", [_plain(" Give your seat up? A bot plays it from now on."), _keys_of(ui)], width)
    if ui.overlay == "confirm_deal":
        away = ui.away()
        who = ", ".join(away) if away else "Someone"
        return _box("Deal without them?", [
            _plain(f" {who} {'is' if len(away) < 2 else 'are'} away: the connection dropped, and the seat waits"),
            _plain(" a minute for them to come back. Deal now and a bot plays it."), _keys_of(ui)], width)
    if ui.overlay == "host_gone":
        host = ui.host_label or "The host"
        body = [_plain(f" {host} has not answered for a minute: it stopped, or the network is down.", "bold")]
        if ui.seat is not None and ui.view is not None and ui.outcome is None:
            body.append(_plain(" Your seat is kept on this machine: if the host comes back, `lanmatch join`"))
            body.append(_plain(" takes you back to it."))
        body.append(_keys_of(ui))
        return _box(f"{host} is gone", body, width)
    if ui.overlay == "confirm_quit":
        friends = [str(x.get("name")) for x in (ui.room or {}).get("seats") or []
                   if isinstance(x, dict) and x.get("kind") == "person" and x.get("seat") != ui.seat]
        ends = (f" Leave? This console hosts the table: the game ends for {', '.join(friends)} too."
                if friends else " Leave the table? The game ends with you.")
        body = ([_plain(ends)] if ui.kind == "play" else
                [_plain(" Leave? Your seat stays yours: the clock plays it until you come back,"),
                 _plain(" and `lanmatch join` takes you back to it (this machine keeps its token).")])
        if ui.coin_game():
            body.append(_plain(" Your stake stays in the game: no fee, the clock plays for you."))
        return _box("Leave?", [*body, _keys_of(ui)], width)
    if ui.picker is not None:
        pk = ui.picker
        body = []
        for k, (hot, label, _intent) in enumerate(pk.options):
            sel = k == pk.sel
            hint = (f"{k + 1}" + (f"/{hot}" if hot else "")) if pk.numbered else hot
            body.append([("class:sel" if sel else "", f" {'▶' if sel else ' '} {hint:<4}")]
                        + ansi_fragments(label, "class:sel" if sel else ""))
        body.append(_keys_of(ui))
        return _box(pk.title, body, width)
    return None


# ------------------------------------------------------------------ the screen


SCREENS = {
    "table": table_screen,
    "waiting": waiting_screen,
    "connecting": connecting_screen,
    "hosts": hosts_screen,
    "rooms": rooms_screen,
    "form": form_screen,
}


def render_screen(ui: Console, now: float, width: int = 80, height: int = 24) -> list[Line]:
    """The whole screen: exactly `height` lines, none wider than `width`."""
    width = max(20, width)
    height = max(5, height)
    screen = ui.screen if not (ui.screen == "table" and ui.view is None) else "waiting"
    lines = SCREENS[screen](ui, now, width, height)
    lines = [cut(x, width) for x in lines[:height]] + [[] for _ in range(height - len(lines))]
    box = overlay_box(ui, width, height, now)
    if box is not None:
        lines = _compose(lines, box, width, height)
    return [[(style, shown(text)) for style, text in line] for line in lines]
